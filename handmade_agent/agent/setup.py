"""An agent's set-up: what it is made of, and the prompt and grammar that follow from it. ``Agent`` adds the loop.

Settings are ``AgentConfig`` fields, given as keywords (``agent.max_steps`` reads and writes ``agent.config``);
``checks`` (default ``DEFAULT_CHECKS``) may send a final answer back and ``answer_policies`` rewrite it
(``policies.py``). The first system message is the protocol's, the same for every question (prefix cache).

Deliberately left out: anything that happens during a run (``loop.py``).

    >>> AgentSetup(None, [], max_steps=3).max_steps
    3
"""
from __future__ import annotations

from dataclasses import asdict
from typing import Any, Iterable

from ..grammar import answer_grammar
from ..llm import Message
from ..react import few_shot_messages, prompt_messages, react_grammar
from ..tools import Tool, ToolRegistry
from . import events as ev
from .comparison_check import both_sides
from .config import AgentConfig
from .native import NATIVE_SYSTEM_PROMPT
from .policies import AnswerCheck, AnswerPolicy
from .steps import RunResult
from .tool_errors import error_not_answer
from .unit_check import asked_unit
from .weekday_check import weekday_found

# measured on all 76 suite tasks and the held-out split (docs/benchmarks.md, notebook 08): both_sides took
# comparisons 2/8 -> 4/8 and changed nothing else; asked_unit turned one task right on each and none wrong;
# figures_found and like_with_like, sent back to the loop, lost two forecasts and fixed no comparison on the 1.5B
# (54/76 without, 52/76 with), so they are not default; reflection (planning/reflection.py) reads answers with them,
# and a caller adds them: Agent(checks=[*DEFAULT_CHECKS, figures_found]); weekday_found sent nothing back on either
# (63/76, 38/62 with it) and repaired 2 of 3 invented weekdays on questions written for it (weekday_check.py)
DEFAULT_CHECKS: tuple[AnswerCheck, ...] = (error_not_answer, both_sides, asked_unit, weekday_found)


class AgentSetup:
    """What an agent is before it runs: its model, tools, memory, observers, settings, checks and policies, and the
    prompt and grammar they make. ``Agent`` (``loop.py``) adds the loop."""

    def __init__(self, llm: Any, tools: ToolRegistry | Iterable[Tool], *, memory: Any = None,
                 observers: Iterable[ev.Observer] = (), config: AgentConfig | None = None,
                 checks: Iterable[AnswerCheck] | None = None, answer_policies: Iterable[AnswerPolicy] = (),
                 **settings: Any):
        if unknown := set(settings) - set(AgentConfig.names()):
            raise TypeError(f"Agent got unknown settings {sorted(unknown)}; known: {AgentConfig.names()}")
        self.config = AgentConfig(**{**(asdict(config) if config else {}), **settings})
        self.llm, self.memory, self.observers = llm, memory, list(observers)
        self.checks = list(DEFAULT_CHECKS if checks is None else checks)
        self.answer_policies = list(answer_policies)
        self.tools = tools if isinstance(tools, ToolRegistry) else ToolRegistry(tools)
        self.last_result: RunResult | None = None
        self._run: Any = None  # the run in progress (loop.py)

    def __getattr__(self, name: str) -> Any:  # agent.max_steps reads agent.config.max_steps
        if name in AgentConfig.names():
            return getattr(self.__dict__["config"], name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:  # agent.max_steps = 2 writes agent.config.max_steps
        if name in AgentConfig.names():
            setattr(self.config, name, value)  # checked there, like AgentConfig(max_steps=...)
        else:
            super().__setattr__(name, value)

    def settings(self) -> dict:
        """The settings as JSON-able data: ``Agent(llm, tools, **agent.settings())`` rebuilds the agent."""
        return self.config.to_dict()

    def prompt(self) -> str:
        """The (first) system prompt this agent sends."""
        return self.prompt_messages()[0].content

    def prompt_messages(self, question: str | None = None) -> list[Message]:
        """Everything sent before the conversation: system prompt(s) and worked examples."""
        if self.config.system_prompt is not None:
            return [Message("system", self.config.system_prompt), *self.examples()]
        if self._react:
            return prompt_messages(self.offered(), self.config.few_shot, self.config.toolbox_examples, question)
        return [Message("system", NATIVE_SYSTEM_PROMPT)]

    def examples(self) -> list[Message]:
        """The toolbox examples that fit the tools, as chat turns (text ReAct with few_shot only)."""
        return few_shot_messages(self.offered(), self.config.toolbox_examples) if self.config.few_shot and self._react else []

    def offered(self) -> ToolRegistry:
        """The tools the run in progress is offered (the fit gate may offer none: ``tool_fit.py``); else all."""
        run = self._run
        return run.tools if run is not None and run.result is None and run.tools is not None else self.tools

    @property
    def _react(self) -> bool:
        return self.config.strategy == "react"

    @property
    def constrained(self) -> bool:
        """Are replies grammar-constrained? ``constrained=None`` means: if the backend can constrain."""
        can = bool(getattr(self.llm, "supports_grammar", False))
        return can if self.config.constrained is None else bool(self.config.constrained) and can

    def grammar(self) -> str | None:
        """The GBNF a reply must follow, or None. After a repeated call the next reply may only be an answer:
        measured on the 0.5B model, a repeat meant it had what it needed but could not leave the call format."""
        if not self.constrained:
            return None
        answer_only = self._run is not None and self._run.answer_now
        if self._react:
            act = self._run is not None and (self.config.act_first or self._run.act_first) and not self._run.steps
            return react_grammar([] if answer_only else self.offered(), act=act)
        if answer_only:
            return answer_grammar()
        native = getattr(self.llm, "tool_call_grammar", None)  # the call syntax is the backend's own
        return native(self.offered().schemas()) if callable(native) else None

    def _from_memory(self, m: Any) -> Message:
        """Past answers, shown in the protocol's own form so a text-ReAct model keeps to the format."""
        m = m if isinstance(m, Message) else Message(m["role"], m.get("content") or "")
        if self._react and m.role == "assistant" and not m.tool_calls and "Final Answer" not in m.content:
            return Message("assistant", f"Final Answer: {m.content}")
        return m
