"""Running a tool's function with a time-out, and turning what it returned into observation text.

Python cannot kill a thread. ``run_with_timeout`` therefore runs the function
in a *daemon* thread and stops *waiting* after the time-out: the caller gets
``ToolTimeout`` at once, while the abandoned thread runs on until it ends by
itself (a daemon thread never blocks the interpreter from exiting). That is
enough for slow network calls or sleepy code; code that may spin forever or
hold resources belongs in a subprocess, which can be killed.

A ``BaseException`` the tool itself raises (``SystemExit``, ``GeneratorExit``) is
turned into an ordinary error so it cannot end the agent; ``KeyboardInterrupt``
is not, because on the inline path it is the user's Ctrl-C. ``shorten`` keeps
error messages from echoing a huge argument whole.

Deliberately left out: subprocess isolation and memory limits.

    >>> clean_output("\\x1b[31mred\\x1b[0m   \\n\\n\\n\\nok", 100)
    ('red\\n\\nok', False)
"""
from __future__ import annotations

import json
import re
import threading
from typing import Any, Callable

from ..errors import ToolError

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
SHOWN_CHARS = 300  # of a name or message echoed in an error: enough to recognise, never a 1 MB argument
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class ToolTimeout(ToolError):
    """The function did not finish in time; its thread is still running (see ``thread``)."""

    def __init__(self, message: str, thread: threading.Thread):
        super().__init__(message)
        self.thread = thread


def run_with_timeout(fn: Callable[..., Any], kwargs: dict, timeout: float | None, name: str = "tool") -> Any:
    """``fn(**kwargs)``, or ToolTimeout after ``timeout`` seconds. ``None``/0 runs inline, uncut."""
    if not timeout:
        try:
            return fn(**kwargs)
        except (Exception, KeyboardInterrupt):  # Ctrl-C is the user's, not the tool's: it must stop the run
            raise
        except BaseException as e:  # SystemExit, GeneratorExit... raised by the tool: a failure, not an exit
            raise RuntimeError(f"{type(e).__name__}: {e}") from e
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn(**kwargs)
        except BaseException as e:  # SystemExit too: hand it to the caller as a failure
            box["error"] = e

    worker = threading.Thread(target=target, name=f"tool-{name}", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise ToolTimeout(f"{name} did not finish within {timeout:g} s", worker)
    if "error" in box:
        error = box["error"]
        raise error if isinstance(error, Exception) else RuntimeError(f"{type(error).__name__}: {error}")
    return box.get("value")


def shorten(text: Any, limit: int = SHOWN_CHARS) -> str:
    """``text`` for an error message: at most ``limit`` characters, saying how much was left out."""
    text = str(text)
    if len(text) <= limit:
        return text
    return text[:limit] + f"...[{len(text) - limit:,} more characters]"


def to_text(value: Any) -> str:
    """A tool's return value as text: strings as they are, containers as JSON (Chinese kept readable)."""
    if value is None:
        return "(the tool returned nothing)"
    if isinstance(value, str):
        return value
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def clean_output(text: str, max_chars: int) -> tuple[str, bool]:
    """Strip terminal colours and control characters, squeeze blank lines, cut to ``max_chars`` with a note.

    Returns (text, was_cut). The note tells the model the text is incomplete,
    so it does not mistake the first part for the whole answer.
    """
    text = _CONTROL.sub("", _ANSI.sub("", text.replace("\r\n", "\n").replace("\r", "\n")))
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(line.rstrip() for line in text.split("\n"))).strip()
    if not text:
        return "(empty result)", False
    if len(text) <= max_chars:
        return text, False
    return text[:max_chars] + f"\n...[output cut: showing the first {max_chars} of {len(text)} characters]", True
