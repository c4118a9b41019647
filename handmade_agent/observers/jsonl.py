"""A JSON Lines log of events (one event per line) that a trace can be read back from, with secrets redacted.

``JSONLLogger(path)`` is an observer: each event is appended as one JSON line
and flushed at once, so a crashed run still leaves a readable log.
``read_traces(path)`` / ``read_trace(path)`` rebuild ``Trace`` objects equal to
the recorded ones. Before anything is written, ``redact`` replaces what looks
like a secret (``sk-...`` keys, ``Bearer`` tokens, ``api_key=...``, values of
keys named like ``password``) with ``[REDACTED]``: logs get shared, keys must not.

Deliberately left out: log rotation and shipping logs to a server (a log
collector tails the file); redaction is pattern-based, a best effort, not a proof.

    >>> redact("call with api_key=abc123secret please")
    'call with api_key=[REDACTED] please'
"""
from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import Any, Iterator

from ..errors import StateError
from ..agent.events import Event, event_from_dict
from .trace import Trace

MARK = "[REDACTED]"

# Secret-looking key names: api_key, OPENAI_API_KEY, client_secret, password, access_token, token ...
# ("max_tokens" and "prompt_tokens" are counts and deliberately do not match.)
_KEY = r"(?:[A-Za-z0-9]+[_-])*(?:api[_-]?key|apikey|secret(?:[_-]?key)?|password|passwd|pwd|token|private[_-]?key|access[_-]?key|authorization)"
_KEY_NAME = re.compile(rf"^{_KEY}$", re.I)
_START = r"(?<![A-Za-z0-9_])"  # not \b: Chinese characters are word characters, and 密钥sk-... must match
_PATTERNS: list[tuple[re.Pattern, str]] = [
    # key = value / key: "value" written in text (the value stops at space, quote, comma, &, ;)
    (re.compile(rf"{_START}({_KEY})(\"?'?\s*[:=]\s*[\"']?)(?:Bearer\s+|Basic\s+)?(?!\[REDACTED\])([^\s\"',;&}}]{{4,}})", re.I),
     rf"\1\2{MARK}"),
    (re.compile(_START + r"(Bearer\s+)(?=[A-Za-z0-9._~+/=-]*\d)[A-Za-z0-9._~+/=-]{8,}", re.I), rf"\1{MARK}"),
    (re.compile(_START + r"sk-[A-Za-z0-9_-]{16,}"), MARK),                                  # OpenAI / DeepSeek style
    (re.compile(_START + r"(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"), MARK),  # GitHub
    (re.compile(_START + r"hf_[A-Za-z0-9]{20,}"), MARK),                                    # Hugging Face
    (re.compile(_START + r"AKIA[0-9A-Z]{16}\b"), MARK),                                     # AWS access key id
    (re.compile(_START + r"AIza[0-9A-Za-z_-]{35}"), MARK),                                  # Google API key
    (re.compile(_START + r"xox[abprs]-[A-Za-z0-9-]{10,}"), MARK),                           # Slack
    (re.compile(_START + r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), MARK),  # JWT
]


def redact(value: Any) -> Any:
    """A copy of ``value`` (str, or dicts/lists of them) with secret-looking text replaced by ``[REDACTED]``.

    Redacting twice changes nothing more than redacting once.
    """
    if isinstance(value, str):
        for pattern, repl in _PATTERNS:
            value = pattern.sub(repl, value)
        return value
    if isinstance(value, dict):
        return {k: (MARK if isinstance(k, str) and _KEY_NAME.match(k) and isinstance(v, str) and v
                    else redact(v)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(redact(v) for v in value)
    return value


def redact_event(event: Event) -> Event:
    """The same event with every string field redacted."""
    return event_from_dict(redact(event.to_dict()))


class JSONLLogger:
    """Observer appending each event as one JSON line to ``path`` (redacted unless ``redact_secrets=False``)."""

    def __init__(self, path: str | Path, *, redact_secrets: bool = True, include_messages: bool = True):
        self.path = Path(path)
        self.redact_secrets = redact_secrets
        self.include_messages = include_messages  # prompts repeat the whole history: big logs
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def __call__(self, event: Event) -> None:
        d = event.to_dict()
        if not self.include_messages and "messages" in d:
            d["messages"] = []
        if self.redact_secrets:
            d = redact(d)
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
