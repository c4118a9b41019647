"""catch_up (handmade_agent/teaching.py): a later part of a notebook started in a fresh kernel.

A real IPython shell runs the cells; the notebook is written here. Whether 07's and 08's part 2 replay their whole
part 1 from the committed recordings on the course's model is tests/test_notebook_catch_up.py (notebook tier).
"""
from __future__ import annotations

import json

import pytest

from handmade_agent.teaching import catch_up, cells_above
from handmade_agent.errors import HandmadeAgentError


def notebook(folder, *cells):
    (folder / "data").mkdir(exist_ok=True)
    (folder / "handmade_agent").mkdir(exist_ok=True)
    made = [{"cell_type": kind, "metadata": {}, "source": src, **({"outputs": [], "execution_count": None}
                                                                    if kind == "code" else {})} for kind, src in cells]
    path = folder / "nb.ipynb"
    path.write_text(json.dumps({"cells": made, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


@pytest.fixture
def shell():
    from IPython.testing.globalipapp import get_ipython, start_ipython
    ip = start_ipython() or get_ipython()  # one shell per process: started by the first test, reused after
    ip.reset()
    yield ip
    ip.reset()


def test_the_cells_above_run_once_quietly_and_then_it_does_nothing(tmp_path, shell, capsys):
    path = notebook(tmp_path, ("markdown", "## 1. First"), ("code", "x = 40\nprint('noisy')"),
                    ("code", "%time y = x + 2"), ("markdown", "## 2. Second"), ("code", "z = 0"))
    catch_up(path, "## 2.", shell)
    out = capsys.readouterr().out
    assert shell.user_ns["y"] == 42 and "z" not in shell.user_ns
    assert "Ran the 2 code cells above '## 2.'" in out and "0 model calls replayed" in out and "noisy" not in out
    catch_up(path, "## 2.", shell)
    assert "The 2 code cells above '## 2.' have run in this kernel: nothing to catch up" in capsys.readouterr().out


def test_a_cell_run_by_hand_before_is_not_enough_all_of_them_run(tmp_path, shell, capsys):
    path = notebook(tmp_path, ("code", "n = 1"), ("code", "m = n + 1"), ("markdown", "text\n## 2. Next"))
    shell.run_cell("n = 5", store_history=False)  # as nbval runs a cell: no input history
    catch_up(path, "## 2.", shell)  # the heading may follow text in its cell
    assert shell.user_ns["m"] == 2 and "Ran the 2 code cells" in capsys.readouterr().out


def test_names_set_only_in_a_branch_or_deleted_do_not_count(tmp_path, shell, capsys):
    path = notebook(tmp_path, ("code", "import json as j\nx = 1\nif False:\n    hidden = 2"),
                    ("code", "def f():\n    inner = 3\ntmp = 4\ndel tmp"), ("markdown", "## 2."))
    shell.run_cell("import json as j\nx = 1\ndef f(): pass", store_history=False)
    catch_up(path, "## 2.", shell)
    assert "nothing to catch up" in capsys.readouterr().out and "hidden" not in shell.user_ns


def test_a_failing_cell_stops_it_naming_the_cell(tmp_path, shell):
    path = notebook(tmp_path, ("code", "a = 1"), ("code", "\nb = undefined_name"), ("markdown", "## 2."))
    with pytest.raises(HandmadeAgentError, match=r"code cell 2 of 2 \('b = undefined_name'\).*NameError.*by hand"):
        catch_up(path, "## 2.", shell)


def test_an_unknown_heading_or_no_kernel_is_a_clear_error(tmp_path, monkeypatch):
    path = notebook(tmp_path, ("code", "a = 1"), ("markdown", "## 2. Next"))
    with pytest.raises(HandmadeAgentError, match="no heading starting '## 9.'"):
        cells_above(path, "## 9.")
    with pytest.raises(HandmadeAgentError, match="from the folder it is in"):
        cells_above(tmp_path / "elsewhere.ipynb", "## 2.")
    monkeypatch.setattr("IPython.get_ipython", lambda: None)
    with pytest.raises(HandmadeAgentError, match="from a notebook cell"):
        catch_up(path, "## 2.")
