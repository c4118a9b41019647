"""handmade_agent: the finished package the course notebooks build, in notebook order.

Importing it does no I/O and loads no heavy library (torch, llama_cpp, openai,
sentence_transformers, ipywidgets); those load inside the functions that need them.
"""
from .errors import (ConfigError, FormatError, HandmadeAgentError, LLMError, ModelNotFound,
                     ScriptExhausted, StateError, ToolError)
from .llm import LLM, Completion, Message, OpenAIChat, ScriptedLLM, ToolCall, Usage

__version__ = "0.1.0"

__all__ = [
    "HandmadeAgentError", "ConfigError", "LLMError", "ScriptExhausted", "ModelNotFound", "FormatError",
    "ToolError", "StateError",
    "LLM", "Completion", "Message", "ToolCall", "Usage", "ScriptedLLM", "OpenAIChat",
]
