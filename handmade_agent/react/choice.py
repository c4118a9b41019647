"""Which worked examples a question gets: the ones that look most like it.

A small model copies its worked examples far more than it reads tool descriptions. Shown only a
weather comparison, it calls the weather tool for "what weekday is 2025-12-25?"; shown how to
add days to a date, it adds days when asked how many days lie between two dates. So the agent
does not send one fixed set: ``choose_examples(question, tools)`` scores every toolbox example
whose tools the registry has and sends the best two. The score adds two overlaps of character
pairs (bigrams; they work for Chinese without a tokenizer, and digits count as one symbol so
dates and prices match each other): the question against the example's question, and the
question against the name and description of the tool the example calls first. An example that
passes a day ("today", "tomorrow") the question does not name gives way to the best example in the
same script that calls the same tools and does not (one in the other script cost more than it gained):
handed "兰州明天和拉萨今天…", the 1.5B looked up the second city for today (suite task ``compare-19``). It did not
fix notebook 09's step "Get tomorrow's weather in 上海", whose prompt carries the plan's words as well: that step
still looks up today (docs/benchmarks.md). At most one chosen example has several calls. Before them (farthest
from the question) go the closest example of
``NO_TOOL`` (answered without a tool) and of ``REFUSED`` (refused: no tool gives the facts), about 40 tokens
each, never without a tool example; a question's prompt stays within 950 tokens.

Measured on the evaluation suite (``benchmarks``/README), the chosen pair beat the fixed one; the
cost is a prompt prefix that differs between kinds of question (each is cached on disk once seen).

Deliberately left out: embeddings (chapter 06 builds them; this chapter needs no model for it),
and choosing among the tool-agnostic ``GENERIC`` examples (they are sent when nothing here fits).

    >>> sorted(bigrams("Hi 2024"))
    ['00', 'hi', 'i0']
    >>> sorted(days_named("明天上海和今天北京")), days_named("Get tomorrow's weather")
    (['today', 'tomorrow'], {'tomorrow'})
"""
from __future__ import annotations

import re
from typing import Any, Sequence

from .examples import NO_TOOL, REFUSED, Example, example_pool, usable


def bigrams(text: str) -> set[str]:
    """The set of adjacent character pairs, lower-cased, spaces dropped, every digit as ``0``."""
    t = re.sub(r"\d", "0", re.sub(r"\s+", "", (text or "").lower()))
    return {t[i:i + 2] for i in range(len(t) - 1)}


def _overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / (len(a | b) or 1)


_CJK = re.compile(r"[\u4e00-\u9fff]")
_DAYS = {"today": re.compile(r"\btoday|\btonight|今天|今日|今晚", re.I), "tomorrow": re.compile(r"\btomorrow|明天|明日", re.I)}


def days_named(question: str) -> set[str]:
    """The relative days a question names: a subset of {"today", "tomorrow"}."""
    return {day for day, pattern in _DAYS.items() if pattern.search(question or "")}


def other_day(example: Example, days: set[str]) -> bool:
    """Does the example pass a day the question does not name (when the question names one)?"""
    passed = {v for c in example.calls for v in c.args.values() if isinstance(v, str) and v in _DAYS}
    return bool(days) and not passed <= days


def choose_examples(question: str, tools: Sequence[Any], n: int = 2,
                    pool: Sequence[Example] | None = None, no_tool: bool = True) -> list[Example]:
    """The ``n`` examples of ``pool`` (default: the toolbox's and those the tools bring) that fit ``tools``
    and look most like ``question`` (best first)."""
    pool = example_pool(tools) if pool is None else pool
    described = {t.name: bigrams(t.name.replace("_", " ") + " " + (t.description or "").split("\n")[0]) for t in tools}
    q, days = bigrams(question), days_named(question)
    fit = [e for e in pool if usable(e, list(tools)) and e.calls]
    ranked = sorted(fit, key=lambda e: -(_overlap(q, bigrams(e.question)) + _overlap(q, described[e.calls[0].tool])))
    ranked = list({id(e): e for e in (_same_day(e, ranked, days) for e in ranked)}.values())
    chosen: list[Example] = []
    for e in ranked:  # at most one example of several calls: two of them cost ~700 tokens, over the budget
        if len(chosen) < n and not (len(e.calls) > 1 and any(len(c.calls) > 1 for c in chosen)):
            chosen.append(e)
    if not chosen or not no_tool:
        return chosen
    # farthest from the question: one answered without a tool, one refused (about 40 tokens each)
    return [*chosen, *(max(group, key=lambda e: _score(q, e)) for group in (NO_TOOL, REFUSED))]


def _same_day(example: Example, ranked: list[Example], days: set[str]) -> Example:
    """``example``, or the first of ``ranked`` in the same script that calls the same tools in the same order on
    the question's day when ``example`` passes another."""
    if not other_day(example, days):
        return example
    kin = ([c.tool for c in example.calls], chinese(example.question))
    return next((e for e in ranked if ([c.tool for c in e.calls], chinese(e.question)) == kin
                 and not other_day(e, days)), example)


def chinese(text: str) -> bool:
    """Written in Chinese: more Chinese characters than Latin letters ("厦门 or 青岛: where ...?" is English)."""
    return len(_CJK.findall(text)) > len(re.findall(r"[A-Za-z]", text))


def _score(q: set[str], example: Example) -> float:
    """Bigram overlap of the question with the example's, plus a little when both are written in the same script."""
    same_script = (_CJK.search("".join(q)) is None) == (_CJK.search(example.question) is None)
    return _overlap(q, bigrams(example.question)) + 0.01 * same_script
