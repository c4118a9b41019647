"""When the answer leaves out what the tools found, the model writes it again from the results alone.

Measured on the 1.5B (``handmade-agent eval``, the four comparisons of ``--limit 40``): after two weather look-ups
the loop's thought often named both values, and its final answer then gave one of them, or none, or the wrong
winner (compare 1/4). The same model asked afresh, shown only the question and what the tools returned, named both
sides more often (2/4). So ``answer_from_results``, an answer policy (``policies.py``) that the loop runs first while
``AgentConfig.results_answer`` is on, makes one more model call (purpose ``"answer"``) when the run's tools returned
two or more results and the answer gives a figure from fewer than two of them and none of its own. An answer with a
figure no result shows is left alone: asked for 24 °C in °F after a forecast and no conversion, the loop wrote
"75.2 °F" itself, and the answer from the results alone lost it. It keeps the loop's answer when that
call fails, gives up (``refusals.py``) where the loop's answer did not, states a figure that neither the question
nor a result shows, or sets two figures the wrong way round (``comparison_check.wrong_way``: asked which of 成都 25 °C
and 西安 29 °C is higher, the loop answered 西安 and the fresh call "25°C in Chengdu, which is higher than the 29°C").
The new answer is the model's; code only decides when to ask and whether to keep it.

Deliberately left out: asking again when a question that asks which of two sides is more is answered with both values
and no word of which ("The humidity of Guangzhou is 88%, and … Hangzhou is 92%.": it won ``compare-17`` and lost a
task of the held-out split, docs/benchmarks.md), asking after every run (a forecast converted to °F already cites both results, and each call
is one more prefill), showing the loop's thoughts (what the fresh call gains is not seeing them), and reading dates
apart from figures (a result's "2024-04-01" shows a 1, so "1 day earlier" counts as the results' figure).

    >>> cited("北京 27 °C, against 23 °C in 上海", ["北京: high 27 °C", "上海: high 23 °C", "广州: high 30 °C"])
    2
"""
from __future__ import annotations

import math
from typing import Any, Sequence

from ..llm import Message
from .comparison_check import wrong_way
from .figure_reading import near, figures, shows
from .refusals import refused

ANSWER_SYSTEM = (
    "Answer the user's question from the results below, which tools returned. Use only these results; give every "
    "figure you use with its unit; when the question compares, name both values and which one is higher. The tools "
    "have already run: write the answer itself, never which tool you would use. Answer in the language of the "
    "question, in one or two sentences. If the results do not answer the question, say that you cannot answer it "
    "with your tools.")


def results_messages(question: str, results: Sequence[str]) -> list[Message]:
    """The answering call's conversation: the rules, then the question and one line per result."""
    lines = "\n".join(f"- {r}" for r in results)
    return [Message("system", ANSWER_SYSTEM), Message("user", f"Question: {question}\n\nResults:\n{lines}")]


def grounded(answer: str, sources: str) -> bool:
    """Does ``sources`` show every figure of ``answer``?"""
    return all(shows(x, sources) for x in figures(answer))


def cited(answer: str, results: Sequence[str]) -> int:
    """How many of ``results`` the answer gives at least one figure of."""
    said = [x for x in figures(answer) if math.isfinite(x)]
    ordered, exact = sorted(said), set(said)

    def said_of(y: float) -> bool:  # does the answer give a figure that ``y`` shows? (``shows`` turned round)
        return math.isfinite(y) and (round(y) in exact or round(y, 1) in exact or near(ordered, y))
    return sum(any(said_of(y) for y in figures(r)) for r in results)


def answer_from_results(context: Any, answer: str) -> str | None:
    """An answer policy (see the module docstring); None keeps ``answer``."""
    sources = "\n".join([context.question, *context.results])
    if len(context.results) < 2 or cited(answer, context.results) >= 2 or not grounded(answer, sources):
        return None
    c = context.ask(results_messages(context.question, context.results), purpose="answer", max_tokens=160)
    new = (c.text or "").strip() if c is not None else ""
    if not new or (refused(new) and not refused(answer)) or not grounded(new, sources) or wrong_way(new):
        return None
    return new
