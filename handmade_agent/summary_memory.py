"""Summary memory: turns that fall out of the window are condensed by the model into a running summary.

A window forgets: whatever is evicted is gone. ``SummaryMemory`` instead asks
the model, each time turns are evicted, to rewrite one short running summary
so that it also covers them. The summary is sent (as a system message) before
the recent turns that still fit, and it counts against the same budget.
The old turns are kept in ``turns`` (for the panel and for saving) but are no
longer sent; ``summarized`` says how many of them the summary covers.

Costs: one extra model call whenever something is evicted, and a summary can
lose or distort a detail (a small model does). ``log`` records every summary
call (which turns, tokens before and after, any error) so you can check.

Deliberately left out: hierarchical summaries and summarizing inside a turn.

    >>> from handmade_agent.llm import ScriptedLLM
    >>> m = SummaryMemory(ScriptedLLM(["The user is Li Lei."]), max_turns=1)
    >>> for q, a in [("I am Li Lei", "Hi Li Lei"), ("2+2?", "4")]:
    ...     m.add(Message("user", q)); m.add(Message("assistant", a))
    >>> [x.content for x in m.messages()][0]
    'Summary of the earlier conversation:\\nThe user is Li Lei.'
"""
from __future__ import annotations

import warnings
from typing import Any, Iterable

from .errors import StateError
from .llm import Message, MessageLike
from .memory import ConversationMemory, Counter, Window, memory_from_dict, message_tokens, window

# Worded for a 0.5B model: asked for "a summary" it tends to echo the dialogue; asked for notes as
# bullets it keeps the facts (measured in notebook 05).
SUMMARY_PROMPT = "You are a note taker."
SUMMARY_TEMPLATE = ("Notes so far:\n{summary}\n\nNew part of the conversation:\n\n{lines}\n\n"
                    "Write the updated notes as a short bullet list: keep the old facts and add the new ones. "
                    "Keep names, numbers and codes exactly.")
SUMMARY_HEADER = "Summary of the earlier conversation:\n"


class SummaryMemory(ConversationMemory):
    """A ``ConversationMemory`` that folds evicted turns into a model-written running summary."""

    kind = "summary"

    def __init__(self, llm: Any, *, max_turns: int | None = None, max_tokens: int | None = None,
                 summary_max_tokens: int = 150, system: str | None = None, count_tokens: Counter | None = None,
                 policy: str = "answers", prompt: str = SUMMARY_PROMPT, template: str = SUMMARY_TEMPLATE):
        if llm is None:
            raise ValueError("SummaryMemory needs an llm to write summaries; pass llm=... (any model works).")
        if max_tokens is not None and max_tokens <= summary_max_tokens:
            raise ValueError(f"max_tokens ({max_tokens}) must exceed summary_max_tokens ({summary_max_tokens}), "
                             "or the summary alone would fill the window.")
        super().__init__(max_turns=max_turns, max_tokens=max_tokens, system=system, llm=llm,
                         count_tokens=count_tokens, policy=policy)
        self.summary_max_tokens, self.prompt, self.template = summary_max_tokens, prompt, template
        self.summary = ""
        self.summarized = 0  # turns[:summarized] are covered by the summary and no longer sent
        self.log: list[dict] = []

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
        """Fold every evicted turn into the summary (one model call per pass; repeats if still too big)."""
        while (evicted := self.view().evicted):
            before = self.tokens_of(self.fixed()) + sum(self.tokens_of(t) for t in evicted)
            lines = "\n".join(f"{m.role.capitalize()}: {m.content}" for t in evicted for m in t)
            request = [Message("system", self.prompt),
                       Message("user", self.template.format(summary=self.summary or "(none)", lines=lines))]
            first = self.summarized
            try:
                reply = self.llm.complete(request, max_tokens=self.summary_max_tokens, temperature=0.0)
            except Exception as e:  # a failed summary must not lose the turns: keep them for the next try
                self.log.append({"turns": [first, first + len(evicted)], "error": f"{type(e).__name__}: {e}"})
                warnings.warn(f"summary failed ({type(e).__name__}: {e}); evicted turns stay unsummarized",
                              RuntimeWarning, stacklevel=2)
                return
            self.summary = reply.text.strip()
            self.summarized += len(evicted)
            self.log.append({"turns": [first, self.summarized], "tokens_before": before,
                             "tokens_after": self.tokens_of(self.fixed()), "error": None})

    def tokens_of(self, messages: list[Message]) -> int:
        return sum(message_tokens(m, self.count) for m in messages)

    def clear(self) -> None:
        super().clear()
        self.summary, self.summarized, self.log = "", 0, []

    def config(self) -> dict:
        return {**super().config(), "summary_max_tokens": self.summary_max_tokens, "prompt": self.prompt,
                "template": self.template}

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
