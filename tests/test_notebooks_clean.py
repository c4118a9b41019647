"""Every committed notebook records one clean top-to-bottom run and follows the course conventions."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
SECRET = re.compile(r"sk-[A-Za-z0-9_-]{16,}|Bearer\s+[A-Za-z0-9._-]{16,}|(api[_-]?key|token)\s*[=:]\s*['\"][^'\"\s]{12,}",
                    re.I)
PERSONAL = re.compile(r"/home/[a-z]|/Users/[A-Za-z]|C:\\\\Users", re.I)


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def code_cells(nb: dict) -> list[dict]:
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def text_of(nb: dict) -> str:
    return json.dumps(nb, ensure_ascii=False)


def test_there_are_notebooks():
    assert NOTEBOOKS and NOTEBOOKS[0].name == "00_setup.ipynb"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_from_one_clean_run(path):
    cells = code_cells(load(path))
    assert [c["execution_count"] for c in cells] == list(range(1, len(cells) + 1))
    errors = [o for c in cells for o in c["outputs"] if o["output_type"] == "error"]
    assert not errors, f"error output in {path.name}: {errors[0].get('ename')}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_output_carries_a_warning_about_the_machine_it_ran_on(path):
    from execute_notebook import MACHINE_WARNINGS
    outputs = json.dumps([c["outputs"] for c in code_cells(load(path))], ensure_ascii=False)
    found = [name for name in MACHINE_WARNINGS if name in outputs]
    assert not found, f"{path.name} was run on a machine that printed {found}: {MACHINE_WARNINGS[found[0]]}"


def test_a_run_that_printed_a_machine_warning_is_not_saved(tmp_path):
    import nbformat
    from execute_notebook import refuse_machine_warnings
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("plot()", outputs=[nbformat.v4.new_output(
        "stream", name="stderr", text="fonts.py:80: CJKFontMissing: No CJK font found\n")])]
    with pytest.raises(SystemExit, match="fonts-noto-cjk"):
        refuse_machine_warnings(nb, tmp_path / "x.ipynb")
    nb.cells[0].outputs[0].text = "北京 24 °C\n"
    refuse_machine_warnings(nb, tmp_path / "x.ipynb")  # Chinese text alone is no warning


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_personal_metadata_or_secrets(path):
    nb = load(path)
    assert set(nb["metadata"]) <= {"kernelspec", "language_info", "widgets", "handmade_agent"}
    for c in nb["cells"]:
        assert set(c.get("metadata", {})) <= {"tags"}, f"cell metadata {c.get('metadata')} in {path.name}"
    text = text_of(nb)
    # a lesson on redaction needs a secret-shaped string; it must say it is fake
    found = [m.group(0) for m in SECRET.finditer(text) if not re.search(r"fake|example|dummy", m.group(0), re.I)]
    assert not found, f"something like a secret in {path.name}: {found[0][:12]}..."
    assert not PERSONAL.search(text), f"a personal path in {path.name}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_follows_the_course_shape(path):
    nb = load(path)
    markdown = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert "## Exercises" in markdown and "## Interview questions" in markdown
    cells = nb["cells"]
    solutions = [i for i, c in enumerate(cells) if "solution" in c.get("metadata", {}).get("tags", [])]
    assert solutions, "exercises need solution cells tagged 'solution'"
    for i in solutions:  # every solution is followed by a checker
        nxt = next(c for c in cells[i + 1:] if c["cell_type"] == "code")
        src = "".join(nxt["source"])
        assert any(w in src for w in ("check_exercise", "check(", "assert")), f"solution cell {i} in {path.name} has no checker"
    for i, c in enumerate(cells):  # every ignored output is checked by an assertion (in it or just after it)
        if "nbval-ignore-output" in c.get("metadata", {}).get("tags", []):
            later = [c] + [d for d in cells[i + 1:] if d["cell_type"] == "code"][:2]
            # check_model asserts on the course's model, whose outputs are the committed ones
            assert any(w in "".join(d["source"]) for d in later for w in ("assert", "check_exercise", "check(",
                                                                          "check_model(")
                       ), f"ignored-output cell {i} in {path.name} is not followed by an assertion"


PACKAGE_SOURCE = "\n".join(p.read_text(encoding="utf-8") for p in
                           (Path(__file__).resolve().parents[1] / "handmade_agent").rglob("*.py"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_shown_source_is_still_the_package_source(path):
    # show_source output is compared strictly by nbval; catching the drift here takes a second, not a model run
    for cell in code_cells(load(path)):
        source = "".join(cell["source"])
        if "show_source(" not in source:
            continue
        shown = ["".join(o["data"]["text/plain"]) for o in cell["outputs"] if "text/plain" in o.get("data", {})]
        assert shown, f"{path.name}: a show_source cell has no recorded output"
        for text in shown:
            assert text.strip() in PACKAGE_SOURCE, (
                f"{path.name}: the source shown by {source.strip()!r} changed in the package; "
                "re-run the notebook (python tests/execute_notebook.py notebooks/...)")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_outputs_are_fresh(path):
    """The package code, data and model that produced the committed outputs are the ones here now."""
    from notebook_fingerprint import fingerprint
    recorded = load(path)["metadata"].get("handmade_agent", {}).get("fingerprint")
    rerun = f"re-run it: .venv/bin/python tests/execute_notebook.py notebooks/{path.name}"
    assert recorded, f"{path.name} records no fingerprint; {rerun}"
    now = fingerprint(path)
    changed = sorted(k for k in set(now["inputs"]) | set(recorded["inputs"])
                     if now["inputs"].get(k) != recorded["inputs"].get(k))
    assert recorded["hash"] == now["hash"], f"{path.name} is stale ({', '.join(changed[:8])} changed); {rerun}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_saved_in_the_form_jupyterlab_writes(path):
    """Opening the notebook in JupyterLab must not change it (ids, merged streams, nbformat 4.5)."""
    import nbformat
    from execute_notebook import dumps, normalize
    text = path.read_text(encoding="utf-8")
    nb = nbformat.reads(text, as_version=4)
    normalize(nb)
    assert dumps(nb) == text, f"{path.name} is not in normal form; run tests/execute_notebook.py --normalize"
    assert (nb.nbformat, nb.nbformat_minor) == (4, 5) and all(c.get("id") for c in nb.cells)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_widget_output_has_its_saved_state(path):
    """A trusted, unrun notebook renders a panel from the saved state; a missing model is an error on screen."""
    nb = load(path)
    views = [o["data"]["application/vnd.jupyter.widget-view+json"]["model_id"] for c in code_cells(nb)
             for o in c["outputs"] if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    state = nb["metadata"].get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    missing = [v for v in views if v not in state]
    assert not missing, f"{path.name}: {len(missing)} widget outputs without saved state; re-execute it"


def test_comments_blank_lines_and_line_breaks_keep_a_modules_hash_and_code_or_docstrings_do_not(tmp_path):
    from notebook_fingerprint import code_hash
    module = tmp_path / "m.py"

    def hash_of(text: str) -> str:
        module.write_text(text, encoding="utf-8")
        return code_hash(module)

    base = hash_of('"""Doc."""\nx = 1  # why one\n# a note\ny = f(x, 1)\n')
    assert hash_of('"""Doc."""\nx = 1  # why, reworded\n# another note\ny = f(x, 1)\n') == base  # comments
    assert hash_of('"""Doc."""\n\nx = 1  # why one\n\ny = f(x, 1)\n') == base  # blank lines: lines move
    assert hash_of('"""Doc."""\nx = 1\ny = f(\n    x,\n    1,\n)\n') == base  # re-wrapped
    assert hash_of('"""Doc."""\nx = 2  # why one\n# a note\ny = f(x, 1)\n') != base  # code
    assert hash_of('"""Doc."""\nx = 1\ny = f(1, x)\n') != base  # code
    assert hash_of('"""Doc, edited."""\nx = 1  # why one\n# a note\ny = f(x, 1)\n') != base  # can reach a prompt


def notebook(path: Path, cells: list[tuple[str, str]], fingerprint: dict | None = None) -> Path:
    nb = {"cells": [{"cell_type": kind, "metadata": {}, "source": text, **({"outputs": [], "execution_count": None}
                                                                           if kind == "code" else {})}
                    for kind, text in cells],
          "metadata": {"handmade_agent": {"fingerprint": fingerprint}} if fingerprint else {},
          "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def test_a_notebook_depends_on_the_modules_it_imports_its_code_cells_and_its_recording(tmp_path):
    from notebook_fingerprint import fingerprint
    path = tmp_path / "99_demo.ipynb"
    cells = [("markdown", "# Demo"), ("code", "from handmade_agent import Agent\n%time 1")]
    first = fingerprint(notebook(path, cells), opened=[])
    modules = {k for k in first["inputs"] if k.startswith("handmade_agent/")}
    assert "handmade_agent/agent/loop.py" in modules and "handmade_agent/__init__.py" in modules
    assert not any(m.startswith(("handmade_agent/rag/", "handmade_agent/memory/", "handmade_agent/observers/"))
                   for m in modules), "the top level's table must not pull every chapter in"
    assert fingerprint(notebook(path, [("markdown", "# Demo, reworded")] + cells[1:]), opened=[]) == first
    used = fingerprint(notebook(path, [("code", "import handmade_agent as ha\nha.SQLiteStore")]), opened=[])
    assert "handmade_agent/storage/sessions.py" in used["inputs"]  # a name used through the module counts too
    edited = fingerprint(notebook(path, cells[:1] + [("code", cells[1][1] + "\n")]), opened=[])
    assert edited["hash"] != first["hash"], "an edited code cell (even by a newline) is a changed input"
    notebook(path, cells)
    (tmp_path / "recordings").mkdir()
    (tmp_path / "recordings" / "99_demo.jsonl").write_text('{"key": "k", "text": "4"}\n', encoding="utf-8")
    recorded = fingerprint(path, opened=[])
    assert recorded["hash"] != first["hash"] and "99_demo.jsonl" in recorded["inputs"]


def test_the_data_a_run_recorded_is_what_the_fingerprint_hashes(tmp_path):
    from notebook_fingerprint import fingerprint
    opened = ["data/weather.json", "data/kb/en/"]
    path = notebook(tmp_path / "98_data.ipynb", [("code", "x = 1  # kb_tasks, react_corpus.jsonl")],
                    {"hash": "", "inputs": {}, "opened": opened})
    found = fingerprint(path)
    assert found["opened"] == opened
    assert sorted(k for k in found["inputs"] if k.startswith("data/")) == sorted(opened)  # not the names in the text
    # a notebook last run before runs recorded what they read: the old choice by names ("kb" is in "kb_tasks")
    fallback = fingerprint(notebook(path, [("code", "x = 1  # kb_tasks")]))
    assert "opened" not in fallback and "data/kb/README.md" in fallback["inputs"]


def test_the_kernels_startup_file_notes_the_data_it_reads(tmp_path):
    from execute_notebook import recorder_source
    root, log = tmp_path / "repo", tmp_path / "opened.txt"
    (root / "data" / "kb").mkdir(parents=True)
    (root / "data" / "a.json").write_text("{}", encoding="utf-8")
    (root / "data" / "kb" / "b.md").write_text("# B", encoding="utf-8")
    startup = tmp_path / "startup.py"
    startup.write_text(recorder_source(root, log), encoding="utf-8")
    code = (f"exec(open({str(startup)!r}).read())\n"
            "import os, pathlib\n"
            "assert not [k for k in globals() if 'handmade' in k]\n"  # the notebook's namespace stays clean
            f"open({str(root / 'data' / 'a.json')!r}).read(); open({str(root / 'data' / 'a.json')!r}).read()\n"
            "sorted(pathlib.Path('data/kb').glob('*.md'))[0].read_text()\n"  # relative to the kernel's folder
            "open('data/written.txt', 'w').write('an output, not an input')\n"
            f"open({str(tmp_path / 'elsewhere.txt')!r}, 'w').close()\n")
    subprocess.run([sys.executable, "-c", code], cwd=root, check=True)
    assert log.read_text(encoding="utf-8").splitlines() == ["data/a.json", "data/kb/", "data/kb/b.md"]
