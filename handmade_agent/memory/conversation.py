"""Conversation memory: what an agent remembers between runs, windowed by turns and by tokens.

A model is stateless: it sees only the messages sent in one call. Memory keeps
past turns (a user message and the replies that followed it) and hands the
agent a *window* of them: the most recent whole turns that fit ``max_turns``
and a ``max_tokens`` budget, counted with the model's own tokenizer when the
LLM has ``count_tokens`` and with a ~4-characters-per-token estimate otherwise.
System messages given to the memory are pinned: always sent, never evicted.

What enters memory is a policy, applied by ``record_run(question, result)``.
The default, ``"answers"``, keeps the question and the final answer of each
run: small, and what a person remembers of a conversation. ``"transcript"``
also keeps every thought, tool call and observation: several times the tokens,
but the model sees *how* it answered before (a text-ReAct scratchpad is kept
as one assistant message, exactly as written), which small models imitate.

Deliberately left out: trimming inside a turn (a turn is kept whole or not at
all), long-term retrieval memory (that is RAG, chapter 06), and summaries
(``summary_memory.py``).

    >>> m = ConversationMemory(max_turns=1)
    >>> for q, a in [("Hi", "Hello!"), ("2+2?", "4")]:
    ...     m.add(Message("user", q)); m.add(Message("assistant", a))
    >>> [x.content for x in m.messages()]
    ['2+2?', '4']
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Iterable, Sequence

from ..errors import StateError
from ..llm import Message, MessageLike, as_message, estimate_tokens, token_counter

Counter = Callable[[str], int]
MESSAGE_OVERHEAD = 5  # what ChatML wraps around each message: <|im_start|> role \n ... <|im_end|> \n
POLICIES = ("answers", "transcript")


def message_tokens(m: Message, count: Counter = estimate_tokens) -> int:
    """Tokens one message costs in a prompt: its text, its tool calls and the template overhead."""
    calls = sum(count(c.name) + count(c.arguments) for c in m.tool_calls)
    return count(m.content) + calls + MESSAGE_OVERHEAD


def split_turns(messages: Iterable[MessageLike]) -> list[list[Message]]:
    """Group a flat message list into turns; each user message starts a new turn."""
    turns: list[list[Message]] = []
    for m in map(as_message, messages):
        if m.role == "user" or not turns:
            turns.append([])
        turns[-1].append(m)
    return turns


@dataclass
class Window:
    """The result of windowing: turns kept (oldest first), turns evicted, and tokens of what is sent."""
    kept: list[list[Message]] = field(default_factory=list)
    evicted: list[list[Message]] = field(default_factory=list)
    tokens: int = 0

    @property
    def messages(self) -> list[Message]:
        return [m for turn in self.kept for m in turn]


def window(turns: Sequence[list[Message]], *, max_turns: int | None = None, max_tokens: int | None = None,
           count: Counter = estimate_tokens, fixed: Sequence[Message] = ()) -> Window:
    """Keep the most recent whole turns that fit both limits; ``fixed`` messages are always counted.

    Walks from the newest turn backwards and stops at the first turn that does
    not fit, so what is kept is always a contiguous suffix (no holes in the story).
    """
    used = sum(message_tokens(m, count) for m in fixed)
    start = len(turns)
    while start > 0:
        if max_turns is not None and len(turns) - start >= max_turns:
            break
        cost = sum(message_tokens(m, count) for m in turns[start - 1])
        if max_tokens is not None and used + cost > max_tokens:
            break
        used, start = used + cost, start - 1
    return Window(list(turns[start:]), list(turns[:start]), used)


class ConversationMemory:
    """Past turns plus pinned system messages; ``messages()`` is the window the agent sends."""

    kind = "conversation"
    kinds: ClassVar[dict[str, type["ConversationMemory"]]] = {}  # every memory kind, for memory_from_dict

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        ConversationMemory.kinds[cls.kind] = cls  # a subclass registers itself: no import back to it

    def __init__(self, *, max_turns: int | None = None, max_tokens: int | None = None,
                 system: str | None = None, llm: Any = None, count_tokens: Counter | None = None,
                 policy: str = "answers"):
        if policy not in POLICIES:
            raise ValueError(f"policy must be one of {POLICIES}, not {policy!r}")
        for name, v in (("max_turns", max_turns), ("max_tokens", max_tokens)):
            if v is not None and v < 0:
                raise ValueError(f"{name} must be >= 0 or None (no limit), not {v}")
        self.max_turns, self.max_tokens, self.policy = max_turns, max_tokens, policy
        self.llm = llm
        self.count: Counter = count_tokens or token_counter(llm)
        self.tokenizer = "estimate" if self.count is estimate_tokens else "model"
        self.pinned: list[Message] = [Message("system", system)] if system else []
        self.turns: list[list[Message]] = []

    def add(self, message: MessageLike) -> None:
        """Remember one message: system messages are pinned, a user message opens a new turn."""
        m = as_message(message)
        if m.role == "system":
            self.pinned.append(m)
        elif m.role == "user" or not self.turns:
            self.turns.append([m])
        else:
            self.turns[-1].append(m)

    def add_turn(self, messages: Iterable[MessageLike]) -> None:
        """Remember several messages as one turn, whatever their roles (used for step transcripts)."""
        turn = [as_message(m) for m in messages]
        if turn:
            self.turns.append(turn)

    def record_run(self, question: str, result: Any) -> None:
        """Remember one agent run according to ``policy`` (``result`` is a ``RunResult``)."""
        answer = getattr(result, "answer", None)
        turn = [Message("user", question)]
        if self.policy == "transcript":  # every step as the model saw it; the last one holds the answer
            steps = [as_message(m) for step in getattr(result, "steps", []) for m in step.to_messages()]
            if any(m.tool_calls or m.role == "tool" for m in steps):
                turn += steps  # native tool calling: calls and results must stay separate messages
            elif steps:  # text ReAct: one assistant message, the scratchpad exactly as it was written
                turn.append(Message("assistant", "\n".join(m.content for m in steps)))
        elif answer is not None:
            turn.append(Message("assistant", answer))
        self.add_turn(turn)

    def fixed(self) -> list[Message]:
        """Messages always sent before the turns (here: the pinned ones)."""
        return list(self.pinned)

    def view(self) -> Window:
        """The current window over all remembered turns."""
        return window(self.turns, max_turns=self.max_turns, max_tokens=self.max_tokens,
                      count=self.count, fixed=self.fixed())

    def messages(self) -> list[Message]:
        """What to place after the agent's system prompt: pinned messages, then the windowed turns."""
        return self.fixed() + self.view().messages

    def tokens(self) -> int:
        """Tokens that ``messages()`` costs in a prompt."""
        return self.view().tokens

    def clear(self) -> None:
        """Forget every turn (pinned messages stay)."""
        self.turns = []

    def __len__(self) -> int:
        return sum(len(t) for t in self.turns)

    def config(self) -> dict:
        return {"max_turns": self.max_turns, "max_tokens": self.max_tokens, "policy": self.policy}

    def to_dict(self) -> dict:
        """Plain JSON-able state (no functions, no model): config, pinned messages, turns."""
        return {"kind": self.kind, "config": self.config(), "tokenizer": self.tokenizer,
                "pinned": [m.to_dict() for m in self.pinned],
                "turns": [[m.to_dict() for m in t] for t in self.turns]}

    @classmethod
    def from_dict(cls, d: dict, llm: Any = None) -> "ConversationMemory":
        """Rebuild from ``to_dict()``; ``llm`` supplies the tokenizer (and the summarizer, for summaries)."""
        if d.get("kind", cls.kind) != cls.kind:
            return memory_from_dict(d, llm)
        m = cls(llm=llm, **d.get("config", {}))
        m._restore(d)
        return m

    def _restore(self, d: dict) -> None:
        self.pinned = [as_message(x) for x in d.get("pinned", [])]
        self.turns = [[as_message(x) for x in t] for t in d.get("turns", [])]


def memory_from_dict(d: dict, llm: Any = None) -> ConversationMemory:
    """Rebuild any memory kind from its ``to_dict()`` form."""
    kinds = {ConversationMemory.kind: ConversationMemory, **ConversationMemory.kinds}
    kind = d.get("kind")
    if kind not in kinds:
        raise StateError(f"Unknown memory kind {kind!r} (expected one of {sorted(kinds)}). "
                         "The state was written by other code; rebuild the memory instead of loading it.")
    return kinds[kind].from_dict(d, llm)
