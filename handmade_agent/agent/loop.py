"""The agent loop: ask the model, read its step, run the tool, show it the result, repeat.

``Agent(llm, tools).run(question)`` returns a ``RunResult``. Each ``step()`` is one model call
and what came of it (a ``Step``); whether the run goes on is decided in one place,
``stop_reason()``, checked before each step: ``final_answer``, ``model_error`` (the backend failed
``llm_retries`` + 1 times), ``format_errors`` (too many unreadable replies in a row),
``repeated_action`` (the same call again after a warning; constrained, the reply after a first
repeat may only be an answer), ``max_steps``, ``time_budget`` (no model call, tool or policy call starts
once it is over; a tool's time-out, and the model call's where the backend takes a ``timeout``, is cut to
what is left).
Nothing a model does makes ``run`` raise: bad format and tool failures go back to it as
observations. ``strategy="react"`` speaks the text protocol (chapter 02); ``"native"`` passes
tool schemas to the backend and reads ``Completion.tool_calls``. With ``constrained`` (on wherever
the backend ``supports_grammar``, e.g. ``LocalLLM``) each reply is decoded under a grammar: the ReAct
step from ``react_grammar``, a native call from the backend's ``tool_call_grammar``; parse-and-repair
stays for backends that cannot constrain. A final answer goes through the agent's answer policies
(``policies.py``; chapter 06's ``translate_answer`` is one), first ``answer_from_results`` while
``results_answer`` is on: an answer that gives a figure from fewer than two of the run's two or more tool
results is written again by the model from the results alone (``results_answer.py``). An answer that copies a
tool's error message is sent back once; a second one ends the run with a plain refusal (``tool_errors.py``).
A tool that asks for it gets the run's ``RunContext`` (question, run id, step, deadline). Every happening is an event (``events.py``); each
finished step is emitted whole as ``StepFinished``. Settings live in ``agent.config``; ``agent.max_steps``
reads and writes it there.

Deliberately left out: parallel tool execution, streaming, retrying a failed tool on the model's
behalf, and debugging hooks (a debugger asks ``ask_model()`` and passes its own completion to
``step()``; see ``widgets/debugger.py``).

    >>> from handmade_agent.llm import ScriptedLLM
    >>> Agent(ScriptedLLM(["Thought: easy\\nFinal Answer: 4"]), []).run("2+2?").answer
    '4'
"""
from __future__ import annotations

import inspect
import json
import time
import uuid
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Iterator

from ..errors import ConfigError, FormatError, StateError
from ..llm import Completion, Message, Usage
from ..grammar import answer_grammar
from ..react import (STOP, FinalAnswer, few_shot_messages, format_help, loads_lenient, parse, prompt_messages,
                     react_grammar)
from ..tools import RunContext, Tool, ToolRegistry
from . import events as ev
from .config import AgentConfig
from .model_call import complete
from .native import NATIVE_SYSTEM_PROMPT, clean_completion, native_reminder, read_native
from .policies import AnswerContext, AnswerPolicy, apply_policies
from .results_answer import answer_from_results
from .tool_errors import RETRY, copies_tool_error, echoes_retry, refusal
from .steps import RunResult, Step, ToolUse


@dataclass
class _Run:
    """The state of the run in progress."""
    run_id: str
    question: str
    started: float
    prefix: list[Message]
    steps: list[Step] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    format_errors: int = 0                               # consecutive
    repeats: int = 0
    answer_now: bool = False                             # after a repeated call: the next reply must answer
    error_retried: bool = False                          # an answer that copied a tool's error was sent back once
    seen: dict[tuple, str] = field(default_factory=dict)  # (tool, input) -> first observation
    calls: int = 0                                       # model calls made for the step in progress
    result: RunResult | None = None
    budget: float | None = None                          # the time budget this run started with

    @property
    def deadline(self) -> float | None:
        return None if self.budget is None else self.started + self.budget


class Agent:
    """A tool-using agent over any ``LLM``. Settings are ``AgentConfig`` fields, given as keywords;
    ``answer_policies`` rewrite each final answer in turn (``policies.py``; none by default)."""

    def __init__(self, llm: Any, tools: ToolRegistry | Iterable[Tool], *, memory: Any = None,
                 observers: Iterable[ev.Observer] = (), config: AgentConfig | None = None,
                 answer_policies: Iterable[AnswerPolicy] = (), **settings: Any):
        unknown = set(settings) - set(AgentConfig.names())
        if unknown:
            raise TypeError(f"Agent got unknown settings {sorted(unknown)}; known: {AgentConfig.names()}")
        self.config = AgentConfig(**{**(asdict(config) if config else {}), **settings})
        self.llm, self.memory, self.observers = llm, memory, list(observers)
        self.answer_policies = list(answer_policies)
        self.tools = tools if isinstance(tools, ToolRegistry) else ToolRegistry(tools)
        self.last_result: RunResult | None = None
        self._run: _Run | None = None

    def _relay(self, event: ev.Event) -> None:
        self._emit(event, len(self._run.steps) if self._run else 0)

    @contextmanager
    def _memory_relayed(self) -> Iterator[None]:
        """While the agent calls its memory, a memory that calls the model (summaries) reports those calls into
        this agent's run. Lent for the call only: the memory is not changed, and two agents sharing one memory
        each see only the calls they caused."""
        listeners = getattr(self.memory, "observers", None)
        if not isinstance(listeners, list):
            yield
            return
        listeners.append(self._relay)
        try:
            yield
        finally:
            listeners.remove(self._relay)

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
        """Everything sent before the conversation: system prompt(s) and worked examples (chosen for
        ``question`` when given; without one, the fixed default set)."""
        if self.config.system_prompt is not None:
            return [Message("system", self.config.system_prompt), *self.examples()]
        if self._react:
            return prompt_messages(self.tools, self.config.few_shot, self.config.toolbox_examples, question)
        return [Message("system", NATIVE_SYSTEM_PROMPT)]

    def examples(self) -> list[Message]:
        """The toolbox examples that fit the tools, as chat turns (text ReAct with few_shot only)."""
        return few_shot_messages(self.tools, self.config.toolbox_examples) if self.config.few_shot and self._react else []

    @property
    def _react(self) -> bool:
        return self.config.strategy == "react"

    # --- the loop --------------------------------------------------------------------------------

    def run(self, question: str) -> RunResult:
        """Answer ``question``; never raises because of the model or a tool."""
        self.start(question)
        while self.step() is not None:
            pass
        assert self.last_result is not None
        return self.last_result

    def start(self, question: str) -> None:
        """Begin a run without taking a step (for step-through debugging)."""
        if not isinstance(question, str):
            raise ConfigError(f"A question must be a string, not {type(question).__name__} ({str(question)[:40]!r}): "
                              f"ask agent.run(str(...)).")
        with self._memory_relayed():
            history = [self._from_memory(m) for m in (self.memory.messages() if self.memory is not None else [])]
        prefix = [*self.prompt_messages(question), *history, Message("user", question)]
        self._run = _Run(f"run-{uuid.uuid4().hex[:8]}", question, time.perf_counter(), prefix,
                         budget=self.config.time_budget)
        self._emit(ev.RunStarted(question=question, settings=self.settings()), 0)

    def step(self, completion: Completion | None = None) -> Step | None:
        """Take one step (``completion``: use this reply instead of asking the model). None once the run is over."""
        r = self._state()
        if r.result is None and (reason := self.stop_reason()):
            self._finish(r, reason)
        if r.result is not None:
            return None
        t0, started, index = time.perf_counter(), time.time(), len(r.steps) + 1
        error = ""
        if completion is None:
            completion, error = self._ask(index)
        if completion is None:
            step = Step(index, "model_error", error=error, native=not self._react)
        else:
            r.usage = r.usage + completion.usage
            step = self._react_step(r, index, completion) if self._react else self._native_step(r, index, completion)
            step.usage, step.latency = completion.usage + step.usage, completion.latency + step.latency
            step.replayed = completion.replayed
        step.started, step.model_calls, step.duration = started, r.calls, time.perf_counter() - t0
        r.calls = 0
        r.answer_now = r.answer_now and step.kind == "action" and any(u.error == "repeated_action" for u in step.tool_uses)
        r.steps.append(step)
        self._emit(ev.StepFinished(record=step), index)
        if reason := self.stop_reason():  # finish now, so `finished` and `last_result` are right after a step
            self._finish(r, reason)
        return step

    def stop_reason(self) -> str | None:
        """Why the run must stop now, or None to go on: every stopping rule of the loop is here."""
        r = self._state()
        last = r.steps[-1] if r.steps else None
        if last is not None and last.kind in ("final_answer", "model_error"):
            return last.kind
        if r.format_errors >= self.config.max_format_errors:
            return "format_errors"
        if r.repeats > 1:
            return "repeated_action"
        if len(r.steps) >= self.config.max_steps:
            return "max_steps"
        if self._out_of_time():
            return "time_budget"
        return None

    def _out_of_time(self) -> bool:
        deadline = self._state().deadline
        return deadline is not None and time.perf_counter() >= deadline

    @property
    def finished(self) -> bool:
        return self._run is None or self._run.result is not None

    def messages(self) -> list[Message]:
        """Exactly what the model is sent at the next step."""
        r = self._state()
        out, results = list(r.prefix), []
        for s in r.steps:
            out += s.to_messages(results if self.config.recap_results else ())
            results += [u.observation for u in s.tool_uses if u.ok and s.kind == "action"]
        if not self._react and out[-1].role == "tool":
            out.append(native_reminder(r.question, results if self.config.recap_results else [], r.answer_now))
        return out

    def ask_model(self) -> Completion | None:
        """The model's next reply, without acting on it (None if the backend failed)."""
        return self._ask(len(self._state().steps) + 1)[0]

    # --- one step, each strategy -----------------------------------------------------------------

    def _emitter(self, index: int):
        """The ``emit`` for a model call of step ``index``: counts its attempts on the run, then emits."""
        r = self._state()

        def emit(e: ev.Event) -> None:
            r.calls += isinstance(e, ev.LLMCallStarted)
            self._emit(e, index)
        return emit

    def _ask(self, index: int) -> tuple[Completion | None, str]:
        native = not self._react
        extra = {"grammar": g} if (g := self.grammar()) else {}  # only then: an LLM written before grammars still works
        return self._complete(index, self.messages(), stop=None if native else STOP,
                              tools=self.tools.schemas() if native else None, **extra)

    def _complete(self, index: int, messages: list[Message], purpose: str = "step",
                  **kwargs: Any) -> tuple[Completion | None, str]:
        """The observed, retried model call of step ``index``; given what is left of the time budget as its
        ``timeout`` where the backend's ``complete`` takes one."""
        left = None if (d := self._state().deadline) is None else max(0.0, d - time.perf_counter())
        if left is not None and _takes_timeout(self.llm):
            kwargs["timeout"] = left
        kwargs.setdefault("max_tokens", self.config.max_tokens)
        return complete(self.llm, messages, retries=self.config.llm_retries, emit=self._emitter(index),
                        purpose=purpose, **kwargs)

    @property
    def constrained(self) -> bool:
        """Are replies grammar-constrained? ``constrained=None`` means: if the backend can constrain."""
        wanted = self.config.constrained
        can = bool(getattr(self.llm, "supports_grammar", False))
        return can if wanted is None else bool(wanted) and can

    def grammar(self) -> str | None:
        """The GBNF a reply must follow, or None (not constrained, or no way to say it for this backend).

        After a repeated call the next reply may only be an answer: measured on the 0.5B model, a repeat
        means it has what it needs but cannot leave the call format (native: 11 of 11 everyday tasks ended
        in ``repeated_action`` with no answer, each repeat a call whose result it already had).
        """
        if not self.constrained:
            return None
        answer_only = self._run is not None and self._run.answer_now
        if self._react:
            return react_grammar([] if answer_only else self.tools)
        if answer_only:
            return answer_grammar()
        native = getattr(self.llm, "tool_call_grammar", None)  # the call syntax is the backend's own
        return native(self.tools.schemas()) if callable(native) else None

    def _react_step(self, r: _Run, index: int, c: Completion) -> Step:
        try:
            parsed = parse(c.text)
        except FormatError as e:
            return self._format_error(r, index, c.text, str(e), e.problem + "\n" + format_help(self.tools.names()))
        r.format_errors = 0
        if isinstance(parsed, FinalAnswer):
            return self._final(index, c.text, parsed.answer, parsed.thought)
        use = self._act(r, index, parsed.tool, parsed.input)
        return Step(index, "action", c.text, parsed.thought, [use])

    def _native_step(self, r: _Run, index: int, c: Completion) -> Step:
        c = clean_completion(c, index)  # a None text or tool name from the server must not crash the step
        reply = read_native(c, index)
        if reply.problem:
            return self._format_error(r, index, c.text or "", reply.problem, reply.feedback or reply.problem)
        r.format_errors = 0
        if reply.answer is not None:
            return self._final(index, c.text or "", reply.answer, "")
        uses = []
        for call in reply.calls:
            args = loads_lenient(call.arguments or "{}")
            use = self._act(r, index, call.name or "", args if isinstance(args, dict) else call.arguments)
            use.call_id = call.id
            uses.append(use)
        return Step(index, "action", c.text or "", "", uses, native=True)

    def _final(self, index: int, reply: str, answer: str, thought: str) -> Step:
        r = self._state()
        failed = [u for s in r.steps for u in s.tool_uses if not u.ok]
        copied = failed and copies_tool_error(answer, [u.observation for u in failed])
        if copied or (r.error_retried and echoes_retry(answer)):  # an error is never the answer (tool_errors.py)
            if not r.error_retried:
                r.error_retried = True
                return self._format_error(r, index, reply, "the answer copies a tool's error message", RETRY)
            answer = refusal([u.tool for u in failed])
        spent, seconds = Usage(), 0.0  # what the policies' model calls cost
        policies = [answer_from_results] * self.config.results_answer + self.answer_policies
        if policies:  # the reply keeps what the model wrote; the answer is what the policies made of it
            def ask(messages: list[Message], purpose: str = "policy", **kwargs: Any) -> Completion | None:
                nonlocal spent, seconds
                c = None if self._out_of_time() else self._complete(index, messages, purpose, **kwargs)[0]
                if c is not None:  # a policy's call is this step's cost too: counted in the step and the run
                    spent, seconds = spent + c.usage, seconds + (c.latency or 0.0)
                    r.usage = r.usage + c.usage
                return c
            results = tuple(u.observation for s in r.steps if s.kind == "action" for u in s.tool_uses if u.ok)
            context = AnswerContext(r.question, r.run_id, index, self.constrained, ask, results)
            answer = apply_policies(policies, context, answer)
        self._emit(ev.FinalAnswer(answer=answer), index)
        return Step(index, "final_answer", reply, thought, answer=answer, native=not self._react, usage=spent,
                    latency=seconds)

    def _format_error(self, r: _Run, index: int, reply: str, error: str, feedback: str) -> Step:
        r.format_errors += 1
        self._emit(ev.ParseFailed(text=reply, error=error, feedback=feedback), index)
        return Step(index, "format_error", reply, error=error, feedback=feedback, native=not self._react)

    def _act(self, r: _Run, index: int, name: str, args: dict | str) -> ToolUse:
        """Run a tool, unless it is a repeat (with ``repeat_guard``): then warn instead (a second repeat stops the run)."""
        tool = self.tools.get(name)
        key = (tool.name if tool else name.strip().lower(), json.dumps(args, sort_keys=True, ensure_ascii=False))
        self._emit(ev.ToolStarted(name=name, args=args), index)
        if self._out_of_time():  # the model's reply came after the budget ran out: nothing more starts
            use = ToolUse(name, args, False, "Not run: the run's time budget is over.", "time_budget")
        elif self.config.repeat_guard and key in r.seen:  # off: a repeat simply runs again
            r.repeats, r.answer_now = r.repeats + 1, True
            # constrained, the grammar lets the next reply only answer, so the result is shown again bare: any
            # note next to it, before or after, was copied as the final answer by the 0.5B model (kb_tasks)
            text = r.seen[key] if self.constrained else (
                f"You already called {name} with this input; the result was: {r.seen[key]}\n"
                "Do not repeat the same call. Use that result, try a different input, or give the Final Answer.")
            use = ToolUse(name, args, False, text, "repeated_action")
        else:
            res = self.tools.call(name, args, context=RunContext(r.question, r.run_id, index, r.deadline))
            use = ToolUse(name, args, res.ok, res.content, res.error, res.duration)
            r.seen[key] = res.content
        self._emit(ev.ToolFinished(name=name, args=args, ok=use.ok, content=use.observation, error=use.error,
                                   duration=use.duration), index)
        return use

    # --- bookkeeping -------------------------------------------------------------------------------

    def _finish(self, r: _Run, reason: str) -> None:
        last = r.steps[-1] if r.steps else None
        answer = last.answer if reason == "final_answer" and last is not None else None
        r.result = RunResult(answer, list(r.steps), reason, r.usage, time.perf_counter() - r.started,
                             r.run_id, r.question)
        self.last_result = r.result
        if self.memory is not None and answer is not None:  # remember finished exchanges only
            with self._memory_relayed():
                if hasattr(self.memory, "record_run"):  # the memory's own policy decides what is kept
                    self.memory.record_run(r.question, r.result)
                else:
                    self.memory.add(Message("user", r.question))
                    self.memory.add(Message("assistant", answer))
        self._emit(ev.RunFinished(answer=answer, stop_reason=reason, steps=len(r.steps), usage=r.usage,
                                  duration=r.result.duration), len(r.steps))

    def _from_memory(self, m: Any) -> Message:
        """Past answers, shown in the protocol's own form so a text-ReAct model keeps to the format."""
        m = m if isinstance(m, Message) else Message(m["role"], m.get("content") or "")
        if self._react and m.role == "assistant" and not m.tool_calls and "Final Answer" not in m.content:
            return Message("assistant", f"Final Answer: {m.content}")
        return m

    def _state(self) -> _Run:
        if self._run is None:
            raise StateError("No run in progress: call agent.start(question) (or agent.run(question)) first.")
        return self._run

    def _emit(self, event: ev.Event, step: int) -> None:
        event.run_id, event.step = self._run.run_id if self._run else "", step
        ev.emit(self.observers, event)


def _takes_timeout(llm: Any) -> bool:
    """Does ``llm.complete`` name a ``timeout`` parameter? (Not merely ``**kwargs``: a wrapper may pass them on
    to a backend that has none.)"""
    try:
        return "timeout" in inspect.signature(llm.complete).parameters
    except (TypeError, ValueError, AttributeError):
        return False
