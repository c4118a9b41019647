"""The local model served over HTTP: llama-cpp-python's OpenAI-compatible server as a child process.

``serve()`` starts it on loopback and returns once it answers; ``OpenAIChat``
then talks to it exactly as it would to a cloud provider. The server uses the
same thread defaults as the in-process ``LocalLLM``.

Deliberately left out: the in-process prefix cache (the server keeps its own
in-memory KV cache per slot), TLS, and anything but loopback by default.

    >>> with serve(port=free_port()) as server:                # doctest: +SKIP
    ...     OpenAIChat(MODEL_ID, base_url=server.base_url)
"""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from .errors import LLMError
from .local import MODEL_ID, default_threads
from .model_files import QWEN_CODER_05B, find_model


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalServer:
    """llama-cpp-python's OpenAI-compatible server for the local model, as a child process."""

    def __init__(self, port: int | None = None, *, host: str = "127.0.0.1", model_path: str | Path | None = None,
                 n_ctx: int = 4096, api_key: str | None = None, startup_timeout: float = 180.0):
        self.host, self.port = host, port or free_port()
        self.model_path = Path(model_path) if model_path else find_model(QWEN_CODER_05B)
        self.n_ctx, self.api_key, self.startup_timeout = n_ctx, api_key, startup_timeout
        self.process: Any = None
        self.log_path: Path | None = None

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def command(self) -> list[str]:
        import sys
        threads, threads_batch = (str(n) for n in default_threads())
        cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(self.model_path), "--host", self.host,
               "--port", str(self.port), "--n_ctx", str(self.n_ctx), "--model_alias", MODEL_ID,
               "--n_threads", threads, "--n_threads_batch", threads_batch, "--verbose", "False"]
        return cmd + (["--api_key", self.api_key] if self.api_key else [])

    def start(self) -> "LocalServer":
        import subprocess
        import tempfile
        import urllib.request
        fd, log = tempfile.mkstemp(prefix="handmade-agent-server-", suffix=".log")
        self.log_path = Path(log)
        env = {**os.environ, "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "PASSIVE")}
        self.process = subprocess.Popen(self.command(), stdout=fd, stderr=subprocess.STDOUT, env=env)
        os.close(fd)
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                tail = self.log_path.read_text(errors="replace")[-1500:]
                raise LLMError(f"The model server exited with code {self.process.returncode} before it was ready. "
                               f"Is port {self.port} free and llama-cpp-python[server] installed? Log:\n{tail}")
            try:
                headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
                with urllib.request.urlopen(urllib.request.Request(f"{self.base_url}/models", headers=headers),
                                            timeout=2):
                    return self
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise LLMError(f"The model server did not answer on {self.base_url} within {self.startup_timeout:.0f} s.")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except Exception:  # a server stuck in shutdown must still go away
                self.process.kill()
                self.process.wait()
        if self.log_path:
            self.log_path.unlink(missing_ok=True)

    def __enter__(self) -> "LocalServer":
        return self if self.process else self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve(port: int | None = None, **kwargs: Any) -> LocalServer:
    """Start the local model's HTTP server and return it once it answers (use as a context manager)."""
    return LocalServer(port, **kwargs).start()
