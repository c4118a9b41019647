"""Observers: callables that watch an agent run through its events.

``ConsolePrinter`` prints a run as it happens, at three levels of detail:
``"quiet"`` (answer, alerts, one summary line), ``"steps"`` (thought, action,
input, observation and errors of every step) and ``"debug"`` (also each model
call: prompt size, raw reply, tokens, latency).

Deliberately left out: colours (they do not survive logs and notebooks alike)
and a logging-module handler (``ConsolePrinter(file=...)`` writes anywhere).

    >>> ConsolePrinter()(FinalAnswer(run_id="r", step=1, answer="42"))
    ✔ final answer: 42
"""
from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from ..agent.events import (Alert, Event, FinalAnswer, LLMCallFinished, LLMCallStarted, ParseFailed, ReplyEdited,
                     RunFinished, RunStarted, ToolFinished, ToolStarted)
from .metrics import fmt_duration
from .spans import thought_of

LEVELS = ("quiet", "steps", "debug")


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
        self._step = -1  # the step whose heading was printed last

    def _out(self, text: str) -> None:
        print(text, file=self.file or sys.stdout)  # resolve stdout late: notebooks swap it per cell

    def __call__(self, event: Event) -> None:
        steps, debug, w = self.level != "quiet", self.level == "debug", self.width
        if isinstance(event, RunStarted):
            self._step = -1
        if isinstance(event, RunStarted) and steps:
            self._out(f"▶ question: {_short(event.question, w)}")
        elif isinstance(event, LLMCallStarted) and steps:
            if event.step != self._step:  # a retried call stays under the same heading
                self._step = event.step
                self._out(f"── step {event.step} ──")
            if debug:
                last = event.messages[-1] if event.messages else {}
                content = last.get("content", "") if isinstance(last, dict) else str(last)
                self._out(f"  model call with {len(event.messages)} messages; last: {_short(content or '', w)}")
        elif isinstance(event, LLMCallFinished):
            if event.error:
                self._out(f"  ✗ model error: {_short(event.error, w)}")
            elif debug:
                self._out(f"  reply ({event.usage.prompt_tokens}+{event.usage.completion_tokens} tokens,"
                          f" {fmt_duration(event.latency)}): {_short(event.text, w)}")
            elif steps and thought_of(event.text):
                self._out(f"  thought: {_short(thought_of(event.text), w)}")
        elif isinstance(event, ReplyEdited) and steps:
            self._out(f"  ✎ reply edited by hand: {_short(event.text, w)}")
        elif isinstance(event, ParseFailed) and steps:
            self._out(f"  ✗ format error: {_short(event.error, w)}")
        elif isinstance(event, ToolStarted) and steps:
            self._out(f"  action: {event.name} {_short(event.args, w)}")
        elif isinstance(event, ToolFinished) and steps:
            mark = "observation" if event.ok else "✗ tool error"
            took = f" ({fmt_duration(event.duration)})" if debug else ""
            self._out(f"  {mark}{took}: {_short(event.content, w)}")
        elif isinstance(event, FinalAnswer):
            self._out(f"✔ final answer: {_short(event.answer, w)}")
        elif isinstance(event, Alert):
            self._out(f"⚠ alert {event.name}: {_short(event.message, w)}")
        elif isinstance(event, RunFinished):
            self._out(f"■ {event.stop_reason} after {event.steps} steps · {event.usage.total_tokens} tokens"
                      f" · {fmt_duration(event.duration)}")
