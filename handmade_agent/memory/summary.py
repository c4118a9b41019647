"""Summary memory: turns that fall out of the window are condensed by the model into running notes.

A window forgets: whatever is evicted is gone. ``SummaryMemory`` instead asks
the model, each time turns are evicted, to write notes on them (a short bullet
list of facts), and appends those to a running summary. When the summary grows
past ``summary_max_tokens`` the model is asked to condense it; if it is still
too long, the oldest lines are dropped. The summary is sent (as a system
message) before the recent turns that still fit, and counts against the same
budget. Old turns stay in ``turns`` (for the panel and for saving) but are no
longer sent; ``summarized`` says how many of them the summary covers.

Why notes-then-condense rather than "rewrite the summary to include the new
lines" each time: measured in notebook 05, the 0.5B model asked to merge old
notes with new lines mostly dropped the old ones or echoed the dialogue, while
notes on a few lines at a time kept the facts.

Costs: one model call per eviction (two when condensing), and notes can lose
or distort a detail. ``log`` records every call so you can check.

Deliberately left out: summarizing inside a turn, and retrieval over old turns (chapter 06).

    >>> from handmade_agent.llm import ScriptedLLM
    >>> m = SummaryMemory(ScriptedLLM(["- The user is Li Lei."]), max_turns=1)
    >>> for q, a in [("I am Li Lei", "Hi Li Lei"), ("2+2?", "4")]:
    ...     m.add(Message("user", q)); m.add(Message("assistant", a))
    >>> [x.content for x in m.messages()][0]
    'Summary of the earlier conversation:\\n- The user is Li Lei.'
"""
from __future__ import annotations

import warnings
from typing import Any, Iterable

from ..agent import Observer, complete, emit
from ..errors import LLMError, StateError
from ..llm import Message, MessageLike
from .conversation import ConversationMemory, Counter, Window, memory_from_dict, message_tokens, window

SUMMARY_PROMPT = "You are a note taker."
SUMMARY_TEMPLATE = ("Here is a part of a conversation:\n\n{lines}\n\n"
                    "Write the facts from it as a short bullet list. Keep names, numbers and codes exactly.")
CONDENSE_TEMPLATE = ("Here are notes about a conversation:\n\n{notes}\n\nRewrite them as one shorter bullet list "
                     "without repeated facts. Keep names, numbers and codes exactly.")
SUMMARY_HEADER = "Summary of the earlier conversation:\n"


class SummaryMemory(ConversationMemory):
    """A ``ConversationMemory`` that folds evicted turns into model-written running notes."""

    kind = "summary"

    def __init__(self, llm: Any, *, max_turns: int | None = None, max_tokens: int | None = None,
                 summary_max_tokens: int = 150, system: str | None = None, count_tokens: Counter | None = None,
                 policy: str = "answers", prompt: str = SUMMARY_PROMPT, template: str = SUMMARY_TEMPLATE,
                 condense_template: str = CONDENSE_TEMPLATE, observers: Iterable[Observer] = (), retries: int = 1):
        if llm is None:
            raise ValueError("SummaryMemory needs an llm to write summaries; pass llm=... (any model works).")
        if max_tokens is not None and max_tokens <= summary_max_tokens:
            raise ValueError(f"max_tokens ({max_tokens}) must exceed summary_max_tokens ({summary_max_tokens}), "
                             "or the summary alone would fill the window.")
        super().__init__(max_turns=max_turns, max_tokens=max_tokens, system=system, llm=llm,
                         count_tokens=count_tokens, policy=policy)
        self.summary_max_tokens, self.prompt = summary_max_tokens, prompt
        self.template, self.condense_template = template, condense_template
        self.summary = ""
        self.summarized = 0  # turns[:summarized] are covered by the summary and no longer sent
        self.log: list[dict] = []
        # summary calls are model calls like the agent's: observed (an Agent adds itself) and retried
        self.observers, self.retries = list(observers), retries

    def fixed(self) -> list[Message]:
        summary = [Message("system", SUMMARY_HEADER + self.summary)] if self.summary else []
        return list(self.pinned) + summary

    def view(self) -> Window:
        """The window over the turns the summary does not cover yet."""
        return window(self.turns[self.summarized:], max_turns=self.max_turns, max_tokens=self.max_tokens,
                      count=self.count, fixed=self.fixed())

    def add(self, message: MessageLike) -> None:
        super().add(message)
        if self.turns and self.turns[-1][-1].role != "user":  # compact once a reply completes the turn
            self.compact()

    def add_turn(self, messages: Iterable[MessageLike]) -> None:
        super().add_turn(messages)
        self.compact()

    def compact(self) -> None:
        """Fold every evicted turn into the summary; repeats while turns are still evicted."""
        while (evicted := self.view().evicted):
            first, before = self.summarized, sum(message_tokens(m, self.count) for t in evicted for m in t)
            lines = "\n".join(f"{m.role.capitalize()}: {m.content}" for t in evicted for m in t)
            entry: dict = {"turns": [first, first + len(evicted)], "tokens_before": before, "condensed": False,
                           "dropped_lines": 0, "error": None}
            try:
                notes = self._ask(self.template.format(lines=lines))
                summary = f"{self.summary}\n{notes}".strip()
                if self.count(summary) > self.summary_max_tokens:
                    summary, entry["condensed"] = self._ask(self.condense_template.format(notes=summary)), True
                    summary, entry["dropped_lines"] = self._trim(summary)
            except Exception as e:  # a failed call must not lose the turns: keep them for the next try
                self.log.append({**entry, "error": f"{type(e).__name__}: {e}"})
                warnings.warn(f"summary failed ({type(e).__name__}: {e}); evicted turns stay unsummarized",
                              RuntimeWarning, stacklevel=2)
                return
            self.summary, self.summarized = summary, first + len(evicted)
            self.log.append({**entry, "notes": notes, "summary_tokens": self.count(summary)})

    def _ask(self, request: str) -> str:
        reply, error = complete(self.llm, [Message("system", self.prompt), Message("user", request)],
                                retries=self.retries, emit=lambda e: emit(self.observers, e), purpose="summary",
                                max_tokens=self.summary_max_tokens, temperature=0.0)
        if reply is None:
            raise LLMError(error)
        return reply.text.strip()

    def _trim(self, text: str) -> tuple[str, int]:
        """Drop the oldest lines until the summary fits its budget (a condensation may not shrink it)."""
        lines = text.splitlines()
        dropped = 0
        while len(lines) > 1 and self.count("\n".join(lines)) > self.summary_max_tokens:
            lines, dropped = lines[1:], dropped + 1
        return "\n".join(lines), dropped

    def clear(self) -> None:
        super().clear()
        self.summary, self.summarized, self.log = "", 0, []

    def config(self) -> dict:
        return {**super().config(), "summary_max_tokens": self.summary_max_tokens, "prompt": self.prompt,
                "template": self.template, "condense_template": self.condense_template}

    def to_dict(self) -> dict:
        return {**super().to_dict(), "summary": self.summary, "summarized": self.summarized, "log": self.log}

    @classmethod
    def from_dict(cls, d: dict, llm: Any = None) -> "ConversationMemory":
        if d.get("kind") != cls.kind:
            return memory_from_dict(d, llm)
        if llm is None:
            raise StateError("This saved memory is a SummaryMemory, which needs a model to keep summarizing: "
                             "pass llm=... when loading it.")
        m = cls(llm, **d.get("config", {}))
        m._restore(d)
        m.summary, m.summarized, m.log = d.get("summary", ""), int(d.get("summarized", 0)), list(d.get("log", []))
        return m
