"""nbval here: recorded model calls, and the cells that only the in-process model can show.

Recorded calls. Each notebook's kernel starts with ``HANDMADE_AGENT_RECORDING=replay`` and its own
``recordings/<name>.jsonl`` (``handmade_agent/local/recording.py``): the model's replies are replayed, the
parser, tools, agent and checks run for real, and a call that is not in the recording fails the cell that made
it, naming the call (a change altered what the model is asked: record it with ``make notebooks``). Set
``HANDMADE_AGENT_RECORDING=off`` to run every call on the model, or ``record`` to record misses as you go.

On a server. A cell tagged ``local-only`` prints what only the in-process model shows (its chat
template, tokenizer, KV cache, token probabilities, its own wording of an error). With
``HANDMADE_AGENT_BASE_URL`` set such a cell skips or words things the server's way, so its committed
output (from the in-process run) is not compared; it must still run without an error. In-process,
every cell is compared as usual. A server is never recorded: it is the real model, proven live.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

LOCAL_ONLY = "local-only"
MODE, FILE = "HANDMADE_AGENT_RECORDING", "HANDMADE_AGENT_RECORDING_FILE"  # as in handmade_agent.local.recording
CHOSEN = os.environ.get(MODE, "").strip().lower()  # a mode the caller set wins over the default, replay


def pytest_collection_modifyitems(config, items):
    if not os.environ.get("HANDMADE_AGENT_BASE_URL", "").strip():
        return
    for item in items:
        cell = getattr(item, "cell", None)
        if cell is not None and LOCAL_ONLY in cell.get("metadata", {}).get("tags", []):
            item.options["check"] = False


def recording_of(item) -> Path:
    path = Path(str(item.fspath)).resolve()
    return path.parent / "recordings" / f"{path.stem}.jsonl"


def misses_of(item) -> Path:
    rec = recording_of(item)
    return rec.with_name(rec.name + ".misses")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Before the notebook's kernel starts (its first cell's setup), point it at the notebook's recording."""
    if not str(item.fspath).endswith(".ipynb"):
        return
    rec = recording_of(item)
    if os.environ.get(FILE) != str(rec):  # the first cell of this notebook: its kernel is about to start
        os.environ[MODE] = CHOSEN or "replay"
        os.environ[FILE] = str(rec)
        misses_of(item).unlink(missing_ok=True)
        item.config.stash[_SEEN] = 0


_SEEN = pytest.StashKey[int]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A cell that met a recording miss fails, with the call named (its output may otherwise hide it)."""
    outcome = yield
    if call.when != "call" or not str(item.fspath).endswith(".ipynb") or not misses_of(item).exists():
        return
    lines = misses_of(item).read_text(encoding="utf-8").splitlines()
    seen = item.config.stash.get(_SEEN, 0)
    if len(lines) > seen:
        item.config.stash[_SEEN] = len(lines)
        report = outcome.get_result()
        report.outcome = "failed"
        report.longrepr = ("This cell asked the model for replies that are not recorded in "
                           f"{recording_of(item)} (a change altered the prompt, or the engine):\n  "
                           + "\n  ".join(l[:400] for l in lines[seen:])
                           + "\nRecord them with the real model: make notebooks (or python tests/execute_notebook.py "
                           f"{Path(str(item.fspath)).name}), or run with HANDMADE_AGENT_RECORDING=record.")
