"""Round 3 of the hostile corpus (issue 31): client grammars, schema grammars, redaction, the server app,
JSON Lines files and the RAG scans. ``cases(tmp)`` is appended to the corpus of ``hostile.py``.

A refusal here must also say why: ``refusal`` counts an error of the promised type whose message lacks
the promised words as wrong, and so an input that was accepted instead of refused.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Callable

from hostile import Case

TESTS = Path(__file__).resolve().parent.parent / "tests"


def refusal(area: str, name: str, run: Callable[[], Any], error: type[BaseException], *says: str) -> Case:
    """A case right only when ``run`` raises ``error`` with every one of ``says`` in its message."""
    def attempt() -> str:
        try:
            run()
        except error as e:
            return "refused" if all(s in str(e) for s in says) else "wrong"
        return "wrong"
    return Case(area, name, attempt, lambda r: r)


def grammar_cases() -> list[Case]:
    from handmade_agent.grammar import GrammarTooLarge, check_client_grammar
    too_costly = {  # text: the limit the refusal must name
        "root ::= " + "(" * 20_000 + '"a"' + ")" * 20_000: "MAX_GROUP_DEPTH",  # SIGSEGV in llama.cpp
        "root ::= " + "(" * 65 + '"a"' + ")" * 65: "MAX_GROUP_DEPTH",
        'root ::= "' + "a" * 70_000 + '"': "MAX_CLIENT_GRAMMAR_BYTES",
        'root ::= "a"{0,2000}': "MAX_REPEAT",
        'root ::= "a"{' + "9" * 5000 + "}": "MAX_REPEAT",  # too many digits for int()
        "root ::= " + " ".join(['"abcdefghijklmnop"{0,200}'] * 1000): "MAX_REPEAT_WORK",  # a large copy-out
    }
    cases = [refusal("grammar", f"client {says} {len(text)} B", (lambda t=text: check_client_grammar(t)),
                     GrammarTooLarge, says) for text, says in too_costly.items()]
    # text that only looks like structure (inside literals, classes, comments) is fine; a refusal is wrong
    cases.append(Case("grammar", "client parens in literals",
                      lambda: check_client_grammar('root ::= "((((" [(((] "{0,9999}" # ((((( {0,9999}\n')))
    for piece in ("(" * 64 + ")" * 64, '"\\"', "[(((]", "# (((\n"):  # 60 kB just within the limits: fast, accepted
        cases.append(Case("grammar", f"client {piece[:6]!r} x 60 kB",
                          (lambda t="root ::= " + piece * (60_000 // len(piece)): check_client_grammar(t))))
    cases.append(refusal("grammar", "client '\"a\"{0,256}' x 60 kB",
                         lambda: check_client_grammar("root ::= " + '"a"{0,256}' * 6000), GrammarTooLarge, "MAX_REPEAT_WORK"))
    return cases


def schema_cases() -> list[Case]:
    from handmade_agent.grammar import GrammarTooLarge, check_client_grammar, tool_call_grammar

    def tool(schema: dict) -> dict:
        return {"type": "function", "function": {"name": "f", "parameters": schema}}

    def optional(n: int) -> dict:
        return tool({"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(n)}})

    def constrained(n: int) -> str:  # built, still constraining the reply, and acceptable to the client check
        if str(TESTS) not in sys.path:
            sys.path.append(str(TESTS))  # the tests' small GBNF matcher
        from gbnf_match import matches, parse_gbnf
        text = tool_call_grammar([optional(n)], "required")
        check_client_grammar(text)
        rules, last = parse_gbnf(text), f"p{n - 1}"
        ok = matches(rules, '{"name": "f", "arguments": {"p3": "x", "%s": "y"}}' % last)
        bad = matches(rules, '{"name": "f", "arguments": {"%s": "y", "p3": "x"}}' % last) or matches(rules, "plain")
        return "accepted" if ok and not bad else "wrong"
    cases = [Case("schema", f"{n} optional properties", (lambda n=n: constrained(n)), lambda r: r) for n in (26, 40, 64)]
    over = {  # schema: the limit the refusal must name
        "MAX_PROPERTIES": {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(65)}},
        "MAX_DEPTH": {"type": "object", "properties": {"x": json.loads('{"type": "array", "items": ' * 20 + "{}" + "}" * 20)}},
        "MAX_CHOICES": {"type": "object", "properties": {"u": {"anyOf": [{"const": i} for i in range(300)]}}},
        "MAX_REPEAT": {"type": "object", "properties": {"s": {"type": "string", "minLength": 5000}}},
        "MAX_SCHEMA_BYTES": {"type": "object", "description": "x" * 70_000, "properties": {}},
    }
    cases += [refusal("schema", f"over {limit}", (lambda s=s: tool_call_grammar([tool(s)], "required")),
                      GrammarTooLarge, limit) for limit, s in over.items()]
    return cases


def redaction_cases() -> list[Case]:
    from handmade_agent.redaction import MARK, redact, redact_text

    def unchanged(text: str) -> Callable[[Any], str]:
        return lambda out: "accepted" if out == text else "lost"
    cases = [Case("redaction", f"hostile {t[:8]!r} x {len(t)}", (lambda t=t: redact_text(t, [])), unchanged(t))
             for t in ("-".join(map(str, range(4000))), "a-" * 50_000, "-eyJ" * 50_000, "a://b:" * 20_000)]
    cases.append(Case("redaction", "x_api_key= x 30000", lambda: redact_text("x_api_key=" * 30_000, []),
                      lambda out: "accepted" if MARK in out else "wrong"))
    urls = {"clone https://admin:Pa55word!@git.example.com/repo.git": ("Pa55word!", "admin:"),
            "DATABASE_URL=postgres://app:s3cr3t-pw@10.0.0.5/app": ("s3cr3t-pw", "app:"),
            "redis://:onlyapassword@cache:6379/0": ("onlyapassword", "://:")}

    def hidden(secret: str, kept: str) -> Callable[[Any], str]:  # a leaked secret is wrong; a lost user name too
        return lambda out: "wrong" if secret in out or MARK not in out else ("accepted" if kept in out else "lost")
    cases += [Case("redaction", f"URL password {t.split('://')[0][-8:]}", (lambda t=t: redact(t)), hidden(*v))
              for t, v in urls.items()]
    cases += [Case("redaction", f"no password {t[:12]}", (lambda t=t: redact(t)), unchanged(t))
              for t in ("http://example.com:8080/path", "git@github.com:owner/repo.git", "http://[::1]:8080/x")]
    cases.append(Case("redaction", "key as a dict key", lambda: redact({"sk-live-AbCdEfGhIjKlMnOpQrStUv": 1, "city": "Paris"}),
                      lambda out: "accepted" if out == {MARK: 1, "city": "Paris"} else "wrong"))
    return cases


def server_attacks() -> dict[str, tuple[int, str, dict, dict]]:
    """Each attack on the server: name -> (status, words the refusal must say, body fields, headers).

    ``hostile_live.py`` sends the same table to the real server process over a socket."""
    def wide(name: str, n: int) -> dict:
        return {"type": "function", "function": {"name": name, "parameters": {
            "type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(n)}}}}
    nested: dict = {"type": "string"}
    for _ in range(40):
        nested = {"type": "object", "properties": {"x": nested}, "required": ["x"]}
    bodies = {
        "grammar nested 20000": (400, "nested more than 64", {"grammar": "root ::= " + "(" * 20_000 + '"a"' + ")" * 20_000}),
        "grammar {0,2000} x 5000": (400, "more than 256", {"grammar": "root ::= " + '"a"{0,2000} ' * 5000}),
        "grammar copy-out": (400, "copy out more than", {"grammar": "root ::= " + '"a"{0,256} ' * 100}),
        "grammar 70 kB": (400, "bytes", {"grammar": 'root ::= "' + "a" * 70_000 + '"'}),
        "65 tools": (400, "at most 64", {"tools": [wide(f"t{i}", 1) for i in range(65)]}),
        "tool of 65 properties": (400, "65 properties", {"tools": [wide("w", 65)]}),
        "tool nested 40": (400, "cannot constrain the reply", {"tools": [
            {"type": "function", "function": {"name": "deep", "parameters": nested}}], "tool_choice": "required"}),
        "80000 stop strings": (400, "80000 strings", {"stop": ["s"] * 80_000}),
        "stop string of 65": (400, "at most 64", {"stop": ["x" * 65]}),
    }
    out = {name: (status, says, body, {}) for name, (status, says, body) in bodies.items()}
    out |= {f"Content-Type {kind}": (415, "Content-Type: application/json", {}, {"Content-Type": kind})
            for kind in ("text/plain", "application/x-www-form-urlencoded")}
    out |= {f"Host {host!r}": (403, "host names", {}, {"Host": host})
            for host in ("evil.example", "127.0.0.1.evil.example", "192.168.1.20:8080")}
    return out


def server_cases() -> list[Case]:
    from starlette.testclient import TestClient

    from handmade_agent.llm import Completion, Usage
    from handmade_agent.serve.app import make_app

    class Fake:
        model = "fake"

        def __init__(self):
            self.calls = 0

        def complete(self, messages, **kwargs) -> Completion:
            self.calls += 1
            return Completion("hello", [], Usage(3, 1), 0.0, self.model, "stop")
    hi = {"model": "fake", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}

    def attack(status: int, says: str, body: Any = None, headers: dict | None = None) -> Callable[[], str]:
        """Refused with ``status`` naming ``says``, the model untouched, and the next plain request answered."""
        def run() -> str:
            llm = Fake()
            c = TestClient(make_app(llm, max_body=2_000_000), base_url="http://127.0.0.1:8080")
            r = c.post("/v1/chat/completions", content=json.dumps({**hi, **(body or {})}),
                       headers={"Content-Type": "application/json", **(headers or {})})
            refused = r.status_code == status and says in r.json()["error"]["message"] and llm.calls == 0
            after = c.post("/v1/chat/completions", json=hi)
            if not refused:
                return "wrong"
            return "refused" if after.status_code == 200 and after.json()["choices"][0]["message"]["content"] == "hello" \
                else "wrong"
        return run

    return [Case("server", name, attack(status, says, body, headers), lambda r: r)
            for name, (status, says, body, headers) in server_attacks().items()]


def jsonl_cases(tmp: Path) -> list[Case]:
    from handmade_agent.agent.events import RunStarted
    from handmade_agent.errors import ConfigError, StateError
    from handmade_agent.evaluation import TaskOutcome, read_outcomes
    from handmade_agent.observers.jsonl import JSONLLogger, json_line, read_events, read_jsonl

    def roundtrip_events() -> str:
        JSONLLogger(tmp / "s.jsonl")(RunStarted(run_id="r", question="a\ud800b"))
        return "accepted" if [e.question for e in read_events(tmp / "s.jsonl")] == ["a\ud800b"] else "lost"

    def roundtrip_outcomes() -> str:
        outcome = TaskOutcome("t", "k", "en", "c", answer="x\udfffy")
        (tmp / "o.jsonl").write_text(json_line(outcome.to_dict()) + "\n", encoding="utf-8")
        return "accepted" if read_outcomes(tmp / "o.jsonl") == [outcome] else "lost"
    cases = [Case("jsonl", "lone surrogate, events", roundtrip_events, lambda r: r),
             Case("jsonl", "lone surrogate, outcomes", roundtrip_outcomes, lambda r: r)]
    bad = {"bad UTF-8": b'{"s": "\xff\xfe"}', "5000-digit integer": b'{"n": ' + b"9" * 5000 + b"}",
           "100k-deep nesting": b"[" * 100_000 + b"]" * 100_000, "201-deep nesting": b"[" * 201 + b"]" * 201,
           "cut JSON": b'{"kind": "run_sta'}
    first = {"rows": b"{}", "events": json_line(RunStarted(run_id="r").to_dict()).encode(),
             "outcomes": json_line(TaskOutcome("t", "k", "en", "c").to_dict()).encode()}
    readers = {"rows": (lambda p: list(read_jsonl(p)), StateError), "events": (lambda p: list(read_events(p)), StateError),
               "outcomes": (read_outcomes, ConfigError)}
    for i, (what, line) in enumerate(bad.items()):
        for kind, (read, error) in readers.items():
            path = tmp / f"bad{i}-{kind}.jsonl"
            path.write_bytes(first[kind] + b"\n" + line + b"\n" + first[kind] + b"\n")  # the bad line is line 2
            cases.append(refusal("jsonl", f"{kind}: {what}", (lambda p=path, read=read: read(p)), error, "line 2"))
    return cases


def scan_cases() -> list[Case]:
    from handmade_agent.rag import check_support, han_share, keeps_facts, needs_translation
    n = 100_000
    cases = []
    for text in ("[" * n, "[a" * (n // 2), "]" + "[" * n):
        cases += [Case("scans", f"han_share {text[:3]!r}", (lambda t=text: han_share(t)),
                       lambda v, t=text: "accepted" if v == (0.0 if "a" in t else None) else "wrong"),
                  Case("scans", f"needs_translation {text[:3]!r}", (lambda t=text: needs_translation(t, "han")),
                       lambda v, t=text: "accepted" if v is ("a" in t) else "wrong"),
                  Case("scans", f"keeps_facts {text[:3]!r}", (lambda t=text: keeps_facts(t, t)),
                       lambda v: "accepted" if v is True else "wrong")]

    def status(expected: str) -> Callable[[Any], str]:
        return lambda out: "accepted" if [s.status for s in out] == [expected] else "wrong"
    cells = {"| 1 " * (n // 4): ("1", "supported"), "|" + " " * n + "1 |": ("1", "supported"),
             "| 12 |\n" * (n // 7): ("7", "unsupported")}
    cases += [Case("scans", f"check_support {passage[:6]!r} {number}",
                   (lambda p=passage, x=number: check_support(f"It is {x} [a:1].", [("a:1", p)])), status(want))
              for passage, (number, want) in cells.items()]
    return cases


def cases(tmp: Path) -> list[Case]:
    return grammar_cases() + schema_cases() + redaction_cases() + server_cases() + jsonl_cases(tmp) + scan_cases()
