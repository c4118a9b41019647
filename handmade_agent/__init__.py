"""handmade_agent: the finished package the course notebooks build, re-exported in notebook order.

Importing it does no I/O and loads no heavy library (torch, llama_cpp, openai,
sentence_transformers, ipywidgets, numpy); those load inside the functions that need them.
Heavier chapters (``local``, ``rag``, ``widgets``) are imported from their own modules:
``from handmade_agent.local import LocalLLM``.
"""
# 00 setup and the model
from .errors import (ConfigError, FormatError, HandmadeAgentError, LLMError, ModelNotFound,
                     ScriptExhausted, StateError, ToolError)
from .llm import LLM, Completion, Message, OpenAIChat, ScriptedLLM, ToolCall, Usage
# 01 tools
from .tools import Tool, ToolRegistry, ToolResult, tool
from .toolbox import default_registry
# 02 the ReAct protocol, 03 the agent loop
from .react import Action, FinalAnswer, build_system_prompt, parse
from .steps import RunResult, Step
from .agent import Agent
# 04 the observer (the FinalAnswer *event* stays in handmade_agent.events: the name is react's here)
from .events import (Alert, Event, LLMCallFinished, LLMCallStarted, Observer, ParseFailed, ReplyEdited,
                     RunFinished, RunStarted, ToolFinished, ToolStarted, emit, event_from_dict)
from .observers import (ConsolePrinter, JSONLLogger, ThresholdAlerts, Trace, TraceRecorder, TraceSummary,
                        read_trace, redact)
# 05 memory and persistence
from .memory import ConversationMemory, memory_from_dict
from .summary_memory import SummaryMemory
from .storage import SQLiteStore, load_agent, load_state, save_agent, save_state

__version__ = "0.1.0"

__all__ = [
    "HandmadeAgentError", "ConfigError", "LLMError", "ScriptExhausted", "ModelNotFound", "FormatError",
    "ToolError", "StateError",
    "LLM", "Completion", "Message", "ToolCall", "Usage", "ScriptedLLM", "OpenAIChat",
    "Tool", "ToolRegistry", "ToolResult", "tool", "default_registry",
    "Action", "FinalAnswer", "parse", "build_system_prompt", "Step", "RunResult", "Agent",
    "Event", "Observer", "emit", "event_from_dict", "RunStarted", "LLMCallStarted", "LLMCallFinished",
    "ParseFailed", "ToolStarted", "ToolFinished", "RunFinished", "Alert", "ReplyEdited",
    "ConsolePrinter", "TraceRecorder", "Trace", "TraceSummary", "JSONLLogger", "read_trace", "redact",
    "ThresholdAlerts",
    "ConversationMemory", "SummaryMemory", "memory_from_dict", "save_state", "load_state", "save_agent",
    "load_agent", "SQLiteStore",
]
