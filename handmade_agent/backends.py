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
from typing import Any

from .llm import ENV_BASE_URL, ENV_MODEL, OpenAIChat


def using_server() -> bool:
    return bool(os.environ.get(ENV_BASE_URL, "").strip())


def course_llm(**local_settings: Any) -> Any:
    """The course's model: ``OpenAIChat()`` when ``HANDMADE_AGENT_BASE_URL`` is set, else ``LocalLLM(**local_settings)``.

    ``local_settings`` (``n_ctx``, ``max_tokens``...) apply to the in-process model only; a server
    keeps its own. The served model's name comes from ``HANDMADE_AGENT_MODEL`` (the course's
    server answers to ``qwen2.5-coder-0.5b-instruct``, the default here).
    """
    if using_server():
        from .local import MODEL_ID
        return OpenAIChat(os.environ.get(ENV_MODEL) or MODEL_ID)
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
