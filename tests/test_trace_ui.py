"""A real run in a real tracing UI: the OpenTelemetry observer sends to Arize Phoenix on loopback, Chromium looks.

Phoenix runs as ``handmade-agent trace-ui`` runs it (``observers/trace_ui.py``): a child process, 127.0.0.1 only,
its SQLite storage in a temporary folder. A run of the local model must arrive as one trace (root, model calls, tool
call, token counts) that Phoenix's own API returns and its UI draws; the screenshot goes to ``docs/screenshots/``.
A key planted everywhere a run carries text must be nowhere in what Phoenix stored, on disk or through its API.
"""
from __future__ import annotations

import datetime
import json
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from browser_lab import free_port, launch_chromium  # noqa: E402
from observer_samples import planted_key_run  # noqa: E402

pytestmark = pytest.mark.browser
pytest.importorskip("phoenix", reason="Arize Phoenix is not installed: pip install -e '.[trace-ui]'")
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed: pip install -e '.[dev]'")
from handmade_agent.agent import Agent  # noqa: E402
from handmade_agent.llm import ScriptedLLM  # noqa: E402
from handmade_agent.observers.otel import OTelObserver  # noqa: E402
from handmade_agent.observers.trace_ui import TraceUI  # noqa: E402
from handmade_agent.toolbox import default_registry  # noqa: E402

SHOTS = Path(__file__).resolve().parents[1] / "docs" / "screenshots"


@pytest.fixture(scope="module")
def ui(tmp_path_factory):
    with TraceUI(tmp_path_factory.mktemp("phoenix"), port=free_port(), grpc_port=free_port()) as running:
        yield running


def run_spans(ui: TraceUI, run_id: str, timeout: float = 30.0) -> list[dict]:
    """Phoenix's stored spans of one run, once its root (ended last, flushed with the rest) has arrived."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{ui.url}/v1/projects/handmade-agent/spans?limit=1000", timeout=10) as r:
                got = [s for s in json.load(r)["data"] if s["attributes"].get("handmade_agent.run_id") == run_id]
        except urllib.error.HTTPError as e:  # 404 until Phoenix has stored the project's first span
            assert e.code == 404, e
            got = []
        if any(s["parent_id"] is None for s in got) or time.monotonic() > deadline:
            return got
        time.sleep(0.5)


@pytest.mark.model
def test_a_real_run_arrives_as_one_span_tree_and_the_ui_draws_it(ui, local_llm):
    observer = OTelObserver(endpoint=ui.endpoint, model=local_llm.model)
    tools = default_registry(today=datetime.date(2024, 5, 20))
    result = Agent(local_llm, tools, observers=[observer]).run("What is 17 * 23? Use the calculator.")
    assert result.answer and "391" in result.answer, result.answer
    run = run_spans(ui, result.run_id)
    root = next(s for s in run if s["parent_id"] is None)
    children = [s for s in run if s["parent_id"] == root["context"]["span_id"]]
    assert len(children) == len(run) - 1 and {s["context"]["trace_id"] for s in run} == {root["context"]["trace_id"]}
    llm = [s for s in children if s["span_kind"] == "LLM"]
    tool_spans = [s for s in children if s["span_kind"] == "TOOL"]
    assert root["span_kind"] == "AGENT" and root["attributes"]["handmade_agent.stop_reason"] == "final_answer"
    assert llm and all(s["attributes"]["llm.token_count.prompt"] > 0 for s in llm)
    assert [s["name"] for s in tool_spans] == ["execute_tool calculator"]
    assert root["attributes"]["llm.token_count.prompt"] == result.usage.prompt_tokens

    # in a thread of its own: a test before this one may leave an asyncio loop on this thread (jupyter_client does),
    # and Playwright's sync API refuses to run inside one (CI, 2026-12-06)
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(1) as pool:
        pool.submit(screenshot, ui, llm[0]["name"]).result()


def screenshot(ui: TraceUI, chat_span: str) -> None:
    with sync_api.sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"{ui.url}/projects")
        page.get_by_text("handmade-agent").first.click()
        page.get_by_text("invoke_agent handm").first.click()  # the root span's row opens the trace
        sync_api.expect(page.get_by_text("execute_tool calculator").first).to_be_visible(timeout=30_000)
        sync_api.expect(page.get_by_text(chat_span).first).to_be_visible()
        SHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SHOTS / "phoenix_trace.png"))
        browser.close()

def test_a_key_planted_in_a_run_is_nowhere_in_what_phoenix_stored(ui, monkeypatch):
    key = "sk-proj-" + "Wx7" * 12
    monkeypatch.setenv("OPENAI_API_KEY", key)
    tools, replies, question = planted_key_run(key)
    observer = OTelObserver(endpoint=ui.endpoint, model="scripted")
    result = Agent(ScriptedLLM(replies), tools, results_answer=False, observers=[observer]).run(question)
    stored = run_spans(ui, result.run_id)
    assert any(s["name"] == "execute_tool fetch" for s in stored)
    text = json.dumps(stored, ensure_ascii=False)
    assert key not in text and "[REDACTED]" in text
    time.sleep(1)  # Phoenix's writer commits in batches
    on_disk = b"".join(f.read_bytes() for f in Path(ui.folder).rglob("*") if f.is_file())
    assert b"execute_tool fetch" in on_disk and key.encode() not in on_disk and key[:16].encode() not in on_disk


def test_the_command_serves_on_loopback_says_how_to_send_and_stops_on_ctrl_c(tmp_path):
    import signal
    import subprocess
    port = free_port()
    cmd = [sys.executable, "-m", "handmade_agent.cli", "trace-ui", "--port", str(port), "--grpc-port",
           str(free_port()), "--dir", str(tmp_path)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        first = proc.stdout.readline()
        assert first.startswith(f"Phoenix: http://127.0.0.1:{port}"), first + proc.stdout.read()
        assert "OTelObserver(endpoint='http://127.0.0.1:%d/v1/traces')" % port in proc.stdout.readline()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as r:
            assert r.status == 200
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2)
