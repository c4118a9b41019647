"""Values as text, the way ``print`` and ``str`` show them, and the capped output a program prints into.

``text_of`` writes what ``str(value)`` would, but stops once it has more than ``limit`` characters: a list
holding one 20,000-character string ten thousand times would be 200 million characters as Python's own
``str``, and is never built here. It recurses into nested values, refusing ones deeper than ``max_depth``
(a list that contains itself is one).

Deliberately left out: pretty-printing (indentation, wrapping); the model reads plain Python text best.

    >>> text_of({"city": "厦门", "highs": [27, 28.5], "ok": True}, 100)
    "{'city': '厦门', 'highs': [27, 28.5], 'ok': True}"
    >>> text_of(["abc"] * 1000, 12)
    "['abc', 'abc'"
"""
from __future__ import annotations

from typing import Any

from .limits import ProgramError


def text_of(value: Any, limit: int, max_depth: int = 100, quote: bool = False) -> str:
    """``str(value)`` (``repr`` with ``quote``), cut to ``limit + 1`` characters, so a caller can tell that it
    was longer than ``limit``."""
    parts: list[str] = []
    size = 0

    def put(text: str) -> None:
        nonlocal size
        if size <= limit:
            parts.append(text[: limit + 1 - size])
        size += len(text)

    def walk(v: Any, depth: int) -> None:
        if depth > max_depth:
            raise ProgramError(f"a value is nested more than {max_depth} levels deep to show as text")
        kind = type(v)
        if kind in (list, tuple):
            put("[" if kind is list else "(")
            for i, item in enumerate(v):
                if size > limit:
                    return
                put(", " if i else "")
                walk(item, depth + 1)
            put("]" if kind is list else ",)" if len(v) == 1 else ")")
        elif kind is dict:
            put("{")
            for i, (key, item) in enumerate(v.items()):
                if size > limit:
                    return
                put(", " if i else "")
                walk(key, depth + 1)
                put(": ")
                walk(item, depth + 1)
            put("}")
        elif kind is str and depth == 0 and not quote:
            put(v)
        else:  # str inside a container, numbers, True/False/None, range: Python's repr is short and safe
            put(repr(v))

    walk(value, 0)
    return "".join(parts)


def show(value: Any, limit: int = 60) -> str:
    """A value as Python would write it in code, short enough for an error message."""
    text = text_of(value, limit, quote=True)
    return text if len(text) <= limit else text[:limit] + "..."


def shorten(text: str, limit: int = 300) -> str:
    """``text`` for an error message: at most ``limit`` characters, saying how much was left out."""
    return text if len(text) <= limit else text[:limit] + f"...[{len(text) - limit:,} more characters]"


class Output:
    """What the program printed, kept to ``limit`` characters; past that a note says the rest was cut."""

    def __init__(self, limit: int):
        self.limit = limit
        self.parts: list[str] = []
        self.size = 0
        self.cut = False

    def write(self, text: str) -> None:
        if self.cut:
            return
        room = self.limit - self.size
        if len(text) > room:
            text, self.cut = text[:room], True
        self.parts.append(text)
        self.size += len(text)

    def room(self) -> int:
        return max(0, self.limit - self.size)

    def text(self) -> str:
        note = f"\n[output cut: the program printed more than {self.limit:,} characters]" if self.cut else ""
        return "".join(self.parts) + note
