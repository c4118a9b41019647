"""Figures the README states are the ones the results file of that run holds: a changed run changes the README, or
this fails. (Notebooks assert their own figures in their cells; the README has no cell to assert in.)"""
from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results" / "shipped_2026-12-07e.jsonl"  # the shipped agent's run: the suite, then the test split


def test_the_readme_states_the_suite_and_test_split_figures_of_the_shipped_run():
    rows = [json.loads(line) for line in RESULTS.read_text(encoding="utf-8").splitlines() if line.strip()]
    suite = [r for r in rows if not r["task_id"].startswith("test-")]
    split = [r for r in rows if r["task_id"].startswith("test-")]
    assert len(suite) == 76 and len(split) == 62 and len({r["task_id"] for r in rows}) == 138
    said = re.search(r"all 76 tasks it solves (\d+)/76 \(comparisons (\d+)/8\), and (\d+)/62",
                     " ".join((ROOT / "README.md").read_text(encoding="utf-8").split()))
    assert said, "the README no longer states the suite's figures in the form this test reads"
    solved = (sum(r["success"] for r in suite), sum(r["success"] for r in suite if r["kind"] == "compare"),
              sum(r["success"] for r in split))
    assert tuple(int(x) for x in said.groups()) == solved
