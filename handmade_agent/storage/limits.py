"""The guards every state read and write passes: size and depth limits, safe text, stale temp files, SQLite errors.

A state file is read by code that trusts its shape, so what reaches that code is
bounded first: at most ``MAX_STATE_BYTES`` bytes are read (a 1 GB file is refused
from its size, never loaded), and JSON nested deeper than ``MAX_DEPTH`` is refused
before anything walks it recursively. Text with a lone surrogate (``"\\ud800"``,
which a model or a broken decoder can produce) cannot be encoded as UTF-8; it is
written as a JSON escape, so the save succeeds and the same string loads back.
A save killed half-way leaves its temporary file (``.<name>.<random>.tmp``); the
next save in that folder deletes such files once they are older than
``STALE_TMP_SECONDS``, so a concurrent save's file is never touched. SQLite's own
errors (corrupt file, locked database, read-only folder) become ``StateError``
saying what to do.

Deliberately left out: locking between writers and quotas on the number of files.

    >>> check_depth({"a": [1, [2]]}, "s")
    3
"""
from __future__ import annotations

import functools
import json
import os
import re
import sqlite3
import time
from pathlib import Path
from typing import Any, Callable, TypeVar

from ..errors import StateError

MAX_STATE_BYTES = 64 << 20   # far above any agent's state; a bigger file is not ours, or is damaged
MAX_DEPTH = 200              # dicts and lists inside each other; real state is under 10 deep
STALE_TMP_SECONDS = 600      # a save takes milliseconds; a temp file this old belongs to a killed save
_TMP_NAME = re.compile(r"^\..+\.[A-Za-z0-9_]{8}\.tmp$")  # what tempfile.mkstemp makes from our prefix/suffix
_SURROGATE = re.compile("[\ud800-\udfff]")
F = TypeVar("F", bound=Callable[..., Any])


def read_limited(path: Path, limit: int = MAX_STATE_BYTES) -> bytes:
    """The file's bytes, or StateError if it is larger than ``limit`` (checked before reading)."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size > limit:
            raise StateError(f"{path} is {size:,} bytes; a state file is at most {limit:,}. It is probably not "
                             "a state file, or it is damaged: check the path. It was left untouched.")
        data = f.read(limit + 1)  # a file that grows while we read is still cut at the limit
    if len(data) > limit:
        raise StateError(f"{path} grew beyond {limit:,} bytes while being read; it was left untouched.")
    return data


def check_depth(value: Any, source: str, limit: int = MAX_DEPTH) -> int:
    """The nesting depth of parsed JSON, walked without recursion; StateError beyond ``limit``."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if not isinstance(item, (dict, list)):
            continue
        if depth > limit:
            raise StateError(f"{source} nests data more than {limit} levels deep; no state written by "
                             "handmade-agent does. It was left untouched: check where it came from.")
        deepest = max(deepest, depth)
        stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def loads_json(text: str | bytes, source: str) -> Any:
    """``json.loads`` whose failures (bad text, too deep) are StateError; the caller words the rest."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise StateError(f"{source} nests data too deeply to read; it was left untouched.") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise  # the caller says where and what to do
    except ValueError as e:  # e.g. an integer of more digits than Python converts (sys.get_int_max_str_digits)
        raise StateError(f"{source} holds a value that cannot be read ({e}); it was left untouched: check "
                         "where it came from.") from None
    check_depth(value, source)
    return value


def utf8_text(text: str) -> str:
    """``text`` with each lone surrogate as a ``\\udxxx`` escape: in JSON it loads back as the same string."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def plain_text(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD, for columns that hold text, not JSON."""
    return _SURROGATE.sub("\ufffd", text) if isinstance(text, str) else text


def clean_stale_temps(directory: Path, now: float | None = None) -> int:
    """Delete our old ``.<name>.<random>.tmp`` files in ``directory``; returns how many. Never raises."""
    now, removed = time.time() if now is None else now, 0
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        if not _TMP_NAME.match(entry.name):
            continue
        try:
            if entry.is_file(follow_symlinks=False) and now - entry.stat().st_mtime > STALE_TMP_SECONDS:
                os.unlink(entry.path)
                removed += 1
        except OSError:  # gone already, or not ours to delete: cleaning is a courtesy
            pass
    return removed


def sqlite_errors(method: F) -> F:
    """Turn sqlite3's errors raised by ``method`` into StateError naming the database and what to do."""
    @functools.wraps(method)
    def guarded(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as e:
            raise StateError(sqlite_message(getattr(self, "path", "the database"), e)) from e
    return guarded  # type: ignore[return-value]


def sqlite_message(path: str, e: sqlite3.Error) -> str:
    text = str(e).lower()
    if "locked" in text or "busy" in text:
        return (f"{path} is locked by another process ({e}). Close the program holding it, or retry later; "
                "nothing was changed.")
    if "readonly" in text or "read-only" in text or "unable to open" in text or "access permission" in text:
        return (f"Cannot write to {path} ({e}). Check that its folder exists and is writable, or use another "
                "path.")
    if "malformed" in text or "not a database" in text or "corrupt" in text:
        return (f"{path} is damaged or not a SQLite database ({e}). Restore a backup or start a new database; "
                "the file was left untouched.")
    return f"The database {path} failed: {e}. Check the file and retry."
