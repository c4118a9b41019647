"""The numbers of one run: steps, tokens, model vs tool time, tool success rate, format errors, stop reason.

``summarize(events)`` computes a ``TraceSummary`` from a run's events: the ``Step``
records its ``StepFinished`` events carry, plus the run-level events (model calls made
for something other than a step, such as memory summaries; edits; alerts; the finish).
So the same numbers come from a live recorder and from a log read back from disk.
A step counts once it has finished. ``fmt_duration`` prints seconds the way every
observer prints them.

Deliberately left out: cost in money (prices change; tokens are the stable
unit) and percentiles across runs (aggregate summaries yourself, they are plain data).

    >>> fmt_duration(0.0345), fmt_duration(2.25)
    ('34 ms', '2.2 s')
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

from ..agent.events import Alert, Event, LLMCallFinished, ReplyEdited, RunFinished, RunStarted, StepFinished


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


def summarize(events: Sequence[Event]) -> TraceSummary:
    """The summary of one run (finished or not) from its events (``Trace.summary()`` passes its own)."""
    steps = [e.record for e in events if isinstance(e, StepFinished)]
    done = next((e for e in events if isinstance(e, RunFinished)), None)
    started = next((e for e in events if isinstance(e, RunStarted)), None)
    # calls for memory summaries or reranking belong to no step, but their tokens and time are the run's
    extra = [e for e in events if isinstance(e, LLMCallFinished) and e.purpose != "step"]
    tools = [u for s in steps for u in s.tool_uses]
    answer = done.answer if done else next((s.answer for s in reversed(steps) if s.answer is not None), None)
    wall = done.duration if done else (events[-1].ts - events[0].ts if events else 0.0)
    return TraceSummary(
        run_id=events[0].run_id if events else "", question=started.question if started else "", answer=answer,
        stop_reason=done.stop_reason if done else "",
        steps=done.steps if done else len(steps),
        llm_calls=sum(s.model_calls for s in steps) + len(extra),
        prompt_tokens=sum(s.usage.prompt_tokens for s in steps) + sum(e.usage.prompt_tokens for e in extra),
        completion_tokens=sum(s.usage.completion_tokens for s in steps)
        + sum(e.usage.completion_tokens for e in extra),
        model_time=sum(s.latency for s in steps) + sum(e.latency for e in extra),
        tool_time=sum(u.duration for u in tools),
        wall_time=wall,
        tool_calls=len(tools), tool_errors=sum(1 for u in tools if not u.ok),
        format_errors=sum(1 for s in steps if s.kind == "format_error"),
        llm_errors=sum(1 for e in events if isinstance(e, LLMCallFinished) and e.error),
        edited_replies=sum(1 for e in events if isinstance(e, ReplyEdited)),
        alerts=[e.name for e in events if isinstance(e, Alert)],
    )
