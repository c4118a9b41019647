"""A run's trace: its events, grouped into one span per step, and a summary of the numbers.

A ``Trace`` is nothing but the list of events a run emitted; steps and the
summary are computed from that list whenever asked, so a trace read back from
a JSON Lines log (``jsonl.py``) is equal to the recorded one and gives the same
numbers. ``TraceRecorder`` is the observer that collects traces, one per run.

Deliberately left out: nested spans, sampling and export to tracing systems
(OpenTelemetry); one level of spans (the step) is what a ReAct loop has.

    >>> rec = TraceRecorder()
    >>> from handmade_agent.agent.events import FinalAnswer
    >>> rec(RunStarted(run_id="r1", question="2+2?")); rec(FinalAnswer(run_id="r1", step=1, answer="4"))
    >>> rec.trace.steps[0].answer
    '4'
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..agent.events import Alert, Event, RunFinished, RunStarted
from .metrics import TraceSummary, summarize
from .spans import StepSpan, ToolSpan, apply_event, thought_of

__all__ = ["Trace", "TraceRecorder", "StepSpan", "ToolSpan", "thought_of"]


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
    def steps(self) -> list[StepSpan]:
        """One span per step number, in the order steps began."""
        spans: dict[int, StepSpan] = {}
        for e in self.events:
            if isinstance(e, (RunStarted, RunFinished, Alert)):
                continue
            span = spans.get(e.step) or spans.setdefault(e.step, StepSpan(e.step, start=e.ts, end=e.ts))
            span.end = max(span.end, e.ts)
            apply_event(span, e)
        for alert in self.alerts:  # after the loop: an alert may arrive before its step's first event
            if alert.step in spans:  # a run-level alert (e.g. no_answer at the end) stays only in .alerts
                spans[alert.step].alerts.append(alert)
        return list(spans.values())

    def summary(self) -> TraceSummary:
        return summarize(self)


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
