"""The embedded model, run in-process by llama-cpp-python (by default Qwen2.5-Coder-1.5B-Instruct; the 0.5B on request).

``LocalLLM`` renders messages with the chat template stored inside the GGUF file
(so tool calls use the format the model was trained on), decodes greedily by
default, and keeps llama.cpp's KV cache between calls: when a new prompt extends
the previous one, as a ReAct transcript does, only the new tokens are evaluated.
Across processes, the fixed start of a prompt (everything before the last user
turn, when it is at least ``prefix_min_tokens`` long) is kept on disk as a
llama.cpp state (``prefix_cache``, ``kv_state``): a new process loads it instead
of computing it again. ``warm(messages)`` asks for that ahead of time.
The HTTP server for the same model lives in ``handmade_agent.serve``.

``LocalLLM(model="1.5b")`` (or ``HANDMADE_AGENT_LOCAL_MODEL``) picks a registry model; ``model_path`` a file.

With ``HANDMADE_AGENT_RECORDING`` set (the notebooks' test runs; off by default), replies are replayed from and
recorded to a file (``recording.py``): greedy replies are a function of the prompt and settings.

Deliberately left out: streaming, GPU offload, and more than one model per ``LocalLLM``.

    >>> llm = LocalLLM()                                          # doctest: +SKIP
    >>> llm.complete([{"role": "user", "content": "2+2="}]).text  # doctest: +SKIP
"""
from __future__ import annotations

import json
import os
import re
import threading
import time
from pathlib import Path
from typing import Any, Sequence

from ..errors import LLMError
from ..llm import TOOL_CALL_BLOCK, Completion, MessageLike, ToolCall, Usage, as_message
from .files import find_model
from .kv_state import turn_starts
from .prefix_cache import PrefixCache, enabled
from .registry import DEFAULT_MODEL, MODELS, ModelSpec, model_spec
from .threads import CpuWatch, threads_for

MODEL_ID = MODELS[DEFAULT_MODEL].model_id  # the default's; a LocalLLM reports its own spec's id as ``.model``
_END = ["<|im_end|>", "<|endoftext|>"]


def quiet_openmp_waits() -> None:
    """Let llama.cpp's OpenMP threads sleep instead of spin while they wait (unless the user chose otherwise).

    Must run before llama_cpp is first imported. Measured here: with other processes busy on the 2 cores,
    decoding went from 0.3 to 3.7 tokens/s; spinning threads starve everything else on a small CPU.
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def default_threads() -> tuple[int, int]:
    """(n_threads, n_threads_batch) when nothing else is known: every core, for decode and prefill alike."""
    cores = os.cpu_count() or 2
    return cores, cores


def tempfile_dir() -> str:
    import tempfile
    return tempfile.gettempdir()


def machine_lock_path() -> Path:
    """This user's lock file in the temp folder (per user: another user's 0600 lock would refuse us)."""
    return Path(tempfile_dir()) / f"handmade-agent-llm-{os.getuid() if hasattr(os, 'getuid') else 0}.lock"


class _file_lock:
    """An exclusive ``flock`` on ``path`` for the duration of a ``with`` block (no-op when path is None).

    The file is created 0600 and never followed through a link. Waiting is bounded: after ``timeout`` seconds
    (a process stuck while holding it) the block runs without the lock, with a warning, rather than never.
    """

    def __init__(self, path: Path | None, timeout: float = 600.0):
        self.path, self.fd, self.timeout = path, -1, timeout

    def __enter__(self) -> None:
        if self.path is None:
            return
        import fcntl
        import warnings
        try:
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except OSError as e:
            warnings.warn(f"Running without the machine lock: cannot open {self.path} ({e.strerror}).", stacklevel=2)
            return
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    break
                time.sleep(min(0.05, max(0.0, deadline - time.monotonic())))
        os.close(self.fd)
        self.fd = -1
        warnings.warn(f"Another process has held {self.path} for {self.timeout:.0f} s; running without the machine "
                      "lock (calls may be slower while both run). If no model is running, delete that file.",
                      stacklevel=2)

    def __exit__(self, *exc: object) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing releases the lock
            self.fd = -1


def _template_message(m: MessageLike) -> dict:
    """A message as the GGUF chat template expects it (tool arguments as objects, not JSON text)."""
    msg = as_message(m)
    d: dict[str, Any] = {"role": msg.role, "content": msg.content}
    if msg.tool_calls:
        d["tool_calls"] = [{"type": "function", "function": {"name": c.name, "arguments": _json_or_text(c.arguments)}}
                           for c in msg.tool_calls]
    return d


def _json_or_text(s: str) -> Any:
    try:
        return json.loads(s)
    except ValueError:
        return s


def _as_call(obj: Any, i: int) -> ToolCall | None:
    if not (isinstance(obj, dict) and isinstance(obj.get("name"), str)):
        return None
    args = obj.get("arguments", obj.get("parameters", {}))
    return ToolCall(obj["name"], args if isinstance(args, str) else json.dumps(args, ensure_ascii=False), f"call_{i}")


def parse_tool_calls(text: str) -> tuple[str, list[ToolCall]]:
    """Split tool calls out of the model's reply. Returns (remaining text, calls).

    Qwen's trained format is ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``; the 0.5B model
    often writes the same object in a ```json fence instead, which is accepted when it is the whole reply.
    Unparseable blocks stay in the text, so the agent can tell the model what was wrong.
    """
    calls, keep = [], text
    for m in TOOL_CALL_BLOCK.finditer(text):
        call = _as_call(_json_or_text(m.group(1)), len(calls))
        if call:
            calls.append(call)
            keep = keep.replace(m.group(0), "")
    if calls:
        return keep.strip(), calls
    body = re.sub(r"^```(?:json)?\s*|\s*```$", "", text.strip())
    obj = _json_or_text(body)
    objs = obj if isinstance(obj, list) else [obj]
    found = [c for i, o in enumerate(objs) if (c := _as_call(o, i))]
    return ("", found) if found and len(found) == len(objs) else (text, [])


class LocalLLM:
    """The local GGUF model behind the package's ``LLM`` interface.

    ``model`` names a registry model ("0.5b", "1.5b", see ``registry.py``; unset: ``HANDMADE_AGENT_LOCAL_MODEL``,
    else the default); ``model_path`` is a GGUF file that replaces that model's file (``.model`` keeps its id).
    ``grammar`` (GBNF) constrains a reply (llama.cpp grammar sampling); ``tool_call_grammar(tools)``
    writes the one for native tool calls in this model's own ``<tool_call>`` format. ``tool_choice``
    (OpenAI's: "auto", "none", "required" or ``{"type": "function", "function": {"name": X}}``) is
    implemented with that grammar when tools are given and no ``grammar`` is (an explicit grammar wins).

    ``reuse_prefix=False`` clears the KV cache before every call and skips the
    disk (only for measuring what the reuse saves). ``prefix_cache`` is a
    ``PrefixCache``, or False for none; by default the package's cache folder,
    unless ``HANDMADE_AGENT_PREFIX_CACHE=0``.
    """
    supports_grammar = True

    def __init__(self, model_path: str | Path | None = None, *, model: str | ModelSpec | None = None,
                 n_ctx: int = 4096, seed: int = 0,
                 temperature: float = 0.0, max_tokens: int = 512, n_threads: int | None = None,
                 n_threads_batch: int | None = None, reuse_prefix: bool = True, machine_lock: bool = True,
                 prefix_cache: PrefixCache | bool | None = None, prefix_min_tokens: int = 200):
        self.spec = model_spec(model)  # a name, else HANDMADE_AGENT_LOCAL_MODEL, else the default
        self.path = Path(model_path) if model_path else find_model(self.spec)  # a path overrides the spec's file
        self._sha256 = None if model_path else self.spec.sha256  # find_model verified it
        quiet_openmp_waits()
        import llama_cpp
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter
        decode, batch = default_threads()
        self._llama = llama_cpp.Llama(model_path=str(self.path), n_ctx=n_ctx, seed=seed, verbose=False,
                                      n_threads=n_threads or decode, n_threads_batch=n_threads_batch or batch)
        # Threads, measured here (2 AVX2 cores, OMP_WAIT_POLICY=PASSIVE; tokens/s alone / with a `while True: pass`
        # process on one core):  1 thread: decode 16.9 / 17.1, prefill 54 / 49;  2 threads: decode 28.5 / 15.9,
        # prefill 84 / 38. Two threads win alone but fall below one under load (every matrix product waits for the
        # thread that shares its core), so unless threads are given, each call takes the cores that other
        # processes left free during the previous call (threads.CpuWatch). On an AMD EPYC of the same size one
        # thread decoded faster even alone (42.7 vs 30.0), so decode uses the count measured fastest on this CPU
        # (threads.py) and prefill the free cores. Greedy output does not depend on either.
        self._watch = CpuWatch() if n_threads is None and n_threads_batch is None else None
        self.threads = (n_threads or decode, n_threads_batch or batch)  # what the last call used
        meta = self._llama.metadata
        self._format = Jinja2ChatFormatter(meta["tokenizer.chat_template"], eos_token="<|im_end|>",
                                           bos_token="", add_generation_prompt=True)
        self.model, self.seed, self.n_ctx = self.spec.model_id, seed, n_ctx
        self.temperature, self.max_tokens, self.reuse_prefix = temperature, max_tokens, reuse_prefix
        self._lock = threading.Lock()  # one llama context: calls must not interleave
        # llama.cpp's worker threads spin while they wait; two processes decoding at once on a 2-core laptop
        # each run many times slower than one after the other, so by default calls take turns machine-wide.
        self._machine_lock = machine_lock_path() if machine_lock else None
        self.last_prompt_eval_tokens = 0  # prompt tokens llama.cpp actually evaluated in the last call
        if prefix_cache is None:
            prefix_cache = enabled()
        self.prefix_cache = PrefixCache() if prefix_cache is True else prefix_cache or None
        self.prefix_min_tokens = prefix_min_tokens
        # decode on the thread count measured fastest on this CPU (threads.py), prefill on every free core
        self._decode_best = self._measured_decode_threads(batch) if self._watch is not None else decode
        if self._watch is not None and self._decode_best < self.threads[0]:
            llama_cpp.llama_set_n_threads(self._llama.ctx, self._decode_best, self.threads[1])
            self.threads = (self._decode_best, self.threads[1])
        self.last_prefix: str | None = None  # how the last call got its prefix: memory, disk, computed, None
        # the prefix settings go into every cache key: a state made under other ones is never loaded
        self._prefix_settings = {"n_ctx": n_ctx, "llama_cpp": llama_cpp.__version__, "kv": "f16"}
        self._user_turn = self._tokens("<|im_start|>user")
        self._grammars: dict[str, Any] = {}
        from .recording import from_env
        self.recording = from_env()  # off unless HANDMADE_AGENT_RECORDING says replay or record (recording.py)
        self._engine: str | None = None

    def _tokens(self, text: str) -> list[int]:
        return self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=True)

    def model_sha256(self) -> str:
        """The model file's sha256 (hashed once, only for a file passed by path that is not the chosen spec's)."""
        if self._sha256 is None:
            from ..errors import ModelNotFound
            from .files import sha256_of, verify
            try:
                verify(self.path, self.spec)  # the spec's model under another name: its stamp makes this cheap
                self._sha256 = self.spec.sha256
            except ModelNotFound:
                self._sha256 = sha256_of(self.path)
        return self._sha256

    def _bring_prefix(self, tokens: list[int], ends: list[int], min_tokens: int) -> str | None:
        if not (self.reuse_prefix and self.prefix_cache):
            return None
        from .kv_state import bring_prefix
        return bring_prefix(self._llama, tokens, ends, self.prefix_cache, self.model_sha256(),
                            self._prefix_settings, min_tokens)

    def forget(self) -> None:
        """Drop the in-process KV cache: the next call evaluates its prompt again (or loads its prefix from disk)."""
        from .kv_state import clear
        with self._lock:
            clear(self._llama)

    def warm(self, messages: Sequence[MessageLike], tools: list[dict] | None = None) -> str | None:
        """Load or compute the KV state of ``messages`` (e.g. system prompt + examples) before the first call.

        Returns "memory", "disk" or "computed", as ``last_prefix`` does; a prompt that later starts with
        these messages then evaluates only what follows them.
        """
        tokens = self._tokens(self.format_prompt(list(messages) + [{"role": "user", "content": "?"}], tools))
        ends = turn_starts(tokens, self._user_turn)[-1:]
        with self._lock, _file_lock(self._machine_lock):
            self._choose_threads()
            return self._bring_prefix(tokens, ends, min_tokens=1)

    def _choose_threads(self) -> None:
        if self._watch is None:
            return
        n = threads_for(self._watch.others())
        self._watch.mark()  # the next window spans this call: seconds of data, not a 10 ms glimpse
        want = (min(n, self._decode_best), n)
        if want != self.threads:
            import llama_cpp
            llama_cpp.llama_set_n_threads(self._llama.ctx, *want)
            self.threads = want

    def _measured_decode_threads(self, cores: int) -> int:
        """The remembered fastest decode thread count for this CPU; measured now (~3 s, once) if the machine is quiet."""
        import llama_cpp

        from . import threads
        from .files import cache_dir
        # per model too: a measurement made on the 0.5B must not decide the 1.5B's threads, nor the reverse
        key = threads.machine_key(cores, llama_cpp.__version__, self.model_sha256())
        found = threads.remembered(cache_dir(), key)
        if found is not None or cores < 2:
            return min(found or cores, cores)
        others = self._watch.others()
        if others is None or others >= 0.5:  # busy: the figures would describe the load; keep every core for now
            return cores
        with _file_lock(self._machine_lock):
            rates = threads.measure(self._llama, cores)
        try:
            threads.remember(cache_dir(), key, rates)
        except OSError:
            pass  # a read-only cache folder: measure again next time
        return threads.choose(rates) or cores

    def _prompt_tokens_evaluated(self) -> int:
        """llama.cpp's own counter of evaluated prompt tokens (so the reuse figure is measured, not inferred)."""
        import llama_cpp
        return llama_cpp.llama_perf_context(self._llama.ctx).n_p_eval

    def __repr__(self) -> str:
        return f"LocalLLM(model={self.model!r}, n_ctx={self.n_ctx})"

    def format_prompt(self, messages: Sequence[MessageLike], tools: list[dict] | None = None) -> str:
        """The exact prompt text the model sees (the GGUF's own chat template)."""
        return self._format(messages=[_template_message(m) for m in messages], tools=tools).prompt

    def tool_call_grammar(self, tools: list[dict], choice: Any = "auto") -> str:
        """GBNF for this model's native tool calls (``<tool_call>`` to real tools with valid arguments) or text;
        ``choice`` is OpenAI's ``tool_choice`` (see ``grammar.tool_call_grammar``)."""
        from ..grammar import tool_call_grammar
        return tool_call_grammar(tools, choice)

    def _grammar(self, gbnf: str) -> Any:
        """The parsed grammar for ``gbnf``, kept per text (an agent sends the same one at every step)."""
        from .grammar_sampling import GreedyGrammar
        if gbnf not in self._grammars:
            if len(self._grammars) >= 32:
                self._grammars.clear()
            self._grammars[gbnf] = GreedyGrammar(self._llama, gbnf)
        g = self._grammars[gbnf]
        g.reset()
        return g

    def count_tokens(self, text: str) -> int:
        return len(self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def complete(self, messages: Sequence[MessageLike], *, stop: Sequence[str] | None = None,
                 tools: list[dict] | None = None, temperature: float | None = None,
                 max_tokens: int | None = None, grammar: str | None = None,
                 tool_choice: str | dict | None = None) -> Completion:
        if tool_choice is not None and not grammar and (tools or tool_choice not in ("auto", "none")):
            try:
                grammar = self.tool_call_grammar(tools or [], tool_choice)
            except ValueError as e:  # e.g. a name no offered tool has: the caller's mistake, said plainly
                raise LLMError(f"Cannot follow tool_choice: {e}") from None
        prompt = self.format_prompt(messages, tools)
        tokens = self._tokens(prompt)  # what create_completion would make of the text (this model adds no BOS)
        n_prompt = len(tokens)
        budget = max_tokens or self.max_tokens
        if n_prompt + 1 >= self.n_ctx:
            raise LLMError(f"The prompt has {n_prompt} tokens but the context holds {self.n_ctx}. "
                           "Shorten the conversation (see memory windows) or create LocalLLM(n_ctx=...) larger.")
        budget = min(budget, self.n_ctx - n_prompt)
        temp = self.temperature if temperature is None else temperature
        settings = {"max_tokens": budget, "stop": sorted(stop or []), "temperature": temp, "grammar": grammar or ""}
        raw = self._through("complete", tokens, {"prompt": prompt, **settings},
                            lambda: self._generate(tokens, budget, stop, temp, grammar), **settings)
        text, calls = parse_tool_calls(raw["text"]) if tools else (raw["text"], [])
        return Completion(text, calls, Usage(raw["prompt_tokens"], raw["completion_tokens"]), raw["seconds"],
                          self.model, "tool_calls" if calls else raw["finish_reason"], replayed=raw.get("replayed", False))

    def _through(self, call: str, tokens: list[int], about: dict, run: Any, **settings: Any) -> dict:
        """``run()``, or its recorded value when a recording is on (``recording.py``; off by default)."""
        if self.recording is None:
            return run()
        from .recording import call_key, engine_identity
        if self._engine is None:
            self._engine = engine_identity(self.model_sha256(), self.n_ctx)
        key = call_key(self._engine, call, tokens, seed=self.seed, **settings)
        # the whole prompt and settings are kept, so a live audit can ask the model again (tests/recording_audit.py)
        raw = self.recording.through(key, run, {"call": call, **about, "seed": self.seed})
        if raw.get("replayed"):  # llama.cpp evaluated nothing: the engine's own counters must not claim otherwise
            self.last_prompt_eval_tokens, self.last_prefix = 0, "replayed"
        return raw

    def _generate(self, tokens: list[int], budget: int, stop: Sequence[str] | None, temp: float,
                  grammar: str | None) -> dict:
        with self._lock, _file_lock(self._machine_lock):
            if not self.reuse_prefix:
                self._llama.reset()  # n_tokens = 0: create_completion then evaluates the whole prompt
            self._choose_threads()
            evaluated_before = self._prompt_tokens_evaluated()
            t0 = time.perf_counter()
            try:
                ends = turn_starts(tokens, self._user_turn)  # a prefix ends before a user turn; the last is saved
                self.last_prefix = self._bring_prefix(tokens, ends, self.prefix_min_tokens)
                slow = None
                if grammar and temp == 0:  # greedy: our lazy grammar sampler gives the same tokens, faster
                    self._llama._init_sampler = self._grammar(grammar).sampler
                elif grammar:
                    from llama_cpp import LlamaGrammar
                    slow = LlamaGrammar.from_string(grammar, verbose=False)
                r = self._llama.create_completion(tokens, max_tokens=budget, stop=list(stop or []) + _END,
                                                  seed=self.seed, temperature=temp, grammar=slow)
            except LLMError:
                raise
            except Exception as e:  # llama.cpp failures surface as generic errors; give them our type
                raise LLMError(f"The local model failed: {type(e).__name__}: {e}") from e
            finally:
                self._llama.__dict__.pop("_init_sampler", None)  # back to llama-cpp-python's own sampler
            latency = time.perf_counter() - t0
            self.last_prompt_eval_tokens = self._prompt_tokens_evaluated() - evaluated_before
        choice, u = r["choices"][0], r.get("usage") or {}
        return {"text": choice["text"], "finish_reason": choice.get("finish_reason") or "stop",
                "prompt_tokens": u.get("prompt_tokens", len(tokens)), "completion_tokens": u.get("completion_tokens", 0),
                "seconds": round(latency, 3)}

    def next_token_logprobs(self, messages: Sequence[MessageLike], candidates: Sequence[str]) -> dict[str, float]:
        """Log-probability that the reply to ``messages`` starts with each candidate's first token.

        One forward pass, no sampling: the logits of the reply's first position are read (through a
        logits processor on a one-token completion, so the prefix cache works as in ``complete``) and
        normalised over the whole vocabulary. For scores a small model cannot flatten, e.g. P("Yes").
        """
        prompt = self.format_prompt(messages)
        tokens = self._tokens(prompt)
        first = {c: self._tokens(c)[0] for c in candidates if c}
        ids = sorted(set(first.values()))
        raw = self._through("logprobs", tokens, {"prompt": prompt, "ids": ids},
                            lambda: self._first_logprobs(tokens, ids), ids=ids)
        return {c: raw["logprobs"][str(i)] for c, i in first.items()}

    def _first_logprobs(self, tokens: list[int], ids: list[int]) -> dict:
        import numpy as np
        from llama_cpp import LogitsProcessorList
        seen: list = []

        def grab(_input_ids, scores):  # called once per sampled token; the first call holds the reply's first position
            if not seen:
                seen.append(np.array(scores, dtype=np.float64))
            return scores

        t0 = time.perf_counter()
        with self._lock, _file_lock(self._machine_lock):
            self._choose_threads()
            try:
                self.last_prefix = self._bring_prefix(tokens, turn_starts(tokens, self._user_turn),
                                                      self.prefix_min_tokens)
                self._llama.create_completion(tokens, max_tokens=1, temperature=0.0, seed=self.seed,
                                              logits_processor=LogitsProcessorList([grab]))
            except Exception as e:
                raise LLMError(f"The local model failed: {type(e).__name__}: {e}") from e
        logits = seen[0]
        top = logits.max()
        log_z = top + np.log(np.exp(logits - top).sum())
        # keys are text: JSON has no integer keys, and a replayed value must read the same as a fresh one
        return {"logprobs": {str(i): float(logits[i] - log_z) for i in ids}, "seconds": round(time.perf_counter() - t0, 3)}
