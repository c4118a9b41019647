"""Chapter 01: what a tool is to a model, and how the agent calls one safely.

A ``Tool`` is a name, a description and a JSON Schema of its arguments, plus the
Python function behind it. ``@tool`` builds one from type hints and a docstring
(``schema.py``), and a schema the readers could not read is refused when the tool is
made (``schema_check.py``); ``ToolRegistry`` lists tools for the model and calls them:
arguments parsed (``arguments.py``) and coerced to the schema (``coercion.py``),
the function run with a time-out and its output cleaned (``execution.py``). A tool that needs the
user's question or the time left asks for the run's ``RunContext`` (``context.py``).

    >>> @tool
    ... def shout(text: str) -> str:
    ...     '''Say it loudly.'''
    ...     return text.upper()
    >>> ToolRegistry([shout]).call("shout", {"text": "hi"}).content
    'HI'
"""
from .coercion import ArgumentError
from .context import RunContext
from .execution import ToolTimeout, to_text
from .registry import Tool, ToolRegistry, ToolResult, tool
from .schema import parameters_schema, type_schema, type_text

__all__ = ["to_text", "Tool", "tool", "ToolRegistry", "ToolResult", "ArgumentError", "ToolTimeout", "type_schema",
           "type_text", "parameters_schema", "RunContext"]
