"""A comparison rests on both sides' values, of the same quantity, the right way round: a final-answer check.

When the question compares ("Which is warmer, 北京 or 上海?", "明天上海和广州哪个更可能下雨？") and the run's tools returned
results for two sides, the answer must give, from two results, the value of the same quantity: a high against a high, a
chance of rain against a chance of rain. A result's
quantities are read by code: each clause of a result ("high 30 °C", "humidity 88%") names the figures in it. And in any answer, a sentence that sets one figure against another
("25 °C is higher than 29 °C", "25°C，比西安的29°C高") must put them the way the figures go. Either failure sends the
answer back once with what is missing; choosing the values and the winner stays the model's. Seen on the 1.5B
before this check: 北京's high set against 上海's low, "more humid" with no figure, "25 °C, higher than 29 °C".
Measured on all 76 suite tasks (2026-12-06, the 1.5B, added to the default checks with ``figure_check``): it sent 6
answers back and comparisons stayed at 2/8; the model wrote the same answer again. So it is no default check;
chapter 09's reflection reads whole runs with ``same_quantity`` and ``wrong_way`` (docs/benchmarks.md).

Deliberately left out: comparisons of more than two sides, negations ("not warmer"), comparisons split over two
sentences, and which side the answer names the winner (the evaluation's ``comparison.py`` checks that against the
expected answer; the agent has no expected answer).

    >>> results = ("A: low 17 °C, high 25 °C", "B: low 20 °C, high 29 °C")
    >>> same_quantity("B is warmer: 29 °C against 25 °C.", results), same_quantity("B: 29 °C, A: 17 °C", results)
    (True, False)
"""
from __future__ import annotations

import re
from typing import Any, Sequence

from .results_answer import figures

_COMPARES = re.compile(r"\b(?:warmer|hotter|colder|cooler|higher|lower|wetter|drier|more|less|which|compared?|than|"
                       r"difference)\b|比|哪个|哪天|哪里|哪座|更|还是", re.I)
_CLAUSE = re.compile(r"[,;:，；：、]")
_SENTENCE = re.compile(r"(?<!\d)\.(?!\d)|[。!?！？;；\n]")
_MORE = re.compile(r"\b(?:higher|warmer|hotter|more|greater|larger|wetter|rainier)\b|高|热|暖|大|多", re.I)
_LESS = re.compile(r"\b(?:lower|colder|cooler|less|smaller|drier)\b|低|冷|凉|小|少", re.I)
_NOT_COMPARATIVE = re.compile(r"最高|最低|\bhighs?\b|\blows?\b", re.I)  # 最高气温, "its high": a figure's name
_THAN = re.compile(r"\bthan\b|比", re.I)


def quantities(result: str) -> list[tuple[str, float]]:
    """(name, figure) of each figure of a result; the name is its clause without figures ("high °c")."""
    out = []
    for clause in _CLAUSE.split(result):
        name = re.sub(r"\s+", " ", re.sub(r"-?\d+(?:\.\d+)?", " ", clause)).strip().lower()
        out += [(name, x) for x in figures(clause)]
    return out


def same_quantity(answer: str, results: Sequence[str]) -> bool:
    """Does ``answer`` give, for two different results, a figure of the same name?"""
    said = figures(answer)
    sides: dict[str, set[str]] = {}
    for result in dict.fromkeys(results):  # a repeated call's result is one side, not two
        for name, x in quantities(result):
            if any(abs(x - y) < 0.051 or round(x) == y for y in said):
                sides.setdefault(name, set()).add(result)
    return any(len(found) >= 2 for found in sides.values())


def wrong_way(answer: str) -> tuple[float, float] | None:
    """(a, b) of a sentence that says a is higher than b while a <= b (or lower while a >= b), else None."""
    for sentence in _SENTENCE.split(answer or ""):
        plain = _NOT_COMPARATIVE.sub(lambda m: " " * len(m.group()), sentence)
        than = _THAN.search(plain)
        more, less = bool(_MORE.search(plain)), bool(_LESS.search(plain))
        if not than or more == less:
            continue
        left, right = figures(plain[:than.start()]), figures(plain[than.end():])
        if left and right and ((more and left[-1] <= right[0]) or (less and left[-1] >= right[0])):
            return left[-1], right[0]
    return None


def like_with_like(context: Any, answer: str) -> str | None:
    """None if the answer compares soundly (or is no comparison); else what to fix."""
    if (pair := wrong_way(answer)) is not None:
        a, b = (f"{x:g}" for x in pair)
        return (f"Your answer sets {a} against {b} the wrong way round: {a} is "
                f"{'lower' if pair[0] < pair[1] else 'not lower'} than {b}. Read both values again, then give the "
                "Final Answer.")
    if len(set(context.results)) < 2 or not _COMPARES.search(context.question) or same_quantity(answer, context.results):
        return None
    return ("Your answer does not set the same quantity side by side. For each side, give the value of the same "
            "quantity from the results above (a high against a high, a chance of rain against a chance of rain), "
            "then say which is higher.")
