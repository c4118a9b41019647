"""Threshold alerts: an observer that watches a run and emits ``Alert`` events when a limit is crossed.

Alerts are events of their own, delivered to the observers in ``notify`` (pass
the agent's own ``observers`` list so the printer, the trace and the log all see
them). Each alert name fires at most once per run, except ``slow_tool`` and
``tool_error`` which name the tool call they are about.

Deliberately left out: paging, e-mail, dashboards. In production an alert
observer forwards to whatever the team already uses; the thresholds are the idea.

    >>> alerts = ThresholdAlerts(max_steps=1)
    >>> alerts(LLMCallFinished(run_id="r", step=2))
    >>> [a.name for a in alerts.fired]
    ['too_many_steps']
"""
from __future__ import annotations

from typing import Iterable

from ..agent.events import (Alert, Event, LLMCallFinished, Observer, ParseFailed, RunFinished, RunStarted,
                     ToolFinished, emit)
from .metrics import fmt_duration


class ThresholdAlerts:
    """Emit ``Alert`` events when a run crosses a limit. ``None`` switches a check off.

    - ``too_many_steps``: a step number above ``max_steps`` was reached;
    - ``slow_model`` / ``slow_tool``: one model call / tool call took longer than the limit (seconds);
    - ``token_budget``: the run's prompt + completion tokens so far exceed ``max_tokens``;
    - ``format_errors``: more than ``max_format_errors`` replies failed to parse;
    - ``tool_error``: a tool call failed (``tool_errors=True``);
    - ``no_answer``: the run stopped for any reason other than a final answer.
    """

    def __init__(self, *, max_steps: int | None = 6, slow_model: float | None = None,
                 slow_tool: float | None = 2.0, max_tokens: int | None = None,
                 max_format_errors: int | None = 1, tool_errors: bool = False, no_answer: bool = True,
                 notify: Iterable[Observer] = ()):
        self.max_steps, self.slow_model, self.slow_tool = max_steps, slow_model, slow_tool
        self.max_tokens, self.max_format_errors = max_tokens, max_format_errors
        self.tool_errors, self.no_answer = tool_errors, no_answer
        self.notify = notify  # may be the agent's observers list itself (this observer skips Alert events)
        self.fired: list[Alert] = []
        self._run_id: str | None = None
        self._reset()

    def _reset(self) -> None:
        self._once: set[str] = set()
        self._tokens = 0
        self._format_errors = 0

    def _fire(self, source: Event, name: str, message: str, once: bool = True) -> None:
        if once and name in self._once:
            return
        self._once.add(name)
        alert = Alert(run_id=source.run_id, step=source.step, name=name, message=message)
        self.fired.append(alert)
        emit(self.notify, alert)

    def __call__(self, event: Event) -> None:
        if isinstance(event, Alert):
            return  # our own alerts come back through `notify` when it is the agent's observer list
        if isinstance(event, RunStarted) or event.run_id != self._run_id:  # limits count per run
            self._reset()
            self._run_id = event.run_id
        if self.max_steps is not None and event.step > self.max_steps:
            self._fire(event, "too_many_steps", f"step {event.step} is past the limit of {self.max_steps} steps")
        if isinstance(event, LLMCallFinished):
            self._tokens += event.usage.total_tokens
            if self.slow_model is not None and event.latency > self.slow_model:
                self._fire(event, "slow_model", f"a model call took {fmt_duration(event.latency)}"
                           f" (limit {fmt_duration(self.slow_model)})", once=False)
            if self.max_tokens is not None and self._tokens > self.max_tokens:
                self._fire(event, "token_budget", f"{self._tokens} tokens used, budget {self.max_tokens}")
        elif isinstance(event, ParseFailed):
            self._format_errors += 1
            if self.max_format_errors is not None and self._format_errors > self.max_format_errors:
                self._fire(event, "format_errors", f"{self._format_errors} replies failed to parse"
                           f" (limit {self.max_format_errors})")
        elif isinstance(event, ToolFinished):
            if self.slow_tool is not None and event.duration > self.slow_tool:
                self._fire(event, "slow_tool", f"tool {event.name} took {fmt_duration(event.duration)}"
                           f" (limit {fmt_duration(self.slow_tool)})", once=False)
            if self.tool_errors and not event.ok:
                self._fire(event, "tool_error", f"tool {event.name} failed: {event.error or event.content}",
                           once=False)
        elif isinstance(event, RunFinished) and self.no_answer and event.stop_reason != "final_answer":
            self._fire(event, "no_answer", f"the run stopped without an answer: {event.stop_reason}")
