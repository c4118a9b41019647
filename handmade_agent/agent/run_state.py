"""The state of one run in progress: what the loop remembers between steps, and nothing it could recompute.

Deliberately left out: anything a finished run keeps (that is ``RunResult``, in ``steps.py``).

    >>> RunState("run-1", "2+2?", 0.0, [], budget=5.0).deadline
    5.0
"""
from __future__ import annotations

from dataclasses import dataclass, field

from typing import Any

from ..llm import Message, Usage
from .steps import RunResult, Step, ToolUse


@dataclass
class RunState:
    """The state of the run in progress."""
    run_id: str
    question: str
    started: float
    prefix: list[Message]
    budget: float | None = None                           # the time budget this run started with
    steps: list[Step] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    format_errors: int = 0                                # consecutive
    repeats: int = 0
    answer_now: bool = False                              # after a repeated call: the next reply must answer
    seen: dict[tuple, str] = field(default_factory=dict)  # (tool, input) -> first observation
    spent: list[str] = field(default_factory=list)        # the checks that sent an answer back
    calls: int = 0                                        # model calls made for the step in progress
    result: RunResult | None = None
    tools: Any = None                                     # the tools this run is offered (tool_fit.py); None: all
    act_first: bool = False                               # the first reply must call one of them (tool_fit.py)

    @property
    def deadline(self) -> float | None:
        return None if self.budget is None else self.started + self.budget

    def used(self, ok: bool) -> list[ToolUse]:
        """The tool uses of the run's actions that succeeded (``ok``) or failed (a repeat warning counts as failed)."""
        return [u for s in self.steps if s.kind == "action" for u in s.tool_uses if u.ok == ok]
