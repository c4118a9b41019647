"""An answer states only figures the run found: a final-answer check (``policies.py``).

After at least one tool result, every figure of the answer must be one that a tool returned in this run, one the model
gave a tool that then ran (the "86 * 0.18" it asked the calculator for), or one the question gave (as written, or
rounded to a whole number or one decimal: ``results_answer.shows``; a percentage also as a fraction, 18 % as 0.18). A figure from
anywhere else (the model's own conversion, a difference it worked out in its head, a day count it restated) sends
the answer back once, naming the figures; the repair is the model's: call the tool that computes the figure, or
answer with the figures it has. Traced on the 1.5B before this check: "19 °C, which is 64.4 °F" with no conversion
call, a day count restated as another number than the tool's, "how much warmer" answered with a figure no tool gave.
Measured on all 76 suite tasks (2026-12-06, the 1.5B, added to the default checks): it sent 3 answers back and lost
two right °F conversions the model had made in its head (forecasts 7/9 → 5/9: the repair dropped the figure or
answered nothing; a variant that forced the next step to call a tool was dropped: it called the weather tool
again). So it is no default
check; chapter 09's reflection reads whole runs with ``unfound`` (docs/benchmarks.md).

Deliberately left out: runs without a tool result (an answer from the model's own knowledge has nothing to be
checked against), figures glued to letters (H2O, T4: names, not quantities), and whether a figure is used for the
right thing (``comparison_check.py`` asks that of comparisons).

    >>> class Run:
    ...     question, results, inputs = "What is 17% of 2350?", ("399.5",), ('{"expression": "2350 * 0.17"}',)
    >>> figures_found(Run, "2350 * 0.17 = 399.5."), figures_found(Run, "It is 500.") is not None
    (None, True)
"""
from __future__ import annotations

import math
import re
from typing import Any

from .figure_reading import shows

# a figure that stands alone: not part of a name such as H2O, T4 or E-17
_FIGURE = re.compile(r"(?<![A-Za-z\d.\-])-?\d+(?:\.\d+)?(?![A-Za-z]?\d)(?![A-Za-z])|(?<=[^\x00-\x7f])-?\d+(?:\.\d+)?")


def unfound(answer: str, sources: str) -> list[str]:
    """The figures of ``answer`` (as written) that ``sources`` does not show."""
    text = (answer or "").replace(",", "").replace("，", "")
    out = []
    for m in _FIGURE.finditer(text):
        x = float(m.group())
        if math.isfinite(x) and not (shows(x, sources) or shows(round(x * 100, 6), sources)) and m.group() not in out:
            out.append(m.group())
    return out


def figures_found(context: Any, answer: str) -> str | None:
    """None if every figure of ``answer`` is the question's or a tool result's; else what to do about the others."""
    if not context.results:
        return None
    missing = unfound(answer, "\n".join([context.question, *context.results, *getattr(context, "inputs", ())]))
    if not missing:
        return None
    listed = ", ".join(missing[:4])
    return (f"Your answer states {listed}, which no tool returned in this run and the question does not give. "
            "State only figures from the results above or the question. If the answer needs a new figure (a "
            "conversion, a difference, a total), call the tool that computes it first; then give the Final Answer.")

