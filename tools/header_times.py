"""Each notebook's header states its slots and how long its code runs, both computed, in both editions.

The header's time statement reads "**Time**: <slots>; the code's clean run takes about N min on a 2-core machine
(the last cell …)". The slots come from ``workshop_plan.time_line`` (an estimate from the notebook's content); N is
the clean run's ``run_seconds`` that ``tests/execute_notebook.py`` recorded, in whole minutes. Typed by hand, these
drifted from the runs ("about six minutes" for a 17-minute notebook), so ``rewrite`` writes them into the English
header and the Chinese one (re-marking that cell as the translation of the new English text), and
``tests/test_workshop_plan.py`` checks both. ``python tools/workshop_plan.py --write`` calls it.

Left out: the rest of the header's prose, and run times measured anywhere but the committed clean run.

    >>> run_clause({"metadata": {"handmade_agent": {"run_seconds": 678}}})
    "the code's clean run takes about 11 min on a 2-core machine"
"""
from __future__ import annotations

import re
from pathlib import Path

import translation
import workshop_plan as plan

EN = re.compile(r"\*\*Time\*\*: [^;]*; the code[^(]*?\((?=the\s)")
ZH = re.compile(r"\*\*时间\*\*：[^；]*；[^（]*（")


def run_clause(nb: dict, zh: bool = False) -> str:
    """How long the notebook's clean run took, in whole minutes (at least 1)."""
    minutes = max(1, round(nb["metadata"]["handmade_agent"]["run_seconds"] / 60))
    return f"在 2 核机器上，代码完整运行一遍约 {minutes} 分钟" if zh else (
        f"the code's clean run takes about {minutes} min on a 2-core machine")


def statement(nb: dict, zh: bool = False) -> str:
    """The header's whole time statement for the English notebook ``nb``, up to the bracket that follows it."""
    line = plan.time_line(plan.parts(plan.sections(nb)), zh)
    if zh:
        return f"**时间**：{line[len('时间：'):]}；{run_clause(nb, True)}（"
    return f"**Time**: {line[len('Time: '):]}; {run_clause(nb)} ("


def header_cell(nb: dict, pattern: re.Pattern) -> dict:
    """The first of the top three cells whose text holds a time statement."""
    return next(c for c in nb["cells"][:3] if pattern.search(translation.text(c)))


def rewrite(root: Path = plan.ROOT) -> list[str]:
    """Put the computed statements in every notebook's header, both editions; the names of the files changed."""
    changed = []
    for name, english in plan.notebooks(root).items():
        en_path, zh_path = root / "notebooks" / name, root / "notebooks" / "zh" / name
        cell = header_cell(english, EN)
        new = EN.sub(lambda m: statement(english), translation.text(cell), count=1)
        if new != translation.text(cell):
            cell["source"] = new.splitlines(keepends=True)
            translation.write(english, en_path)
            changed.append(str(en_path))
        edition = translation.read(zh_path)
        zh_cell = next(c for c in edition["cells"] if c.get("id") == cell.get("id"))
        zh_new = ZH.sub(lambda m: statement(english, zh=True), translation.text(zh_cell), count=1)
        if zh_new != translation.text(zh_cell) or translation.translated_from(zh_cell) != translation.english_hash(cell):
            translation.translate(edition, english, cell["id"], zh_new)
            translation.write(edition, zh_path)
            changed.append(str(zh_path))
    return changed
