"""The agent loop: ask the model, read its step, run the tool, show it the result, repeat.

``Agent(llm, tools).run(question)`` returns a ``RunResult`` whose
``stop_reason`` says why the loop ended: ``final_answer``, ``max_steps``,
``time_budget`` (wall clock, checked before each model call),
``repeated_action`` (the same tool with the same input: first a warning
observation, the next time a stop), ``format_errors`` (too many unreadable
replies in a row) or ``model_error`` (the backend failed ``llm_retries`` + 1
times). Nothing a model does makes ``run`` raise: bad format and tool
failures go back to it as observations. ``strategy="react"`` speaks the text
protocol of ``react.py``; ``strategy="native"`` passes the tool schemas to the
backend and reads ``Completion.tool_calls``. Every happening is emitted as an
event (``events.py``). For step-through debugging: ``start(question)``, then
``step()`` (or ``propose()`` to see the model's reply and
``step(reply_override=...)`` to replace it).

Deliberately left out: parallel tool execution, streaming, and retrying a
failed tool on the model's behalf (the model decides what to do next).

    >>> from handmade_agent.llm import ScriptedLLM
    >>> Agent(ScriptedLLM(["Thought: easy\\nFinal Answer: 4"]), []).run("2+2?").answer
    '4'
"""
from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Iterable

from . import events as ev
from .errors import ConfigError, FormatError, StateError
from .llm import Completion, Message, Usage
from .model_call import complete
from .native import NATIVE_SYSTEM_PROMPT, read_native
from .react import STOP, FinalAnswer, build_system_prompt, parse
from .react_prompt import few_shot_messages
from .react_args import loads_lenient
from .steps import RunResult, Step, ToolUse
from .tools import Tool, ToolRegistry


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
    seen: dict[tuple, str] = field(default_factory=dict)  # (tool, input) -> first observation
    pending: Completion | None = None
    result: RunResult | None = None


class Agent:
    """A tool-using agent over any ``LLM``. See the module docstring for the loop and its stops."""

    def __init__(self, llm: Any, tools: ToolRegistry | Iterable[Tool], *, strategy: str = "react",
                 max_steps: int = 8, time_budget: float | None = None, max_format_errors: int = 3,
                 memory: Any = None, observers: Iterable[ev.Observer] = (), system_prompt: str | None = None,
                 few_shot: bool = True, llm_retries: int = 1, max_tokens: int = 256, recap_results: bool = True):
        if strategy not in ("react", "native"):
            raise ConfigError(f"strategy must be 'react' or 'native', not {strategy!r}.")
        if max_steps < 1 or max_format_errors < 1 or llm_retries < 0:
            raise ConfigError("max_steps and max_format_errors must be at least 1, llm_retries at least 0.")
        self.llm, self.memory, self.observers = llm, memory, list(observers)
        self.tools = tools if isinstance(tools, ToolRegistry) else ToolRegistry(tools)
        self.strategy, self.max_steps, self.time_budget = strategy, max_steps, time_budget
        self.max_format_errors, self.system_prompt, self.few_shot = max_format_errors, system_prompt, few_shot
        self.llm_retries, self.max_tokens, self.recap_results = llm_retries, max_tokens, recap_results
        self.last_result: RunResult | None = None
        self._run: _Run | None = None

    def settings(self) -> dict:
        """The constructor settings as JSON-able data: ``Agent(llm, tools, **agent.settings())`` rebuilds it."""
        return {"strategy": self.strategy, "max_steps": self.max_steps, "time_budget": self.time_budget,
                "max_format_errors": self.max_format_errors, "system_prompt": self.system_prompt,
                "few_shot": self.few_shot, "llm_retries": self.llm_retries, "max_tokens": self.max_tokens,
                "recap_results": self.recap_results}

    def prompt(self) -> str:
        """The system prompt this agent sends."""
        if self.system_prompt is not None:
            return self.system_prompt
        return build_system_prompt(self.tools, few_shot=False) if self.strategy == "react" else NATIVE_SYSTEM_PROMPT

    def examples(self) -> list[Message]:
        """The worked examples sent as chat turns before the question (text ReAct with few_shot only)."""
        return few_shot_messages(self.tools) if self.few_shot and self.strategy == "react" else []

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
        history = [self._from_memory(m) for m in (self.memory.messages() if self.memory is not None else [])]
        prefix = [Message("system", self.prompt()), *self.examples(), *history, Message("user", question)]
        self._run = _Run(f"run-{uuid.uuid4().hex[:8]}", question, time.perf_counter(), prefix)
        self._emit(ev.RunStarted(question=question, settings=self.settings()), 0)

    @property
    def finished(self) -> bool:
        return self._run is None or self._run.result is not None

    def messages(self) -> list[Message]:
        """Exactly what the model is sent at the next step."""
        r = self._state()
        out, results = list(r.prefix), []
        for s in r.steps:
            out += s.to_messages(results if self.recap_results else ())
            results += [u.observation for u in s.tool_uses if u.ok and s.kind == "action"]
        return out

    def propose(self) -> str | None:
        """Ask the model for its next reply without acting on it; ``step()`` then uses it. None if stopped."""
        r = self._state()
        if r.result is None and r.pending is None and not self._must_stop(r):
            r.pending = self._call_model(r)
        return r.pending.text if r.pending is not None else None

    def step(self, reply_override: str | None = None) -> Step | None:
        """Take one step; ``reply_override`` replaces the model's reply. Returns None once the run is over."""
        r = self._state()
        if r.result is not None or self._must_stop(r):
            return None
        t0 = time.perf_counter()
        if reply_override is not None:
            completion, r.pending = Completion(reply_override, model="override"), None
        else:
            completion, r.pending = r.pending or self._call_model(r), None
        if completion is None:
            return r.steps[-1] if r.steps else None
        index = len(r.steps) + 1
        r.usage = r.usage + completion.usage
        if self.strategy == "native":
            step = self._native_step(r, index, completion)
        else:
            step = self._react_step(r, index, completion)
        step.usage, step.latency, step.duration = completion.usage, completion.latency, time.perf_counter() - t0
        r.steps.append(step)
        if step.kind == "final_answer":
            self._finish(r, step.answer, "final_answer")
        elif r.format_errors >= self.max_format_errors:
            self._finish(r, None, "format_errors")
        elif r.repeats > 1:
            self._finish(r, None, "repeated_action")
        return step

    # --- one step, each strategy -----------------------------------------------------------------

    def _react_step(self, r: _Run, index: int, c: Completion) -> Step:
        try:
            parsed = parse(c.text)
        except FormatError as e:
            return self._format_error(r, index, c.text, str(e), e.feedback.replace(
                "<one tool name>", f"<one of: {', '.join(self.tools.names())}>"))
        r.format_errors = 0
        if isinstance(parsed, FinalAnswer):
            return self._final(index, c.text, parsed.answer, parsed.thought)
        use = self._act(r, index, parsed.tool, parsed.input)
        return Step(index, "action", c.text, parsed.thought, [use])

    def _native_step(self, r: _Run, index: int, c: Completion) -> Step:
        reply = read_native(c, index)
        if reply.problem:
            return self._format_error(r, index, c.text, reply.problem, reply.feedback or reply.problem)
        r.format_errors = 0
        if reply.answer is not None:
            return self._final(index, c.text, reply.answer, "")
        uses = []
        for call in reply.calls:
            args = loads_lenient(call.arguments or "{}")
            use = self._act(r, index, call.name, args if isinstance(args, dict) else call.arguments)
            use.call_id = call.id
            uses.append(use)
        return Step(index, "action", c.text, "", uses, native=True)

    def _final(self, index: int, reply: str, answer: str, thought: str) -> Step:
        self._emit(ev.FinalAnswer(answer=answer), index)
        return Step(index, "final_answer", reply, thought, answer=answer, native=self.strategy == "native")

    def _format_error(self, r: _Run, index: int, reply: str, error: str, feedback: str) -> Step:
        r.format_errors += 1
        self._emit(ev.ParseFailed(text=reply, error=error, feedback=feedback), index)
        return Step(index, "format_error", reply, error=error, feedback=feedback, native=self.strategy == "native")

    def _act(self, r: _Run, index: int, name: str, args: dict | str) -> ToolUse:
        """Run a tool, unless it is a repeat: then warn (first time) or mark the run for stopping."""
        tool = self.tools.get(name)
        key = (tool.name if tool else name.strip().lower(), json.dumps(args, sort_keys=True, ensure_ascii=False))
        self._emit(ev.ToolStarted(name=name, args=args), index)
        if key in r.seen:
            r.repeats += 1
            text = (f"You already called {name} with this input; the result was: {r.seen[key]}\n"
                    "Do not repeat the same call. Use that result, try a different input, or give the Final Answer.")
            use = ToolUse(name, args, False, text, "repeated_action")
        else:
            res = self.tools.call(name, args)
            use = ToolUse(name, args, res.ok, res.content, res.error, res.duration)
            r.seen[key] = res.content
        self._emit(ev.ToolFinished(name=name, args=args, ok=use.ok, content=use.observation, error=use.error,
                                   duration=use.duration), index)
        return use

    # --- model calls, stopping, bookkeeping --------------------------------------------------------

    def _call_model(self, r: _Run) -> Completion | None:
        """One model call with retries; on final failure record a model_error step and stop the run."""
        index, native = len(r.steps) + 1, self.strategy == "native"
        c, error = complete(self.llm, self.messages(), retries=self.llm_retries, emit=lambda e: self._emit(e, index),
                            stop=None if native else STOP, max_tokens=self.max_tokens,
                            tools=self.tools.schemas() if native else None)
        if c is None:
            r.steps.append(Step(index, "model_error", error=error, native=native))
            self._finish(r, None, "model_error")
        return c

    def _must_stop(self, r: _Run) -> bool:
        if len(r.steps) >= self.max_steps:
            self._finish(r, None, "max_steps")
        elif self.time_budget is not None and time.perf_counter() - r.started >= self.time_budget:
            self._finish(r, None, "time_budget")
        return r.result is not None

    def _finish(self, r: _Run, answer: str | None, reason: str) -> None:
        r.result = RunResult(answer, list(r.steps), reason, r.usage, time.perf_counter() - r.started,
                             r.run_id, r.question)
        self.last_result = r.result
        if self.memory is not None and answer is not None:  # remember finished exchanges only
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
        if self.strategy == "react" and m.role == "assistant" and not m.tool_calls and "Final Answer" not in m.content:
            return Message("assistant", f"Final Answer: {m.content}")
        return m

    def _state(self) -> _Run:
        if self._run is None:
            raise StateError("No run in progress: call agent.start(question) (or agent.run(question)) first.")
        return self._run

    def _emit(self, event: ev.Event, step: int) -> None:
        event.run_id, event.step = self._run.run_id if self._run else "", step
        ev.emit(self.observers, event)
