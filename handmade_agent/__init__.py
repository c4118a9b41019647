"""handmade_agent: the finished package the course notebooks build, one sub-package per chapter.

    00 llm, grammar, local, serve   01 tools, toolbox   02 react   03 agent   04 observers
    05 memory, storage           06 rag              widgets, teaching, cli

This module re-exports what a user needs, in notebook order. Importing it does no I/O and loads
no heavy library (torch, llama_cpp, openai, sentence_transformers, ipywidgets, numpy); those load
inside the functions that need them. ``LocalLLM`` is named here but its module loads llama_cpp
only when a model is created. RAG and the panels are imported from their packages:
``from handmade_agent.rag import Retriever``, ``from handmade_agent.widgets import TracePanel``.

    >>> import handmade_agent
    >>> handmade_agent.Agent(handmade_agent.ScriptedLLM(["Final Answer: 4"]), []).run("2+2?").answer
    '4'
"""
# 00 setup and the model
from .errors import (ConfigError, FormatError, HandmadeAgentError, LLMError, ModelNotFound,
                     ScriptExhausted, StateError, ToolError)
from .llm import LLM, Completion, Message, OpenAIChat, ScriptedLLM, ToolCall, Usage
from .local import LocalLLM
# 01 tools
from .tools import Tool, ToolRegistry, ToolResult, tool
from .toolbox import default_registry
# 02 the ReAct protocol
from .react import Action, FinalAnswer, build_system_prompt, parse
# 03 the agent loop
from .agent import Agent, RunResult, Step
# 04 the observer (events are handmade_agent.agent.events: its FinalAnswer event is not react's FinalAnswer)
from .observers import ConsolePrinter, JSONLLogger, ThresholdAlerts, Trace, TraceRecorder, TraceSummary, read_trace
# 05 memory and persistence
from .memory import ConversationMemory, SummaryMemory
from .storage import SQLiteStore, load_agent, load_state, save_agent, save_state

__version__ = "0.1.0"

__all__ = [
    "HandmadeAgentError", "ConfigError", "LLMError", "ScriptExhausted", "ModelNotFound", "FormatError",
    "ToolError", "StateError",
    "LLM", "Completion", "Message", "ToolCall", "Usage", "ScriptedLLM", "OpenAIChat", "LocalLLM",
    "Tool", "ToolRegistry", "ToolResult", "tool", "default_registry",
    "Action", "FinalAnswer", "parse", "build_system_prompt",
    "Agent", "Step", "RunResult",
    "ConsolePrinter", "TraceRecorder", "Trace", "TraceSummary", "JSONLLogger", "read_trace", "ThresholdAlerts",
    "ConversationMemory", "SummaryMemory", "save_state", "load_state", "save_agent", "load_agent", "SQLiteStore",
]
