"""handmade_agent: the finished package the course notebooks build, one sub-package per chapter.

    00 llm, grammar, local, serve   01 tools, toolbox   02 react   03 agent   04 observers
    05 memory, storage           06 rag              widgets, teaching, cli

This module names what a user needs, in notebook order, and imports none of it: each name is looked up in
``_EXPORTS`` and its module imported the first time the name is used (PEP 562). So ``import handmade_agent``
does no I/O and loads no chapter package, and ``from handmade_agent import Agent`` loads the agent chapter
and what it imports, nothing else: a notebook depends only on what it uses (its fingerprint follows the same
table). No heavy library (torch, llama_cpp, openai, sentence_transformers, ipywidgets, numpy) loads at
import either; those load inside the functions that need them (``LocalLLM`` loads llama_cpp only when a
model is created). RAG and the panels are imported from their packages:
``from handmade_agent.rag import Retriever``, ``from handmade_agent.widgets import TracePanel``.

    >>> import handmade_agent
    >>> handmade_agent.Agent(handmade_agent.ScriptedLLM(["Final Answer: 4"]), []).run("2+2?").answer
    '4'
"""
from __future__ import annotations

import importlib as _importlib

__version__ = "0.1.0"

# Which module each public name comes from, in notebook order. A literal table, so tests read it with ast
# (tests/test_architecture.py counts each entry as an import of the top level; tests/notebook_fingerprint.py
# resolves a notebook's `from handmade_agent import Agent` to the module that defines Agent).
_EXPORTS: dict[str, tuple[str, ...]] = {
    # 00 setup and the model
    ".errors": ("HandmadeAgentError", "ConfigError", "LLMError", "ScriptExhausted", "ModelNotFound", "FormatError",
                "ToolError", "StateError"),
    ".llm": ("LLM", "Completion", "Message", "ToolCall", "Usage", "ScriptedLLM", "OpenAIChat"),
    ".local": ("LocalLLM",),
    # 01 tools
    ".tools": ("Tool", "ToolRegistry", "ToolResult", "tool"),
    ".toolbox": ("default_registry",),
    # 02 the ReAct protocol
    ".react": ("Action", "FinalAnswer", "parse", "build_system_prompt"),
    # 03 the agent loop
    ".agent": ("Agent", "Step", "RunResult"),
    # 04 the observer (events are handmade_agent.agent.events: its FinalAnswer event is not react's FinalAnswer)
    ".observers": ("ConsolePrinter", "TraceRecorder", "Trace", "TraceSummary", "JSONLLogger", "read_trace",
                   "ThresholdAlerts"),
    # 05 memory and persistence
    ".memory": ("ConversationMemory", "SummaryMemory"),
    ".storage": ("save_state", "load_state", "save_agent", "load_agent", "SQLiteStore"),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = list(_MODULE_OF)


def __getattr__(name: str) -> object:
    """The public ``name``, its module imported on first use (then a plain attribute: no second lookup)."""
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
