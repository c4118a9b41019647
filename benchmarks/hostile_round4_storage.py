"""Round 4 of the hostile corpus (issue 49), the files and texts part: the model cache's stamp and mirror parts
(G7, G11), the embedding cache (G10), the redactor and session titles (G8, G13), the answer checks and the plan
reader on long inputs (G12) and ``evaluate``'s output (G14). ``cases(tmp)`` is appended to ``hostile.py``'s corpus.

A planted link whose target changes counts as data lost; a refusal must name what it refuses (``refusal``).
"""
from __future__ import annotations

import hashlib
import io
import os
import warnings
import zipfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from hostile import Case
from hostile_round3 import refusal  # one definition of a case that must be refused, saying why

BLOB = bytes(range(256)) * 64


@contextmanager
def environment(**values: str) -> Iterator[None]:
    """``os.environ`` with ``values`` set while a case runs (cases run one at a time)."""
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)


def quietly(run: Callable[[], Any]) -> Callable[[], Any]:
    def call() -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return run()
    return call


def model_cache_cases(tmp: Path) -> list[Case]:
    from handmade_agent.errors import ModelNotFound
    from handmade_agent.local.assembly import join_parts
    from handmade_agent.local.files import ModelSpec, verify
    spec = ModelSpec("m.gguf", len(BLOB), hashlib.sha256(BLOB).hexdigest(), "x/y", ("p1", "p2", "p3"))
    root, victim = tmp / "r4-model", tmp / "r4-victim.txt"

    def parts(damage: Callable[[Path], Any] | None = None) -> list[Path]:
        folder = root / f"parts{len(list(root.glob('parts*')))}"
        folder.mkdir(parents=True)
        paths = [folder / f"part0{i}.bin" for i in (1, 2, 3)]
        for i, p in enumerate(paths):
            p.write_bytes(BLOB[i * len(BLOB) // 3:(i + 1) * len(BLOB) // 3])
        if damage:
            paths[1].unlink()
            damage(paths[1])
        return paths

    def planted_links() -> str:
        victim.write_text("precious")
        cache = root / "cache"
        cache.mkdir(parents=True)
        for name in ("m.gguf.partial", "m.gguf.verified"):
            os.symlink(victim, cache / name)
        with environment(HANDMADE_AGENT_CACHE=str(cache)):
            join_parts(parts(), cache / "m.gguf", spec, None, "")
            verify(cache / "m.gguf", spec)
        return "accepted" if victim.read_text() == "precious" else "lost"

    def forged_stamp() -> None:
        path = root / "forged.gguf"
        path.write_bytes(BLOB[::-1])
        st = path.stat()
        (root / "forged.gguf.verified").write_text(
            f"v2 {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns} {st.st_ino} {st.st_dev} {spec.sha256}\n")
        with environment(HANDMADE_AGENT_CACHE=str(root / "keys")):
            verify(path, spec)
    (root / "blocker").parent.mkdir(parents=True, exist_ok=True)
    (root / "blocker").write_text("a file where the cache folder should be")
    damages = {"/dev/zero part": lambda p: os.symlink("/dev/zero", p), "FIFO part": lambda p: os.mkfifo(p),
               "missing part": lambda p: None, "folder as part": lambda p: p.mkdir()}
    cases = [Case("model cache", "planted .partial and .verified links", planted_links, lambda r: r),
             refusal("model cache", "stamp forged from stat", forged_stamp, ModelNotFound, "corrupt")]
    cases += [refusal("model cache", name, (lambda d=d: join_parts(parts(d), root / "out.gguf", spec, None, "")),
                      ModelNotFound, "part02.bin") for name, d in damages.items()]
    cases.append(refusal("model cache", "unwritable cache folder",
                         lambda: join_parts(parts(), root / "blocker" / "m.gguf", spec, None, ""),
                         ModelNotFound, "HANDMADE_AGENT_CACHE"))
    return cases


def embedding_cache_cases(tmp: Path) -> list[Case]:
    from handmade_agent.rag.cache import CachedEmbedder, EmbeddingCache
    from handmade_agent.rag.embedding import HashingEmbedder

    def header(descr: str, shape: tuple) -> bytes:
        out = io.BytesIO()
        np.lib.format.write_array_header_1_0(out, {"descr": descr, "fortran_order": False, "shape": shape})
        return out.getvalue()

    def claims(keys: tuple, vectors: tuple) -> Callable[[], Any]:
        def run() -> Any:
            embedder = CachedEmbedder(HashingEmbedder(8), tmp / "r4-emb" / keys[0][1:] / str(keys[1][0]))
            embedder.cache.dir.mkdir(parents=True)
            with zipfile.ZipFile(embedder.cache.dir / "0123456789abcdef.npz", "w") as z:
                z.writestr("keys.npy", header(*keys) + b"x" * 64)
                z.writestr("vectors.npy", header(*vectors) + b"\0" * 64)
            return embedder.embed(["a"]).shape
        return quietly(run)

    def planted_temp_name() -> str:
        cache, victim = EmbeddingCache("m", tmp / "r4-emb-link"), tmp / "r4-emb-victim.txt"
        victim.write_bytes(b"precious")
        cache.dir.mkdir(parents=True)
        os.symlink(victim, cache.dir / f".{hashlib.sha256(b'k1').hexdigest()[:16]}.{os.getpid()}.tmp.npz")
        cache.put_many(["k1"], np.ones((1, 8), np.float32))
        return "accepted" if victim.read_bytes() == b"precious" else "lost"
    (tmp / "r4-emb-blocker").write_text("a file where the cache folder should be")
    shape = lambda n: lambda out: "accepted" if out == (n, 8) else "wrong"  # noqa: E731
    return [Case("embedding cache", "keys of 64 M characters", claims(("<U67108864", (10**6,)), ("<f4", (10**6, 8))),
                 shape(1)),
            Case("embedding cache", "a billion keys", claims(("<U64", (10**9,)), ("<f8", (10**9, 8))), shape(1)),
            Case("embedding cache", "planted link at the old temporary name", planted_temp_name, lambda r: r),
            Case("embedding cache", "unwritable folder", quietly(
                lambda: CachedEmbedder(HashingEmbedder(8), tmp / "r4-emb-blocker" / "x").embed(["a", "b"]).shape),
                shape(2))]


def text_cases(tmp: Path) -> list[Case]:
    from handmade_agent.agent.results_answer import cited, grounded
    from handmade_agent.planning import read_plan
    from handmade_agent.redaction import MARK, redact
    from handmade_agent.storage import SQLiteStore
    cwd = "/home/student/handmade-agent/notebooks"

    def cwd_kept() -> str:
        from handmade_agent.agent import Agent
        from handmade_agent.llm import Message, ScriptedLLM
        from handmade_agent.memory import ConversationMemory
        from handmade_agent.storage import load_agent, save_agent
        said = f"saved to {cwd}/trace.jsonl from /home/student/handmade-agent; PWD={cwd}"
        with environment(PWD=cwd, OLDPWD="/home/student/handmade-agent"):
            agent = Agent(ScriptedLLM([]), [], memory=ConversationMemory())
            agent.memory.add(Message("user", said))
            save_agent(agent, tmp / "r4-agent.json")
            back = load_agent(tmp / "r4-agent.json", ScriptedLLM([]), []).memory.messages()[-1].content
        return "accepted" if back == said else "lost"

    def sharing_key() -> str:
        with environment(OPENAI_API_KEY="sk-live-0123456789abcdefghij"):
            out = redact("the second key is tok_X9f3k2Lm0123456789QwErTyUiOp, keep it safe")
        return "accepted" if out == f"the second key is {MARK}, keep it safe" else "wrong"

    def session_title() -> str:
        with SQLiteStore(tmp / "r4-sessions.db") as store:
            store.create_session("deploy with sk-proj-AbCdEfGhIjKlMnOpQrStUv0123")
            return "accepted" if MARK in store.list_sessions()[0].title else "wrong"
    n, kept = 8000, lambda want: lambda out: "accepted" if out == want else "wrong"
    answer, results = " ".join(f"{i}.5 °C" for i in range(n)), [f"city {i}: {i}.5 °C" for i in range(n)]
    return [Case("redaction", "working directory in saved memory", cwd_kept, lambda r: r),
            Case("redaction", "password in a connection string", lambda: redact("Server=db;Uid=app;Pwd=s3cr3tpass;"),
                 lambda out: "wrong" if "s3cr3tpass" in out else "accepted"),
            Case("redaction", "key sharing 8 characters with a known one", sharing_key, lambda r: r),
            Case("redaction", "session title", session_title, lambda r: r),
            Case("checks", "grounded, 8000 figures", lambda: grounded(answer, "\n".join(results)), kept(True)),
            Case("checks", "cited, 8000 results", lambda: cited(answer, results), kept(n)),
            Case("checks", "read_plan, 40k blanks", lambda: read_plan("- x" + " " * 40_000 + "y"),
                 kept(["x" + " " * 40_000 + "y"]))]


def eval_cases(tmp: Path) -> list[Case]:
    from handmade_agent.evaluation import EvalConfig, Task, evaluate
    from handmade_agent.llm import ScriptedLLM
    task = Task("t", "en", "no_tool", "What is the capital of France?", "toolbox", {"any": ["Paris"]})

    def run(reply: str, out: str | None) -> Any:
        stream = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")  # strict, as a terminal's stdout is
        outcomes = evaluate(ScriptedLLM([f"Final Answer: {reply}"]), [task], [EvalConfig("react")], out=out,
                            progress=lambda line: stream.write(line + "\n"), tools_for=lambda name: [])
        return [o.answer for o in outcomes]
    return [Case("eval", "lone surrogate in the progress line", lambda: run("Par\ud800is", str(tmp / "r4-eval.jsonl")),
                 lambda out: "accepted" if out == ["Par\ud800is"] else "lost"),
            Case("eval", "--out /dev/full", quietly(lambda: run("Paris", "/dev/full")),
                 lambda out: "accepted" if out == ["Paris"] else "lost")]


def cases(tmp: Path) -> list[Case]:
    return model_cache_cases(tmp) + embedding_cache_cases(tmp) + text_cases(tmp) + eval_cases(tmp)
