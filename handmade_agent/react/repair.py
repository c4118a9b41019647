"""Repairing what a model wrote as arguments: near-JSON and call syntax into Python values, when unambiguous.

Small models write "JSON" with single quotes, trailing commas, Python literals
(``True``/``None``), unquoted keys, curly quotes, a missing closing brace, or
as a call ``get_weather(city="北京")``. Each helper here returns a value or
``None`` ("could not read it"); none of them raises, so the parser that uses
them can promise to raise only ``FormatError``. Fitting the repaired value to a
tool's parameters is the tools chapter's job (``tools/arguments.py``).

Deliberately left out: guessing. Text that could mean two things (two
positional arguments, prose around half an object) is not "repaired".

    >>> loads_lenient("{'city': '北京', 'days': 2,}")
    {'city': '北京', 'days': 2}
"""
from __future__ import annotations

import ast
import json
import re
from typing import Any

MAX_ARG_CHARS = 20_000  # longer "arguments" are not arguments; refusing keeps every call cheap
_FENCE = re.compile(r"^[ \t]*```[\w+-]*[ \t]*$", re.M)
_CURLY = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'"})
_CALL = re.compile(r"^\s*([^\W\d][\w.\-]*)\s*\((.*)\)\s*$", re.S)
_WORD = re.compile(r"[^\W\d]\w*")


def strip_fences(text: str) -> str:
    """Remove markdown code-fence lines (```json ... ```), keeping what is inside."""
    return _FENCE.sub("", text).strip()


_SPECIAL = re.compile(r"[\"'\\{}\[\]]")  # the only characters _scan must look at
_OPENERS = re.compile(r"[{\[]")
MAX_STARTS = 50  # a reply with fifty unbalanced brackets holds no argument worth rescuing
SCAN_BUDGET = 2 * MAX_ARG_CHARS  # characters find_object may walk in all, so a flood of brackets stays cheap


def _scan(text: str, start: int, stop: int) -> tuple[int, list[str], int]:
    """Walk from ``text[start]`` (an opening bracket) to its match, skipping quoted strings.

    Returns (end index after the match, -1 if unbalanced, or -2 if ``stop`` came first; the closers
    still missing at the end of the text; where the walk ended). Plain characters are skipped by a regex.
    """
    stack: list[str] = []
    quote, skip_to = "", 0
    for m in _SPECIAL.finditer(text, start, stop):
        c, i = m.group(), m.start()
        if i < skip_to:  # the character after a backslash inside a string
            continue
        if quote:
            if c == "\\":
                skip_to = i + 2
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c in "{[":
            stack.append("}" if c == "{" else "]")
        elif c in "}]":
            if not stack or stack.pop() != c:
                return -1, [], i
            if not stack:
                return m.end(), [], i
    if stop < len(text):
        return -2, [], stop
    return -1, ([] if quote else stack[::-1]), stop


def find_object(text: str, pos: int = 0) -> tuple[str, int, int] | None:
    """The first balanced ``{...}`` or ``[...]`` in ``text[pos:]``: (snippet, start, end), or None.

    An object cut off at the very end gets its missing closers appended (the
    model ran out of tokens or forgot the last brace); nothing else is invented.
    An object longer than ``MAX_ARG_CHARS`` is not an argument: the search stops there.
    """
    budget = SCAN_BUDGET
    for n, m in enumerate(_OPENERS.finditer(text, pos, pos + MAX_ARG_CHARS)):
        if n == MAX_STARTS or budget <= 0:
            break
        stop = min(len(text), m.start() + MAX_ARG_CHARS, m.start() + budget)
        end, missing, walked = _scan(text, m.start(), stop)
        budget -= walked - m.start() + 1
        if end == -2:
            return None
        if end > 0:
            return text[m.start():end], m.start(), end
        if missing and text[m.start()] == "{":
            return text[m.start():].rstrip() + "".join(missing), m.start(), len(text)
    return None


def _pythonize(text: str) -> str:
    """Outside strings: JSON literals to Python ones, and bare ``key:`` to ``'key':``."""
    out, quote, i = [], "", 0
    while i < len(text):
        c = text[i]
        if quote:
            out.append(c)
            if c == "\\" and i + 1 < len(text):
                out.append(text[i + 1])
                i += 1
            elif c == quote:
                quote = ""
            i += 1
            continue
        if c in "\"'":
            quote = c
            out.append(c)
            i += 1
            continue
        m = _WORD.match(text, i)
        if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            word = m.group()
            after = text[m.end():].lstrip(" \t")
            if after.startswith(":") and text[:i].rstrip().endswith(("{", ",")):
                out.append(repr(word))
            else:
                out.append({"true": "True", "false": "False", "null": "None"}.get(word, word))
            i = m.end()
            continue
        out.append(c)
        i += 1
    return "".join(out)


def loads_lenient(text: str) -> Any | None:
    """Read a JSON object/array/string the way a forgiving reader would; None if it cannot."""
    text = text.strip()
    if not text or len(text) > MAX_ARG_CHARS:
        return None
    for candidate in dict.fromkeys((text, text.translate(_CURLY))):
        try:
            return json.loads(candidate, strict=False)
        except (ValueError, RecursionError):
            pass
        try:  # single quotes, trailing commas, True/None, unquoted keys: Python's literal syntax
            return ast.literal_eval(_pythonize(candidate))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            pass
    return None


def parse_call(text: str) -> tuple[str, dict | str] | None:
    """Read ``name(key=value, ...)`` or ``name("one value")`` into (name, arguments); None if not a call.

    Two or more positional arguments, or a mix with keywords, are not read:
    which parameter each belongs to would be a guess.
    """
    if len(text) > MAX_ARG_CHARS:  # checked before the regex, which backtracks over the whole text
        return None
    m = _CALL.match(text)
    if not m:
        return None
    name, inner = m.group(1), m.group(2)
    source = f"f({_pythonize(inner)})"
    try:
        node = ast.parse(source, mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if not isinstance(node, ast.Call) or any(k.arg is None for k in node.keywords):
        return None
    if any(isinstance(a, ast.Name) for a in node.args):
        return None  # calculator(expression): a signature naming parameters, not a call with values
    if node.keywords and not node.args:
        args: dict[str, Any] = {}
        for kw in node.keywords:
            try:
                args[kw.arg] = ast.literal_eval(kw.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                args[kw.arg] = ast.get_source_segment(source, kw.value)
        return name, args
    if len(node.args) == 1 and not node.keywords:
        try:
            value = ast.literal_eval(node.args[0])
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            value = inner.strip()  # e.g. calculator(2 + 3): the expression itself is the input
        return name, value if isinstance(value, dict) else (value if isinstance(value, str) else inner.strip())
    if not node.args and not node.keywords:
        return name, {}
    return None


def parse_kwargs(text: str) -> dict | None:
    """Read ``city="北京", day="tomorrow"`` (keyword form without a name) into a dict, else None."""
    if "=" not in text or "\n" in text.strip():
        return None
    got = parse_call(f"f({text.strip()})")
    return got[1] if got and isinstance(got[1], dict) and got[1] else None
