"""A run's trace: its events, grouped into one span per step, and a summary of the numbers.

A ``Trace`` is nothing but the list of events a run emitted; steps and the
summary are computed from that list whenever asked, so a trace read back from
a JSON Lines log (``jsonl.py``) is equal to the recorded one and gives the same
numbers. ``TraceRecorder`` is the observer that collects traces, one per run.

Deliberately left out: nested spans, sampling and export to tracing systems
(OpenTelemetry); one level of spans (the step) is what a ReAct loop has.

    >>> rec = TraceRecorder()
    >>> rec(RunStarted(run_id="r1", question="2+2?")); rec(FinalAnswer(run_id="r1", step=1, answer="4"))
    >>> rec.trace.steps[0].answer
    '4'
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .events import (Alert, Event, FinalAnswer, LLMCallFinished, LLMCallStarted, ParseFailed, ReplyEdited,
                     RunFinished, RunStarted, ToolFinished, ToolStarted)
from .llm import Usage
from .metrics import TraceSummary, summarize

# Where the thought of a ReAct reply ends: the first action or answer label (English or Chinese).
_THOUGHT = re.compile(r"^[\s*#>]*(?:thought|思考)\s*\**\s*[:：]\**", re.I | re.M)
_AFTER_THOUGHT = re.compile(r"^[\s*#>]*(?:action|行动|final answer|answer|最终答案|答案)\b", re.I | re.M)


def thought_of(text: str) -> str:
    """The thought part of a model reply: after ``Thought:`` (if any), before the first action/answer label."""
    m = _THOUGHT.search(text)
    start = m.end() if m else 0
    end = _AFTER_THOUGHT.search(text, start)
    return text[start:end.start() if end else len(text)].strip().strip("*").strip()


@dataclass
class ToolSpan:
    """One tool call inside a step; ``ok`` is None while the tool is still running."""
    name: str
    args: Any = None
    start: float = 0.0
    ok: bool | None = None
    content: str = ""
    error: str | None = None
    duration: float = 0.0


@dataclass
class StepSpan:
    """Everything that happened in one step: the model call(s), the parse, the tool call(s), the answer."""
    step: int
    start: float = 0.0
    end: float = 0.0
    text: str = ""                      # the model's raw reply (last call of the step), or its edited form
    edited_from: str | None = None      # the model's own reply, when a person replaced it (StepDebugger)
    llm_calls: int = 0
    model_time: float = 0.0
    usage: Usage = field(default_factory=Usage)
    llm_error: str | None = None
    parse_error: str | None = None
    feedback: str | None = None         # what the loop told the model after a format error
    tools: list[ToolSpan] = field(default_factory=list)
    answer: str | None = None
    alerts: list[Alert] = field(default_factory=list)

    @property
    def thought(self) -> str:
        if self.parse_error and not _THOUGHT.search(self.text):
            return ""  # an unreadable reply is shown as the raw reply, not dressed up as a thought
        return thought_of(self.text)

    @property
    def action(self) -> str | None:
        return self.tools[0].name if self.tools else None

    @property
    def action_input(self) -> Any:
        return self.tools[0].args if self.tools else None

    @property
    def observation(self) -> str | None:
        """What the model is shown next: tool output(s), or the format feedback."""
        if self.tools:
            return "\n".join(t.content for t in self.tools)
        return self.feedback

    @property
    def tool_time(self) -> float:
        return sum(t.duration for t in self.tools)

    @property
    def duration(self) -> float:
        """Wall-clock time of the step, from its first event to its last."""
        return max(self.end - self.start, self.model_time + self.tool_time)

    @property
    def errors(self) -> list[str]:
        """Every error of the step, labelled, for highlighting."""
        out = [f"model error: {self.llm_error}"] if self.llm_error else []
        out += [f"format error: {self.parse_error}"] if self.parse_error else []
        out += [f"tool {t.name} failed: {t.error or t.content}" for t in self.tools if t.ok is False]
        return out


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
            _apply(span, e)
        for alert in self.alerts:  # after the loop: an alert may arrive before its step's first event
            if alert.step in spans:  # a run-level alert (e.g. no_answer at the end) stays only in .alerts
                spans[alert.step].alerts.append(alert)
        return list(spans.values())

    def summary(self) -> TraceSummary:
        return summarize(self)


def _apply(span: StepSpan, e: Event) -> None:
    """Fold one event into its step's span."""
    if isinstance(e, LLMCallStarted):
        span.llm_calls += 1
    elif isinstance(e, LLMCallFinished):
        span.text, span.llm_error = e.text, e.error
        span.model_time += e.latency
        span.usage = span.usage + e.usage
    elif isinstance(e, ReplyEdited):
        span.edited_from, span.text = e.original, e.text
    elif isinstance(e, ParseFailed):
        span.parse_error, span.feedback = e.error, e.feedback
    elif isinstance(e, ToolStarted):
        span.tools.append(ToolSpan(e.name, e.args, start=e.ts))
    elif isinstance(e, ToolFinished):
        running = [t for t in span.tools if t.ok is None and t.name == e.name]
        tool = running[0] if running else ToolSpan(e.name, e.args, start=e.ts - e.duration)
        if not running:  # a finish without a start (the agent skipped ToolStarted): still count it
            span.tools.append(tool)
        tool.ok, tool.content, tool.error, tool.duration = e.ok, e.content, e.error, e.duration
    elif isinstance(e, FinalAnswer):
        span.answer = e.answer


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
