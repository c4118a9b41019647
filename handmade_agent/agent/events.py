"""What happens during an agent run, as small event records, and ``emit()``.

Events say *what happened*; observers (``observers.py``, ``widgets/``) decide
what to do about it. The agent imports this module and no observer.
An observer is any callable taking one event. ``emit`` delivers an event to
every observer and turns an observer's exception into a warning, so a broken
logger can never change a run's result.

Events turn into plain dicts (``to_dict``) and back (``event_from_dict``), so a
JSON Lines log can be read back into the very records a run emitted.

Deliberately left out: async delivery and filtering; an observer that wants
only some events checks ``event.kind`` itself.

    >>> seen = []
    >>> emit([seen.append], FinalAnswer(run_id="run-1", step=2, answer="42"))
    >>> seen[0].kind, seen[0].answer
    ('final_answer', '42')
"""
from __future__ import annotations

import time
import warnings
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Callable, ClassVar, Iterable

from ..llm import Usage
from ..redaction import redact
from .steps import Step


@dataclass
class Event:
    """Base record: which run, which step (0 before the first), and when (``time.time()``)."""
    kind: ClassVar[str] = "event"
    run_id: str = ""
    step: int = 0
    ts: float = field(default_factory=time.time)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **asdict(self)}


@dataclass
class RunStarted(Event):
    kind: ClassVar[str] = "run_started"
    question: str = ""
    settings: dict = field(default_factory=dict)
    offered: list = field(default_factory=list)  # the tools this run may call (the fit gate may offer none)


@dataclass
class LLMCallStarted(Event):
    kind: ClassVar[str] = "llm_call_started"
    messages: list = field(default_factory=list)  # OpenAI-style dicts
    purpose: str = "step"                         # "step", "summary" (memory), "rerank" (judge), "translate"


@dataclass
class LLMCallFinished(Event):
    kind: ClassVar[str] = "llm_call_finished"
    text: str = ""
    usage: Usage = field(default_factory=Usage)
    latency: float = 0.0
    error: str | None = None
    purpose: str = "step"


@dataclass
class ParseFailed(Event):
    kind: ClassVar[str] = "parse_failed"
    text: str = ""
    error: str = ""
    feedback: str = ""


@dataclass
class AnswerRejected(Event):
    """A final-answer check sent the answer back (``agent/policies.py``); ``feedback`` is what the model is told."""
    kind: ClassVar[str] = "answer_rejected"
    check: str = ""
    answer: str = ""
    feedback: str = ""


@dataclass
class ToolStarted(Event):
    kind: ClassVar[str] = "tool_started"
    name: str = ""
    args: Any = None


@dataclass
class ToolFinished(Event):
    kind: ClassVar[str] = "tool_finished"
    name: str = ""
    args: Any = None
    ok: bool = True
    content: str = ""
    error: str | None = None
    duration: float = 0.0


@dataclass
class FinalAnswer(Event):
    kind: ClassVar[str] = "final_answer"
    answer: str = ""


@dataclass
class StepFinished(Event):
    """One step, whole: the record that traces, metrics, printers and panels read (``record`` is a ``Step``)."""
    kind: ClassVar[str] = "step_finished"
    record: Step = field(default_factory=lambda: Step(0, "action"))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "run_id": self.run_id, "step": self.step, "ts": self.ts,
                "record": self.record.to_dict()}


@dataclass
class RunFinished(Event):
    kind: ClassVar[str] = "run_finished"
    answer: str | None = None
    stop_reason: str = ""
    steps: int = 0
    usage: Usage = field(default_factory=Usage)
    duration: float = 0.0


@dataclass
class Alert(Event):
    """Raised by observers (thresholds), not by the agent: e.g. too many steps, a slow tool."""
    kind: ClassVar[str] = "alert"
    name: str = ""
    message: str = ""


@dataclass
class ReplyEdited(Event):
    """A person replaced the model's reply before it was parsed (``StepDebugger``); ``text`` is what was used."""
    kind: ClassVar[str] = "reply_edited"
    original: str = ""
    text: str = ""


Observer = Callable[[Event], None]

EVENT_TYPES: dict[str, type[Event]] = {c.kind: c for c in (
    RunStarted, LLMCallStarted, LLMCallFinished, ParseFailed, AnswerRejected, ToolStarted, ToolFinished, FinalAnswer,
    StepFinished, RunFinished, Alert, ReplyEdited)}


def emit(observers: Iterable[Observer], event: Event) -> None:
    """Give ``event`` to every observer, secrets redacted; a failing observer becomes a warning, never an error.

    This is the choke point for everything that watches a run (printers, traces, logs, panels, stores):
    a key in the question, a tool result or a reply is ``[REDACTED]`` before any of them sees it.
    """
    observers = list(observers)
    if observers:
        event = redacted(event)
    for observer in observers:
        try:
            observer(event)
        except Exception as e:  # an observer must not be able to break the run it watches
            name = getattr(observer, "__qualname__", type(observer).__name__)
            warnings.warn(f"observer {name} failed on {event.kind}: {type(e).__name__}: {e}",
                          RuntimeWarning, stacklevel=2)


def redacted(event: Event) -> Event:
    """``event`` itself if it holds no secret, else a copy with every secret replaced."""
    d = event.to_dict()
    clean = redact(d)
    return event if clean == d else event_from_dict(clean)


def event_from_dict(d: dict[str, Any]) -> Event:
    """Rebuild an event from ``Event.to_dict()`` output (e.g. one line of a JSONL log).

    Unknown keys are ignored (a newer log read by an older package); an unknown
    ``kind`` raises ``ValueError`` naming the kinds this version knows.
    """
    kind = d.get("kind")
    cls = EVENT_TYPES.get(kind)  # type: ignore[arg-type]
    if cls is None:
        raise ValueError(f"unknown event kind {kind!r}; this version knows {sorted(EVENT_TYPES)}")
    names = {f.name for f in fields(cls)}
    values = {k: v for k, v in d.items() if k in names}
    if isinstance(values.get("usage"), dict):  # nested records: asdict() flattened them
        values["usage"] = Usage(**values["usage"])
    if isinstance(values.get("record"), dict):
        values["record"] = Step.from_dict(values["record"])
    return cls(**values)
