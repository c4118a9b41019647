"""llama-cpp-python's own server (``python -m llama_cpp.server``) as a subprocess, set up for the course.

The course's ``handmade-agent serve`` is measured against it (``benchmarks/serve.py --engine both``) and
its interoperability tested (``tests/test_llama_cpp_server.py``): DESIGN.md wants ``serve`` to become a
thin launcher of an existing engine, and this is what that launcher starts. ``LlamaCppServer`` is a
``LocalServer`` (same model resolution, ``stop``, context manager) with another command and start:

- the registry model's verified file, served under the model's id (``--model_alias``), so ``OpenAIChat``'s
  model check and ``server_takes_grammar`` see a course model (the server answers ANY model name with its
  one model; only the listing tells a wrong name);
- the GGUF's own chat template (no ``--chat_format``); measured on the 1.5B, 2026-12-03: with
  ``chatml-function-calling`` and ``tool_choice="auto"`` the calls come back structured but the agent
  repeated its call three times and never answered, and ``tool_choice="required"`` is a 500;
- the API key by environment (``API_KEY``, which its settings read): argv is visible in ``ps``;
- ready once ``GET /v1/models`` names the model (it has no ``/health``). The key goes with that request, so it is
  sent only to the port ``LocalServer.start`` found free and only while the child lives; anything else answering
  there (another model, a refusal of the key) is refused at once.

What it lacks next to ``handmade-agent serve`` (tried, not guessed; docs/backends.md has the table): a
bounded line (every request waits, none is refused with 503), the limits of one request (a client's
grammar, tools, stop strings and tokenize text go to llama.cpp unchecked: a grammar nested 20,000 deep
crashed it), the Host check (and CORS allows any origin), structured tool calls for ``tool_choice``
"auto"/"required" (only a named tool), the disk prefix cache, and our faster greedy grammar sampler.
Its throughput for 1-20 simulated students was 0.83-1.00x ours (docs/benchmarks.md).

Deliberately left out: replacing ``handmade-agent serve`` with it (a decision with figures, issue 30),
``--cache`` (its RAM prompt cache) and every other engine option but ``extra_args``. Not imported by
``serve/__init__`` (import ``handmade_agent.serve.engine``): no notebook uses it, so none is re-run for it.

    >>> with LlamaCppServer(api_key="room-word") as server:      # doctest: +SKIP
    ...     OpenAIChat(server.model_id, base_url=server.base_url, api_key="room-word", grammar=True)
"""
from __future__ import annotations

import os
from typing import Any, Sequence

from .server import ENV_SERVE_KEY, LocalServer

ENGINE_KEY = "API_KEY"  # llama_cpp.server's settings read it from the environment when --api_key is not given


class LlamaCppServer(LocalServer):
    """``python -m llama_cpp.server`` on loopback for a registry model (context manager: stops on exit)."""

    def __init__(self, port: int | None = None, *, extra_args: Sequence[str] = (), **kwargs: Any):
        kwargs.pop("queue_limit", None)  # it has no line to bound
        super().__init__(port, **kwargs)
        self.extra_args = list(extra_args)

    def command(self) -> list[str]:
        import sys
        return [sys.executable, "-m", "llama_cpp.server", "--model", str(self.model_path), "--model_alias",
                self.model_id, "--host", self.host, "--port", str(self.port), "--n_ctx", str(self.n_ctx),
                "--verbose", "false", *self.extra_args]

    def environment(self) -> dict[str, str]:
        env = {**os.environ, "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "PASSIVE")}
        for name in (ENV_SERVE_KEY, ENGINE_KEY, "HOST", "PORT", "CONFIG_FILE"):  # these would override the command
            env.pop(name, None)
        if self.api_key:
            env[ENGINE_KEY] = self.api_key
        return env

    def served_models(self) -> list[str] | None:
        """The ids ``/v1/models`` lists (asked with the key, where there is one), or None while nothing answers."""
        import json
        import urllib.error
        import urllib.request
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        try:
            with urllib.request.urlopen(urllib.request.Request(f"{self.base_url}/models", headers=headers),
                                        timeout=2) as r:
                body = json.loads(r.read(65_536))
        except urllib.error.HTTPError as e:  # our child takes our key: a refusal is someone else's answer
            return [f"HTTP {e.code}"]
        except (OSError, ValueError):  # refused or silent while the model loads
            return None
        data = body.get("data") if isinstance(body, dict) else None
        return [str(m.get("id"))[:100] for m in data if isinstance(m, dict)] if isinstance(data, list) else []


def llama_cpp_server(port: int | None = None, **kwargs: Any) -> LlamaCppServer:
    """Start llama_cpp.server for the registry model and return it once it answers (a context manager)."""
    return LlamaCppServer(port, **kwargs).start()


__all__ = ["LlamaCppServer", "llama_cpp_server", "ENGINE_KEY"]
