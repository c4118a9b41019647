"""Reflection: answer, check the answer by code, and when a check fails, try once more with what was wrong.

``Reflection(llm, tools).run(question)`` runs the chapter-03 loop, then each check in ``CHECKS`` — plain functions
``check(question, result) -> problem or None`` that read the run's own records, no model: an answer exists; every
figure in it comes from the question or a tool's result; a unit the question asks for has a figure; a comparison names
the same quantity for each side (a high against a high) and sets figures against each other the way they go; the
answer is in the question's script. The figure and comparison readers are the loop's own final-answer checks'
(``agent/figure_check.py``, ``agent/comparison_check.py``), asked here of a whole run. On a problem the question goes to a fresh agent once
more, with the earlier answer, what was wrong and the results already found (so the tools need not run again).
The retry's answer is kept unless its own checks find more problems. The ``RunResult`` holds both runs' steps and
tokens, so what reflection costs shows in every trace and in the suite's figures.

Deliberately left out: a model grading the answer (notebook 08 measured the judge: agreement 0.38 on the 1.5B),
more than ``retries`` tries, and checks that know the right answer (those are the suite's, not the agent's).

    >>> problems("How warm is it in 北京?", RunResult(None, [], "max_steps"))
    ['the run stopped without an answer (max_steps)']
"""
from __future__ import annotations

import re
import time
from typing import Any, Callable, Iterable

from ..agent import Agent, RunResult, missing_units, refused, same_quantity, unfound, wrong_way
from ..agent import events as ev
from ..rag import answer_script, needs_translation
from ..tools import ToolRegistry
from .plan import merged_result

Check = Callable[[str, RunResult], "str | None"]
_COMPARES = re.compile(r"\b(?:which|warmer|colder|hotter|higher|lower|more|less|compare)\b|哪|更|比较", re.I)


def _results(result: RunResult) -> list[str]:
    return [u.observation for s in result.steps for u in s.tool_uses if u.ok]


def answered(question: str, result: RunResult) -> str | None:
    if result.stop_reason != "final_answer" or not (result.answer or "").strip():
        return f"the run stopped without an answer ({result.stop_reason})"
    return None


def grounded_figures(question: str, result: RunResult) -> str | None:
    """Every figure of the answer is in the question or a tool's result (a run that used no tool is not checked)."""
    if not _results(result):
        return None
    unseen = unfound(result.answer or "", "\n".join([question, *_results(result)]))
    if unseen:
        return (f"the answer gives {', '.join(unseen)}, which no tool result shows; get each "
                "figure from a tool (a conversion or a calculation is a tool call too) or leave it out")
    return None


def unit_named(question: str, result: RunResult) -> str | None:
    """A unit the question names (°F, K: the loop's ``asked_unit`` reader) has a figure in the answer."""
    missing = missing_units(question, result.answer or "")
    return f"the question asks for {missing[0]}; give the figure with that unit" if missing else None


def both_sides(question: str, result: RunResult) -> str | None:
    """A comparison over two or more results must give the same quantity from two of them (a high against a high)."""
    results = _results(result)
    if len(set(results)) < 2 or not _COMPARES.search(question):
        return None
    if not same_quantity(result.answer or "", results):
        return ("the question compares; name the value of the same quantity for each side (a high against a high), "
                "with its unit, and say which is higher")
    return None


def right_way(question: str, result: RunResult) -> str | None:
    """A sentence that sets one figure against another says it the way the figures go ("25 is higher than 29" is not)."""
    if (pair := wrong_way(result.answer or "")) is None:
        return None
    a, b = (f"{x:g}" for x in pair)
    return f"the answer sets {a} against {b} the wrong way round; read both values again and say which is higher"


def question_script(question: str, result: RunResult) -> str | None:
    script = answer_script(question)
    if result.answer and needs_translation(result.answer, script):
        return f"answer in {'Chinese' if script == 'han' else 'English'}, the language of the question"
    return None


def _rank(found: list[str], answer: str | None) -> tuple[bool, bool, int]:
    """Worst first: no answer at all, then "I cannot", then the number of problems."""
    return (any(p.startswith("the run stopped") for p in found), refused(answer), len(found))


CHECKS: list[Check] = [answered, grounded_figures, unit_named, both_sides, right_way, question_script]


def problems(question: str, result: RunResult, checks: Iterable[Check] = CHECKS) -> list[str]:
    """What the checks find wrong with ``result`` as an answer to ``question`` (empty: nothing)."""
    return [p for check in checks if (p := check(question, result))]


def retry_question(question: str, result: RunResult, found: list[str]) -> str:
    """The question again, with the rejected answer, why it was rejected and the results already found, framed in
    the question's script (an English frame pulled a Chinese question's retry into English)."""
    seen = "\n".join(f"- {u.tool}({u.input}): {u.observation}" for s in result.steps for u in s.tool_uses if u.ok)
    earlier, why = (result.answer or "(none)").strip(), "; ".join(found)
    if answer_script(question) == "han":
        return (f"{question}\n\n你之前的回答是：{earlier}\n这个回答没有通过检查：{why}。\n"
                + (f"工具已经返回：\n{seen}\n" if seen else "") + "请用中文重新回答。")
    return (f"{question}\n\nYour earlier answer was: {earlier}\nIt was rejected: {why}.\n"
            + (f"The tools already returned:\n{seen}\n" if seen else "") + "Answer again.")


class Reflection:
    """An agent that checks its answer by code and retries. Settings, ``answer_policies`` and ``loop_checks`` (the
    ``checks`` of the ``Agent`` inside, default ``DEFAULT_CHECKS``) are the ``Agent``'s."""

    def __init__(self, llm: Any, tools: ToolRegistry | Iterable, *, checks: Iterable[Check] = CHECKS,
                 retries: int = 1, observers: Iterable[ev.Observer] = (), answer_policies: Iterable = (),
                 loop_checks: Iterable | None = None, **settings: Any):
        self.llm, self.checks, self.retries, self.observers = llm, list(checks), retries, list(observers)
        self.tools = tools if isinstance(tools, ToolRegistry) else ToolRegistry(tools)
        self.answer_policies, self.settings, self.loop_checks = list(answer_policies), settings, loop_checks
        self.last_problems: list[list[str]] = []  # what the checks found after each try

    def agent(self) -> Agent:
        return Agent(self.llm, self.tools, observers=self.observers, answer_policies=self.answer_policies,
                     checks=self.loop_checks, **self.settings)

    def run(self, question: str) -> RunResult:
        """Answer ``question``, checked and retried; never raises because of the model or a tool."""
        t0 = time.perf_counter()
        runs: list[RunResult] = []
        self.last_problems, best = [], 0
        while not runs or (self.last_problems[best] and len(runs) <= self.retries):
            if runs:  # the best answer so far is the one sent back with its problems
                so_far.answer = runs[best].answer
            asked = question if not runs else retry_question(question, so_far, self.last_problems[best])
            runs.append(self.agent().run(asked))
            # a retry may answer from the results quoted to it: its figures are checked against every run's results
            so_far = merged_result(question, runs, runs[-1].answer, runs[-1].stop_reason, [], t0)
            self.last_problems.append(problems(question, so_far, self.checks))
            # a tie keeps the later (it saw the problems); a retry that gives up does not replace an answer (measured:
            # told its °F figure came from no tool, the 1.5B answered "none of my tools gives temperatures")
            if _rank(self.last_problems[-1], runs[-1].answer) <= _rank(self.last_problems[best], runs[best].answer):
                best = len(runs) - 1
        return merged_result(question, runs, runs[best].answer, runs[best].stop_reason, [], t0)
