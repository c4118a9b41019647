"""The agent loop: ask the model, read its step, run the tool, show it the result, repeat.

``Agent(llm, tools).run(question)`` returns a ``RunResult``. Each ``step()`` is one model call and what came of it
(a ``Step``): an action (a tool ran), a final answer, an answer sent back by a check, a format error, or a model
error. Whether the run goes on is decided in one place, ``stop_reason()``. Nothing a model does makes ``run``
raise: bad format, tool failures and answers that fail a check go back to it as observations.

``strategy="react"`` speaks the text protocol (chapter 02); ``"native"`` passes tool schemas to the backend and
reads ``Completion.tool_calls`` (``native.py``). With ``constrained`` (wherever the backend ``supports_grammar``)
each reply is decoded under a grammar; parse-and-repair stays for backends that cannot constrain. A final answer
meets the ``checks`` (each may send it back once) and then the ``answer_policies`` that rewrite it
(``policies.py``; the defaults and what each was measured to do are in ``DEFAULT_CHECKS`` and their modules).
Every happening is an event (``events.py``); settings live in ``AgentConfig``.

Deliberately left out: parallel tool execution, streaming, retrying a failed tool on the model's behalf, and
debugging hooks (a debugger asks ``ask_model()`` and passes its own completion to ``step()``).

    >>> from handmade_agent.llm import ScriptedLLM
    >>> Agent(ScriptedLLM(["Thought: easy\\nFinal Answer: 4"]), []).run("2+2?").answer
    '4'
"""
from __future__ import annotations

import json
import time
import uuid
from typing import Any

from ..errors import ConfigError, StateError
from ..llm import Completion, Message, Usage
from ..react import STOP
from ..tools import RunContext
from . import events as ev
from .memory_link import relayed, remembered
from .model_call import complete, takes_timeout
from .native import native_reminder
from .policies import AnswerContext, apply_policies, first_objection
from .replies import read_reply
from .results_answer import answer_from_results
from .run_state import RunState
from .setup import AgentSetup
from .steps import RunResult, Step, ToolUse, input_text
from .tool_errors import refuse_copied_error
from .tool_fit import gate_for


class Agent(AgentSetup):
    """A tool-using agent over any ``LLM`` (its set-up: ``AgentSetup``): the loop."""

    gates_tools = True  # the fit gate may offer a question none of the tools (tool_fit.py); a code agent's are code

    # --- the loop --------------------------------------------------------------------------------

    def run(self, question: str) -> RunResult:
        """Answer ``question``; never raises because of the model or a tool."""
        self.start(question)
        while self.step() is not None:
            pass
        return self.last_result

    def start(self, question: str) -> None:
        """Begin a run without taking a step (for step-through debugging)."""
        if not isinstance(question, str):
            raise ConfigError(f"A question must be a string, not {type(question).__name__} ({str(question)[:40]!r}): "
                              f"ask agent.run(str(...)).")
        with relayed(self.memory, self._relay):
            history = [self._from_memory(m) for m in remembered(self.memory, question)]
        started, gate = time.perf_counter(), gate_for(self, question) if self.gates_tools else {}  # tool_fit.py
        self._run = RunState(f"run-{uuid.uuid4().hex[:8]}", question, started, [], self.config.time_budget, **gate)
        self._run.prefix = [*self.prompt_messages(question), *history, Message("user", question)]
        self._emit(ev.RunStarted(question=question, settings=self.settings(), offered=self.offered().names()), 0)

    def step(self, completion: Completion | None = None) -> Step | None:
        """Take one step (``completion``: use this reply instead of asking the model). None once the run is over."""
        r = self._state()
        if r.result is None and (reason := self.stop_reason()):
            self._finish(r, reason)
        if r.result is not None:
            return None
        t0, started, index, error = time.perf_counter(), time.time(), len(r.steps) + 1, ""
        if completion is None:
            completion, error = self._ask(index)
        if completion is None:
            step = Step(index, "model_error", error=error, native=not self._react)
        else:
            r.usage = r.usage + completion.usage
            step = self._read(r, index, completion)
            step.usage, step.latency = completion.usage + step.usage, completion.latency + step.latency
            step.replayed = completion.replayed
        step.started, step.model_calls, step.duration, r.calls = started, r.calls, time.perf_counter() - t0, 0
        r.answer_now = r.answer_now and step.kind == "action" and any(u.error == "repeated_action" for u in step.tool_uses)
        r.steps.append(step)
        self._emit(ev.StepFinished(record=step), index)
        if reason := self.stop_reason():  # finish now, so `finished` and `last_result` are right after a step
            self._finish(r, reason)
        return step

    def stop_reason(self) -> str | None:
        """Why the run must stop now, or None to go on: every stopping rule of the loop is here."""
        r = self._state()
        if r.steps and r.steps[-1].kind in ("final_answer", "model_error"):
            return r.steps[-1].kind
        if r.format_errors >= self.config.max_format_errors:
            return "format_errors"
        if r.repeats > 1:  # the same call again after a warning
            return "repeated_action"
        if len(r.steps) >= self.config.max_steps:
            return "max_steps"
        return "time_budget" if self._out_of_time() else None

    @property
    def finished(self) -> bool:
        return self._run is None or self._run.result is not None

    def messages(self) -> list[Message]:
        """Exactly what the model is sent at the next step."""
        r, recap = self._state(), self.config.recap_results
        out, results = list(r.prefix), []
        for s in r.steps:
            out += s.to_messages(results if recap else ())
            results += [u.observation for u in s.tool_uses if u.ok and s.kind == "action"]
        if not self._react and out[-1].role == "tool":
            out.append(native_reminder(r.question, results if recap else [], r.answer_now))
        return out

    def ask_model(self) -> Completion | None:
        """The model's next reply, without acting on it (None if the backend failed)."""
        return self._ask(len(self._state().steps) + 1)[0]

    # --- one step --------------------------------------------------------------------------------

    def _ask(self, index: int) -> tuple[Completion | None, str]:
        extra = {"grammar": g} if (g := self.grammar()) else {}  # only then: an LLM written before grammars still works
        return self._complete(index, self.messages(), stop=None if not self._react else STOP,
                              tools=None if self._react else self.offered().schemas(), **extra)

    def _complete(self, index: int, messages: list[Message], purpose: str = "step", **kwargs: Any):
        """The observed, retried model call of step ``index``, with what is left of the time budget as its timeout."""
        r = self._state()
        if r.deadline is not None and takes_timeout(self.llm):
            kwargs["timeout"] = max(0.0, r.deadline - time.perf_counter())
        kwargs.setdefault("max_tokens", self.config.max_tokens)

        def emit(e: ev.Event) -> None:  # counts the step's attempts, then emits
            r.calls += isinstance(e, ev.LLMCallStarted)
            self._emit(e, index)
        return complete(self.llm, messages, retries=self.config.llm_retries, emit=emit, purpose=purpose, **kwargs)

    def _read(self, r: RunState, index: int, c: Completion) -> Step:
        """The step a reply makes: an action, a final answer, or a format error."""
        reply, native = read_reply(c, index, react=self._react, tools=self.offered().names()), not self._react
        if reply.problem:
            r.format_errors += 1
            self._emit(ev.ParseFailed(text=reply.text, error=reply.problem, feedback=reply.feedback), index)
            return Step(index, "format_error", reply.text, error=reply.problem, feedback=reply.feedback, native=native)
        r.format_errors = 0
        if reply.answer is not None:
            return self._final(r, index, reply.text, reply.answer, reply.thought)
        uses = [self._act(r, index, *call) for call in reply.calls]
        return Step(index, "action", reply.text, reply.thought, uses, native=native)

    def _final(self, r: RunState, index: int, reply: str, answer: str, thought: str) -> Step:
        spent, seconds = Usage(), 0.0  # what the checks' and policies' model calls cost

        def ask(messages: list[Message], purpose: str = "policy", **kwargs: Any) -> Completion | None:
            nonlocal spent, seconds
            c = None if self._out_of_time() else self._complete(index, messages, purpose, **kwargs)[0]
            if c is not None:  # a policy's call is this step's cost too: counted in the step and the run
                spent, seconds, r.usage = spent + c.usage, seconds + (c.latency or 0.0), r.usage + c.usage
            return c
        failed, ok = self._failures(r), r.used(ok=True)
        context = AnswerContext(r.question, r.run_id, index, self.constrained, ask, tuple(u.observation for u in ok),
                                tuple(text for text, _ in failed), tuple(name for _, name in failed),
                                tuple(input_text(u.input) for u in ok), tuple(self.offered().names()))
        # on the last step a send-back would end the run with no answer at all: the answer stands unchecked
        if index < self.config.max_steps and (objection := first_objection(self.checks, context, answer, r.spent)):
            r.spent.append(objection[0])
            self._emit(ev.AnswerRejected(check=objection[0], answer=answer, feedback=objection[1]), index)
            return Step(index, "rejected_answer", reply, thought, answer=None, error=objection[0],
                        feedback=objection[1], native=not self._react)
        policies = [refuse_copied_error, *[answer_from_results] * self.config.results_answer, *self.answer_policies]
        answer = apply_policies(policies, context, answer)
        self._emit(ev.FinalAnswer(answer=answer), index)
        return Step(index, "final_answer", reply, thought, answer=answer, native=not self._react, usage=spent,
                    latency=seconds)

    def _failures(self, r: RunState) -> list[tuple[str, str]]:
        """(what the model was shown, what failed) for each failure of the run so far: here, failed tool calls."""
        return [(u.observation, u.tool) for u in r.used(ok=False)]

    def _act(self, r: RunState, index: int, name: str, args: dict | str, call_id: str | None) -> ToolUse:
        """Run one tool call, unless it repeats an earlier one (with ``repeat_guard``): then warn (twice stops)."""
        tool = self.offered().get(name)
        key = (tool.name if tool else name.strip().lower(), json.dumps(args, sort_keys=True, ensure_ascii=False))
        self._emit(ev.ToolStarted(name=name, args=args), index)
        if self._out_of_time():  # the model's reply came after the budget ran out: nothing more starts
            use = ToolUse(name, args, False, "Not run: the run's time budget is over.", "time_budget")
        elif self.config.repeat_guard and key in r.seen:  # off: a repeat simply runs again
            r.repeats, r.answer_now = r.repeats + 1, True
            # constrained, the next reply may only answer, so the result is shown again bare: any note next to it
            # was copied as the final answer by the 0.5B model (kb_tasks)
            text = r.seen[key] if self.constrained else (
                f"You already called {name} with this input; the result was: {r.seen[key]}\n"
                "Do not repeat the same call. Use that result, try a different input, or give the Final Answer.")
            use = ToolUse(name, args, False, text, "repeated_action")
        else:
            context = RunContext(r.question, r.run_id, index, r.deadline)
            res = self.offered().call(name, args, context=context)
            use = ToolUse(name, args, res.ok, res.content, res.error, res.duration, children=context.children)
            r.seen[key], r.usage = res.content, sum((c.usage for c in context.children), r.usage)  # a subagent's cost
        use.call_id = call_id
        self._emit(ev.ToolFinished(name=name, args=args, ok=use.ok, content=use.observation, error=use.error,
                                   duration=use.duration), index)
        return use

    # --- bookkeeping -------------------------------------------------------------------------------

    def _finish(self, r: RunState, reason: str) -> None:
        last = r.steps[-1] if r.steps else None
        answer = last.answer if reason == "final_answer" and last is not None else None
        r.result = self.last_result = RunResult(answer, list(r.steps), reason, r.usage, time.perf_counter() - r.started,
                                                r.run_id, r.question)
        if self.memory is not None and answer is not None:  # remember finished exchanges only
            with relayed(self.memory, self._relay):
                if hasattr(self.memory, "record_run"):  # the memory's own policy decides what is kept
                    self.memory.record_run(r.question, r.result)
                else:
                    self.memory.add(Message("user", r.question))
                    self.memory.add(Message("assistant", answer))
        self._emit(ev.RunFinished(answer=answer, stop_reason=reason, steps=len(r.steps), usage=r.usage,
                                  duration=r.result.duration), len(r.steps))

    def _out_of_time(self) -> bool:
        deadline = self._state().deadline
        return deadline is not None and time.perf_counter() >= deadline

    def _state(self) -> RunState:
        if self._run is None:
            raise StateError("No run in progress: call agent.start(question) (or agent.run(question)) first.")
        return self._run

    def _relay(self, event: ev.Event) -> None:
        self._emit(event, len(self._run.steps) if self._run else 0)

    def _emit(self, event: ev.Event, step: int) -> None:
        event.run_id, event.step = self._run.run_id if self._run else "", step
        ev.emit(self.observers, event)
