"""One switch for the whole course: ``course_llm()`` is the model every notebook and command uses.

In-process ``LocalLLM`` by default; any OpenAI-compatible server (the course's own
``handmade-agent serve``, Ollama, vLLM, DeepSeek, DashScope, OpenAI) as soon as
``HANDMADE_AGENT_BASE_URL`` is set — so a classroom switches every notebook with one environment
variable and no code change. A cell that needs the in-process model's internals (its chat
template, tokenizer or KV cache) asks ``needs_local(llm, "why")``: True on the local model;
otherwise it prints what it skips and why, and returns False.

Deliberately left out: picking a backend by probing the network (explicit beats clever) and
mixing backends in one notebook.

    >>> import os; os.environ.pop("HANDMADE_AGENT_BASE_URL", None) and None
    >>> describe_backend()
    'the in-process local model (set HANDMADE_AGENT_BASE_URL to use a server instead)'
"""
from __future__ import annotations

import os
from typing import Any, Callable

from .llm import ENV_BASE_URL, ENV_MODEL, OpenAIChat, estimate_tokens, token_counter  # noqa: F401  (re-exported for notebooks)


ENV_GRAMMAR = "HANDMADE_AGENT_GRAMMAR"


def using_server() -> bool:
    return bool(os.environ.get(ENV_BASE_URL, "").strip())


def server_takes_grammar(model: str) -> bool:
    """Send GBNF grammars to the server? ``HANDMADE_AGENT_GRAMMAR=1``/``0`` decides; unset, only the
    course's own server (the one that answers to a course model's name) is trusted to take them, so
    a served notebook constrains its agent exactly as the in-process one does. Most providers reject
    the field.

        >>> server_takes_grammar("qwen2.5-coder-1.5b-instruct"), server_takes_grammar("deepseek-chat")
        (True, False)
    """
    from .errors import ConfigError
    from .local import served_ids
    said = os.environ.get(ENV_GRAMMAR, "").strip().lower()
    if not said:
        return model in served_ids()
    if said in ("1", "true", "yes", "on"):
        return True
    if said in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{ENV_GRAMMAR}={said!r} is neither 1 nor 0: set 1 if the server takes llama.cpp's "
                      f"'grammar' field (the course's server and llama.cpp's do), 0 if not, or unset it.")


def course_llm(**local_settings: Any) -> Any:
    """The course's model: ``OpenAIChat()`` when ``HANDMADE_AGENT_BASE_URL`` is set, else ``LocalLLM(**local_settings)``.

    ``local_settings`` (``n_ctx``, ``max_tokens``, ``model``...) apply to the in-process model only; a
    server keeps its own. Which local model: ``HANDMADE_AGENT_LOCAL_MODEL`` (default the 1.5B). The
    served model's name comes from ``HANDMADE_AGENT_MODEL``, else the id of that same local model
    (what the course's server answers to); grammars are sent when ``server_takes_grammar`` says so.
    """
    if using_server():
        from .local import model_spec
        model = os.environ.get(ENV_MODEL) or model_spec().model_id
        return OpenAIChat(model, grammar=server_takes_grammar(model))
    from .local import LocalLLM
    return LocalLLM(**local_settings)


def describe_backend() -> str:
    if using_server():
        return f"the server at {os.environ[ENV_BASE_URL]} (unset HANDMADE_AGENT_BASE_URL for the local model)"
    return "the in-process local model (set HANDMADE_AGENT_BASE_URL to use a server instead)"


def needs_local(llm: Any, why: str) -> bool:
    """True if ``llm`` is the in-process model; else print that this cell is skipped, and why."""
    from .local import LocalLLM
    if isinstance(llm, LocalLLM):
        return True
    print(f"(skipped on {type(llm).__name__}: this cell needs the in-process local model, because {why})")
    return False
