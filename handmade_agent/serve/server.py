"""The local model served over HTTP: ``run_server`` (what ``handmade-agent serve`` runs) and ``LocalServer``.

``run_server`` binds the port first (taken → ``PortInUse``, before any model is loaded or
"serving" is printed), loads ONE in-process ``LocalLLM`` (so the server gets the package's
prefix cache, per-call thread choice, grammars and the GGUF chat template) and runs the ASGI app
of ``app.py`` under uvicorn in this process. SIGTERM/SIGINT stop it: the decode in progress
stops at its next token, waiting requests are dropped, the port is released, the process exits.
There is no child process to leave behind.

``LocalServer`` runs that command as a subprocess and returns once ``/health`` answers as its model; as a
context manager it stops it on exit. ``OpenAIChat`` then talks to it as to any provider. Before it starts
anything it checks the API key (``check_api_key``: one a client could not send is refused, never echoed) and
the port (``check_port_free``: whatever already listens there is refused, and is sent nothing, key included);
while it waits, an answer from anything but its own child serving its model is refused at once; and whatever
fails in ``start()``, the child is stopped and its log removed.

Deliberately left out: TLS, and anything but loopback unless ``host`` says so.

    >>> with serve(port=free_port()) as server:                # doctest: +SKIP
    ...     OpenAIChat(MODEL_ID, base_url=server.base_url)
"""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from ..errors import ConfigError, HandmadeAgentError, LLMError

ENV_SERVE_KEY = "HANDMADE_AGENT_SERVE_API_KEY"  # the key travels by environment: argv is visible in `ps`
MAX_KEY_CHARS = 256  # an OpenAI key is about 160; a megabyte of key is a mistake that no header would carry


class PortInUse(HandmadeAgentError):
    """Another process listens on the port the server was asked to use."""


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def bind(host: str, port: int) -> Any:
    """A listening socket on (host, port), or PortInUse saying what to do."""
    import socket
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    # On Linux SO_REUSEADDR only lets a restart bind past old TIME_WAIT connections; a live listener still wins
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError as e:
        sock.close()
        raise PortInUse(f"Cannot listen on {host}:{port} ({e.strerror}). Another server may be running there: "
                        f"stop it, or choose another port with --port.") from None
    return sock


def check_port_free(host: str, port: int, who: str = "The model server") -> None:
    """PortInUse if something listens on (host, port) already: nothing is started there, and nothing sent to it."""
    try:
        bind(host, port).close()
    except PortInUse:
        raise PortInUse(f"Port {port} on {host} is taken: another program listens there. {who} was not started and "
                        "sent it nothing: stop that program, or choose another port (or none: a free one is "
                        "chosen).") from None


def check_api_key(key: str | None) -> str | None:
    """``key`` (None for no key) if every client can send it as ``Authorization: Bearer <key>``: printable ASCII,
    no spaces at either end, at most ``MAX_KEY_CHARS``. Otherwise a ConfigError saying why, without the key."""
    if not key:
        return None
    problem = (f"it has {len(key):,} characters, more than {MAX_KEY_CHARS}" if len(key) > MAX_KEY_CHARS else
               "it has a line break, a tab or another control character" if any(c < " " or c == "\x7f" for c in key)
               else "it has characters outside printable ASCII" if not key.isascii()
               else "it starts or ends with a space" if key != key.strip() else "")
    if problem:
        raise ConfigError(f"The API key cannot be used: {problem}. Clients send it in an HTTP header "
                          "(Authorization: Bearer <key>), which takes printable ASCII only. Choose another, e.g. "
                          "python -c \"import secrets; print(secrets.token_urlsafe(24))\".")
    return key


def is_loopback(host: str) -> bool:
    """Whether ``host`` is an address only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    import ipaddress
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return host.lower().rstrip(".") == "localhost"


def exposure_warning(host: str, port: int, api_key: str | None) -> str:
    """A warning to print when the server is reachable from other machines with no key, else ""."""
    if api_key or is_loopback(host):
        return ""
    return (f"warning: serving on {host}:{port} with no API key: anyone who can reach this machine can use the "
            f"model and fill its line, and any web page open here can too. Set {ENV_SERVE_KEY} (or --api-key) "
            f"to a word for the room, or serve on 127.0.0.1 only.")


def run_server(host: str = "127.0.0.1", port: int = 8080, *, model: str | None = None,
               model_path: str | Path | None = None, n_ctx: int = 4096, api_key: str | None = None,
               queue_limit: int = 16, announce: Any = print, allowed_hosts: tuple[str, ...] = (),
               on_request: Any = None) -> None:
    """Serve the local model until SIGTERM/SIGINT (see the module docstring).

    ``model`` is a registry name (default ``HANDMADE_AGENT_LOCAL_MODEL``, else the registry default, the 1.5B): it decides the served
    id; ``model_path`` replaces that model's file. On loopback, requests must name the host as ``host``,
    localhost, 127.0.0.1, ::1 or one of ``allowed_hosts`` (a web page cannot reach it by another name).
    """
    api_key = check_api_key(api_key)  # a key no client could send would lock the whole room out
    sock = bind(host, port)  # first: a taken port is the teacher's first question, whatever else is missing
    try:
        import uvicorn

        from .app import LOOPBACK_HOSTS, make_app
    except ImportError as e:  # a client install (no llama-cpp-python[server]) serves nothing
        sock.close()
        raise ConfigError(f"handmade-agent serve needs the in-process model's extra ({e.name} is missing): "
                          "pip install -e '.[local]' (or run `make setup`), then serve again.") from None
    from ..local import LocalLLM
    warning = exposure_warning(host, port, api_key)
    if warning:
        announce(warning)  # before the model loads: the first thing the teacher sees
    llm = LocalLLM(model_path, model=model, n_ctx=n_ctx)
    hosts = tuple(dict.fromkeys((*LOOPBACK_HOSTS, host.lower(), *allowed_hosts))) if is_loopback(host) else None
    app = make_app(llm, api_key=api_key, queue_limit=queue_limit, hosts=hosts, on_request=on_request)
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=3, lifespan="on")

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            app.state.line.cancel_all()  # a long decode must not hold the shutdown
            super().handle_exit(sig, frame)
            # uvicorn re-raises the signal after its shutdown (exit by SIGTERM, KeyboardInterrupt traceback on
            # Ctrl-C); a requested stop that went cleanly is exit status 0 here
            getattr(self, "_captured_signals", []).clear()

    server = Server(config)
    shown = f"[{host}]" if ":" in host else host
    announce(f"serving {llm.model} at http://{shown}:{port}/v1 (Ctrl-C stops)"
             f"{' — clients must send the API key' if api_key else ''}\n"
             f"  export HANDMADE_AGENT_BASE_URL=http://{shown}:{port}/v1 HANDMADE_AGENT_MODEL={llm.model}")
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    if not server.started:
        raise LLMError(f"The server on {host}:{port} failed to start.")


class LocalServer:
    """``handmade-agent serve`` for the local model, as a subprocess (context manager: stops on exit)."""

    def __init__(self, port: int | None = None, *, host: str = "127.0.0.1", model: str | None = None,
                 model_path: str | Path | None = None, n_ctx: int = 4096, api_key: str | None = None,
                 startup_timeout: float = 180.0, queue_limit: int = 16):
        from ..local import find_model, model_spec
        self.host, self.port = host, port or free_port()
        self.spec = model_spec(model)  # resolved here, so the child serves this model whatever its environment says
        self.model_path = Path(model_path) if model_path else find_model(self.spec)
        self.n_ctx, self.startup_timeout, self.queue_limit = n_ctx, startup_timeout, queue_limit
        self.api_key = check_api_key(api_key)
        self.process: Any = None
        self.log_path: Path | None = None

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    @property
    def model_id(self) -> str:
        """What the server answers to (and names in ``/health`` and ``/v1/models``)."""
        return self.spec.model_id

    def command(self) -> list[str]:
        import sys
        return [sys.executable, "-m", "handmade_agent.cli", "serve", "--host", self.host, "--port", str(self.port),
                "--n-ctx", str(self.n_ctx), "--model", self.spec.name, "--gguf", str(self.model_path),
                "--queue-limit", str(self.queue_limit)]

    def environment(self) -> dict[str, str]:
        """The server process's environment: ours, with the room's key (if any) and no other key, and no
        recording (a server always runs the real model: a notebook's served cells prove it live)."""
        env = {**os.environ, "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "PASSIVE")}
        for name in (ENV_SERVE_KEY, "HANDMADE_AGENT_RECORDING", "HANDMADE_AGENT_RECORDING_FILE"):
            env.pop(name, None)
        if self.api_key:
            env[ENV_SERVE_KEY] = self.api_key
        return env

    def served_models(self) -> list[str] | None:
        """The model ids whatever answers on our port says it serves (``/health``), or None while nothing answers."""
        import json
        import urllib.error
        import urllib.request
        try:
            with urllib.request.urlopen(f"http://{self.host}:{self.port}/health", timeout=2) as r:
                body = json.loads(r.read(65_536))
        except urllib.error.HTTPError as e:  # an answer, and not the one our server gives
            return [f"HTTP {e.code}"]
        except (OSError, ValueError):  # nothing listens yet, or it is still loading (no answer in 2 s)
            return None
        return [str(body.get("model"))[:100]] if isinstance(body, dict) else []

    def ready(self) -> bool:
        """Does our model answer on our port?"""
        return self.model_id in (self.served_models() or [])

    def start(self) -> "LocalServer":
        """Start the process and return once it answers as our model. A taken port, a child that exits, anything
        else answering, or the deadline raise; whatever fails, the child is stopped and its log removed."""
        import subprocess
        import tempfile
        name = type(self).__name__
        check_port_free(self.host, self.port, f"The model server ({name})")  # before a child, a log or a key
        fd, log = tempfile.mkstemp(prefix="handmade-agent-server-", suffix=".log")
        self.log_path = Path(log)
        try:
            try:
                self.process = subprocess.Popen(self.command(), stdout=fd, stderr=subprocess.STDOUT,
                                                env=self.environment())
            finally:
                os.close(fd)
            return self._wait(name)
        except BaseException:  # Ctrl-C and our own bugs included: no child or log is left behind
            self.stop()
            raise

    def _wait(self, name: str) -> "LocalServer":
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                tail = self.log_path.read_text(errors="replace")[-1500:]
                raise LLMError(f"The model server ({name}) exited with code {self.process.returncode} before it was "
                               f"ready. Is port {self.port} free? Log:\n{tail}")
            models = self.served_models()
            if models is not None and self.process.poll() is None:
                if self.model_id in models:
                    return self
                named = ", ".join(map(repr, models)) or "no model"
                raise LLMError(f"Something else answers on {self.base_url}: it names {named}, not {self.model_id!r}, "
                               f"so it is not the server just started ({name}). Another program took the port: stop "
                               "it, or start on another port.")
            time.sleep(0.3)
        raise LLMError(f"The model server ({name}) did not answer on {self.base_url} within "
                       f"{self.startup_timeout:.0f} s.")

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
