"""A JSON Lines log of events (one event per line) that a trace can be read back from, with secrets redacted.

``JSONLLogger(path)`` is an observer: each event is appended as one JSON line
and flushed at once, so a crashed run still leaves a readable log.
``read_traces(path)`` / ``read_trace(path)`` rebuild ``Trace`` objects equal to
the recorded ones. ``json_line`` and ``read_jsonl`` are the package's one JSON Lines writer
and reader (the evaluation's tasks and outcomes and RAG's eval set use them too): a lone
surrogate (``"\\ud800"``, which no UTF-8 file can hold) is written as its JSON escape and reads
back as the same string; a line that is not JSON, has bad UTF-8, a number too long to convert,
nesting deeper than ``MAX_DEPTH`` or more than ``MAX_LINE_BYTES`` is a ``StateError`` naming
the file and the line (or a warning and a skip), never a raw ValueError or RecursionError. Before anything is written, ``redact`` (``redaction.py``, the one
redactor of the package) replaces what looks like a secret, or is one this process knows,
with ``[REDACTED]``: logs get shared, keys must not.

Deliberately left out: log rotation and shipping logs to a server (a log
collector tails the file); redaction is pattern-based, a best effort, not a proof.

    >>> redact("call with api_key=abc123secret please")
    'call with api_key=[REDACTED] please'
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any, Iterator

from ..agent.events import Event, event_from_dict, redacted
from ..errors import StateError
from ..redaction import redact
from .trace import Trace

MAX_LINE_BYTES = 64 << 20  # a logged prompt repeats the history, yet stays far below this
MAX_DEPTH = 200            # dicts and lists inside each other; a real event is under 10 deep


def json_line(value: Any) -> str:
    """``value`` as one line of JSON (no newline), UTF-8-safe: each lone surrogate is written as its escape."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text.encode("utf-8", "backslashreplace").decode("utf-8")  # non-ASCII only occurs inside strings


def read_jsonl(path: str | Path, *, skip_bad: bool = False, cut_last_ok: bool = False) -> Iterator[tuple[int, Any]]:
    """(line number, value) for each non-blank line of a JSON Lines file.

    A bad line raises ``StateError`` naming the file and the line, or with ``skip_bad`` is warned about and
    skipped. With ``cut_last_ok`` a last line that has no newline and does not parse (the write of a killed
    process) is skipped silently. OSError from opening the file is the caller's to word.
    """
    with open(path, "rb") as f:
        for number, raw in enumerate(iter(lambda: f.readline(MAX_LINE_BYTES + 1), b""), 1):
            if len(raw) > MAX_LINE_BYTES:
                while raw and not raw.endswith(b"\n"):  # the rest of the over-long line
                    raw = f.readline(MAX_LINE_BYTES)
                problem: str | None = f"longer than {MAX_LINE_BYTES:,} bytes"
            elif not raw.strip():
                continue
            else:
                value, problem = _parse(raw)
                if problem is None:
                    yield number, value
                    continue
                if cut_last_ok and not raw.endswith(b"\n"):
                    return
            message = f"{path}, line {number}: {problem}"
            if not skip_bad:
                raise StateError(f"{message}. Fix or delete that line (one JSON value per line).")
            warnings.warn(f"{message}; skipped.", RuntimeWarning, stacklevel=2)


def _parse(raw: bytes) -> tuple[Any, str | None]:
    try:
        value = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        return None, f"not UTF-8 text ({e.reason} at byte {e.start})"
    except RecursionError:
        return None, "nested too deeply to read"
    except ValueError as e:  # bad JSON, or an integer of more digits than Python converts
        return None, f"not valid JSON ({e})"
    stack = [(value, 1)]
    while stack:  # without recursion: the depth is what is being checked
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > MAX_DEPTH:
                return None, f"nested more than {MAX_DEPTH} levels deep"
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
    return value, None


def redact_event(event: Event) -> Event:
    """The same event with every string field redacted."""
    return redacted(event)


class JSONLLogger:
    """Observer appending each event as one JSON line to ``path``, redacted (there is no switch to keep keys)."""

    def __init__(self, path: str | Path, *, include_messages: bool = True):
        self.path = Path(path)
        self.include_messages = include_messages  # prompts repeat the whole history: big logs
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def __call__(self, event: Event) -> None:
        d = event.to_dict()
        if not self.include_messages and "messages" in d:
            d["messages"] = []
        d = redact(d)  # events from emit() already are; a logger called directly must be too
        line = json_line(d)
        with self.path.open("a", encoding="utf-8") as f:  # open per event: nothing left open, nothing buffered
            f.write(line + "\n")


def read_events(path: str | Path, *, strict: bool = True) -> Iterator[Event]:
    """Events of a JSONL log, in order. A bad line raises ``StateError`` (or is skipped with a warning)."""
    rows = read_jsonl(path, skip_bad=not strict)
    while True:
        try:
            n, row = next(rows)
        except StopIteration:
            return
        except StateError as e:  # not JSON at all: the same way out as a line that is not an event
            raise StateError(f"{e} Or read with strict=False to skip it.") from None
        try:
            event = event_from_dict(row)
        except (ValueError, TypeError, KeyError, AttributeError) as e:
            msg = f"{path}, line {n}: not an event ({e})"
            if strict:
                raise StateError(f"{msg}. Fix or delete that line, or read with strict=False to skip it.") from e
            warnings.warn(msg, RuntimeWarning, stacklevel=2)
            continue
        yield event


def read_traces(path: str | Path, *, strict: bool = True) -> list[Trace]:
    """All runs in a JSONL log, one ``Trace`` per ``run_id``, in the order they started."""
    by_id: dict[str, Trace] = {}
    for event in read_events(path, strict=strict):
        by_id.setdefault(event.run_id, Trace()).add(event)
    return list(by_id.values())


def read_trace(path: str | Path, run_id: str | None = None) -> Trace:
    """One run from a JSONL log: the one with ``run_id``, else the last one."""
    traces = read_traces(path)
    if run_id is not None:
        traces = [t for t in traces if t.run_id == run_id]
    if not traces:
        raise StateError(f"{path} holds no run{' ' + run_id if run_id else ''}; check the path and run id.")
    return traces[-1]
