"""``RunContext``: what a tool may know about the run that called it, handed over by the agent.

A tool's arguments come from the model; some tools do better with what the model cannot be trusted to
pass: the user's own question (a small model's query drops what was asked), which run and step this is,
and how much of the run's time budget is left. The agent builds one ``RunContext`` per tool call and the
registry gives it to a tool that asks for it (``Tool(context_arg=...)``, or a parameter of an ``@tool``
function annotated ``RunContext``). That parameter is never in the tool's schema, so a model cannot forge it.

A tool that runs an agent of its own (a subagent) appends that run's record to ``children``; the agent keeps it
on the call's ``ToolUse``, so one record holds the whole tree of runs.

Deliberately left out: the run's history and the agent itself (a tool that reads the conversation is a
different design: give it a memory of its own).

    >>> RunContext("2+2?", "run-1", 1).remaining() is None
    True
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class RunContext:
    """The run a tool call belongs to. ``deadline`` is a ``time.perf_counter()`` value (None: no time budget)."""
    question: str
    run_id: str = ""
    step: int = 0
    deadline: float | None = None
    # the runs of other agents this call made (chapter 11's subagents): the caller files them under its step
    children: list[Any] = field(default_factory=list, compare=False)

    def remaining(self) -> float | None:
        """Seconds left of the run's time budget (0 once it is over), or None without a budget."""
        return None if self.deadline is None else max(0.0, self.deadline - time.perf_counter())
