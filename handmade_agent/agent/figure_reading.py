"""Reading figures in text: the numbers an answer or a tool result gives, and whether a source shows a figure.

Every check on a final answer reads figures the same way (``results_answer``, ``figure_check``, ``comparison_check``,
``unit_check``): a number with an optional sign and decimals, thousands separators dropped, and a figure counts as
shown when the source gives it as is, or rounded to a whole number or one decimal.

Deliberately left out: words for numbers ("twelve", "十二"), fractions, and units (each check reads its own).

    >>> figures("1,250 dollars, 20% off: 1000")
    [1250.0, 20.0, 1000.0]
    >>> shows(75.2, "24 °C = 75.2 °F"), shows(75, "24 °C = 75.2 °F"), shows(76, "24 °C = 75.2 °F")
    (True, True, False)
"""
from __future__ import annotations

import bisect
import math
import re
from functools import lru_cache
from typing import Callable

_NUMBER = re.compile(r"(?<![\d.])-?\d+(?:\.\d+)?")


def figures(text: str) -> list[float]:
    """The numbers in ``text`` (thousands separators dropped)."""
    return [float(x) for x in _NUMBER.findall((text or "").replace(",", "").replace("，", ""))]


def shows(x: float, source: str) -> bool:
    """Does ``source`` show the figure ``x``, as given or rounded to a whole number or one decimal?"""
    return _shown_in(source)(x)


@lru_cache(maxsize=8)  # a check asks about one run's sources many times over
def _shown_in(source: str) -> Callable[[float], bool]:
    """``shows(·, source)``, with the source's figures read once for every figure asked about, not once per figure
    (8,000 figures took 57 s). It answers as the plain reading does; a figure too large for a float shows nothing."""
    ys = [y for y in figures(source) if math.isfinite(y)]
    ordered, rounded = sorted(ys), {round(y) for y in ys} | {round(y, 1) for y in ys}
    return lambda x: x in rounded or near(ordered, x)


def near(ordered: list[float], v: float) -> bool:
    """Is a number of the sorted ``ordered`` within 0.051 of ``v``? (only the nearest on each side can be)"""
    i = bisect.bisect_left(ordered, v)
    return any(abs(v - y) < 0.051 for y in ordered[max(i - 1, 0):i + 1])
