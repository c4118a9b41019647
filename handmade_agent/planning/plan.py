"""Plan, then execute: the model writes the steps first, the ordinary loop runs each one, a failed step re-plans once.

``PlanAndExecute(llm, tools).run(question)`` makes one planning call (a list of one-line steps, "tool: instruction", at
most ``MAX_STEPS``, decoded under ``plan_grammar`` where the backend can constrain), then runs each step as its own
question through a chapter-03 ``Agent`` with what earlier steps found written under it, then one call that answers
the question from the steps' results. A one-step plan skips all that: the question goes to the plain loop as it is,
so a simple question costs one planning call more and nothing else. A step whose run ends without an answer, or
with a refusal, sends the planner back once with what went wrong (``replans``). The result is one ``RunResult``
holding every step's records, so the suite's checks read it like any run's.

Deliberately left out: steps that run in parallel, plans as graphs (a step names its inputs only in words),
more than one re-plan, and a model grading the plan.

    >>> from handmade_agent.llm import ScriptedLLM
    >>> PlanAndExecute(ScriptedLLM(["- none: answer directly", "Final Answer: 4"]), []).run("2+2?").answer
    '4'
"""
from __future__ import annotations

import re
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Iterable

from ..agent import Agent, AnswerContext, RunResult, apply_policies, complete, emit, refused
from ..agent import events as ev
from ..llm import Message, Usage
from ..tools import ToolRegistry
from .prompts import MAX_STEPS, answer_messages, plan_grammar, plan_messages, replan_note, step_question

_BULLET = re.compile(r"\s*(?:[-*•]|\d+[.)、])")


def read_plan(text: str) -> list[str]:
    """The steps of a plan as written: one per bulleted or numbered line, at most ``MAX_STEPS``.

    >>> read_plan("- get_weather: today in 厦门\\n2. convert_temperature: its high in °F\\nthen answer")
    ['get_weather: today in 厦门', 'convert_temperature: its high in °F']
    """
    return [step for line in (text or "").splitlines() if (step := _step(line)) is not None][:MAX_STEPS]


def _step(line: str) -> str | None:
    """What follows a bullet or number, stripped; a bullet followed by blanks only gives its last blank.

    Exactly what ``^\\s*(?:[-*•]|\\d+[.)、])\\s*(.+?)\\s*$`` matched, without that pattern's backtracking
    (a line of 40,000 blanks between two words took it 7.6 s)."""
    bullet = _BULLET.match(line)
    rest = line[bullet.end():] if bullet else ""
    return (rest.strip() or rest[-1]) if rest else None


def failed(result: RunResult) -> str | None:
    """Why a step's run gives nothing to build on (it stopped without an answer, or said it cannot), or None."""
    if result.stop_reason != "final_answer" or not (result.answer or "").strip():
        return f"it stopped without an answer ({result.stop_reason})"
    if refused(result.answer):
        return f"it answered {result.answer.strip()[:120]!r}"
    return None


@dataclass
class PlannedRun:
    """What a plan-and-execute run did: its plans (a re-plan adds one), each step and the run that answered it."""
    plans: list[list[str]] = field(default_factory=list)
    done: list[tuple[str, RunResult]] = field(default_factory=list)


class PlanAndExecute:
    """An agent that plans first. Settings, ``answer_policies`` and ``loop_checks`` (its ``checks``) are those of the
    ``Agent`` each step runs in."""

    def __init__(self, llm: Any, tools: ToolRegistry | Iterable, *, observers: Iterable[ev.Observer] = (),
                 answer_policies: Iterable = (), replans: int = 1, loop_checks: Iterable | None = None,
                 **settings: Any):
        self.llm, self.observers, self.replans = llm, list(observers), replans
        self.tools = tools if isinstance(tools, ToolRegistry) else ToolRegistry(tools)
        self.answer_policies, self.settings, self.loop_checks = list(answer_policies), settings, loop_checks
        self.last_plan: PlannedRun | None = None

    def agent(self) -> Agent:
        """A fresh chapter-03 agent for one step (or for a question the plan says is a single step)."""
        return Agent(self.llm, self.tools, observers=self.observers, answer_policies=self.answer_policies,
                     checks=self.loop_checks, **self.settings)

    def _ask(self, messages: list[Message], purpose: str, usage: list[Usage], **kwargs: Any) -> str | None:
        """One observed, retried model call outside any step's run; None if the backend failed."""
        completion, _ = complete(self.llm, messages, retries=self.settings.get("llm_retries", 1),
                                 emit=lambda e: emit(self.observers, e), purpose=purpose, **kwargs)
        if completion is None:
            return None
        usage.append(completion.usage)
        return completion.text or ""

    def plan(self, question: str, usage: list[Usage], note: str = "") -> list[str]:
        """The steps the model writes for ``question`` (``note``: what went wrong with the last plan)."""
        # only where the backend can constrain: an LLM written before grammars still plans, its lines read leniently
        extra = {"grammar": plan_grammar(self.tools.names())} if getattr(self.llm, "supports_grammar", False) else {}
        text = self._ask(plan_messages(question, self.tools, note), "plan", usage, max_tokens=160, **extra)
        return read_plan(text or "")

    def run(self, question: str) -> RunResult:
        """Answer ``question`` by a plan; never raises because of the model or a tool."""
        if not isinstance(question, str):
            raise TypeError(f"A question must be a string, not {type(question).__name__}: ask run(str(...)).")
        t0, usage, record = time.perf_counter(), [], PlannedRun()
        self.last_plan = record
        steps = self.plan(question, usage)
        record.plans.append(list(steps))
        if len(steps) <= 1 or all(s.startswith("none:") for s in steps):  # nothing to split: the plain loop answers the question itself
            result = self.agent().run(question)
            return merged_result(question, [result], result.answer, result.stop_reason, usage, t0)
        replans, queue = self.replans, list(steps)
        while queue:
            step = queue.pop(0)
            result = self.agent().run(step_question(step, record.done))
            record.done.append((step, result))
            if (why := failed(result)) and replans > 0:
                replans -= 1
                queue = self.plan(question, usage, replan_note(record.done, step, why))
                record.plans.append(list(queue))
        answer = self.answer(question, record.done, usage)
        runs = [r for _, r in record.done]
        return merged_result(question, runs, answer, "final_answer" if answer else "model_error", usage, t0)

    def answer(self, question: str, done: list[tuple[str, RunResult]], usage: list[Usage]) -> str | None:
        """The answer to ``question`` from what the steps found, through the agent's answer policies."""
        answer = self._ask(answer_messages(question, done), "answer", usage, max_tokens=160)
        if not answer or not answer.strip():
            return None
        answer = answer.strip()
        if self.answer_policies:
            def ask(messages: list[Message], purpose: str = "policy", **kwargs: Any):
                return complete(self.llm, messages, retries=1, emit=lambda e: emit(self.observers, e),
                                purpose=purpose, **kwargs)[0]
            context = AnswerContext(question, "plan", 0, bool(getattr(self.llm, "supports_grammar", False)), ask)
            answer = apply_policies(self.answer_policies, context, answer)
        return answer


def merged_result(question: str, runs: list[RunResult], answer: str | None, reason: str, usage: list[Usage],
                  t0: float) -> RunResult:
    """One ``RunResult`` from the step runs: their steps renumbered in order, all tokens counted."""
    steps = [s for run in runs for s in run.steps]
    for i, s in enumerate(steps, 1):
        s.index = i
    total = sum([run.usage for run in runs] + usage, Usage())
    return RunResult(answer, steps, reason, total, time.perf_counter() - t0, f"plan-{uuid.uuid4().hex[:8]}", question)
