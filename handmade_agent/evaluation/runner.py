"""Run the suite: each task under each agent configuration, one ``TaskOutcome`` per run, saved as it ends.

``EvalConfig`` is one way to run the agent, named in short: ``react+c`` (text ReAct, constrained),
``native`` (the backend's tool calls, free), and suffixes that switch a part off: ``-examples``
(no worked examples), ``-recap`` (observations without the earlier results), ``-guard`` (a
repeated call runs again instead of being refused), ``-reanswer`` (no second answer from the tool results),
``-translate`` (no translation of an answer into the question's language), and ``-errors`` (the final-answer check
``error_not_answer`` of ``agent.DEFAULT_CHECKS`` off), ``-sides`` (the check ``both_sides`` off), ``-units``
(``asked_unit`` off), ``-weekdays`` (``weekday_found`` off). A prefix runs the loop inside a chapter-09 method: ``plan+react+c`` plans first
(``planning.PlanAndExecute``), ``reflect+react+c`` checks the answer by code and retries once
(``planning.Reflection``); ``team+react+c`` is chapter 11's orchestrator, the tools split into specialists
(``team.orchestrator``). ``code`` and ``code+c`` run ``codeact.CodeAgent`` (a program over the tools per step;
``-recap`` does not apply to it, nor a method prefix: those build a plain ``Agent``). ``run_task`` never raises for a task: an exception becomes a failed outcome
carrying its text. ``evaluate`` appends each outcome to a JSONL file as soon as it exists, so an interrupted run
keeps what it did. Every configuration's agent runs the answer policy ``rag.translate_answer`` (unless
``-translate``), as the suite did when its figures were measured.

Deliberately left out: running tasks in parallel (one model, two CPU cores) and retrying a
failed task.

    >>> parse_configs("react+c,native-guard")[1]
    EvalConfig(strategy='native', constrained=False, few_shot=True, recap_results=True, repeat_guard=False, results_answer=True, translate=True, errors=True, sides=True, units=True, weekdays=True, max_steps=6, method='loop')
"""
from __future__ import annotations

import datetime
import re
import time
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from ..agent import Agent, asked_unit, both_sides, error_not_answer, weekday_found
from ..agent.events import LLMCallStarted
from ..codeact import CodeAgent
from ..errors import ConfigError
from ..observers import json_line
from ..planning import PlanAndExecute, Reflection
from ..team import orchestrator, walk
from ..rag import translate_answer
from ..redaction import redact_text
from .checks import check_answer, failed_results, in_question_language, tools_called, trajectory_ok
from .tasks import Task
from .toolsets import TaskTools

SUFFIXES = {"-examples": "few_shot", "-recap": "recap_results", "-guard": "repeat_guard",
            "-reanswer": "results_answer", "-translate": "translate", "-errors": "errors", "-sides": "sides",
            "-units": "units", "-weekdays": "weekdays"}
# DEFAULT_CHECKS, each with the suffix that switches it off
CHECKS = {"errors": error_not_answer, "sides": both_sides, "units": asked_unit, "weekdays": weekday_found}
METHODS = {"loop": Agent, "plan": PlanAndExecute, "reflect": Reflection, "team": orchestrator}
_NAME = re.compile(r"^(?:(plan|reflect|team)\+)?(react|native|code)(\+c)?"
                   r"((?:-examples|-recap|-guard|-reanswer|-translate|-errors|-sides|-units|-weekdays)*)$")
VALID_FORMS = ("optionally plan+, reflect+ or team+, then react | native (or code, the code-as-action agent, without a "
               "prefix), then +c for constrained decoding, then any of -examples -recap -guard -reanswer -translate "
               "-errors -sides -units -weekdays (each switches that part off), e.g. react+c, native, react+c-examples, react-recap-guard, "
               "plan+react+c, code+c")


@dataclass
class EvalConfig:
    """One way to run the agent on the suite."""
    strategy: str = "react"  # or "native"; "code": codeact.CodeAgent
    constrained: bool = True
    few_shot: bool = True
    recap_results: bool = True
    repeat_guard: bool = True
    results_answer: bool = True
    translate: bool = True  # the answer policy rag.translate_answer (not an agent setting)
    errors: bool = True     # the final-answer check error_not_answer (CHECKS; code, not an agent setting)
    sides: bool = True      # the final-answer check both_sides (CHECKS)
    units: bool = True      # the final-answer check asked_unit (CHECKS)
    weekdays: bool = True   # the final-answer check weekday_found (CHECKS)
    max_steps: int = 6
    method: str = "loop"  # or "plan", "reflect": the loop inside a chapter-09 method; "team": chapter 11's

    @property
    def name(self) -> str:
        off = "".join(s for s, f in SUFFIXES.items() if not getattr(self, f))
        method = "" if self.method == "loop" else self.method + "+"
        return f"{method}{self.strategy}{'+c' if self.constrained else ''}{off}"

    def agent_settings(self) -> dict[str, Any]:
        """The ``AgentConfig`` settings this configuration stands for."""
        settings = asdict(self)
        for name in ("method", "translate", *CHECKS):
            del settings[name]
        if self.strategy == "code":  # a CodeAgent speaks its own text protocol: no strategy to choose
            del settings["strategy"]
        return settings

    def agent_class(self) -> type:
        """What runs a task: the loop, a chapter-09 method around it, or the code-as-action agent."""
        return CodeAgent if self.strategy == "code" else METHODS[self.method]

    def checks(self) -> list:
        """The final-answer checks this configuration keeps on."""
        return [check for name, check in CHECKS.items() if getattr(self, name)]

    @classmethod
    def parse(cls, name: str) -> "EvalConfig":
        """The configuration a short name stands for; ConfigError listing the valid forms otherwise."""
        m = _NAME.match(name.strip())
        suffixes = re.findall(r"-[a-z]+", m.group(4)) if m else []
        if not m or len(suffixes) != len(set(suffixes)) or (m.group(1) and m.group(2) == "code"):
            raise ConfigError(f"Unknown configuration {name!r}. Valid forms: {VALID_FORMS}.")
        return cls(m.group(2), bool(m.group(3)), **{SUFFIXES[s]: False for s in suffixes}, method=m.group(1) or "loop")


def parse_configs(names: str | Iterable[str]) -> list[EvalConfig]:
    """Configurations from ``"react+c,native"`` (or a list of names)."""
    names = [n for n in (names.split(",") if isinstance(names, str) else names) if n.strip()]
    if not names:
        raise ConfigError(f"No configuration given. Valid forms: {VALID_FORMS}.")
    return [EvalConfig.parse(n) for n in names]


@dataclass
class TaskOutcome:
    """What one task under one configuration came to (``error``: the exception that ended it, if any)."""
    task_id: str
    kind: str
    lang: str
    config: str
    answer: str | None = None
    success: bool = False
    trajectory_ok: bool = False
    language_ok: bool | None = None  # in the question's script (None: no answer's script is asked, e.g. mixed)
    tools_called: list[str] = field(default_factory=list)
    steps: int = 0
    all_steps: int = 0  # the steps of the run and of every subagent's run under it (chapter 11): agent model calls
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency: float = 0.0
    replayed: bool = False  # its model replies came from a recording: ``latency`` is not a model's time
    sent_back: list[str] = field(default_factory=list)  # the checks that sent an answer back, in order
    fired: list[str] = field(default_factory=list)  # the mechanisms that acted: "repeat_guard", "call:answer", ...
    stop_reason: str = "error"
    error: str | None = None
    run: str = ""  # when the evaluation began: outcomes of several runs can share a file

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def run_task(llm: Any, task: Task, config: EvalConfig, tools_for: Callable[[str], Any]) -> TaskOutcome:
    """Run ``task`` under ``config``; whatever happens, a ``TaskOutcome`` comes back."""
    outcome = TaskOutcome(task.id, task.kind, task.lang, config.name)
    t0 = time.perf_counter()
    try:
        # measured with the answer in the question's language since the suite began: the policy keeps figures comparable
        checks = {"loop_checks" if config.method in ("plan", "reflect") else "checks": config.checks()}
        calls: list[str] = []  # the purpose of every model call but the loop's own steps: a policy that asked
        watch = lambda e: calls.append(e.purpose) if isinstance(e, LLMCallStarted) and e.purpose != "step" else None
        agent = config.agent_class()(llm, tools_for(task.tools), answer_policies=[translate_answer] * config.translate,
                                       observers=[watch], **checks, **config.agent_settings())
        result = agent.run(task.question)
        answer = redact_text(result.answer) if result.answer is not None else None
        outcome.answer, outcome.stop_reason, outcome.steps = answer, result.stop_reason, len(result.steps)
        outcome.all_steps = sum(len(run.steps) for _, run in walk(result))
        # a failed call's error text copied as the answer is no answer, whatever words it happens to hold
        outcome.success = check_answer(answer, task.checker, tool_errors=failed_results(result))
        outcome.trajectory_ok = trajectory_ok(result, task.checker)
        outcome.language_ok = in_question_language(answer, task.question)
        outcome.tools_called = tools_called(result)
        outcome.replayed = any(s.replayed for s in result.steps)
        outcome.sent_back = [s.error for s in result.steps if s.kind == "rejected_answer"]
        outcome.fired = fired(result, calls)
        outcome.prompt_tokens, outcome.completion_tokens = result.usage.prompt_tokens, result.usage.completion_tokens
    except Exception as e:  # noqa: BLE001 - one broken task must not end a run of hundreds
        outcome.error = redact_text(f"{type(e).__name__}: {e}")
    outcome.latency = round(time.perf_counter() - t0, 3)
    return outcome


def fired(result: Any, calls: list[str]) -> list[str]:
    """Which of the loop's mechanisms acted in ``result`` (each named once, in the order first seen): the repeat
    guard, format repair, and each kind of extra model call (``call:answer``, ``call:translate``, ...). Counted over
    a whole run of the suite, a mechanism that never fires can be deleted without changing a result."""
    seen = ["repeat_guard"] * any(u.error == "repeated_action" for _, r in walk(result) for s in r.steps
                                  for u in s.tool_uses)
    seen += ["format_error"] * any(s.kind == "format_error" for _, r in walk(result) for s in r.steps)
    return list(dict.fromkeys([*seen, *(f"call:{p}" for p in calls)]))


def progress_line(outcome: TaskOutcome, done: int, total: int) -> str:
    """One line per finished task: verdicts, stop reason, id and the start of the answer."""
    said = " ".join(str(outcome.error or outcome.answer).split())[:80]
    line = (f"[{done}/{total}] {outcome.config:<10} {'ok ' if outcome.success else 'BAD'} "
            f"{'path-ok ' if outcome.trajectory_ok else 'path-BAD'} {outcome.stop_reason:<15} "
            f"{outcome.task_id:<18} {'replayed' if outcome.replayed else f'{outcome.latency:5.1f} s'}  {said}")
    # a lone surrogate (a model can reply one) cannot be printed: it ended the whole run; shown as \ud800 instead
    return line.encode("utf-8", "backslashreplace").decode("utf-8")


def check_out_path(out: str | Path) -> Path:
    """``out`` once outcomes can be appended to it (its folder made); else a ConfigError saying what to do."""
    path = Path(out)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as e:
        raise ConfigError(f"Cannot write the results file {path} ({e.strerror or e}); pass --out (out=) a file "
                          "in a folder you can write to.") from None
    return path


def evaluate(llm: Any, tasks: list[Task], configs: list[EvalConfig], out: str | Path | None = None,
             progress: Callable[[str], Any] | None = print, tools_for: Callable[[str], Any] | None = None
             ) -> list[TaskOutcome]:
    """Every task under every configuration (configuration by configuration); each outcome is appended to
    ``out`` (JSONL) and reported to ``progress`` the moment it exists. A file that stops taking lines (a full
    disk) is one warning: the run goes on without it."""
    tools_for = tools_for or TaskTools()
    run, outcomes, total = datetime.datetime.now().isoformat(timespec="seconds"), [], len(tasks) * len(configs)
    if out is not None:
        check_out_path(out)  # before the first task: a bad path must not cost a run
    for config in configs:
        for task in tasks:
            outcome = run_task(llm, task, config, tools_for)
            outcome.run = run
            outcomes.append(outcome)
            if out is not None and not _appended(out, outcome, len(outcomes)):
                out = None  # a full disk must not end hours of runs: they go on, returned and reported
            if progress is not None:
                progress(progress_line(outcome, len(outcomes), total))
    return outcomes


def _appended(out: str | Path, outcome: TaskOutcome, number: int) -> bool:
    """Append ``outcome`` to ``out``; False (and a warning) if it cannot be written, e.g. a full disk."""
    try:
        with open(out, "a", encoding="utf-8") as f:  # opened per line: a killed run loses no line
            f.write(json_line(outcome.to_dict()) + "\n")  # a lone surrogate is written escaped
        return True
    except OSError as e:
        warnings.warn(f"Cannot append to the results file {out} ({e.strerror or e}): outcomes from number {number} "
                      "on are not saved, only returned (the table shows them). Pass --out (out=) a file on a disk "
                      "with room.", stacklevel=3)
        return False
