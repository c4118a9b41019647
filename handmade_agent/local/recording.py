"""Recorded model calls: under greedy decoding a reply is a function of its inputs, so it is computed once.

A call's key is the engine (the model's sha256, llama-cpp-python's version and build features, n_ctx, and the
engine code of this folder without comments, docstrings or line numbers) and everything the call was given
(the prompt's token ids, max_tokens, stop, temperature, seed, grammar text). The value is text: the raw reply,
its finish reason, its token counts and the seconds it took when it was recorded. Never KV state: a recording
is safe to commit, and its diff shows which replies a change altered. One JSONL file per notebook.

Modes (``HANDMADE_AGENT_RECORDING``), after VCR's record modes:

    off     the default: every call runs the model (learners, servers, tests marked ``model``)
    replay  a recorded call is replayed; any other raises ``RecordingMiss``, naming it (CI's notebook tier)
    record  a recorded call is replayed, any other runs the model and is appended (``make notebooks``)
    reuse   a recorded call is replayed, any other runs the model; nothing is written (``catch_up``: a learner's
            part 2 starts from the course's recording of part 1 in seconds, and from their own model where it differs)

The file is ``HANDMADE_AGENT_RECORDING_FILE``. A replayed ``Completion`` says so (``replayed=True``); its
``latency`` is 0 (no model ran), and the seconds it took when recorded are never reported as this run's. The reply's text is parsed again on replay
(tool calls included), so everything after the model still runs. ``live_calls()`` runs the calls inside it on the
model whatever the mode: for a claim about the engine itself (its speed, the KV cache, the grammar sampler).

Left out: HTTP-level recording (a server is never recorded: it is the real model proven live) and expiry by
date (an entry is dropped when a full run no longer uses it: ``prune``).

    >>> import tempfile
    >>> rec = Recording(Path(tempfile.mkdtemp()) / "03_agent_loop.jsonl", "record")
    >>> rec.through("key-1", lambda: {"text": "Final Answer: 4"}, {"call": "complete"})["text"]  # the model runs
    'Final Answer: 4'
    >>> rec.through("key-1", lambda: {"text": "never asked"}, {"call": "complete"})  # the same call: replayed
    {'key': 'key-1', 'call': 'complete', 'text': 'Final Answer: 4', 'seconds': 0.0, 'replayed': True}
"""
from __future__ import annotations

import ast
import contextlib
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

from ..errors import HandmadeAgentError

ENV_MODE, ENV_FILE = "HANDMADE_AGENT_RECORDING", "HANDMADE_AGENT_RECORDING_FILE"
MODES = ("off", "replay", "record", "reuse")
ENGINE_FILES = ("model.py", "grammar_sampling.py", "kv_state.py", "prefix_cache.py")  # what can change a reply
_live_depth = 0
_reuse: "Recording | None" = None


class RecordingMiss(HandmadeAgentError):
    """Replay mode met a call that is not in the recording (the prompt or the engine changed)."""


@contextlib.contextmanager
def live_calls() -> Iterator[None]:
    """Calls inside run on the real model, neither replayed nor recorded (a cell that measures the engine)."""
    global _live_depth
    _live_depth += 1
    try:
        yield
    finally:
        _live_depth -= 1


def code_hash(path: Path, docstrings: bool = True) -> str:
    """A module's code without comments, blank lines or line numbers (and without docstrings if asked)."""
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    if not docstrings:
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                    and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                body[0] = ast.Pass()
    return hashlib.sha256(ast.dump(tree, include_attributes=False).encode()).hexdigest()[:16]


def engine_identity(model_sha256: str, n_ctx: int) -> str:
    """Everything besides the call's own inputs that decides a greedy reply, as one short hash."""
    import llama_cpp
    here = Path(__file__).parent
    parts = {"model": model_sha256, "llama_cpp": llama_cpp.__version__, "n_ctx": n_ctx,
             "build": build_features(), "code": [code_hash(here / f, docstrings=False) for f in ENGINE_FILES]}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]


def build_features() -> str:
    """The CPU features llama.cpp was compiled for (``AVX2 = 1`` ...): another build may round differently."""
    import llama_cpp
    info = llama_cpp.llama_print_system_info().decode("utf-8", "replace")
    return " ".join(sorted(p.strip() for p in info.replace("|", "\n").splitlines() if p.strip().endswith("= 1")))


def call_key(engine: str, call: str, tokens: list[int], **settings: Any) -> str:
    payload = json.dumps({"engine": engine, "call": call, "tokens": tokens, **settings}, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:24]


class Recording:
    """One recording file in one mode. ``through(key, run, about)`` is the only way in."""

    def __init__(self, path: str | Path, mode: str = "record"):
        if mode not in MODES[1:]:
            raise ValueError(f"recording mode {mode!r}: use 'replay', 'record' or 'reuse'")
        self.path, self.mode = Path(path), mode
        self.entries: dict[str, dict] = {}
        if self.path.exists():
            for n, line in enumerate(self.path.read_text(encoding="utf-8").splitlines(), 1):
                try:
                    entry = json.loads(line)
                    self.entries[entry["key"]] = entry
                except (ValueError, KeyError, TypeError):
                    raise HandmadeAgentError(f"{self.path}:{n} is not a recorded call (a JSON object with a 'key'). "
                                             "Delete the line or the file and record again: make notebooks.") from None
        self.hits = self.misses = 0

    def through(self, key: str, run: Callable[[], dict], about: dict) -> dict:
        """The recorded value of ``key`` (with ``replayed=True``); else, in record mode, ``run()``'s, appended."""
        if _live_depth or self.mode == "off":  # off: a reuse that has ended (``reusing``) leaves its models live
            return run()
        found = self.entries.get(key)
        if found is not None:
            self.hits += 1
            if self.mode != "reuse":
                self._note(".used", key)
            # no model ran: its seconds are 0 here (what it took when recorded stays in the file, never this run's)
            return {**found, "seconds": 0.0, "replayed": True}
        self.misses += 1
        if self.mode == "reuse":
            return run()
        if self.mode == "replay":
            from ..redaction import redact
            said = json.dumps({"key": key, "call": about.get("call"), "prompt ends": redact(about.get("prompt", "")[-240:]),
                               "max_tokens": about.get("max_tokens")}, ensure_ascii=False)
            self._note(".misses", said)
            print(f"handmade-agent: recording miss {said}", file=sys.stderr)
            raise RecordingMiss(f"No recorded reply for this call in {self.path} (replay mode; the prompt ends "
                                f"{about.get('prompt', '')[-80:]!r}). A change altered what the model is asked: record "
                                "it with the real model (make notebooks, or python tests/execute_notebook.py NOTEBOOK).")
        value = run()
        from ..redaction import redact  # a recording is committed: no secret leaves in it (a prompt may hold one)
        entry = {"key": key, **{k: redact(v) if isinstance(v, str) else v for k, v in {**about, **value}.items()}}
        self.entries[key] = entry
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(entry, ensure_ascii=False, sort_keys=False) + "\n")
        self._note(".used", key)
        return value

    def _note(self, suffix: str, line: str) -> None:
        with self.path.with_name(self.path.name + suffix).open("a", encoding="utf-8") as f:
            f.write(line + "\n")


@contextlib.contextmanager
def reusing(path: str | Path) -> Iterator[Recording]:
    """Models created inside replay what ``path`` recorded and run the rest, writing nothing; after it they run
    live (the recording turns off), so what a learner runs next is their model's own reply."""
    global _reuse
    _reuse = Recording(path, "reuse")
    try:
        yield _reuse
    finally:
        _reuse.mode, _reuse = "off", None


def from_env() -> Recording | None:
    """The recording ``HANDMADE_AGENT_RECORDING`` / ``_FILE`` ask for, or None (off, the default)."""
    if _reuse is not None:
        return _reuse
    mode = os.environ.get(ENV_MODE, "").strip().lower() or "off"
    if mode not in MODES:
        from ..errors import ConfigError
        raise ConfigError(f"{ENV_MODE}={mode!r}: use off (the default), replay, record or reuse.")
    if mode == "off":
        return None
    path = os.environ.get(ENV_FILE, "").strip()
    if not path:
        from ..errors import ConfigError
        raise ConfigError(f"{ENV_MODE}={mode} needs {ENV_FILE}, the recording's path (one JSONL file per notebook).")
    return Recording(path, mode)


def prune(path: str | Path) -> tuple[int, int]:
    """Keep only the entries the last full run used, in the order it used them. Returns (kept, dropped)."""
    path = Path(path)
    used_file = path.with_name(path.name + ".used")
    used = list(dict.fromkeys(used_file.read_text(encoding="utf-8").split())) if used_file.exists() else []
    entries = Recording(path).entries if path.exists() else {}
    kept = [entries[k] for k in used if k in entries]
    if kept:
        path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in kept), encoding="utf-8")
    elif path.exists():
        path.unlink()  # a notebook that no longer calls the model keeps no recording
    used_file.unlink(missing_ok=True)
    return len(kept), len(entries) - len(kept)
