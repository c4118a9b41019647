"""The instructor's plan of a workshop is generated from the notebooks, and every part fits a 90-minute slot."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))  # maintainer tooling, outside the package
import workshop_plan as plan  # noqa: E402

NOTEBOOKS = plan.notebooks()


def markdown(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": text}


def code(solution: bool = False, source: str = "x = 1") -> dict:
    return {"cell_type": "code", "metadata": {"tags": ["solution"]} if solution else {}, "source": source,
            "outputs": []}


SOLUTION = "# a comment and a blank line are not counted\n\n" + "x = 1\n" * 13  # 13 lines: 3 + 13 / 4 minutes


def test_the_committed_page_is_what_the_notebooks_give():
    current = plan.PAGE.read_text(encoding="utf-8")
    assert plan.main(["--check"]) == 0, "docs/instructor.md is stale: run python tools/workshop_plan.py --write"
    head, rest = current.split(plan.START, 1)
    stale = head + plan.START + "\n| `00_setup` | 42 s |\n" + plan.END + rest.split(plan.END, 1)[1]
    assert plan.page(stale, NOTEBOOKS) == current  # a hand-typed table is replaced, nothing else changes


@pytest.mark.parametrize("name", list(NOTEBOOKS))
def test_every_part_fits_a_slot(name):
    found = plan.sections(NOTEBOOKS[name])
    for i, part in enumerate(plan.parts(found), 1):
        minutes = sum(s.minutes for s in part)
        assert minutes <= plan.SLOT, f"{name} part {i} ({plan.label(part)}) is about {minutes:.0f} min"


def test_the_formula_on_a_tiny_notebook():
    nb = {"metadata": {}, "cells": [
        markdown("# Tiny\n" + "w " * 73),                       # 2 + 73 = 75 words before any section: 1 min
        code(),                                                  # 0.25, counted with section 1
        markdown("## 1. One\n" + "w " * 147),                   # 3 + 147 = 150 words: 2 min
        code(), code(),                                          # 0.5
        markdown("## Exercises\n" + "w " * 73 + "<details><summary>Hint</summary>\n" + "folded " * 500
                 + "</details>"),                                # 2 + 73 = 75 words outside <details>: 1 min
        code(True, SOLUTION), code(),                            # 3 + 3.25 + 0.5
        markdown("## Interview questions\n**Q1. Why?**\n<details><summary>The longer answer</summary>\n"
                 + "folded " * 300 + "</details>\n**Q2. How?**\n<details><summary>The longer answer</summary>\n"
                 + "folded " * 300 + "</details>\n" + "w " * 68),  # 3 + 2 + 2 + 68 = 75 words: 1; 2 × 0.5
    ]}
    found = plan.sections(nb)
    assert [(s.number, s.title) for s in found] == [("1", "One"), (None, "Exercises"), (None, "Interview questions")]
    assert [s.minutes for s in found] == [1 + 0.25 + 2 + 0.5, 1 + 3 + 13 / 4 + 0.5, 1 + 2 * 0.5]
    assert found[1].solution_lines == 13
    assert plan.time_line(plan.parts(found)) == "Time: about 15 min in one slot"  # 14 min, to the nearest 5


def test_a_150_minute_notebook_becomes_two_parts_and_no_section_is_split():
    cells = []
    for number in ("1", "2", "3"):  # 160 code cells: 40 min, and 3 heading words
        cells += [markdown(f"## {number}. Part\n")] + [code() for _ in range(160)]
    cells += [markdown("## Exercises\n")] + [code(True, "x = 1\n" * 12) for _ in range(4)] + [code() for _ in range(20)]  # 4 × 6 + 5 + 1
    found = plan.sections({"metadata": {}, "cells": cells})
    assert sum(s.minutes for s in found) == pytest.approx(150, abs=0.2)
    packed = plan.parts(found)
    assert [[s.number or s.title for s in part] for part in packed] == [["1", "2"], ["3", "Exercises"]]
    assert [s for part in packed for s in part] == found  # every section whole, once, in order
    assert all(sum(s.minutes for s in part) <= plan.SLOT for part in packed)
    assert plan.time_line(packed) == ("Time: two slots — part 1 (sections 1–2) about 80 min, "
                                      "part 2 (section 3 and the exercises) about 70 min")
    assert plan.time_line(packed, zh=True) == ("时间：两节课——第 1 部分（第 1–2 节）约 80 分钟，"
                                               "第 2 部分（第 3 节和练习）约 70 分钟")


def test_the_run_time_comes_from_the_notebooks_metadata():
    assert plan.run_time({"metadata": {"handmade_agent": {"fingerprint": {}, "run_seconds": 394}}}) == "6 min 34 s"
    assert plan.run_time({"metadata": {"handmade_agent": {"fingerprint": {}}}}) == "not recorded"


@pytest.mark.parametrize("name", sorted(NOTEBOOKS), ids=str)
def test_every_notebook_states_its_own_estimate_in_both_editions(name):
    """The header's time line is the one the plan computes (run tools/workshop_plan.py to see it), not typed."""
    line = plan.time_line(plan.parts(plan.sections(NOTEBOOKS[name])))
    zh_line = plan.time_line(plan.parts(plan.sections(NOTEBOOKS[name])), zh=True)
    zh = plan.json.loads((plan.ROOT / "notebooks" / "zh" / name).read_text(encoding="utf-8"))
    head = "".join("".join(c["source"]) for c in NOTEBOOKS[name]["cells"][:3])
    zh_head = "".join("".join(c["source"]) for c in zh["cells"][:3])
    assert f"**Time**: {line[len('Time: '):]};" in head, f"{name}: its header should say: {line}"
    assert f"**时间**：{zh_line[len('时间：'):]}；" in zh_head, f"zh/{name}: its header should say: {zh_line}"


@pytest.mark.parametrize("name", sorted(NOTEBOOKS), ids=str)
def test_every_header_states_its_clean_run_time_as_recorded_in_both_editions(name):
    """"About six minutes" was typed for a notebook whose clean run took 17: the statement comes from run_seconds."""
    import header_times
    nb = NOTEBOOKS[name]
    zh = plan.json.loads((plan.ROOT / "notebooks" / "zh" / name).read_text(encoding="utf-8"))
    assert header_times.statement(nb) in "".join("".join(c["source"]) for c in nb["cells"][:3]), \
        f"{name}: run `python tools/workshop_plan.py --write`"
    assert header_times.statement(nb, zh=True) in "".join("".join(c["source"]) for c in zh["cells"][:3])
    seconds = nb["metadata"]["handmade_agent"]["run_seconds"]
    assert f"about {max(1, round(seconds / 60))} min" in header_times.run_clause(nb)

