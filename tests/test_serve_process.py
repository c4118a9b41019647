"""`handmade-agent serve` as a real process: a taken port, SIGTERM, and the openai client on loopback."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from handmade_agent.serve.server import LocalServer, free_port


def cli(*args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "handmade_agent.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **env})


def listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_a_taken_port_is_a_clear_error_before_any_model_loads():
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        t0 = time.monotonic()
        out = cli("serve", "--port", str(port))
    assert out.returncode == 2 and "serving" not in out.stdout
    assert f"Cannot listen on 127.0.0.1:{port}" in out.stderr and "--port" in out.stderr
    assert "Traceback" not in out.stderr and time.monotonic() - t0 < 30


@pytest.mark.parametrize("question, says", [("", "question is empty"), ("   ", "question is empty"),
                                            ("x" * 10_001, "10,001 characters")])
def test_ask_refuses_an_empty_or_huge_question(question, says):
    out = cli("ask", question, HANDMADE_AGENT_BASE_URL=f"http://127.0.0.1:{free_port()}/v1")
    assert out.returncode == 2 and says in out.stderr and "Traceback" not in out.stderr


def test_errors_on_stderr_are_redacted(tmp_path):
    key = "sk-proj-" + "Ab3" * 12
    folder = tmp_path / key  # a key pasted where a path belongs ends up in the error message
    folder.mkdir()
    (folder / "m.gguf").write_bytes(b"GGUF" + b"\0" * 100)
    out = cli("fetch-model", HANDMADE_AGENT_GGUF=str(folder / "m.gguf"))
    assert out.returncode == 2 and out.stderr.startswith("error: ")
    assert key not in out.stderr and "[REDACTED]" in out.stderr


# needs the model file (and hashes all 1.1 GB of it), so it runs where the model does, and an error finding
# the file fails with its own message instead of hiding as a skip
@pytest.mark.model
def test_fetch_model_verify_hashes_the_file_even_when_its_stamp_matches():
    from handmade_agent.local.files import find_model
    find_model(fetch=False)  # stamps the file: without --verify the next look is not hashed
    out = cli("fetch-model", "--verify", timeout=300)
    assert out.returncode == 0, out.stderr
    assert "verify [" in out.stderr and "100.0%" in out.stderr


@pytest.mark.model
def test_sigterm_stops_the_server_frees_the_port_and_leaves_no_child():
    server = LocalServer().start()
    pid, port = server.process.pid, server.port
    assert listening(port)
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(timeout=20) == 0
    children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    assert children == [] and not listening(port)
    server.stop()


@pytest.mark.model
def test_the_openai_client_gets_served_completions_and_clear_errors():
    import openai
    key = "classroom-word-x7q2"
    with LocalServer(api_key=key) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key=key, max_retries=0)
        model = client.models.list().data[0].id
        r = client.chat.completions.create(model=model, max_tokens=8,
                                           messages=[{"role": "user", "content": "What is 2+3? Number only."}])
        assert "5" in r.choices[0].message.content and r.usage.prompt_tokens > 0
        with pytest.raises(openai.NotFoundError, match=model):
            client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
        with pytest.raises(openai.AuthenticationError):
            openai.OpenAI(base_url=server.base_url, api_key="wrong", max_retries=0).models.list()
        with pytest.raises(openai.BadRequestError):
            client.chat.completions.create(model=model, messages=[{"role": "user", "content": "hi"}], max_tokens=-1)


def test_local_server_on_a_taken_port_raises_and_leaves_nothing_running():
    from handmade_agent.serve.server import PortInUse
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        server = LocalServer(other.getsockname()[1], startup_timeout=60)
        with pytest.raises(PortInUse, match="is taken"):  # refused before any child, log or key
            server.start()
    assert server.process is None and server.log_path is None
