"""Compaction: when the conversation nears its token budget, the model rewrites the old turns as one structured note.

``SummaryMemory`` writes notes each time a turn falls out of the window: a model call per turn once the window is
full. ``CompactingMemory`` waits until the turns it still sends reach ``trigger`` of ``max_tokens``, then asks the
model once to rewrite its note with every turn but the last ``keep_turns``: three headed lists, facts (names,
numbers, codes and dates exactly), decisions, open tasks. The note replaces those turns, so after a compaction
the conversation costs the note plus a few turns, and grows again until the next one.

The turns the note replaced are not thrown away: ``messages_for(question)`` (the agent asks for it when a memory
has it) adds the ``recall_turns`` old turns that share the most character pairs with the question, so a detail
the note lost can still come back. ``messages()`` is the same without recall.

Chapter 11 measures it against the window (truncation) and summary memory on scripted 32-turn conversations
(``benchmarks/long_conversations.py``, ``data/long_conversations.jsonl``).

Deliberately left out: recall by embeddings (chapter 06's; the pairs need no model and work for Chinese), and
compacting the middle of a single long turn.

    >>> from handmade_agent.llm import ScriptedLLM
    >>> m = CompactingMemory(ScriptedLLM(["Facts:\\n- Order QF-1."]), max_tokens=60, trigger=0.5, keep_turns=1,
    ...                      note_max_tokens=20)
    >>> for q, a in [("My order is QF-1.", "Noted."), ("How do I add a plant?", "Scan its tag in the app.")]:
    ...     m.add(Message("user", q)); m.add(Message("assistant", a))
    >>> m.summarized, m.messages_for("What is my order?")[1].content.splitlines()[1]
    (1, 'User: My order is QF-1.')
"""
from __future__ import annotations

import re
from typing import Any

from ..llm import Message
from .conversation import message_tokens
from .summary import SummaryMemory

NOTE_PROMPT = "You keep the notes of a support conversation."
NOTE_TEMPLATE = ("Your notes so far:\n{notes}\n\nNew part of the conversation:\n{lines}\n\nRewrite the notes to cover "
                 "both, under three headings: Facts (names, numbers, codes and dates exactly as written), Decisions, "
                 "Open tasks. Short lines; leave out small talk.")
NOTE_HEADER = "Notes on the earlier conversation:\n"
RECALL_HEADER = "Earlier turns that may matter now:\n"


def _pairs(text: str) -> set[str]:
    t = re.sub(r"\s+", "", text.lower())
    return {t[i:i + 2] for i in range(len(t) - 1)}


class CompactingMemory(SummaryMemory):
    """A memory that compacts old turns into one rewritten note near its budget, and recalls them by question."""

    kind = "compaction"

    def __init__(self, llm: Any, *, max_tokens: int, trigger: float = 0.8, keep_turns: int = 2,
                 note_max_tokens: int = 200, recall_turns: int = 2, prompt: str = NOTE_PROMPT,
                 template: str = NOTE_TEMPLATE, **kwargs: Any):
        if not 0 < trigger <= 1:
            raise ValueError(f"trigger is a share of max_tokens, between 0 and 1 (e.g. 0.8), not {trigger!r}")
        kwargs.pop("summary_max_tokens", None)  # a saved config carries it: the note's budget is note_max_tokens
        super().__init__(llm, max_tokens=max_tokens, summary_max_tokens=note_max_tokens, prompt=prompt,
                         template=template, **kwargs)
        self.trigger, self.keep_turns, self.recall_turns = trigger, keep_turns, recall_turns

    def fixed(self) -> list[Message]:
        note = [Message("system", NOTE_HEADER + self.summary)] if self.summary else []
        return list(self.pinned) + note

    def live_tokens(self) -> int:
        """Tokens of the note and every turn it does not cover (what would be sent without a window)."""
        live = [*self.fixed(), *(m for t in self.turns[self.summarized:] for m in t)]
        return sum(message_tokens(m, self.count) for m in live)

    def compact(self) -> None:
        """Rewrite the note over all live turns but the last ``keep_turns``, once they reach the trigger."""
        live = self.turns[self.summarized:]
        if len(live) <= self.keep_turns or self.live_tokens() < self.trigger * (self.max_tokens or 0):
            return
        old = live[:len(live) - self.keep_turns]
        first = self.summarized
        lines = "\n".join(f"{m.role.capitalize()}: {m.content}" for t in old for m in t)
        entry: dict = {"turns": [first, first + len(old)], "tokens_before": self.live_tokens(), "error": None}
        try:
            note = self._ask(self.template.format(notes=self.summary or "(none yet)", lines=lines))
        except Exception as e:  # a failed call loses nothing: the turns stay live and are tried again next turn
            self.log.append({**entry, "error": f"{type(e).__name__}: {e}"})
            return
        note, dropped = self._trim(note)
        self.summary, self.summarized = note, first + len(old)
        self.log.append({**entry, "tokens_after": self.live_tokens(), "dropped_lines": dropped})

    def recalled(self, question: str) -> list[Message]:
        """The old turns most like ``question`` (by shared character pairs), as one system message."""
        old = self.turns[:self.summarized]
        if not old or not self.recall_turns:
            return []
        asked = _pairs(question)
        scored = sorted(range(len(old)), key=lambda i: -len(asked & _pairs(" ".join(m.content for m in old[i]))))
        chosen = sorted(scored[:self.recall_turns])  # in the order they were said
        lines = "\n".join(f"{m.role.capitalize()}: {m.content}" for i in chosen for m in old[i])
        return [Message("system", RECALL_HEADER + lines)]

    def messages_for(self, question: str) -> list[Message]:
        """``messages()`` with the recalled old turns after the note."""
        return self.fixed() + self.recalled(question) + self.view().messages

    def config(self) -> dict:
        return {**super().config(), "trigger": self.trigger, "keep_turns": self.keep_turns,
                "note_max_tokens": self.summary_max_tokens, "recall_turns": self.recall_turns}
