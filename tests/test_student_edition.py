"""The student edition: solutions out, everything else kept, answers folded — from plain JSON, no model."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from handmade_agent.teaching import STUB, hide_answers, student_edition

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_solutions_are_stubbed_and_everything_else_is_kept(path, tmp_path):
    out = tmp_path / path.name
    n = student_edition(path, out)
    before, after = json.loads(path.read_text()), json.loads(out.read_text())
    assert n >= 1 and len(before["cells"]) == len(after["cells"])
    for i, (b, a) in enumerate(zip(before["cells"], after["cells"])):
        tags = b.get("metadata", {}).get("tags", [])
        previous = before["cells"][i - 1] if i else {}
        after_solution = "solution" in previous.get("metadata", {}).get("tags", [])
        if "solution" in tags:
            assert a["source"] == STUB and a["outputs"] == []
            with pytest.raises(NotImplementedError):  # the blank exercise fails until the student writes it
                exec(compile(a["source"], "stub", "exec"), {})
        elif b["cell_type"] == "code" and after_solution:
            assert a["source"] == b["source"] and a["outputs"] == []  # the checker stays, its verdict goes
        elif b["cell_type"] == "code":
            assert a["source"] == b["source"] and a["outputs"] == b["outputs"]


def test_interview_answers_fold_behind_a_summary():
    md = "## Interview questions\n\n**Q1. Why?**\nBecause.\n\n**Q2. How?**\nLike this.\n"
    out = hide_answers(md)
    assert out.count("<details><summary>Answer</summary>") == 2 and "**Q1. Why?**" in out
    assert out.index("Because.") > out.index("<details>") and out.index("**Q2") > out.index("Because.")


def test_the_edition_is_made_without_the_package_installed(tmp_path):
    # -S: no site-packages at all, so nothing installed can be imported; only the checkout is on the path
    code = "import sys; sys.path.insert(0, %r); from handmade_agent.teaching import main; main(%r)" % (
        str(ROOT), [str(tmp_path), str(NOTEBOOKS[0])])
    done = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-800:]
    assert (tmp_path / NOTEBOOKS[0].name).exists()


def test_answers_on_the_question_line_and_numbered_questions_fold_too():
    from handmade_agent.teaching import hide_answers
    folded = hide_answers("## Interview questions\n\n**Why cache?** Prefill is slow.\n\n**2. How?**\nSave the state.")
    assert folded.count("<details>") == 2
    assert "**Why cache?**\n" in folded and folded.index("Prefill is slow.") > folded.index("<details>")
    assert hide_answers("**面试题一？** 因为预填充很慢。", "答案").count("<summary>答案</summary>") == 1


def test_check_prints_the_claim_or_fails_with_it(capsys):
    from handmade_agent.teaching import check
    check("two and two make four", 2 + 2 == 4)
    assert capsys.readouterr().out == "✓ two and two make four\n"
    with pytest.raises(AssertionError, match=r"✗ the window keeps 3 turns \(got 5\)"):
        check("the window keeps 3 turns", 5 == 3, detail=5)
