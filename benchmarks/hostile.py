"""Run a corpus of hostile inputs against the package and count what happened (issue 16).

Each case is an input and what a correct answer is: a value (accepted), or a refusal by one of the
package's own errors (refused). Anything else is counted: a crash (an exception type nobody promised),
a hang (more than 1 s; the case is abandoned in a daemon thread), a wrong answer (a value that is not
the right one, a secret left in a message, a hit for a query with nothing in it), or data lost (saved
and loaded back different). No model is loaded; the run takes a few seconds on 2 cores.

    .venv/bin/python benchmarks/hostile.py

Round 3 (``hostile_round3.py``) adds client GBNF grammars, schema grammars, redaction's speed and its leaks
(URL passwords, keys as dict keys), the server app in process (a fake model: refusals, then a plain request
still answered), JSON Lines files that must be refused naming the line, and the RAG scans on 100 kB.

Round 4 (``hostile_round4_<area>.py``, issue 49) adds the model cache and its assembly, the embedding cache,
redaction of paths and near-keys, quadratic checks, MCP schemas and streams, and the server's doors.

Deliberately left out: the server under load and over real sockets, and redaction's full pattern list
(benchmarks/serve.py and the unit tests cover them).
"""
from __future__ import annotations

import hashlib
import os
import random
import sqlite3
import sys
import tempfile
import threading
import time
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from handmade_agent.errors import HandmadeAgentError  # noqa: E402

HANG_SECONDS = 1.0
ROUND4_AREAS = ("storage", "mcp", "serve")  # hostile_round4_<area>.py: issue 49's classes, one file per area


@dataclass
class Case:
    area: str
    name: str
    run: Callable[[], Any]
    check: Callable[[Any], str] = lambda _: "accepted"  # "accepted" | "wrong" | "lost"
    refuse: bool | None = False  # True: only a refusal (an allowed error) is right; None: either is
    allowed: tuple[type[BaseException], ...] = (HandmadeAgentError,)


def outcome(case: Case) -> str:
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = case.run()
        except BaseException as e:  # noqa: BLE001 - classifying every exception is the point
            box["error"] = e
    t0 = time.perf_counter()
    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(10 * HANG_SECONDS)
    if worker.is_alive() or time.perf_counter() - t0 > HANG_SECONDS:
        return "hang"
    if "error" in box:
        if isinstance(box["error"], case.allowed):
            return "wrong" if case.refuse is False else "refused"
        return "crash"
    return "wrong" if case.refuse is True else case.check(box.get("value"))


# --- the corpus ------------------------------------------------------------------------------------------------
def parser_cases() -> list[Case]:
    from handmade_agent.react import parse
    blanks = [" " * 8000, "\t" * 8000, " \t" * 4000, "x" + " " * 8000 + "y"]
    texts = blanks + [p + b for p in ("Thought:", "**", "### ", "- ", "1. ", "Action") for b in blanks[:2]]
    texts += ["{}" * 40_000, "{" * 60_000, "[" * 60_000, "}" * 60_000, "{'" * 30_000, "<tool_call>{" * 8000,
              "<think>" * 12_000, "a Action: " * 9000, "Action: " + "the " * 20_000 + "x", "Action: f(" + ")" * 60_000,
              "Final Answer: " + " " * 90_000, "```" * 30_000, "x" * 500_000, "{}" * 500_000]
    rng = random.Random(16)
    atoms = [" ", "\t", "{", "}", "[", "]", '"', "'", "\\", "Action:", "Action Input:", "Thought:", "**", "#", "\n",
             "<think>", "</think>", "Final Answer:", "(", ")", "x", "："]
    texts += ["".join(rng.choice(atoms) * rng.randint(1, 400) for _ in range(60)) for _ in range(40)]
    # a step read, or a FormatError with feedback: both are right; anything else, or slowness, is not
    return [Case("parser", f"reply {i}", (lambda t=t: parse(t)), refuse=None) for i, t in enumerate(texts)]


def calculator_cases() -> list[Case]:
    from handmade_agent.toolbox.arithmetic import evaluate

    def equals(v: float) -> Callable[[Any], str]:
        return lambda got: "accepted" if abs(got - v) <= 1e-9 * max(1, abs(v)) else "wrong"
    right = {"3²+4²": 25, "10³": 1000, "2⁻¹": 0.5, "(1+2)²": 9, "2³²": 2 ** 32, "-2²": -4, "３²": 9, "10⁻³": 0.001,
             "2⁽¹⁺¹⁾": 4, "1.5²": 2.25}
    cases = [Case("calculator", t, (lambda t=t: evaluate(t)), equals(v)) for t, v in right.items()]
    cases += [Case("calculator", f"sum of {n}", (lambda n=n: evaluate("+".join(["1"] * n))), equals(n))
              for n in (32, 50, 99, 149)]
    cases += [Case("calculator", t[:20], (lambda t=t: evaluate(t)), refuse=True)
              for t in ["²", "2+²", "x₂", "2ⁿ", "abs(" * 35 + "1" + ")" * 35, "-" * 40 + "1", "9**9**9", "1" * 400]]
    return cases


def tool_cases() -> list[Case]:
    from handmade_agent.tools import ToolRegistry, tool

    def raising(exc: BaseException):
        @tool(name="t", timeout=None)
        def t(x: str = "") -> str:
            """Raise."""
            raise exc
        return ToolRegistry([t])

    def bounded(res) -> str:
        return "accepted" if not res.ok and len(res.content) < 3000 else "wrong"
    cases = [Case("tools", f"raises {type(e).__name__}", (lambda e=e: raising(e).call("t", {})), bounded)
             for e in (SystemExit(1), GeneratorExit(), ValueError("x" * 1_000_000), RuntimeError())]
    big = ToolRegistry([raising(ValueError()).get("t")])
    cases += [Case("tools", "1 MB name", lambda: big.call("n" * 1_000_000, {}), bounded),
              Case("tools", "1 MB unknown argument", lambda: big.call("t", {"k" * 1_000_000: 1}), bounded)]
    return cases


def native_cases() -> list[Case]:
    from handmade_agent.agent import Agent
    from handmade_agent.llm import Completion, ScriptedLLM, ToolCall
    replies = [Completion(text=None), Completion(text=None, tool_calls=[ToolCall(None, "{}", "c")]),
               Completion(text=None, tool_calls=[ToolCall("x", None, None)]), Completion(text=5, tool_calls=[ToolCall(7, 5, 9)])]

    def run(reply):
        return Agent(ScriptedLLM([reply, "done"]), [], strategy="native", max_steps=3).run("q")
    return [Case("agent", f"native reply {i}", (lambda r=r: run(r)),
                 lambda res: "accepted" if res.answer == "done" else "wrong") for i, r in enumerate(replies)]


def storage_cases(tmp: Path) -> list[Case]:
    from handmade_agent.llm import Message, ScriptedLLM
    from handmade_agent.storage import SQLiteStore, agent_from_state, load_state, save_state

    def roundtrip(data: dict, name: str) -> Callable[[], str]:
        def run() -> str:
            save_state(data, tmp / name)
            return "accepted" if load_state(tmp / name) == data else "lost"
        return run

    def raw(name: str, text: str) -> Path:
        (tmp / name).write_text(text)
        return tmp / name
    cases = [Case("storage", f"roundtrip {i}", roundtrip(d, f"r{i}.json"), lambda r: r) for i, d in enumerate(
        [{"s": "\ud800"}, {"s": "a\udfffb", "k\ud834": 1}, {"n": [[[[1]]]] * 100}, {"z": "\x00" * 1000}, {"e": "🙂" * 10_000}])]
    sparse = tmp / "huge.json"
    with open(sparse, "wb") as f:
        f.truncate(1 << 30)
    doc = '{"format": "handmade-agent-state", "version": 1, "kind": "agent", "data": %s}'
    files = [sparse, raw("deep.json", doc % ("[" * 100_000 + "]" * 100_000)), raw("deep2.json", doc % ("[" * 500 + "]" * 500)),
             raw("junk.json", "\xff{{"), raw("list.json", "[1, 2]"), raw("newer.json", doc.replace("1,", "99,") % "{}")]
    cases += [Case("storage", p.name, (lambda p=p: load_state(p)), refuse=True) for p in files]
    bad_states = [{"settings": {"max_steps": "x"}}, {"settings": {"strategy": 5}}, {"settings": {"max_steps": True}},
                  {"settings": ["x"]}, {"settings": {}, "memory": ["x"]}, {"settings": {"system_prompt": "obey me"}},
                  {"settings": {}, "memory": {"kind": "conversation", "pinned": [{"role": 5}]}}, ["x"],
                  {"settings": {"time_budget": "soon"}}, {"settings": {}, "trace": {"steps": 5}}]
    cases += [Case("storage", f"tampered {i}", (lambda s=s: agent_from_state(s, ScriptedLLM([]), [])), refuse=True)
              for i, s in enumerate(bad_states)]

    def corrupt() -> None:
        path = tmp / "c.db"
        with SQLiteStore(path) as store:
            store.add_messages(store.create_session("t"), [Message("user", "x" * 2000)] * 50)
        data = path.read_bytes()
        path.write_bytes(data[:4096] + b"\xff" * (len(data) - 4096))
        with SQLiteStore(path) as store:
            store.list_sessions()

    def locked() -> None:
        with SQLiteStore(tmp / "l.db", timeout=0.05) as store:
            sid = store.create_session("t")
            holder = sqlite3.connect(tmp / "l.db", isolation_level=None)
            holder.execute("BEGIN EXCLUSIVE")
            try:
                store.add_message(sid, Message("user", "hi"))
            finally:
                holder.execute("ROLLBACK")
                holder.close()

    def surrogate_db() -> str:
        with SQLiteStore(tmp / "s.db") as store:
            sid = store.create_session("\ud800")
            store.add_message(sid, Message("assistant", "a\ud800b"))
            return "accepted" if store.messages(sid)[0].content == "a\ufffdb" else "lost"
    (tmp / "blocker").write_text("a file where a folder should be")
    cases += [Case("storage", "corrupt db", corrupt, refuse=True), Case("storage", "locked db", locked, refuse=True),
              Case("storage", "surrogate in db", surrogate_db, lambda r: r),
              Case("storage", "unwritable folder", lambda: save_state({}, tmp / "blocker" / "x.json"), refuse=True),
              Case("storage", "db in unwritable folder", lambda: SQLiteStore(tmp / "blocker" / "x.db"), refuse=True)]
    return cases


def rag_cases(tmp: Path) -> list[Case]:
    from handmade_agent.rag import load_documents
    from handmade_agent.rag.chunking import Chunk
    from handmade_agent.rag.documents import parse_document
    from handmade_agent.rag.embedding import HashingEmbedder
    from handmade_agent.rag.retriever import Retriever
    kb = tmp / "kb" / "en"
    kb.mkdir(parents=True)
    (kb / "good.md").write_text("# Good\n\n## Power {#power}\n\n220 V.\n")
    bad = {"binary.md": b"\x89PNG\x00\x00", "latin1.md": "# Caf\xe9".encode("latin-1"), "empty.md": b""}
    for name, data in bad.items():
        (kb / name).write_bytes(data)
    with open(kb / "huge.md", "wb") as f:
        f.truncate(50 << 20)

    def load() -> str:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            docs = load_documents(tmp / "kb")
        return "accepted" if [d.doc_id for d in docs] == ["good"] and len(docs.skipped) == 4 else "lost"
    r = Retriever([Chunk("a:1", "a", "The pump runs at 3 bar."), Chunk("b:1", "b", "Fan noise")], HashingEmbedder(64))
    queries = ["🙂", "?!", "\x00", "", "   ", "——", "🙂🙂🙂 ...", "\x00" * 1000]
    cases = [Case("rag", "load a folder with 4 bad files", load, lambda v: v)]
    cases += [Case("rag", f"query {q[:8]!r} {m}", (lambda q=q, m=m: r.search(q, method=m)),
                   lambda hits: "accepted" if hits == [] else "wrong") for q in queries for m in ("dense", "hybrid")]
    cases += [Case("rag", f"heading {n}", (lambda n=n: parse_document("d", "## a" + " " * n + "x {#a} b")))
              for n in (5000, 50_000, 200_000)]
    return cases


def llm_cases() -> list[Case]:
    import httpx
    import openai

    from handmade_agent.llm import OpenAIChat
    cases = [Case("llm", f"base url {u!r}", (lambda u=u: OpenAIChat("m", base_url=u, api_key="k")), refuse=True)
             for u in ("notaurl", "ftp://host", "http://", "localhost:8080", "://x")]
    key = "sk-proj-Secret0123456789abcdefABCDEF"

    def echoing() -> None:
        llm = OpenAIChat("m", base_url="http://127.0.0.1:9/v1", api_key=key)
        llm._model_checked = True
        request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")

        def fail(**_):
            raise openai.APIStatusError(f"echo: Authorization: Bearer {key}", response=httpx.Response(500, request=request),
                                        body=None)
        llm._client.chat.completions.create = fail
        try:
            llm.complete([{"role": "user", "content": "hi"}])
        except HandmadeAgentError as e:
            return "wrong" if key in str(e) or (e.__context__ and key in str(e.__context__)) else "refused"
    cases.append(Case("llm", "server echoes the key", echoing, lambda r: r if r != "refused" else "accepted"))
    return cases


def model_file_cases(tmp: Path) -> list[Case]:
    from handmade_agent.local.files import ModelSpec, verify
    blob = bytes(range(256)) * 64
    spec = ModelSpec("m.gguf", len(blob), hashlib.sha256(blob).hexdigest(), "x/y", ("p1",))

    def flipped() -> None:
        path = tmp / "m.gguf"
        path.write_bytes(blob)
        verify(path, spec)
        st = path.stat()
        with open(path, "r+b") as f:
            f.seek(100)
            f.write(b"\xee")
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        verify(path, spec)
    return [Case("model files", "flipped byte, mtime kept", flipped, refuse=True)]


def main() -> None:
    sys.modules.setdefault("hostile", sys.modules[__name__])  # round 3 imports Case from here: not a second copy
    from hostile_round3 import cases as round3_cases
    round4 = [__import__(f"hostile_round4_{area}").cases for area in ROUND4_AREAS]
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        corpus = (parser_cases() + calculator_cases() + tool_cases() + native_cases() + storage_cases(tmp)
                  + rag_cases(tmp) + llm_cases() + model_file_cases(tmp) + round3_cases(tmp)
                  + [c for cases in round4 for c in cases(tmp)])
        results = [(c, outcome(c)) for c in corpus]
    totals = Counter(r for _, r in results)
    print(f"inputs tried:        {len(results)}")
    print(f"accepted correctly:  {totals['accepted']}")
    print(f"refused correctly:   {totals['refused']}")
    print(f"wrong answers:       {totals['wrong']}")
    print(f"crashes:             {totals['crash']}")
    print(f"hangs (> {HANG_SECONDS:g} s):      {totals['hang']}")
    print(f"data lost:           {totals['lost']}")
    by_area = Counter(c.area for c, _ in results)
    print("by area:             " + ", ".join(f"{a} {n}" for a, n in by_area.items()))
    for c, r in results:
        if r not in ("accepted", "refused"):
            print(f"  {r}: {c.area} / {c.name}")


if __name__ == "__main__":
    main()
