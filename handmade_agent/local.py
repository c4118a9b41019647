"""The embedded default model: Qwen2.5-Coder-0.5B-Instruct run in-process by llama-cpp-python.

``LocalLLM`` renders messages with the chat template stored inside the GGUF file
(so tool calls use the format the model was trained on), decodes greedily by
default, and keeps llama.cpp's KV cache between calls: when a new prompt extends
the previous one, as a ReAct transcript does, only the new tokens are evaluated.
``serve`` puts the same model behind an OpenAI-compatible HTTP API on loopback.

Deliberately left out: streaming, GPU offload, grammars, and multiple models.

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

from .errors import LLMError
from .llm import Completion, MessageLike, ToolCall, Usage, as_message
from .model_files import QWEN_CODER_05B, find_model

MODEL_ID = "qwen2.5-coder-0.5b-instruct"
_END = ["<|im_end|>", "<|endoftext|>"]
_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)


def quiet_openmp_waits() -> None:
    """Let llama.cpp's OpenMP threads sleep instead of spin while they wait (unless the user chose otherwise).

    Must run before llama_cpp is first imported. Measured here: with other processes busy on the 2 cores,
    decoding went from 0.3 to 3.7 tokens/s; spinning threads starve everything else on a small CPU.
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def tempfile_dir() -> str:
    import tempfile
    return tempfile.gettempdir()


class _file_lock:
    """An exclusive ``flock`` on ``path`` for the duration of a ``with`` block (no-op when path is None)."""

    def __init__(self, path: Path | None):
        self.path, self.fd = path, -1

    def __enter__(self) -> None:
        if self.path is not None:
            import fcntl
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
            fcntl.flock(self.fd, fcntl.LOCK_EX)

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
    for m in _TOOL_CALL.finditer(text):
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

    ``reuse_prefix=False`` clears the KV cache before every call (only for
    measuring what the reuse saves).
    """

    def __init__(self, model_path: str | Path | None = None, *, n_ctx: int = 4096, seed: int = 0,
                 temperature: float = 0.0, max_tokens: int = 512, n_threads: int | None = None,
                 reuse_prefix: bool = True, machine_lock: bool = True):
        self.path = Path(model_path) if model_path else find_model(QWEN_CODER_05B)
        quiet_openmp_waits()
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter
        self._llama = Llama(model_path=str(self.path), n_ctx=n_ctx, seed=seed, verbose=False,
                            n_threads=n_threads or os.cpu_count() or 2)
        meta = self._llama.metadata
        self._format = Jinja2ChatFormatter(meta["tokenizer.chat_template"], eos_token="<|im_end|>",
                                           bos_token="", add_generation_prompt=True)
        self.model, self.seed, self.n_ctx = MODEL_ID, seed, n_ctx
        self.temperature, self.max_tokens, self.reuse_prefix = temperature, max_tokens, reuse_prefix
        self._lock = threading.Lock()  # one llama context: calls must not interleave
        # llama.cpp's worker threads spin while they wait; two processes decoding at once on a 2-core laptop
        # each run many times slower than one after the other, so by default calls take turns machine-wide.
        self._machine_lock = Path(tempfile_dir()) / "handmade-agent-llm.lock" if machine_lock else None
        self.last_prompt_eval_tokens = 0  # prompt tokens llama.cpp actually evaluated in the last call

    def _prompt_tokens_evaluated(self) -> int:
        """llama.cpp's own counter of evaluated prompt tokens (so the reuse figure is measured, not inferred)."""
        import llama_cpp
        return llama_cpp.llama_perf_context(self._llama.ctx).n_p_eval

    def __repr__(self) -> str:
        return f"LocalLLM(model={self.model!r}, n_ctx={self.n_ctx})"

    def format_prompt(self, messages: Sequence[MessageLike], tools: list[dict] | None = None) -> str:
        """The exact prompt text the model sees (the GGUF's own chat template)."""
        return self._format(messages=[_template_message(m) for m in messages], tools=tools).prompt

    def count_tokens(self, text: str) -> int:
        return len(self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def complete(self, messages: Sequence[MessageLike], *, stop: Sequence[str] | None = None,
                 tools: list[dict] | None = None, temperature: float | None = None,
                 max_tokens: int | None = None) -> Completion:
        prompt = self.format_prompt(messages, tools)
        n_prompt = self.count_tokens(prompt)
        budget = max_tokens or self.max_tokens
        if n_prompt + 1 >= self.n_ctx:
            raise LLMError(f"The prompt has {n_prompt} tokens but the context holds {self.n_ctx}. "
                           "Shorten the conversation (see memory windows) or create LocalLLM(n_ctx=...) larger.")
        budget = min(budget, self.n_ctx - n_prompt)
        with self._lock, _file_lock(self._machine_lock):
            if not self.reuse_prefix:
                self._llama.reset()
            evaluated_before = self._prompt_tokens_evaluated()
            t0 = time.perf_counter()
            try:
                r = self._llama.create_completion(
                    prompt, max_tokens=budget, stop=list(stop or []) + _END, seed=self.seed,
                    temperature=self.temperature if temperature is None else temperature)
            except Exception as e:  # llama.cpp failures surface as generic errors; give them our type
                raise LLMError(f"The local model failed: {type(e).__name__}: {e}") from e
            latency = time.perf_counter() - t0
            self.last_prompt_eval_tokens = self._prompt_tokens_evaluated() - evaluated_before
        choice = r["choices"][0]
        text, calls = parse_tool_calls(choice["text"]) if tools else (choice["text"], [])
        u = r.get("usage") or {}
        return Completion(text, calls, Usage(u.get("prompt_tokens", n_prompt), u.get("completion_tokens", 0)),
                          latency, self.model, "tool_calls" if calls else (choice.get("finish_reason") or "stop"))


# --- serving the same model over HTTP ----------------------------------------

def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalServer:
    """llama-cpp-python's OpenAI-compatible server for the local model, as a child process.

        >>> with serve(port=free_port()) as server:                # doctest: +SKIP
        ...     OpenAIChat(MODEL_ID, base_url=server.base_url)
    """

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
        threads = str(os.cpu_count() or 2)
        cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(self.model_path), "--host", self.host,
               "--port", str(self.port), "--n_ctx", str(self.n_ctx), "--model_alias", MODEL_ID,
               "--n_threads", threads, "--n_threads_batch", threads, "--verbose", "False"]
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
