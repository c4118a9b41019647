"""Checking what a call was given: how many arguments, which keywords, and of what kind.

The listed functions and the methods share these checks, so every wrong call gets the same kind of message:
what the function takes, and what it got (``round(...) needs a number, not str``), never a Python traceback.

Deliberately left out: checking a tool's arguments; the registry does that against the tool's JSON Schema.

    >>> iterable((1, 2), "a for loop")
    (1, 2)
"""
from __future__ import annotations

from typing import Any

from .limits import ProgramError

ITERABLE = (list, tuple, str, range, dict)
NUMBER = (int, float)  # bool is an int, as in Python


def expect(name: str, args: list, kwargs: dict, least: int, most: int, keywords: tuple[str, ...] = ()) -> None:
    """Refuse a call with the wrong number of arguments or an unknown keyword, naming what fits."""
    extra = sorted(set(kwargs) - set(keywords))
    if extra or not least <= len(args) <= most:
        count = f"{least}" if least == most else f"{least} to {most}"
        also = f" (keywords: {', '.join(keywords)})" if keywords else ""
        raise ProgramError(f"{name}(...) takes {count} positional argument(s){also}; got {len(args)}"
                           + (f" and the keyword {extra[0]}" if extra else ""))


def strings(name: str, args: list) -> list[str]:
    if any(type(a) is not str for a in args):
        raise ProgramError(f"{name}(...) needs text arguments; convert with str(x)")
    return args


def iterable(value: Any, what: str) -> list | tuple | str | range | dict:
    """``value`` if a loop (or ``what``) can go through it: a list, tuple, string, range or dict (its keys)."""
    if type(value) not in ITERABLE:
        raise ProgramError(f"{what} needs a list, tuple, string, range or dict, not {type(value).__name__}")
    return value


def number(name: str, value: Any) -> int | float:
    if not isinstance(value, NUMBER):
        raise ProgramError(f"{name}(...) needs a number, not {type(value).__name__}; convert with int(x) or float(x)")
    return value
