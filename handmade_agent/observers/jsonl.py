"""A JSON Lines log of events (one event per line) that a trace can be read back from, with secrets redacted.

``JSONLLogger(path)`` is an observer: each event is appended as one JSON line
and flushed at once, so a crashed run still leaves a readable log.
``read_traces(path)`` / ``read_trace(path)`` rebuild ``Trace`` objects equal to
the recorded ones. Before anything is written, ``redact`` (``redaction.py``, the one
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
from typing import Iterator

from ..agent.events import Event, event_from_dict, redacted
from ..errors import StateError
from ..redaction import redact
from .trace import Trace


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
        line = json.dumps(d, ensure_ascii=False, default=str)
        with self.path.open("a", encoding="utf-8") as f:  # open per event: nothing left open, nothing buffered
            f.write(line + "\n")


def read_events(path: str | Path, *, strict: bool = True) -> Iterator[Event]:
    """Events of a JSONL log, in order. A bad line raises ``StateError`` (or is skipped with a warning)."""
    with Path(path).open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                yield event_from_dict(json.loads(line))
            except (ValueError, TypeError) as e:
                msg = f"{path}, line {n}: not an event ({e})"
                if strict:
                    raise StateError(f"{msg}. Fix or delete that line, or read with strict=False to skip it.") from e
                warnings.warn(msg, RuntimeWarning, stacklevel=2)


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
