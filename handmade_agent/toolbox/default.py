"""Ready tools for the notebooks and the agent: calculator, dates, weather, temperature conversion.

Every tool here is deterministic once its inputs are fixed: the date tools
read an injectable clock (``default_registry(today=date(2024, 5, 20))``) and
the weather comes from the fixed table ``data/weather.json``, so a notebook
gives the same answers every time it runs. The calculator's safe evaluator
lives in ``arithmetic.py``, the date arithmetic in ``dates.py``, the weather in ``weather.py``,
the temperature conversion in ``conversions.py``; this module puts them in one registry.

Deliberately left out: live data (real weather, web search). A tool that
reaches the network is written the same way; only its output varies.

    >>> default_registry(today=datetime.date(2024, 5, 20)).call("add_days", {"date": "today", "days": 150}).content
    '2024-05-20 + 150 days = 2024-10-17 (Thursday, 星期四)'
"""
from __future__ import annotations

import datetime
from typing import Callable

from ..tools import Tool, ToolRegistry, tool
from .arithmetic import evaluate, format_number
from .conversions import convert_temperature
from .dates import Clock, make_date_tools
from .weather import get_weather


@tool(broad=True)  # a word problem does not read like "an arithmetic expression" (agent/tool_fit.py)
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression exactly. Supports + - * / // % ** (or ^), parentheses,
    sqrt, log, exp, sin, cos, tan, factorial, round, abs, min, max and the constants pi and e.

    Args:
        expression: The arithmetic expression, e.g. "2 * (3 + 4) ** 2" or "sqrt(16) + 1".
    """
    return format_number(evaluate(expression))


# The date tools on the computer's clock; default_registry(today=...) builds a set on a fixed one.
current_date, add_days, days_between, weekday = make_date_tools()


def default_registry(today: datetime.date | Clock | None = None,
                     approve: Callable[[Tool, dict], bool] | None = None) -> ToolRegistry:
    """All ready tools in one registry. ``today`` fixes the clock (a date, or a function returning one)."""
    return ToolRegistry([calculator, *make_date_tools(today), get_weather, convert_temperature], approve=approve)
