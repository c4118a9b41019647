"""A weekday in an answer is one a tool returned: a final-answer check.

Asked "2025年的元旦是星期几？", the 1.5B called ``current_date``, read today's weekday, and answered "2025-01-01 是星期一"
(a Wednesday); asked "Which weekday is the last day of this year?", it counted the days of the year and answered
"a Sunday" (a Tuesday). Five of eight weekday questions written for this check (none from the suite or its split)
were answered with a weekday no tool had given. The date tools print the weekday of every date they return
("2024-05-29 (Wednesday, 星期三)"). So ``weekday_found`` reads the (date, weekday) pairs of the run's results and sends
an answer back once when it names a day of the week that no result gives: for a date the answer names, if it names
one, else for any date. It asks for a look-up: a check that asks for a tool call is one the model can follow
(``comparison_check.py`` says why the others are not). Measured in docs/benchmarks.md.

Deliberately left out: dates written in words ("December 31"; ISO and 2025年1月1日 are read), abbreviations ("Mon"),
weekdays in other languages than English and Chinese, and an answer without a date whose weekday a result gives for
another date (today's, say).

    >>> class Run:
    ...     results, tools = ("Today is 2024-05-20 (Monday, 星期一)",), ("current_date", "weekday")
    >>> weekday_found(Run, "2025-01-01 是星期一。") is not None, weekday_found(Run, "今天是2024年5月20日，星期一。")
    (True, None)
    >>> sorted(weekdays("下周三和星期天，每周一次"))
    [2, 6]
"""
from __future__ import annotations

import re
from typing import Any

_ENGLISH = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_CHINESE = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_DATE = re.compile(r"(\d{4})(?:-|年)(\d{1,2})(?:-|月)(\d{1,2})日?")
_DAY = re.compile(r"\b(" + "|".join(_ENGLISH) + r")\b|(?:星期|礼拜|(?<!每)周)([一二三四五六日天])(?![次遍回])", re.I)


def weekdays(text: str) -> set[int]:
    """The days of the week ``text`` names, Monday as 0 ("周一" in "每周一次" is no Monday)."""
    return {_ENGLISH.index(m.group(1).lower()) if m.group(1) else _CHINESE[m.group(2)]
            for m in _DAY.finditer(text or "")}


def dates(text: str) -> list[str]:
    """The dates ``text`` names in ISO form or as 2025年1月1日, as YYYY-MM-DD."""
    return [f"{int(y):04d}-{int(m):02d}-{int(d):02d}" for y, m, d in _DATE.findall(text or "")]


def given(results: Any) -> set[tuple[str, int]]:
    """(date, weekday) for each date of a result followed by a weekday before the next date: "2024-04-15 (Monday"."""
    pairs = set()
    for result in results:
        marks = list(_DATE.finditer(result))
        for i, m in enumerate(marks):
            after = result[m.end():marks[i + 1].start() if i + 1 < len(marks) else len(result)][:40]
            pairs |= {(dates(m.group(0))[0], day) for day in weekdays(after)}
    return pairs


def weekday_found(context: Any, answer: str) -> str | None:
    """None if every weekday the answer names a result gives (for a date the answer names, if any); else a message."""
    pairs, named_dates = given(context.results), set(dates(answer))
    unfound = {day for day in weekdays(answer) if not any(
        d == day and (not named_dates or date in named_dates) for date, d in pairs)}
    if not unfound:
        return None
    named = " and ".join(_ENGLISH[d].capitalize() for d in sorted(unfound))
    how = ("Call weekday with that exact date (YYYY-MM-DD)" if "weekday" in getattr(context, "tools", ()) else
           "Look it up with a tool for that exact date")  # the course's date tool, when the run has it
    return (f"Your answer says {named}, but no tool result of this run gives that day of the week for the date asked "
            f"about. {how}, then answer from its result.")
