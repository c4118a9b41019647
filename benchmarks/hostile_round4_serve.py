"""Round 4 of the hostile corpus, the server's part (issue 49: G1, G5, G6, G15). ``cases(tmp)`` is appended to
the corpus of ``hostile.py``, like round 3's.

- grammar: client grammars that cost llama.cpp seconds to hours (the G1 shapes and their variants) must be refused
  naming the limit, grammars llama.cpp cannot read must be refused as such (one of them made llama.cpp allocate
  until the kernel killed it), and every kind of grammar the package builds must be accepted, within the second;
- server: the same through the app (a fake model: a 400, the model untouched, the next plain request answered),
  and tool schemas whose length or item bounds are not counts (a 500 before);
- launcher: a taken port refused before anything starts (and the room's key never sent there), keys no client
  could send refused before any child, a failure inside ``start()`` leaving no child and no log;
- cli: ``serve --api-key`` warns that the key shows in ``ps``; a bad key from the environment is exit status 2.

No model is loaded; the children are small Python programs.
"""
from __future__ import annotations

import contextlib
import http.server
import io
import json
import sys
import threading
from pathlib import Path
from typing import Any, Callable

from hostile import Case
from hostile_round3 import refusal

TESTS = Path(__file__).resolve().parent.parent / "tests"


def corpus() -> Any:
    """The shapes the tests use (tests/test_hostile_round4_serve.py): one list, so the two never drift apart."""
    if str(TESTS) not in sys.path:
        sys.path.append(str(TESTS))
    import test_hostile_round4_serve as shapes
    return shapes


def grammar_cases() -> list[Case]:
    from handmade_agent.serve.limits import BadRequest, check_grammar
    shapes = corpus()
    cases = [refusal("grammar", f"wedge: {name}", (lambda t=text: check_grammar(t)), BadRequest, "MAX_GRAMMAR_")
             for name, text in shapes.WEDGES.items()]
    cases += [refusal("grammar", f"unreadable {text[:24]!r}", (lambda t=text: check_grammar(t)), BadRequest, says)
              for text, says in shapes.UNREADABLE.items()]
    cases += [Case("grammar", f"package: {name}", (lambda t=text: check_grammar(t)),
                   lambda out, t=text: "accepted" if out == t else "wrong")
              for name, text in shapes.package_grammars().items()]
    return cases


def server_cases() -> list[Case]:
    from starlette.testclient import TestClient

    from handmade_agent.serve.app import make_app
    shapes = corpus()

    def refused_then_answered(body: dict, says: str) -> Callable[[], str]:
        def run() -> str:
            llm = shapes.Fake()
            c = TestClient(make_app(llm), base_url="http://127.0.0.1:8080")
            r = c.post("/v1/chat/completions", json={**shapes.HI, **body})
            ok = r.status_code == 400 and says in r.json()["error"]["message"] and llm.calls == 0
            after = c.post("/v1/chat/completions", json=shapes.HI)
            return "refused" if ok and after.status_code == 200 else "wrong"
        return run
    cases = [Case("server", f"grammar {name}", refused_then_answered({"grammar": text}, "MAX_GRAMMAR_"), lambda r: r)
             for name, text in shapes.WEDGES.items()]
    for bound in ({"maxLength": -1}, {"minLength": -5}, {"maxItems": -1}, {"maxLength": 2.5}, {"minItems": True}):
        key = next(iter(bound))
        kind = {"type": "array", "items": {"type": "integer"}} if "Items" in key else {"type": "string"}
        tool = {"type": "function", "function": {"name": "f", "parameters": {
            "type": "object", "properties": {"p": {**kind, **bound}}}}}
        cases.append(Case("server", f"schema {key} {bound[key]!r}",
                          refused_then_answered({"tools": [tool], "tool_choice": "required"}, key), lambda r: r))
    return cases


class _Stranger(http.server.BaseHTTPRequestHandler):
    seen: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        _Stranger.seen.append(self.headers.get("Authorization", ""))
        body = json.dumps({"status": "ok", "model": "someone-else", "data": [{"id": "someone-else"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def launcher_cases(tmp: Path) -> list[Case]:
    from handmade_agent.errors import ConfigError
    from handmade_agent.serve.engine import LlamaCppServer
    from handmade_agent.serve.server import LocalServer, PortInUse, free_port
    shapes = corpus()

    def taken(kind: type) -> Callable[[], str]:
        def run() -> str:
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Stranger)
            threading.Thread(target=server.serve_forever, daemon=True).start()
            _Stranger.seen = []
            try:
                shapes.fake(kind, port=server.server_address[1], api_key="room-word-4f9a1c77").start()
                return "wrong"
            except PortInUse:
                return "refused" if not _Stranger.seen else "wrong"  # the key went to a stranger
            finally:
                server.shutdown()
                server.server_close()
        return run

    def broken_start(kind: type) -> Callable[[], str]:
        def run() -> str:
            launcher = shapes.fake(kind, port=free_port())

            def broken() -> None:
                raise RuntimeError("a bug while polling")
            launcher.served_models = broken
            try:
                launcher.start()
            except RuntimeError:
                pass
            left = launcher.process is None or launcher.process.poll() is None or launcher.log_path.exists()
            return "wrong" if left else "refused"
        return run
    cases = []
    for kind in (LocalServer, LlamaCppServer):
        cases.append(Case("launcher", f"{kind.__name__} on a taken port", taken(kind), lambda r: r))
        cases += [refusal("launcher", f"{kind.__name__} key: {name}",
                          (lambda k=key, kind=kind: shapes.fake(kind, port=free_port(), api_key=k).start()),
                          ConfigError, "API key") for name, key in shapes.BAD_KEYS.items()]
        cases.append(Case("launcher", f"{kind.__name__} fails while starting", broken_start(kind), lambda r: r))
    return cases


def cli_cases() -> list[Case]:
    import os

    import handmade_agent.serve as serve
    from handmade_agent.cli import main
    from handmade_agent.serve import ENV_SERVE_KEY

    def serve_with(argv: list[str], env_key: str | None) -> tuple[int, str]:
        """``main(argv)`` with run_server replaced (no model), the key's variable set as given: (status, stderr)."""
        saved, saved_key, err = serve.run_server, os.environ.pop(ENV_SERVE_KEY, None), io.StringIO()
        serve.run_server = lambda *a, **k: None
        if env_key is not None:
            os.environ[ENV_SERVE_KEY] = env_key
        try:
            with contextlib.redirect_stderr(err):
                return main(argv), err.getvalue()
        finally:
            serve.run_server = saved
            os.environ.pop(ENV_SERVE_KEY, None)
            if saved_key is not None:
                os.environ[ENV_SERVE_KEY] = saved_key

    def flag() -> str:
        status, err = serve_with(["serve", "--api-key", "room-word-4f9a1c77"], None)
        return "accepted" if status == 0 and ENV_SERVE_KEY in err and "ps" in err else "wrong"

    def bad_env() -> str:
        status, err = serve_with(["serve"], "room\nword")
        return "refused" if status == 2 and "API key" in err else "wrong"
    return [Case("cli", "serve --api-key warns (ps)", flag, lambda r: r),
            Case("cli", "serve, a bad key in the environment", bad_env, lambda r: r)]


def cases(tmp: Path) -> list[Case]:
    return grammar_cases() + server_cases() + launcher_cases(tmp) + cli_cases()
