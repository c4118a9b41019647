"""Messages, completions, and two of the three model backends.

An ``LLM`` is anything with ``complete(messages, stop=..., tools=...) -> Completion``.
This module holds the data types every later chapter uses, ``ScriptedLLM``
(replays replies you give it, for tests and for showing one exact reply) and
``OpenAIChat`` (the ``openai`` SDK against any OpenAI-compatible server).
The in-process local model lives in ``local/``.

Deliberately left out: streaming, images, and provider-specific options.

    >>> llm = ScriptedLLM(["Hello!"])
    >>> llm.complete([Message("user", "Hi")]).text
    'Hello!'
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Protocol, Sequence, Union, runtime_checkable

from .errors import ScriptExhausted


@dataclass
class ToolCall:
    """A native tool call as the OpenAI API returns it; ``arguments`` is raw JSON text."""
    name: str
    arguments: str = "{}"
    id: str = "call_0"

    def to_dict(self) -> dict:
        return {"id": self.id, "type": "function",
                "function": {"name": self.name, "arguments": self.arguments}}


# How Qwen-style models write a native call in text: ``<tool_call>{"name": ..., "arguments": ...}</tool_call>``.
# Group 1 is the body; a block cut off before its closing tag runs to the end. The in-process model's
# call reader (chapter 0) and the ReAct parser (chapter 2) both use this one pattern.
TOOL_CALL_BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S | re.I)


@dataclass
class Message:
    """One chat message. ``Message("user", "Hi").to_dict() == {'role': 'user', 'content': 'Hi'}``"""
    role: str
    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None

    def to_dict(self) -> dict:
        d: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            d["tool_calls"] = [c.to_dict() for c in self.tool_calls]
        if self.tool_call_id is not None:
            d["tool_call_id"] = self.tool_call_id
        return d


MessageLike = Union[Message, dict]


def as_message(m: MessageLike) -> Message:
    """Accept a ``Message`` or an OpenAI-style dict, return a ``Message``."""
    if isinstance(m, Message):
        return m
    calls = [ToolCall(c["function"]["name"], c["function"].get("arguments") or "{}", c.get("id", "call_0"))
             for c in (m.get("tool_calls") or [])]
    return Message(m["role"], m.get("content") or "", calls, m.get("tool_call_id"))


@dataclass
class Usage:
    """Token counts of one call, or a sum of calls (``Usage(3, 4) + Usage(1, 1) == Usage(4, 5)``)."""
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(self.prompt_tokens + other.prompt_tokens,
                     self.completion_tokens + other.completion_tokens)


@dataclass
class Completion:
    """What a model returned: text, tool calls, usage, and wall-clock latency in seconds.

    ``replayed`` is True when the reply came from a recording (``local/recording.py``): no model ran, so
    ``latency`` is 0 (the seconds it took when recorded stay in the recording, never reported as this run's).
    """
    text: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    latency: float = 0.0
    model: str = ""
    finish_reason: str = "stop"
    replayed: bool = False


@runtime_checkable
class LLM(Protocol):
    """The one interface every backend implements.

    ``grammar`` is GBNF text the reply must follow (constrained decoding); a backend that cannot
    constrain ignores it, and its ``supports_grammar`` attribute (absent means False) says so.
    """
    model: str

    def complete(self, messages: Sequence[MessageLike], *, stop: Sequence[str] | None = None,
                 tools: list[dict] | None = None, temperature: float | None = None,
                 max_tokens: int | None = None, grammar: str | None = None) -> Completion: ...


def cut_at_stop(text: str, stop: Sequence[str] | None) -> tuple[str, bool]:
    """Cut ``text`` before the earliest stop sequence, as a server does. Returns (text, was_cut)."""
    cuts = [i for s in (stop or []) if s and (i := text.find(s)) >= 0]
    return (text[: min(cuts)], True) if cuts else (text, False)


def estimate_tokens(text: str) -> int:
    """A rough token count (about 4 characters per token) for backends without a tokenizer."""
    return max(1, (len(text) + 3) // 4) if text else 0


def token_counter(llm: Any = None) -> Callable[[str], int]:
    """The model's own tokenizer where the backend offers one (in-process, or a server with a tokenize
    route such as the course's), else the ~4-characters-per-token ``estimate_tokens``.

        >>> token_counter(None) is estimate_tokens
        True
    """
    count = getattr(llm, "count_tokens", None)
    if count is None or not getattr(llm, "can_count_tokens", True):
        return estimate_tokens
    return count


class ScriptedLLM:
    """Replays the replies it was given, in order, and records what it was sent.

    A reply may be a string, a ``Completion`` (e.g. with tool calls) or an
    exception instance, which is raised to simulate a failing backend.
    Stop sequences are applied to string replies as a real server would; a grammar is recorded, not applied.
    """
    supports_grammar = False

    def __init__(self, replies: Iterable[str | Completion | BaseException], model: str = "scripted"):
        self.replies = list(replies)
        self.model = model
        self.calls: list[dict] = []

    @property
    def remaining(self) -> int:
        return len(self.replies) - len(self.calls)

    def complete(self, messages: Sequence[MessageLike], *, stop: Sequence[str] | None = None,
                 tools: list[dict] | None = None, temperature: float | None = None,
                 max_tokens: int | None = None, grammar: str | None = None) -> Completion:
        msgs = [as_message(m) for m in messages]
        self.calls.append({"messages": msgs, "stop": list(stop or []), "tools": tools, "grammar": grammar})
        i = len(self.calls) - 1
        if i >= len(self.replies):
            raise ScriptExhausted(
                f"ScriptedLLM has {len(self.replies)} replies and was asked for reply #{i + 1}; "
                "add more replies to the script, or check why the caller made an extra call.")
        reply = self.replies[i]
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, Completion):
            return reply
        text, was_cut = cut_at_stop(reply, stop)
        prompt = estimate_tokens("".join(m.content for m in msgs))
        return Completion(text, usage=Usage(prompt, estimate_tokens(text)), model=self.model)


# --- OpenAIChat -------------------------------------------------------------

ENV_BASE_URL, ENV_MODEL, ENV_API_KEY = "HANDMADE_AGENT_BASE_URL", "HANDMADE_AGENT_MODEL", "HANDMADE_AGENT_API_KEY"
_SETTINGS_HELP = (f"Set {ENV_BASE_URL} (e.g. http://127.0.0.1:8080/v1 for `handmade-agent serve`), "
                  f"{ENV_MODEL} and {ENV_API_KEY} (or OPENAI_API_KEY).")


def _is_loopback(url: str) -> bool:
    from urllib.parse import urlparse
    return (urlparse(url).hostname or "") in ("127.0.0.1", "localhost", "::1", "0.0.0.0")


_BEARER = re.compile(r"(?i)(bearer\s+)[^\s\"',;]+")


def mask_secrets(text: str, secrets: Sequence[str] = ()) -> str:
    """``text`` with every token after "Bearer " and each known secret (4+ characters) replaced by ``***``."""
    text = _BEARER.sub(r"\1***", str(text))
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return text


def _check_url(url: str) -> None:
    from urllib.parse import urlparse

    from .errors import ConfigError
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ConfigError(f"The base URL {url[:100]!r} is not a URL: it needs http:// or https:// and a host, "
                          f"e.g. http://127.0.0.1:8080/v1. {_SETTINGS_HELP}")


class OpenAIChat:
    """Any OpenAI-compatible chat endpoint through the official ``openai`` SDK.

    Settings come from the arguments, else from the environment. A loopback
    server (``handmade-agent serve``, Ollama, vLLM on this machine) needs no key.
    ``grammar=True`` says the server takes a GBNF ``grammar`` field (llama.cpp's does): constrained
    decoding is then sent; otherwise a grammar is not sent and the agent parses and repairs.
    ``tool_choice`` ("auto", "none", "required" or ``{"type": "function", "function": {"name": X}}``)
    is sent as given, and only when given: the provider (or the course's server) enforces it.

        >>> llm = OpenAIChat(base_url="http://127.0.0.1:8080/v1", model="qwen")  # doctest: +SKIP
    """

    def __init__(self, model: str | None = None, *, base_url: str | None = None, api_key: str | None = None,
                 timeout: float = 60.0, max_retries: int = 2, temperature: float = 0.0, seed: int | None = 0,
                 extra_body: dict | None = None, grammar: bool = False):
        import os

        from .errors import ConfigError
        self.base_url = base_url or os.environ.get(ENV_BASE_URL) or None
        if self.base_url is not None:
            _check_url(self.base_url)  # before the key: "No API key" for a typo in the URL misleads
        self.model = model or os.environ.get(ENV_MODEL) or ""
        key = api_key or os.environ.get(ENV_API_KEY) or os.environ.get("OPENAI_API_KEY")
        if not key:
            if self.base_url is None or not _is_loopback(self.base_url):
                where = self.base_url or "api.openai.com (no base URL was set)"
                raise ConfigError(f"No API key for {where}. {_SETTINGS_HELP}")
            key = "not-needed-for-a-local-server"
        if not self.model:
            raise ConfigError(f"No model name given. Pass model=... or set {ENV_MODEL}. {_SETTINGS_HELP}")
        self.temperature, self.seed = temperature, seed
        self.extra_body = dict(extra_body or {})  # server-specific sampling options, e.g. llama.cpp's repeat_penalty
        # llama.cpp's server (and llama_cpp.server) accept a GBNF "grammar" field; most providers reject it
        self.supports_grammar = grammar
        self._model_checked = False  # the server's model list was read (once per client)
        self._models: list[str] = []
        self._can_count: bool | None = None
        import openai  # heavy: imported only when a client is built
        self._secrets = [key]  # masked in every error message this client builds
        self._client = openai.OpenAI(api_key=key, base_url=self.base_url, timeout=timeout,
                                     max_retries=max_retries)

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAIChat(model={self.model!r}, base_url={self.base_url!r})"

    def complete(self, messages: Sequence[MessageLike], *, stop: Sequence[str] | None = None,
                 tools: list[dict] | None = None, temperature: float | None = None,
                 max_tokens: int | None = None, grammar: str | None = None,
                 tool_choice: str | dict | None = None) -> Completion:
        import openai

        from .errors import ConfigError, LLMError
        kwargs: dict[str, Any] = {"model": self.model, "messages": [as_message(m).to_dict() for m in messages],
                                  "temperature": self.temperature if temperature is None else temperature}
        if stop:
            kwargs["stop"] = list(stop)[:4]  # the OpenAI API accepts at most four
        if tools:
            kwargs["tools"] = tools
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        if max_tokens:
            kwargs["max_tokens"] = max_tokens
        if self.seed is not None:
            kwargs["seed"] = self.seed
        extra = dict(self.extra_body)
        if grammar and self.supports_grammar:
            extra["grammar"] = grammar
        if extra:
            kwargs["extra_body"] = extra
        where = self.base_url or "api.openai.com"
        self._check_model(where)
        t0 = time.perf_counter()
        failure: Exception | None = None  # raised after the except block, so no exception holding the key is chained
        try:
            r = self._client.chat.completions.create(**kwargs)
        except openai.APIConnectionError as e:  # includes time-outs
            raise LLMError(f"Cannot reach the model server at {where} ({type(e).__name__}). Is it running? "
                           f"Start one with `handmade-agent serve`, or point {ENV_BASE_URL} at a live server.") from e
        except openai.AuthenticationError:
            failure = ConfigError(f"The server at {where} rejected the API key (401). "
                                  f"Set a valid key in {ENV_API_KEY} or OPENAI_API_KEY.")
        except openai.NotFoundError as e:
            raise ConfigError(f"The server at {where} has no model {self.model!r} (404). "
                              f"Set {ENV_MODEL} to one of: {self.available_models() or 'see the provider docs'}.") from e
        except openai.APIStatusError as e:
            # a server may echo the request, Authorization header included: the key must not travel on
            failure = LLMError(mask_secrets(f"The server at {where} answered {e.status_code}: {e.message}",
                                            self._secrets))
        if failure is not None:
            raise failure
        latency = time.perf_counter() - t0
        if not getattr(r, "choices", None):
            raise LLMError(f"The server at {where} returned no choices; it may not be OpenAI-compatible.")
        choice = r.choices[0]
        calls = [ToolCall(c.function.name, c.function.arguments or "{}", c.id or f"call_{i}")
                 for i, c in enumerate(choice.message.tool_calls or [])]
        u = r.usage
        usage = Usage(u.prompt_tokens or 0, u.completion_tokens or 0) if u else Usage()
        return Completion(choice.message.content or "", calls, usage, latency, r.model or self.model,
                          choice.finish_reason or "stop")

    def count_tokens(self, text: str) -> int:
        """Tokens in ``text`` by the served model's own tokenizer, for a server with a tokenize route (the
        course's ``handmade-agent serve`` has ``POST /extras/tokenize``); ``can_count_tokens`` says if it has one."""
        import json
        import urllib.error
        import urllib.request

        from .errors import ConfigError, LLMError
        where = self.base_url or "api.openai.com"
        if self.base_url is None:
            raise ConfigError(f"{where} does not count tokens for clients: use estimate_tokens instead.")
        root = re.sub(r"/v1/?$", "", self.base_url.rstrip("/"))
        # the standard library, not an HTTP package: openai's own (httpx2) is its detail, and plain httpx
        # is not a dependency of this package (a client install without it crashed here)
        request = urllib.request.Request(f"{root}/extras/tokenize", json.dumps({"input": text}).encode(), method="POST",
                                         headers={"Authorization": f"Bearer {self._secrets[0]}",
                                                  "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30.0) as r:
                status, kind, body = r.status, r.headers.get("content-type", ""), r.read()
        except urllib.error.HTTPError as e:
            status, kind, body = e.code, e.headers.get("content-type", ""), e.read()
        except (OSError, ValueError) as e:  # URLError is an OSError; so are time-outs and refused connections
            raise LLMError(f"Cannot reach the model server at {where} ({type(e).__name__}). Is it running?") from None
        if status in (404, 405):
            raise ConfigError(f"The server at {where} has no tokenize route (only `handmade-agent serve` has one): "
                              f"count with estimate_tokens instead.")
        text_body = body.decode("utf-8", "replace")
        if status != 200:
            raise LLMError(mask_secrets(f"The server at {where} answered {status} to tokenize: {text_body[:200]}",
                                        self._secrets))
        try:
            tokens = json.loads(text_body).get("tokens") if "json" in kind else None
        except (ValueError, AttributeError):
            tokens = None
        if not isinstance(tokens, list):
            raise LLMError(f"The server at {where} answered tokenize without a token list.")
        return len(tokens)

    @property
    def can_count_tokens(self) -> bool:
        """Does the server count tokens (asked once, with an empty text)?"""
        if self._can_count is None:
            from .errors import HandmadeAgentError
            try:
                self.count_tokens("")
                self._can_count = True
            except HandmadeAgentError:
                self._can_count = False
        return self._can_count

    def _check_model(self, where: str) -> None:
        """Some servers (llama.cpp's among them) silently answer with another model when the name is
        wrong, so the name is checked against the server's list. The list is asked for once per client,
        whatever it says (empty, or no listing route); only a server that could not be reached is asked again."""
        from .errors import ConfigError
        if not self._model_checked:
            import openai
            try:
                self._models = [m.id for m in self._client.with_options(max_retries=0, timeout=10).models.list()]
                self._model_checked = True
            except openai.APIConnectionError:
                return  # the call itself will say the server is down; ask again next time
            except Exception:  # no listing: nothing to check against, and asking again would not change that
                self._model_checked = True
        if self._models and self.model not in self._models:
            raise ConfigError(f"The server at {where} has no model {self.model!r}. "
                              f"Set {ENV_MODEL} (or pass model=...) to one of: {', '.join(self._models[:20])}.")

    def available_models(self) -> list[str]:
        """Model ids the server lists, or [] if it cannot say."""
        try:
            return [m.id for m in self._client.with_options(max_retries=0, timeout=10).models.list()]
        except Exception:  # listing is a courtesy inside an error message; never mask the real error
            return []
