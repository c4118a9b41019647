"""A handoff: one model call decides which agent takes the conversation, and that agent answers with all of it.

A subagent (``subagents.py``) is asked a question and reports back; the orchestrator keeps the conversation.
A handoff gives the conversation away: ``Handoff(llm, {"manual": (agent, "..."), ...}, memory=...)`` routes each
user message with one short model call (the names under a grammar where the backend has one; otherwise the first
name the reply mentions), and the chosen agent runs with the shared ``memory``, so it sees every earlier turn,
whoever answered it. The record is one ``RunResult``: a single step whose tool use ``handoff`` holds the chosen
agent's run as its child (``subagents.walk`` and the trace panel read it like a subagent's), with both costs.

A reply that names no agent goes to the first one, and the step says so (``error``): a conversation never stops
because the router was unsure.

Deliberately left out: an agent handing the conversation on again in the middle of its run (OpenAI's Agents SDK
does that with a tool per target), and routing by embeddings (cheaper, and chapter 06 has the pieces).

    >>> from handmade_agent.agent import Agent
    >>> from handmade_agent.llm import ScriptedLLM
    >>> a = Agent(ScriptedLLM(["Thought: known\\nFinal Answer: 24 months"]), [])
    >>> h = Handoff(ScriptedLLM(["manual"]), {"manual": (a, "the product manual"), "calendar": (a, "dates")})
    >>> r = h.run("How long is the warranty?")
    >>> r.steps[0].tool_uses[0].input, r.answer
    ({'to': 'manual'}, '24 months')
"""
from __future__ import annotations

import time
import uuid
from typing import Any, Iterable

from ..agent import RunResult, Step, ToolUse, complete
from ..agent import events as ev
from ..errors import ConfigError
from ..llm import Message, Usage

ROUTER = ("You pass the user's message to the one assistant who should answer it. The assistants:\n{table}\n"
          "Reply with the assistant's name only.")


class Handoff:
    """Routes each message to one of ``agents`` (name -> (agent, what it handles)); see the module docstring."""

    def __init__(self, llm: Any, agents: dict[str, tuple[Any, str]], *, memory: Any = None,
                 observers: Iterable[ev.Observer] = (), recent_turns: int = 2):
        if not agents:
            raise ConfigError("A Handoff needs at least one agent: Handoff(llm, {'name': (agent, 'what it handles')}).")
        self.llm, self.agents, self.memory = llm, dict(agents), memory
        self.observers, self.recent_turns = list(observers), recent_turns
        for agent, _ in self.agents.values():
            if memory is not None:
                agent.memory = memory  # the conversation goes with the handoff: every agent reads and writes it

    def grammar(self) -> str | None:
        """GBNF allowing exactly one name, when the backend decodes under grammars."""
        if not getattr(self.llm, "supports_grammar", False):
            return None
        return "root ::= " + " | ".join(f'"{name}"' for name in self.agents) + "\n"

    def route_messages(self, question: str) -> list[Message]:
        table = "\n".join(f"- {name}: {what}" for name, (_, what) in self.agents.items())
        recent = self.memory.messages()[-2 * self.recent_turns:] if self.memory is not None else []
        said = "\n".join(f"{m.role}: {m.content}" for m in recent if m.role in ("user", "assistant"))
        context = f"The conversation so far:\n{said}\n\n" if said else ""
        return [Message("system", ROUTER.format(table=table)), Message("user", f"{context}New message: {question}")]

    def route(self, question: str, emit: ev.Observer = lambda e: None) -> tuple[str, Any, str | None]:
        """(chosen name, the completion or None, a note when the reply named no agent)."""
        grammar = self.grammar()
        extra = {"grammar": grammar} if grammar else {"max_tokens": 12}
        c, error = complete(self.llm, self.route_messages(question), retries=1, emit=emit, purpose="handoff", **extra)
        text = (c.text if c is not None else "").lower()
        named = sorted((text.find(n.lower()), n) for n in self.agents if n.lower() in text)
        if named:
            return named[0][1], c, None
        first = next(iter(self.agents))
        return first, c, f"the router named no agent ({error or repr(text[:40])}); {first} took the message"

    def run(self, question: str) -> RunResult:
        """Route ``question``, let the chosen agent answer it, and return the record of both."""
        run_id, t0 = f"handoff-{uuid.uuid4().hex[:8]}", time.perf_counter()

        def emit(e: ev.Event) -> None:
            e.run_id, e.step = run_id, 1
            ev.emit(self.observers, e)

        name, c, note = self.route(question, emit)
        child = self.agents[name][0].run(question)
        usage = child.usage if c is None else c.usage + child.usage
        use = ToolUse("handoff", {"to": name}, True, f"{name} took the conversation", children=[child])
        step = Step(1, "action", c.text if c is not None else "", tool_uses=[use], error=note,
                    usage=c.usage if c is not None else Usage(), latency=c.latency if c is not None else 0.0)
        return RunResult(child.answer, [step], child.stop_reason, usage, time.perf_counter() - t0, run_id, question)
