"""A comparison rests on a look-up of each side, of the same quantity, the right way round: two final-answer checks.

``both_sides`` (a default check, ``DEFAULT_CHECKS``): when the question and the answer both compare ("Is it hotter
in 杭州 or in 北京?", "哈尔滨明天会比今天暖和吗？") and every figure of the answer comes from one tool result, the run looked
up one side only; the answer goes back once, quoting that call's input and result, and the model looks up the other
side. (The answer must compare too: a plan's step question quotes earlier findings, "higher than today", while its
answer, a conversion, rightly rests on one result.) Traced on the 1.5B before it: one city looked up and the other's
forecast written into a thought, "tomorrow" answered with today's low and high. Measured on all 76 suite tasks
(2026-12-07, the 1.5B, one run against the run without it of 2026-12-06): it sent 3 answers back, all comparisons,
and 2 came back right (compare 2/8 → 4/8, the suite 54 → 56/76, no other task changed) at 1.05× the
prompt tokens per task; on the held-out test split it sent 1 back and the score stayed 38/62
(docs/results/both_sides.jsonl). Dates are no figures of a side ("2024-05-20" shows no 20 °C), and a figure that is
the difference of the two sides' figures counts as resting on both: "24 °C, which is 1 °C higher than 上海 today"
after highs of 24 and 23 °C was sent back, and the retry answered the wrong way (notebook 03, 2026-12-07).

``like_with_like``: the answer must give, from two results, the value of the same quantity (a high against a high,
a chance of rain against a chance of rain; each clause of a result, "high 30 °C", names its figures), and a sentence
that sets one figure against another ("25 °C is higher than 29 °C", "25°C，比西安的29°C高") must put them the way the
figures go. Measured on all 76 suite tasks (2026-12-06, with ``figure_check``): it sent 6 answers back and
comparisons stayed at 2/8; the model wrote the same answer again. So it is no default check; chapter 09's
reflection reads whole runs with ``same_quantity`` and ``wrong_way`` (docs/benchmarks.md). The difference: the one
that works asks for a tool call, which the model makes; the other asks it to reason again, which it cannot.

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

from .figure_reading import figures, shows

_COMPARES = re.compile(r"\b(?:warmer|hotter|colder|cooler|higher|lower|wetter|drier|more|less|which|compared?|than|"
                       r"difference)\b|比|哪个|哪天|哪里|哪座|更|还是", re.I)
# a comparative, not just "which" or "more": the one-side check must not read "which weekday" as a comparison
_COMPARATIVE = re.compile(r"\b(?:warmer|hotter|colder|cooler|wetter|drier|rainier|higher|lower|than|compared?|"
                          r"(?:more|less) (?:humid|likely)|difference)\b|比|更|哪边|哪天", re.I)
_DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}")  # a date's digits are no figure of a side ("2024-05-20" shows no 20 °C)
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


def both_sides(context: Any, answer: str) -> str | None:
    """A final-answer check: a comparison whose figures all come from one result, or that gives no figure after a
    single look-up, has looked up one side only."""
    said = figures(_DATE.sub(" ", answer))
    # the answer must compare too: a plan's step question quotes earlier findings ("higher than today"), and its
    # answer, a conversion, rightly rests on one result (notebook 09)
    if not (_COMPARATIVE.search(context.question) and _COMPARATIVE.search(answer)):
        return None
    results = [_DATE.sub(" ", r) for r in dict.fromkeys(context.results)]
    if not said and len(results) == 1:  # one look-up, then "it is not possible to determine" (compare-52)
        sources = results
    else:
        sources = [r for r in results if any(shows(x, r) for x in said)]
        if len(said) < 2 or len(sources) != 1 or difference(said, sources[0], [r for r in results if r != sources[0]]):
            return None
    source = next(r for r in dict.fromkeys(context.results) if _DATE.sub(" ", r) == sources[0])
    given = dict(zip(context.results, context.inputs)).get(source, "")
    found = "all its figures come from one result" if said else "the run looked up one side only"
    return (f"Your answer compares two sides, but {found} (the call with input {given}): {source}\n"
            "Look up the other side with a tool, then give the Final Answer.")


def difference(said: list[float], source: str, others: list[str]) -> bool:
    """Is a figure of the answer that ``source`` does not show the difference of one of its figures and another
    result's ("24 °C, 1 °C higher than 上海" after highs of 24 and 23 °C)? Then the answer rests on both sides."""
    mine = figures(source)
    return any(abs(abs(a - b) - x) < 0.051 for x in said if not shows(x, source)
               for a in mine for other in others for b in figures(other))
