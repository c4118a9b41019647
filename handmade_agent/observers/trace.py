"""A run's trace: the events of one run, whose ``StepFinished`` events carry its ``Step`` records.

A ``Trace`` is nothing but the list of events a run emitted. ``trace.steps`` are the
agent's own ``Step`` records (the one record of a step: no second model of it here),
and the summary is computed from the events whenever asked, so a trace read back from
a JSON Lines log (``jsonl.py``) is equal to the recorded one and gives the same numbers.
For a live view, ``running_step`` / ``running_tool`` say what the step in progress is
doing. ``TraceRecorder`` is the observer that collects traces, one per run.
``step_errors`` lists a step's errors, labelled, for highlighting.

Deliberately left out: nested spans and sampling; one level (the step) is what a ReAct loop has.
Export to tracing systems (OpenTelemetry) is ``otel.py``.

    >>> rec = TraceRecorder()
    >>> rec(StepFinished(run_id="r1", step=1, record=Step(1, "final_answer", answer="4")))
    >>> rec.trace.steps[0].answer
    '4'
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..agent.events import Alert, Event, ReplyEdited, RunFinished, RunStarted, StepFinished, ToolFinished, ToolStarted
from ..agent import Step
from .metrics import TraceSummary, summarize

__all__ = ["Trace", "TraceRecorder", "step_errors"]


def step_errors(step: Step) -> list[str]:
    """Every error of ``step``, labelled: the model's, the format's, and each failed tool call's."""
    failed = step.kind in ("model_error", "format_error", "rejected_answer")
    out = [f"{step.kind.replace('_', ' ')}: {step.error}"] if failed else []
    return out + [f"tool {u.tool} failed: {u.error or u.observation}" for u in step.tool_uses if not u.ok]


@dataclass
class Trace:
    """The events of one run, in order. Equal traces have equal events."""
    events: list[Event] = field(default_factory=list)

    def add(self, event: Event) -> None:
        self.events.append(event)

    def _first(self, cls: type) -> Any:
        return next((e for e in self.events if isinstance(e, cls)), None)

    @property
    def run_id(self) -> str:
        return self.events[0].run_id if self.events else ""

    @property
    def question(self) -> str:
        started = self._first(RunStarted)
        return started.question if started else ""

    @property
    def finished(self) -> RunFinished | None:
        return self._first(RunFinished)

    @property
    def alerts(self) -> list[Alert]:
        return [e for e in self.events if isinstance(e, Alert)]

    @property
    def steps(self) -> list[Step]:
        """The finished steps, as the agent recorded them."""
        return [e.record for e in self.events if isinstance(e, StepFinished)]

    @property
    def edits(self) -> dict[int, ReplyEdited]:
        """Step number -> the ``ReplyEdited`` event of a step whose reply a person replaced."""
        return {e.step: e for e in self.events if isinstance(e, ReplyEdited)}

    def _after_last_step(self) -> list[Event]:
        done = max((e.step for e in self.events if isinstance(e, StepFinished)), default=0)
        # a later step's events; memory's summary calls after the last step carry that step's number
        return [] if self.finished else [e for e in self.events if e.step > done and not isinstance(e, Alert)]

    @property
    def running_step(self) -> int | None:
        """The number of the step in progress (begun, not finished yet), or None."""
        live = self._after_last_step()
        return live[-1].step if live else None

    @property
    def running_tool(self) -> str | None:
        """The tool the step in progress is running right now, or None."""
        live = self._after_last_step()
        started = [e.name for e in live if isinstance(e, ToolStarted)]
        return started[-1] if len(started) > sum(isinstance(e, ToolFinished) for e in live) else None

    def summary(self) -> TraceSummary:
        return summarize(self.events)


class TraceRecorder:
    """Observer that keeps a ``Trace`` per run (by ``run_id``); ``.trace`` is the latest one."""

    def __init__(self) -> None:
        self.traces: list[Trace] = []
        self._by_id: dict[str, Trace] = {}

    def __call__(self, event: Event) -> None:
        trace = self._by_id.get(event.run_id)
        if trace is None:
            trace = self._by_id[event.run_id] = Trace()
            self.traces.append(trace)
        trace.add(event)

    @property
    def trace(self) -> Trace:
        return self.traces[-1] if self.traces else Trace()

    def summary(self) -> TraceSummary:
        """Summary of the latest run."""
        return self.trace.summary()

    def clear(self) -> None:
        self.traces.clear()
        self._by_id.clear()
