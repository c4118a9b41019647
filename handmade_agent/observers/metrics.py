"""The numbers of one run: steps, tokens, model vs tool time, tool success rate, format errors, stop reason.

``summarize(trace)`` computes a ``TraceSummary`` from a trace's events only, so
the same numbers come from a live recorder and from a log read back from disk.
``fmt_duration`` prints seconds the way every observer prints them.

Deliberately left out: cost in money (prices change; tokens are the stable
unit) and percentiles across runs (aggregate summaries yourself, they are plain data).

    >>> fmt_duration(0.0345), fmt_duration(2.25)
    ('34 ms', '2.2 s')
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # only for type hints: trace.py imports this module
    from .trace import Trace


def fmt_duration(seconds: float) -> str:
    """``0.0345 -> '34 ms'``, ``2.25 -> '2.2 s'``: always a number and a unit."""
    if round(seconds * 1000) < 1000:
        return f"{seconds * 1000:.0f} ms"
    return f"{seconds:.1f} s"


@dataclass
class TraceSummary:
    """What a dashboard shows for one run. Times are seconds; rates are 0..1 or None (nothing to rate)."""
    run_id: str = ""
    question: str = ""
    answer: str | None = None
    stop_reason: str = ""               # "" while the run has not finished
    steps: int = 0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_time: float = 0.0
    tool_time: float = 0.0
    wall_time: float = 0.0
    tool_calls: int = 0
    tool_errors: int = 0
    format_errors: int = 0
    llm_errors: int = 0
    edited_replies: int = 0             # replies a person replaced in the step debugger
    alerts: list[str] = field(default_factory=list)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def tool_success_rate(self) -> float | None:
        return (self.tool_calls - self.tool_errors) / self.tool_calls if self.tool_calls else None

    @property
    def overhead_time(self) -> float:
        """Wall time spent neither in the model nor in tools: the framework's own cost."""
        return max(0.0, self.wall_time - self.model_time - self.tool_time)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "total_tokens": self.total_tokens, "tool_success_rate": self.tool_success_rate}

    def __str__(self) -> str:
        rate = "n/a" if self.tool_success_rate is None else f"{self.tool_success_rate:.0%}"
        lines = [
            f"stop reason     : {self.stop_reason or '(still running)'}",
            f"answer          : {self.answer}",
            f"steps           : {self.steps} ({self.llm_calls} model calls)",
            f"tokens          : {self.prompt_tokens} prompt + {self.completion_tokens} completion"
            f" = {self.total_tokens}",
            f"time            : model {fmt_duration(self.model_time)}, tools {fmt_duration(self.tool_time)},"
            f" total {fmt_duration(self.wall_time)}",
            f"tool calls      : {self.tool_calls} ({self.tool_errors} failed, success rate {rate})",
            f"format errors   : {self.format_errors}",
            f"model errors    : {self.llm_errors}",
            f"alerts          : {', '.join(self.alerts) or 'none'}",
        ]
        if self.edited_replies:  # only debugging sessions have them; keep ordinary summaries short
            lines.append(f"edited replies  : {self.edited_replies}")
        return "\n".join(lines)


def summarize(trace: "Trace") -> TraceSummary:
    """Compute the summary of a trace (finished or not) from its events."""
    steps = trace.steps
    done = trace.finished
    tools = [t for s in steps for t in s.tools if t.ok is not None]
    answer = done.answer if done else next((s.answer for s in reversed(steps) if s.answer is not None), None)
    if done:
        wall = done.duration
    else:
        wall = trace.events[-1].ts - trace.events[0].ts if trace.events else 0.0
    return TraceSummary(
        run_id=trace.run_id, question=trace.question, answer=answer,
        stop_reason=done.stop_reason if done else "",
        steps=done.steps if done else len(steps),
        llm_calls=sum(s.llm_calls for s in steps),
        prompt_tokens=sum(s.usage.prompt_tokens for s in steps),
        completion_tokens=sum(s.usage.completion_tokens for s in steps),
        model_time=sum(s.model_time for s in steps),
        tool_time=sum(t.duration for t in tools),
        wall_time=wall,
        tool_calls=len(tools), tool_errors=sum(1 for t in tools if not t.ok),
        format_errors=sum(1 for e in trace.events if e.kind == "parse_failed"),
        llm_errors=sum(1 for e in trace.events if e.kind == "llm_call_finished" and getattr(e, "error", None)),
        edited_replies=sum(1 for s in steps if s.edited_from is not None),
        alerts=[a.name for a in trace.alerts],
    )
