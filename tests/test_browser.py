"""The panels in a real browser: JupyterLab on loopback, Debian's Chromium driven by Playwright.

A learner's view of every panel: live (run, click, type, select, slide; the DOM changes and the Python
side agrees), from saved widget state in a trusted notebook that was never run, as the static HTML
fallback in an untrusted one, and every committed notebook without "Error displaying widget". Opening
and saving a notebook in the normal form of ``execute_notebook.py`` must change no byte. Screenshots of
the live panels go to ``docs/screenshots/`` (the README shows them; CI keeps them as artefacts).
Everything runs in copies in a temporary directory: JupyterLab never saves into the repository.

Deliberately left out: the local model (``ScriptedLLM`` replies; the panels are under test, not a
model) and pixel comparisons (screenshots are looked at, not diffed: fonts differ between machines).
"""
from __future__ import annotations

import json
import re
import shutil
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from browser_lab import CHROMIUM, Lab, launch_chromium, open_notebook, run_all  # noqa: E402
from browser_notebook import EDITED_REPLY, REPLIES, panels_notebook  # noqa: E402

pytestmark = pytest.mark.browser
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed: pip install -e '.[dev]'")
pytest.importorskip("jupyterlab", reason="jupyterlab is not installed: pip install -e '.[widgets]'")
if not CHROMIUM.exists():
    pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install chromium (CI does)", allow_module_level=True)
expect = sync_api.expect
from browser_panels import (check_trace, drive_chunks, drive_debugger, drive_memory, drive_retrieval,  # noqa: E402
                            outputs, rerun_last_cell, watch_console)

REPO = Path(__file__).resolve().parents[1]
SHOTS = REPO / "docs" / "screenshots"
COMMITTED = sorted((REPO / "notebooks").glob("*.ipynb"))
ERROR = "Error displaying widget"


@pytest.fixture(scope="session")
def lab(tmp_path_factory):
    import nbformat
    from execute_notebook import execute, normalize, write
    base = tmp_path_factory.mktemp("browser")
    root = base / "notebooks"
    for sub in ("committed", "normal"):
        (root / sub).mkdir(parents=True)
    (base / "data").symlink_to(REPO / "data")  # the notebooks read ../data, as in the repository
    nbformat.write(panels_notebook(), root / "panels.ipynb")
    shutil.copy(root / "panels.ipynb", root / "saved.ipynb")
    execute(root / "saved.ipynb")  # what a commit holds: outputs, widget state, the normal form
    shutil.copy(root / "saved.ipynb", root / "normal" / "panels.ipynb")
    untrusted = nbformat.read(root / "saved.ipynb", as_version=4)
    untrusted.cells[0].source += " (untrusted)"  # trust is per content: an identical copy would be trusted too
    nbformat.write(untrusted, root / "untrusted.ipynb")
    for path in COMMITTED:
        shutil.copy(path, root / "committed" / path.name)
        nb = nbformat.read(path, as_version=4)
        normalize(nb)
        write(nb, root / "normal" / path.name)
    server = Lab(root, base / "home")
    server.trust(root / "saved.ipynb")
    for path in COMMITTED:
        server.trust(root / "committed" / path.name)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser():
    with sync_api.sync_playwright() as playwright:
        chromium = launch_chromium(playwright)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, lab):
    context = browser.new_context(viewport={"width": 1280, "height": 1400})
    page = context.new_page()
    page.set_default_timeout(60_000)
    expect.set_options(timeout=30_000)  # two shared cores: a widget round trip can take seconds
    yield page
    context.close()
    lab.shutdown_kernels()


def test_every_panel_responds_in_a_live_notebook(page, lab):
    errors = watch_console(page)
    open_notebook(page, lab, "panels.ipynb")
    run_all(page, "panels.ipynb")
    out = outputs(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    for name in ("trace", "retrieval", "memory", "chunks"):  # as they first appear
        out[name].screenshot(path=SHOTS / f"{name}.png")
    check_trace(out["trace"])
    drive_debugger(out["debugger"], REPLIES, EDITED_REPLY, shot=SHOTS / "debugger.png")
    hits = drive_retrieval(out["retrieval"], "battery charging time", "bm25")
    reset = drive_memory(out["memory"])
    chunks = drive_chunks(out["chunks"], "zh/zh-t4-faq")
    state = json.loads(rerun_last_cell(page))  # what the kernel holds after the clicks
    assert state["debugger"] == [["action", True, "convert_temperature"], ["format_error", False, None],
                                 ["action", False, "calculator"], ["final_answer", False, None]]
    assert state["debugger_finished"] and state["trace_steps"] == 4
    assert state["retrieval"] == {"query": "battery charging time", "method": "bm25", "hits": hits}
    assert state["memory"]["turns"] == 4 and state["memory"]["preview"]["max_turns"] == 4
    assert state["chunks"] == {"doc": "zh/zh-t4-faq", "method": "fixed", "n": chunks}
    reset()  # the button brings the memory's own limits back
    assert not errors, f"browser console errors: {errors}"


def test_a_trusted_unrun_notebook_shows_every_panel_from_its_saved_state(page, lab):
    errors = watch_console(page)
    open_notebook(page, lab, "saved.ipynb", kernel=False)
    notebook = page.locator(".jp-NotebookPanel")
    expect(notebook).not_to_contain_text("Loading widget")
    expect(notebook).not_to_contain_text(ERROR)
    out = outputs(page)
    for name, text in {"trace": "⚠ Step 2 · format error", "debugger": "① Ask the model",
                       "retrieval": "t4-fault-codes#", "memory": "memory's own limits",
                       "chunks": "t4-fault-codes:"}.items():
        expect(out[name].locator(".widget-container").first).to_be_visible()  # the widget, not its HTML form
        expect(out[name]).to_contain_text(text)
    assert not errors, f"browser console errors: {errors}"


def test_an_untrusted_notebook_shows_the_static_form(page, lab):
    errors = watch_console(page)
    open_notebook(page, lab, "untrusted.ipynb", kernel=False)
    expect(page.locator(".jp-NotebookPanel")).not_to_contain_text(ERROR)
    out = outputs(page)
    for name, text in {"trace": "Agent trace", "debugger": "Step debugger", "retrieval": "t4-fault-codes#",
                       "memory": "pinned", "chunks": "t4-fault-codes:"}.items():
        expect(out[name]).to_have_class(re.compile(r"\bjp-RenderedHTML\b"))  # the text/html form
        expect(out[name]).to_contain_text(text)
        expect(out[name].locator(".widget-container")).to_have_count(0)
    assert not errors, f"browser console errors: {errors}"


@pytest.mark.parametrize("name", [p.name for p in COMMITTED])
def test_a_committed_notebook_shows_no_widget_error_when_trusted(page, lab, name):
    open_notebook(page, lab, f"committed/{name}", kernel=False)
    notebook = page.locator(".jp-NotebookPanel")
    expect(notebook).not_to_contain_text("Loading widget")  # every widget output has resolved, one way or other
    assert ERROR not in notebook.text_content(), (
        f"{name}: a panel shows '{ERROR}' once trusted; re-execute it: "
        f".venv/bin/python tests/execute_notebook.py notebooks/{name}")


def settled_bytes(path: Path, deadline: float) -> bytes:
    """The file once the server has finished writing it.

    The server writes a saved notebook in place (truncate, then write), so the mtime moves before the bytes are
    all there: CI once read an empty file. Wait for text that parses and stops changing.
    """
    previous = b""
    while time.monotonic() < deadline:
        current = path.read_bytes()
        if current and current == previous:
            try:
                json.loads(current)
                return current
            except ValueError:
                pass
        previous = current
        time.sleep(0.3)
    return path.read_bytes()


@pytest.mark.parametrize("name", ["panels.ipynb"] + [p.name for p in COMMITTED])
def test_opening_and_saving_a_normal_form_notebook_changes_nothing(page, lab, name):
    path = lab.root / "normal" / name
    before, mtime = path.read_bytes(), path.stat().st_mtime_ns
    open_notebook(page, lab, f"normal/{name}")  # the kernel has connected: its metadata is in by now
    page.wait_for_timeout(1000)  # JupyterLab applies the kernel's reply just after it goes idle
    expect(page.locator(".lm-TabBar-tab.jp-mod-current.jp-mod-dirty")).to_have_count(0)
    page.locator(".jp-NotebookPanel .jp-Cell").first.click()
    page.keyboard.press("Control+s")
    deadline = time.monotonic() + 30
    while path.stat().st_mtime_ns == mtime and time.monotonic() < deadline:
        time.sleep(0.2)
    assert path.stat().st_mtime_ns != mtime, "Ctrl+S did not save the notebook"
    after = settled_bytes(path, deadline)
    if after != before:
        import difflib
        diff = "".join(list(difflib.unified_diff(before.decode().splitlines(True), after.decode().splitlines(True),
                                                 "normalize()", "JupyterLab", n=1))[:40])
        pytest.fail(f"JupyterLab saved {name} differently from normalize():\n{diff}")
