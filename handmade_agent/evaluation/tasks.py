"""The evaluation suite's tasks: ``Task``, and ``load_tasks`` that reads and checks ``data/eval_tasks.jsonl``.

One JSON object a line: ``id``, ``lang`` (en/zh), ``kind`` (one of ``TASK_KINDS``), ``question``,
``tools`` (which tools the agent gets: ``toolbox``, ``kb``, ``none`` or ``both``: the toolbox and the search) and ``checker`` (the spec
``checks.check_answer`` reads; ``checks.CHECKER_KEYS``). The file is written by
``benchmarks/make_eval_tasks.py``, which computes every expected value with code. The date tools
answer as if today were ``SUITE_TODAY``. A malformed line is a ``ConfigError`` naming the file, the
line and what is wrong. ``SPLITS`` names the two files: ``suite`` (the default, the tasks the course is
tuned on) and ``test`` (``data/eval_tasks_test.jsonl``, written by ``benchmarks/make_test_split.py``: held
out, run only to report a figure; every id starts with ``test-``); ``two_domain`` (chapter 11's tasks that need
the manual and the calendar or calculator, written by ``benchmarks/make_two_domain_tasks.py``).

Deliberately left out: tasks with several turns, and tasks with files or images.

    >>> load_tasks(kinds=["weekday"], limit=1)[0].kind
    'weekday'
"""
from __future__ import annotations

import datetime
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ..errors import ConfigError, StateError
from ..observers import read_jsonl
from .checks import CHECKER_KEYS
from .comparison import ASPECT_NAMES

SUITE_TODAY = datetime.date(2024, 5, 20)
TASKS_FILE = Path(__file__).resolve().parents[2] / "data" / "eval_tasks.jsonl"
TEST_TASKS_FILE = TASKS_FILE.with_name("eval_tasks_test.jsonl")
TWO_DOMAIN_FILE = TASKS_FILE.with_name("eval_tasks_two_domain.jsonl")
# a split that is tuned on stops measuring anything: "test" is only ever run to report
SPLITS = {"suite": TASKS_FILE, "test": TEST_TASKS_FILE, "two_domain": TWO_DOMAIN_FILE}
KINDS = ("arithmetic", "weekday", "forecast", "compare", "kb", "no_tool", "refuse", "days_between", "date_after",
         "temperature")  # the suite's kinds, each in the suite and the test split
TASK_KINDS = (*KINDS, "two_domain")  # and the kinds of the other splits (two_domain: chapter 11's)
LANGS = ("en", "zh")
TOOLSETS = ("toolbox", "kb", "none", "both")


@dataclass
class Task:
    """One question, the tools it is asked with, and how its answer is checked."""
    id: str
    lang: str
    kind: str
    question: str
    tools: str
    checker: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def problem(row: Any) -> str | None:
    """What is wrong with one parsed line, or None."""
    if not isinstance(row, dict):
        return "a line must be one JSON object"
    missing = [k for k in ("id", "lang", "kind", "question", "tools", "checker") if k not in row]
    if missing:
        return f"missing field(s) {missing}"
    if extra := sorted(set(row) - {"id", "lang", "kind", "question", "tools", "checker"}):
        return f"unknown field(s) {extra}"
    if not all(isinstance(row[k], str) and row[k].strip() for k in ("id", "question")):
        return "id and question must be non-empty strings"
    for key, allowed in (("lang", LANGS), ("kind", TASK_KINDS), ("tools", TOOLSETS)):
        if row[key] not in allowed:
            return f"{key} is {row[key]!r}; it must be one of {list(allowed)}"
    return checker_problem(row["checker"])


def checker_problem(checker: Any) -> str | None:
    """What is wrong with a checker spec, or None."""
    if not isinstance(checker, dict) or not checker:
        return "checker must be a non-empty JSON object"
    if unknown := sorted(set(checker) - set(CHECKER_KEYS)):
        return f"unknown checker key(s) {unknown}; known: {list(CHECKER_KEYS)}"
    for key in ("numbers", "allowed_numbers"):
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in checker.get(key, [])):
            return f"checker {key} must be a list of numbers"
    for key in ("all", "any", "none", "tools"):
        if not isinstance(checker.get(key, []), list) or not all(isinstance(x, str) for x in checker.get(key, [])):
            return f"checker {key} must be a list of strings"
    unit = checker.get("unit", [])
    spellings = [unit] if isinstance(unit, str) else unit if isinstance(unit, list) else [None]
    if not all(isinstance(u, str) and u.strip() for u in spellings) or ("unit" in checker and not checker.get("numbers")):
        return "checker unit must be a spelling or a list of spellings (\"°F\", \"华氏度\"), given with numbers"
    if not isinstance(checker.get("refuse", True), bool) or not isinstance(checker.get("tolerance", 0), (int, float)):
        return "checker refuse must be true or false, and tolerance a number"
    spec = checker.get("compare")
    if spec is not None and (not isinstance(spec, dict) or spec.get("aspect") not in ASPECT_NAMES
                             or not all(isinstance(spec.get(side), list) and spec[side] for side in ("more", "less"))):
        return f"checker compare must be {{'aspect': one of {list(ASPECT_NAMES)}, 'more': [names], 'less': [names]}}"
    if not set(checker) - {"tools", "tolerance", "allowed_numbers", "unit"}:
        return "checker checks nothing about the answer: give numbers, all, any, none, compare or refuse"
    return None


def read_tasks(path: str | Path | None = None) -> list[Task]:
    """Every task of the file, checked line by line."""
    path = Path(path) if path is not None else TASKS_FILE
    tasks, seen = [], set()
    try:
        for number, row in read_jsonl(path):
            wrong = problem(row) or (f"the id {row['id']!r} is used twice" if row["id"] in seen else None)
            if wrong:
                raise ConfigError(f"{path}, line {number}: {wrong}. Fix that line (one JSON object per line, "
                                  "see handmade_agent/evaluation/tasks.py for the fields).")
            seen.add(row["id"])
            tasks.append(Task(**row))
    except StateError as e:  # a line that is not JSON at all
        raise ConfigError(f"{e} See handmade_agent/evaluation/tasks.py for the fields.") from None
    except OSError as e:
        raise ConfigError(f"Cannot read the task file {path} ({e.strerror}); pass the path of an existing "
                          "JSONL file, or regenerate the suite (python benchmarks/make_eval_tasks.py) or the "
                          "test split (python benchmarks/make_test_split.py)") from None
    return tasks


def load_tasks(path: str | Path | None = None, kinds: Iterable[str] | None = None, limit: int | None = None,
               every: int | None = None, split: str = "suite") -> list[Task]:
    """The tasks of ``split``'s file (``SPLITS``; an explicit ``path`` is read instead) of ``kinds`` (default all);
    every ``every``-th of them; then at most ``limit``, taken from each kind in turn, so that a short run still
    covers every kind."""
    if not isinstance(split, str) or split not in SPLITS:
        raise ConfigError(f"Unknown split {split!r}; choose from {', '.join(SPLITS)} (suite: the tasks the course is "
                          "tuned on; test: the held-out split, run only to report; two_domain: chapter 11's tasks "
                          "that need the manual and the calendar).")
    kinds = list(kinds) if kinds is not None else None
    if kinds is not None and (unknown := [k for k in kinds if k not in TASK_KINDS]):
        raise ConfigError(f"Unknown task kind(s) {unknown}; choose from {', '.join(TASK_KINDS)}.")
    for name, value in (("limit", limit), ("every", every)):
        if value is not None and (not isinstance(value, int) or value < 1):
            raise ConfigError(f"{name} must be a whole number of at least 1, not {value!r}.")
    tasks = [t for t in read_tasks(path if path is not None else SPLITS[split]) if kinds is None or t.kind in kinds]
    tasks = tasks[::every or 1]
    if limit is None or limit >= len(tasks):
        return tasks
    by_kind: dict[str, list[Task]] = {}
    for t in tasks:
        by_kind.setdefault(t.kind, []).append(t)
    picked: list[Task] = []
    for round_ in range(max(len(v) for v in by_kind.values())):
        picked += [v[round_] for v in by_kind.values() if round_ < len(v)]
    return picked[:limit]
