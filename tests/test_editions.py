"""The Chinese edition is in step with the English one: same cells, same code, same outputs, prose translated."""
from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest

from handmade_agent.teaching import student_edition
NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
sys.path.insert(0, str(NOTEBOOKS.parent / "tools"))  # maintainer tooling, outside the package
from translation import english_hash, problems, read, sync, translate  # noqa: E402
ENGLISH = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("path", ENGLISH, ids=lambda p: p.name)
def test_every_english_notebook_has_a_chinese_twin_in_step(path):
    twin = NOTEBOOKS / "zh" / path.name
    assert twin.exists(), f"no Chinese edition of {path.name}: python tools/translation.py sync {path} {twin}"
    left = problems(read(path), read(twin))
    assert not left, f"{twin.name} is out of step:\n" + "\n".join(left[:20])


@pytest.mark.parametrize("path", ENGLISH[:1], ids=lambda p: p.name)
def test_student_edition_from_the_chinese_notebook(path, tmp_path):
    english = student_edition(path, tmp_path / "en.ipynb")
    chinese = student_edition(NOTEBOOKS / "zh" / path.name, tmp_path / "zh.ipynb")
    assert chinese == english
    folded = read(tmp_path / "zh.ipynb")
    assert any("<details>" in "".join(c["source"]) for c in folded["cells"] if c["cell_type"] == "markdown")


def small_pair():
    english = {"metadata": {}, "cells": [
        {"id": "a", "cell_type": "markdown", "metadata": {}, "source": "# Tools"},
        {"id": "b", "cell_type": "code", "metadata": {}, "source": "print(1)", "outputs": [{"text": "1\n"}]}]}
    return english, sync(english, None)


def test_sync_copies_code_and_leaves_prose_untranslated():
    english, edition = small_pair()
    assert problems(english, edition) == ["cell a: not translated yet"]
    translate(edition, english, "a", "# 工具")
    assert problems(english, edition) == []
    assert edition["cells"][0]["metadata"]["handmade_agent"]["translates"] == english_hash(english["cells"][0])


def test_changed_code_or_output_is_reported_and_sync_repairs_it():
    english, edition = small_pair()
    translate(edition, english, "a", "# 工具")
    edition["cells"][1]["outputs"] = [{"text": "2\n"}]
    assert problems(english, edition) == ["cell b: its outputs is not the English edition's: run `sync`"]
    again = sync(english, edition)
    assert problems(english, again) == [] and again["cells"][0]["source"] == "# 工具"


def test_changed_english_prose_makes_the_translation_stale():
    english, edition = small_pair()
    translate(edition, english, "a", "# 工具")
    newer = copy.deepcopy(english)
    newer["cells"][0]["source"] = "# Tools, and why"
    assert problems(newer, sync(newer, edition)) == ["cell a: the English text changed since it was translated"]


def test_a_cell_left_in_english_is_not_a_translation():
    english, edition = small_pair()
    translate(edition, english, "a", "# Tools")
    assert problems(english, edition) == ["cell a: not translated yet"]
    with pytest.raises(KeyError, match="sync"):
        translate(edition, english, "b", "代码")


@pytest.mark.parametrize("path", ENGLISH, ids=lambda p: p.name)
def test_every_chinese_notebook_links_the_glossary_at_the_top(path):
    first = read(NOTEBOOKS / "zh" / path.name)["cells"][0]
    text = "".join(first["source"]) if isinstance(first["source"], list) else first["source"]
    assert "](../../docs/glossary.md)" in text, f"zh/{path.name}: its first cell should link docs/glossary.md"
    assert (NOTEBOOKS.parent / "docs" / "glossary.md").is_file()
