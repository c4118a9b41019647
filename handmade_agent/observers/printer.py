"""Observers: callables that watch an agent run through its events.

``ConsolePrinter`` prints a run as it happens, at three levels of detail:
``"quiet"`` (answer, alerts, one summary line), ``"steps"`` (each finished step from
its ``Step`` record: thought, action and input, observation, errors, feedback) and
``"debug"`` (also each model call: prompt size, raw reply, tokens, latency, and its
purpose when it was not the agent's own step, e.g. a memory summary).
The thought shown is the parser's (``step.thought``); an unreadable reply is shown raw.

Deliberately left out: colours (they do not survive logs and notebooks alike)
and a logging-module handler (``ConsolePrinter(file=...)`` writes anywhere).

    >>> ConsolePrinter()(StepFinished(step=1, record=Step(1, "final_answer", thought="easy", answer="42")))
    ── step 1 ──
      thought: easy
    ✔ final answer: 42
"""
from __future__ import annotations

import json
import re
import sys
from typing import Any, TextIO

from ..agent.events import (Alert, Event, LLMCallFinished, LLMCallStarted, ReplyEdited, RunFinished, RunStarted,
                            StepFinished)
from ..agent import Step
from ..redaction import redact_text
from .metrics import fmt_duration

LEVELS = ("quiet", "steps", "debug")
_PROGRAM = re.compile(r"```[a-z]*\n(.*?)(?:```|$)", re.S)  # a code action's program, as chapter 10 fences it


def _short(value: Any, width: int) -> str:
    """One line of at most ``width`` characters (JSON for dicts, so inputs read as the model wrote them)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


class ConsolePrinter:
    """Print events as readable lines. ``level`` is one of ``LEVELS``; ``width`` cuts long text."""

    def __init__(self, level: str = "steps", *, width: int = 200, file: TextIO | None = None):
        if level not in LEVELS:
            raise ValueError(f"level {level!r} is not one of {LEVELS}; pick 'steps' for a normal run.")
        self.level, self.width, self.file = level, width, file
        self._step = -1                                # the step whose heading was printed last
        self._edits: dict[int, ReplyEdited] = {}      # shown under the step's heading, once it finishes

    def _out(self, text: str) -> None:
        # redacted here too: a printer called directly (not through emit) still prints no key
        print(redact_text(text), file=self.file or sys.stdout)  # resolve stdout late: notebooks swap it per cell

    def _heading(self, step: int) -> None:
        if step != self._step:  # a retried call, and the step record after its calls, stay under one heading
            self._step = step
            self._out(f"── step {step} ──")

    def __call__(self, event: Event) -> None:
        steps, debug, w = self.level != "quiet", self.level == "debug", self.width
        if isinstance(event, RunStarted):
            self._step, self._edits = -1, {}
            if steps:
                self._out(f"▶ question: {_short(event.question, w)}")
        elif isinstance(event, LLMCallStarted) and debug:
            if event.purpose == "step":
                self._heading(event.step)
            last = event.messages[-1] if event.messages else {}
            content = last.get("content", "") if isinstance(last, dict) else str(last)
            size = sum(len(str(m.get("content") or "")) if isinstance(m, dict) else len(str(m))
                       for m in event.messages)
            self._out(f"  model call{self._purpose(event)} with {len(event.messages)} messages ({size} characters);"
                      f" last: {_short(content or '', w)}")
        elif isinstance(event, LLMCallFinished) and debug:
            if event.error:
                self._out(f"  ✗ model call failed{self._purpose(event)} ({fmt_duration(event.latency)}):"
                          f" {_short(event.error, w)}")
            else:
                self._out(f"  reply{self._purpose(event)} ({event.usage.prompt_tokens}+"
                          f"{event.usage.completion_tokens} tokens, {fmt_duration(event.latency)}):"
                          f" {_short(event.text, w)}")
        elif isinstance(event, ReplyEdited):
            self._edits[event.step] = event
        elif isinstance(event, StepFinished):
            self._print_step(event.record)
        elif isinstance(event, Alert):
            self._out(f"⚠ alert {event.name}: {_short(event.message, w)}")
        elif isinstance(event, RunFinished):
            self._out(f"■ {event.stop_reason} after {event.steps} steps · {event.usage.total_tokens} tokens"
                      f" · {fmt_duration(event.duration)}")

    @staticmethod
    def _purpose(event: LLMCallStarted | LLMCallFinished) -> str:
        return "" if event.purpose == "step" else f" [{event.purpose}]"

    def _print_step(self, s: Step) -> None:
        w, debug = self.width, self.level == "debug"
        if self.level != "quiet":
            self._heading(s.index)
            if s.index in self._edits:
                self._out(f"  ✎ reply edited by hand; the model wrote: {_short(self._edits[s.index].original, w)}")
            if s.kind == "format_error":  # nothing was understood: show what the model wrote, not a "thought"
                self._out(f"  reply: {_short(s.reply, w)}")
            elif s.thought:
                self._out(f"  thought: {_short(s.thought, w)}")
            program = s.kind == "action" and s.feedback is not None  # a code action: its observation is feedback
            if program and (code := _PROGRAM.search(s.reply)):
                self._out(f"  program: {_short(code.group(1).strip().replace(chr(10), ' ⏎ '), w)}")
            for u in s.tool_uses:
                self._out(f"  action: {u.tool} {_short(u.input, w)}")
                took = f" ({fmt_duration(u.duration)})" if debug else ""
                self._out(f"  {'observation' if u.ok else '✗ tool error'}{took}: {_short(u.observation, w)}")
            if s.kind in ("format_error", "model_error"):
                self._out(f"  ✗ {s.kind.replace('_', ' ')}: {_short(s.error or '', w)}")
            if s.kind == "rejected_answer":
                self._out(f"  ✗ answer sent back by {s.error}: {_short(s.reply, w)}")
            # the feedback usually opens by restating the error just printed: show only what it adds
            rest = s.feedback or ""
            rest = rest[len(s.error):].strip() if s.error and rest.startswith(s.error) else rest
            if rest:
                self._out(f"  {'printed' if program else 'feedback'}: {_short(rest, w)}")
        if s.answer is not None:
            self._out(f"✔ final answer: {_short(s.answer, w)}")
