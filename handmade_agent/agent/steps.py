"""What one agent step was, and how it goes back into the conversation.

A ``Step`` is one model call and what the agent did with it: ran a tool
(``action``), finished (``final_answer``), sent back a correction
(``format_error``), had its answer sent back by a check (``rejected_answer``: the check's name
is its ``error``), or gave up on a failing backend (``model_error``).
``to_messages()`` renders the step as the chat messages the model sees next
time: text-ReAct steps as an assistant turn plus a user ``Observation:``;
native tool-calling steps as an assistant turn with ``tool_calls`` plus
``tool`` messages. ``RunResult`` is a finished run.

Deliberately left out: token accounting per message; usage is kept per step.

    >>> s = Step(1, "final_answer", thought="Easy.", answer="4")
    >>> [m.content for m in s.to_messages()]
    ['Thought: Easy.\\nFinal Answer: 4']
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

from ..llm import Message, ToolCall, Usage
from ..react import final_text, observation_text, step_text

STEP_KINDS = ("action", "final_answer", "format_error", "rejected_answer", "model_error")
STOP_REASONS = ("final_answer", "max_steps", "time_budget", "repeated_action", "format_errors", "model_error")


def input_text(value: Any) -> str:
    """A tool input as the model should see it: JSON (Chinese kept readable), or the plain string."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


@dataclass
class ToolUse:
    """One tool request and its result. ``observation`` is exactly what the model is shown."""
    tool: str
    input: dict | str
    ok: bool
    observation: str
    error: str | None = None
    duration: float = 0.0
    call_id: str | None = None  # native tool calling pairs results with calls by id
    children: list["RunResult"] = field(default_factory=list)  # runs of other agents the call made (a subagent)


@dataclass
class Step:
    """One model call and its consequence (see the module docstring for the kinds)."""
    index: int
    kind: str
    reply: str = ""               # the model's text as received (after the stop sequence)
    thought: str = ""
    tool_uses: list[ToolUse] = field(default_factory=list)
    answer: str | None = None
    error: str | None = None      # what was wrong (format or model error)
    feedback: str | None = None   # the correction sent back to the model
    native: bool = False          # produced by native tool calling rather than text ReAct
    usage: Usage = field(default_factory=Usage)
    latency: float = 0.0          # seconds spent in the model
    duration: float = 0.0         # seconds for the whole step
    started: float = 0.0          # when the step began (time.time()), for timelines
    model_calls: int = 0          # attempts at the model call (more than 1 after a retry)
    replayed: bool = False        # the reply came from a recording (local/recording.py): no model time was spent

    @property
    def tool(self) -> str | None:
        return self.tool_uses[0].tool if self.tool_uses else None

    @property
    def input(self) -> dict | str | None:
        return self.tool_uses[0].input if self.tool_uses else None

    @property
    def observation(self) -> str | None:
        """What the model is shown after this step (tool results, a warning, or format feedback)."""
        if self.tool_uses:
            return "\n".join(u.observation for u in self.tool_uses)
        return self.feedback

    def to_messages(self, earlier_results: Sequence[str] = ()) -> list[Message]:
        """This step as chat messages, in the form the model should imitate next time.

        ``earlier_results`` are the successful tool results of previous steps; a text-ReAct
        observation repeats them before this step's result (see ``react_prompt.observation_text``).
        """
        if self.kind == "model_error":
            return []
        if self.native:
            return self._native_messages()
        if self.kind in ("format_error", "rejected_answer"):
            return [Message("assistant", self.reply), Message("user", f"Observation: {self.feedback}")]
        if self.kind == "final_answer":
            return [Message("assistant", final_text(self.thought, self.answer or ""))]
        u = self.tool_uses[0]
        results = [*earlier_results, u.observation] if u.ok else [u.observation]
        return [Message("assistant", step_text(self.thought, u.tool, u.input)),
                Message("user", observation_text(results))]

    def _native_messages(self) -> list[Message]:
        if self.kind == "final_answer":
            return [Message("assistant", self.answer or "")]
        if self.kind in ("format_error", "rejected_answer"):
            return [Message("assistant", self.reply), Message("user", self.feedback or "")]
        calls = [ToolCall(u.tool, input_text(u.input), u.call_id or f"call_{i}")
                 for i, u in enumerate(self.tool_uses)]
        return [Message("assistant", self.reply, calls)] + [
            Message("tool", u.observation, tool_call_id=c.id) for u, c in zip(self.tool_uses, calls)]

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Step":
        d = dict(d)
        d["tool_uses"] = [ToolUse(**{**u, "children": [RunResult.from_dict(c) for c in u.get("children", [])]})
                          for u in d.get("tool_uses", [])]
        d["usage"] = Usage(**d.get("usage", {}))
        return cls(**d)


@dataclass
class RunResult:
    """A finished run: the answer (None if it stopped without one), every step, and why it stopped."""
    answer: str | None
    steps: list[Step]
    stop_reason: str
    usage: Usage = field(default_factory=Usage)
    duration: float = 0.0
    run_id: str = ""
    question: str = ""

    @property
    def tools_used(self) -> list[str]:
        return [u.tool for s in self.steps for u in s.tool_uses]

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "RunResult":
        d = dict(d)
        d["steps"] = [Step.from_dict(s) for s in d.get("steps", [])]
        d["usage"] = Usage(**d.get("usage", {}))
        return cls(**d)
