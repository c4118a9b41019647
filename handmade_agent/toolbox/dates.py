"""Date tools with an injectable clock: current date, add days, days between two dates, weekday.

Models are bad at calendar arithmetic ("what weekday is it 150 days after
2024-05-20?") and do not know today's date; these tools do both exactly.
The clock is a parameter so that a notebook written on one day gives the same
answers on every other day: ``make_date_tools(today=datetime.date(2024, 5, 20))``.
Dates are read as ISO ``2024-05-20``, ``2024/5/20``, ``2024年5月20日`` or the words
today/tomorrow/yesterday (今天/明天/昨天/后天/前天), relative to the clock.

Deliberately left out: time zones and times of day.

    >>> parse_date("2024年5月20日", datetime.date(2000, 1, 1))
    datetime.date(2024, 5, 20)
"""
from __future__ import annotations

import datetime
import re
from typing import Callable

from ..errors import ToolError
from ..tools import Tool, tool

Clock = Callable[[], datetime.date]

WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
WEEKDAYS_ZH = ["星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日"]
_RELATIVE = {"today": 0, "now": 0, "tomorrow": 1, "yesterday": -1,
             "今天": 0, "今日": 0, "明天": 1, "昨天": -1, "后天": 2, "前天": -2}
_DATE = re.compile(r"^(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})\s*日?$")


def as_clock(today: datetime.date | Clock | None) -> Clock:
    """A clock from a fixed date, a function, or None (the real clock)."""
    if today is None:
        return datetime.date.today
    if isinstance(today, datetime.date):
        fixed = today.date() if isinstance(today, datetime.datetime) else today
        return lambda: fixed
    return today


def parse_date(text: str, today: datetime.date) -> datetime.date:
    """A date from ISO/Chinese text or a relative word; ToolError saying how to write it otherwise."""
    cleaned = text.strip().lower()
    if cleaned in _RELATIVE:
        return today + datetime.timedelta(days=_RELATIVE[cleaned])
    match = _DATE.match(cleaned)
    if match:
        try:
            return datetime.date(*(int(g) for g in match.groups()))
        except ValueError as e:
            raise ToolError(f"{text!r} is not a real date ({e})") from None
    raise ToolError(f"cannot read the date {text!r}; write it as YYYY-MM-DD (e.g. 2024-05-20) or 'today'")


def show(day: datetime.date) -> str:
    """'2024-10-17 (Thursday, 星期四)'"""
    return f"{day.isoformat()} ({WEEKDAYS[day.weekday()]}, {WEEKDAYS_ZH[day.weekday()]})"


def make_date_tools(today: datetime.date | Clock | None = None) -> list[Tool]:
    """The four date tools, reading ``today`` as their clock (None: the computer's clock)."""
    clock = as_clock(today)

    @tool
    def current_date() -> str:
        """Today's date and weekday. Use it whenever a question depends on what day it is."""
        return show(clock())

    @tool
    def add_days(date: str, days: int) -> str:
        """Add days to a date: the new date and its weekday. Negative days subtract.

        Args:
            date: A date as YYYY-MM-DD, or "today".
            days: How many days to add, e.g. 150 or -7.
        """
        start = parse_date(date, clock())
        try:
            result = start + datetime.timedelta(days=days)
        except OverflowError:
            raise ToolError(f"{days} days from {start} falls outside the years 1-9999") from None
        return f"{start.isoformat()} {'+' if days >= 0 else '-'} {abs(days)} days = {show(result)}"

    @tool
    def days_between(start: str, end: str) -> str:
        """Count the days from one date to another. Negative if end is before start.

        Args:
            start: The first date, YYYY-MM-DD or "today".
            end: The second date, YYYY-MM-DD or "today".
        """
        first, second = parse_date(start, clock()), parse_date(end, clock())
        return f"From {first.isoformat()} to {second.isoformat()} is {(second - first).days} days"

    @tool
    def weekday(date: str) -> str:
        """The day of the week of a date.

        Args:
            date: A date as YYYY-MM-DD, or "today".
        """
        day = parse_date(date, clock())
        return f"{day.isoformat()} is a {WEEKDAYS[day.weekday()]} ({WEEKDAYS_ZH[day.weekday()]})"

    return [current_date, add_days, days_between, weekday]
