"""Part 2 of 03, 06, 07 and 08 started in a fresh kernel: its set-up cell replays all of part 1 from the committed recording.

On the course's model every model call of part 1 must be found in ``notebooks/recordings/`` (a miss would run the
model, minutes each time a workshop's second slot starts), and the state part 2 reads must be there afterwards.
The kernel is a real one, started where Jupyter starts it (the notebook's folder), with no recording set.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.model
NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def run_setup_cell(stem: str, then: str) -> str:
    from jupyter_client.manager import start_new_kernel
    cells = json.loads((NOTEBOOKS / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
    setup = next("".join(c["source"]) for c in cells if "catch_up(" in "".join(c["source"]) and c["cell_type"] == "code")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HANDMADE_AGENT_RECORDING")}
    km, kc = start_new_kernel(cwd=str(NOTEBOOKS), env=env)
    out: list[str] = []
    try:
        for code in (setup, then):
            reply = kc.execute_interactive(code, timeout=900, output_hook=lambda m: out.append(
                m["content"].get("text", "") if m["msg_type"] == "stream" else
                m["content"].get("evalue", "") if m["msg_type"] == "error" else ""))
            assert reply["content"]["status"] == "ok", "".join(out)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return "".join(out)


@pytest.mark.parametrize("stem, until, then", [
    ("03_agent_loop", "## 6.", "print('state:', type(agent).__name__)"),
    ("06_rag", "## 10.", "print('state:', len(chunks))"),
    ("07_function_calling", "## 7.", "print('state:', type(server).__name__, len(choice_tools.schemas()), parallel_calls is not None)"),
    ("08_evaluation", "## 7.", "print('state:', type(llm).__name__, solved, len(by_id))"),
])
def test_part_2_catches_up_from_the_recording_without_running_the_model(stem, until, then):
    out = run_setup_cell(stem, then)
    done = re.search(rf"Ran the (\d+) code cells above '{re.escape(until)}' in (\d+) s: (\d+) model calls replayed from the "
                     r"course's recording, (\d+) run on your model", out)
    assert done, out
    cells, seconds, replayed, live = map(int, done.groups())
    print(f"{stem}: {cells} cells, {replayed} calls replayed, {live} live, {seconds} s")
    assert replayed > 0 and live == 0, out
    assert "state:" in out, out
