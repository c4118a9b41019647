"""Write data/eval_tasks_test.jsonl, the held-out test split, with every expected value computed by code.

    python benchmarks/make_test_split.py          # rewrites data/eval_tasks_test.jsonl
    python benchmarks/make_test_split.py --check  # exit 1 if the file differs from what this script writes

The questions are in ``test_split_questions.py``. Each checker comes from the suite's own builders
(``make_eval_tasks.py``: the calculator, the date tools on ``SUITE_TODAY``, ``convert_temperature``, the
weather table, and the manual checked for each fact), so a task of this split is judged exactly as one of the
suite would be. One addition: a comparison asked "by how much" also needs the difference, worked out by the
calculator. Ids are ``test-<kind>-<n>``, which no suite id starts with, so an outcome says its split by its id.

Deliberately left out: the questions' wording (by hand), and any task that repeats one of the suite's questions.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import make_eval_tasks as suite  # noqa: E402  (also puts the project root on sys.path)
from test_split_questions import SPLIT  # noqa: E402
from handmade_agent.evaluation import KINDS, TEST_TASKS_FILE  # noqa: E402

OUT = TEST_TASKS_FILE
PREFIX = "test-"


def compare(aspect: str, figure: str, a: tuple[str, str], b: tuple[str, str], how_much: bool = False) -> dict:
    """The suite's comparison checker (the winner and both figures), and with ``how_much`` the difference too."""
    checker = suite.compare(aspect, figure, a, b)
    if how_much:
        low, high = sorted(checker["numbers"])
        checker["numbers"].append(float(suite.call("calculator", expression=f"{high} - {low}")))
    return checker


def checker_for(kind: str, question: str, inputs: list, facts: dict[str, dict]) -> dict:
    """The checker of one question, from its kind's builder."""
    if kind == "kb":
        (fact_id,) = inputs
        return suite.kb(facts[fact_id])
    if kind == "refuse":
        return suite.refuse(question)
    return compare(*inputs) if kind == "compare" else suite.BUILDERS[kind](*inputs)


def build() -> list[dict]:
    """Every task of the split, kind by kind in the order of ``KINDS``, numbered within its kind."""
    assert list(SPLIT) == list(KINDS), "one block per kind, in the order of KINDS"
    facts, rows = suite.kb_tasks(), []
    for kind, entries in SPLIT.items():
        for number, (lang, question, *inputs) in enumerate(entries, 1):
            rows.append({"id": f"{PREFIX}{kind}-{number:02d}", "lang": lang, "kind": kind, "question": question,
                         "tools": "kb" if kind == "kb" else "toolbox",
                         "checker": suite.tidy(checker_for(kind, question, inputs, facts))})
    return rows


def text() -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in build())


if __name__ == "__main__":
    sys.exit(suite.write_or_check(OUT, text(), "--check" in sys.argv))
