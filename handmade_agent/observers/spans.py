"""Spans: one record per step of a run (model call, parse, tool calls, answer), folded from its events.

``StepSpan`` is what a trace viewer shows for one step: the reply and the
thought in it, the action and its input, the observation, errors, time and
tokens. ``apply_event`` folds one event into a span; ``Trace`` (trace.py) does
that for a whole run. ``thought_of`` finds the thought in a ReAct reply.

Deliberately left out: spans inside spans (a tool that calls a model would
need them; the tools here do not).

    >>> thought_of("Thought: add them\\nAction: calculator")
    'add them'
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..agent.events import (Alert, Event, FinalAnswer, LLMCallFinished, LLMCallStarted, ParseFailed, ReplyEdited,
                     ToolFinished, ToolStarted)
from ..llm import Usage

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
    model_calls: list[tuple[float, float]] = field(default_factory=list)  # (start, seconds) of each model call
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


def apply_event(span: StepSpan, e: Event) -> None:
    """Fold one event into its step's span."""
    if isinstance(e, LLMCallStarted):
        span.llm_calls += 1
    elif isinstance(e, LLMCallFinished):
        span.text, span.llm_error = e.text, e.error
        span.model_time += e.latency
        # latency counts only the model's own work, which ends at the event: any wait came before it
        span.model_calls.append((e.ts - e.latency, e.latency))
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
