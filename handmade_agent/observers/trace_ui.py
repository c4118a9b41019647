"""Arize Phoenix on this machine: the tracing UI an ``OTelObserver`` sends runs to, nothing leaving the machine.

``TraceUI(folder).start()`` runs Phoenix in a child process with its embedded SQLite storage in ``folder``, its web UI
and OTLP-over-HTTP endpoint on 127.0.0.1 (``.url``, ``.endpoint``), telemetry and external resources off, and
waits until it answers; ``stop()`` (or leaving a ``with`` block) ends it. ``handmade-agent trace-ui`` is the same in
the foreground. Phoenix also opens an OTLP-over-gRPC port, which it binds to every interface with no setting to
change that; the child process here binds it to 127.0.0.1 instead (``_serve``), as every server of the course is.

Needs the ``trace-ui`` extra (``arize-phoenix``). Left out: authentication (loopback only), Postgres, retention.

    >>> ui = TraceUI("/tmp/phoenix", port=6007)  # nothing starts until start() or a with block
    >>> ui.url, ui.endpoint
    ('http://127.0.0.1:6007', 'http://127.0.0.1:6007/v1/traces')
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from ..errors import ConfigError, HandmadeAgentError

PORT, GRPC_PORT = 6006, 4317


class TraceUI:
    """A Phoenix server in a child process (see the module docstring)."""

    def __init__(self, folder: str | Path, port: int = PORT, grpc_port: int = GRPC_PORT):
        self.folder, self.port, self.grpc_port = Path(folder), port, grpc_port
        self.url = f"http://127.0.0.1:{port}"
        self.endpoint = f"{self.url}/v1/traces"
        self.process: subprocess.Popen | None = None

    def env(self) -> dict[str, str]:
        self.folder.mkdir(parents=True, exist_ok=True)
        return {**os.environ, "PHOENIX_HOST": "127.0.0.1", "PHOENIX_PORT": str(self.port),
                "PHOENIX_GRPC_PORT": str(self.grpc_port), "PHOENIX_WORKING_DIR": str(self.folder),
                "PHOENIX_TELEMETRY_ENABLED": "false", "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
                "PHOENIX_DISABLE_AGENT_ASSISTANT": "true"}

    def start(self, timeout: float = 120.0) -> "TraceUI":
        try:
            import phoenix  # noqa: F401  (only to say what is missing before a child process fails)
        except ImportError:
            raise ConfigError("The trace UI is Arize Phoenix: pip install 'handmade-agent[trace-ui]'.") from None
        env = self.env()
        with open(self.folder / "phoenix.log", "ab") as log:
            self.process = subprocess.Popen([sys.executable, "-m", "handmade_agent.observers.trace_ui"], env=env,
                                            stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise HandmadeAgentError(f"Phoenix exited with code {self.process.returncode}; its log: "
                                         f"{self.folder / 'phoenix.log'} (is port {self.port} taken?)")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=2):
                    return self
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise HandmadeAgentError(f"Phoenix did not answer on {self.url} within {timeout:.0f} s; see "
                                 f"{self.folder / 'phoenix.log'}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def __enter__(self) -> "TraceUI":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def _serve() -> None:
    """Phoenix's own ``serve`` command, with its gRPC server bound to 127.0.0.1 (it asks for ``[::]``)."""
    import grpc
    make_server = grpc.aio.server

    def loopback_server(*args: Any, **kwargs: Any) -> Any:
        server = make_server(*args, **kwargs)
        bind = server.add_insecure_port
        server.add_insecure_port = lambda address: bind(address.replace("[::]", "127.0.0.1"))
        return server

    grpc.aio.server = loopback_server
    from phoenix.server.main import main
    sys.argv = ["phoenix", "serve"]
    main()


if __name__ == "__main__":
    _serve()
