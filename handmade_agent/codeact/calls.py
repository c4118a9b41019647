"""Calls: ``print``, the listed functions, the methods of ``methods.py``, and the registry's tools.

A call is decided by the name written in the program, never by a value: ``x()`` with ``x`` a variable is
refused, since no value is a function. A tool is called by keyword (``get_weather(city="北京")``); arguments given
by position fill the tool's parameters in the order of its signature, as Python would (the 1.5B wrote
``weekday("2024-07-04")`` for 5 of the suite's 7 weekday tasks and, told to use keywords, answered with that
message). Either way the call goes through ``ToolRegistry.call`` exactly as a JSON tool call would: validated, coerced, approved, timed
out. On success the program sees the result as data when it is JSON (``json.loads``), otherwise as text;
on failure the program stops, and the tool's own error text becomes the model's observation.

Deliberately left out: retries and catching a tool's failure inside the program (there is no ``try``); the
model sees the error and writes the next program.

    >>> tool_value('{"high_c": 27}'), tool_value("sunny")
    ({'high_c': 27}, 'sunny')
"""
from __future__ import annotations

import ast
import json
from typing import Any

from ..tools import Tool
from .arguments import expect
from .formatting import text_of
from .functions import FUNCTIONS, call_function
from .limits import ProgramError
from .machine import Machine, ToolCallRecord
from .methods import call_method


def call(m: Machine, node: ast.Call) -> Any:
    func = node.func
    if isinstance(func, ast.Attribute):  # value.method(...): the value is evaluated, the method looked up by type
        target = m.value(func.value)
        return call_method(m.budget, target, func.attr, *arguments(m, node))
    if not isinstance(func, ast.Name):
        raise ProgramError("only tools and the listed functions can be called, by their names")
    name = func.id
    if name == "print":
        return print_values(m, *arguments(m, node))
    if name in FUNCTIONS:
        return call_function(m.budget, name, *arguments(m, node))
    tool = m.registry.get(name) if m.registry is not None else None
    if tool is not None:
        return call_tool(m, tool, node)
    if name in m.variables:
        raise ProgramError(f"`{name}` is a value, not a function; only tools and the listed functions can be called")
    tools = ", ".join(m.registry.names()) if m.registry is not None else ""
    raise ProgramError(f"there is no tool or function named `{name}`. Tools: {tools or '(none)'}. "
                       f"Functions: print, {', '.join(FUNCTIONS)}")


def arguments(m: Machine, node: ast.Call) -> tuple[list, dict]:
    args = [m.value(a) for a in node.args]
    kwargs: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg in kwargs:
            raise ProgramError(f"the argument `{keyword.arg}` is given twice")
        kwargs[keyword.arg] = m.value(keyword.value)
    return args, kwargs


def print_values(m: Machine, args: list, kwargs: dict) -> None:
    expect("print", args, kwargs, 0, m.limits.max_items, ("sep", "end"))
    sep, end = kwargs.get("sep"), kwargs.get("end")
    sep, end = " " if sep is None else sep, "\n" if end is None else end  # None means the default, as in Python
    if type(sep) is not str or type(end) is not str:
        raise ProgramError("print's sep and end must be text, e.g. print(a, b, sep=\", \")")
    for i, value in enumerate(args):
        if m.output.cut:  # nothing more is kept, so nothing more is formatted
            return
        m.output.write(sep if i else "")
        m.output.write(text_of(value, m.output.room(), m.limits.max_depth))
    m.output.write(end)


def call_tool(m: Machine, tool: Tool, node: ast.Call) -> Any:
    args, kwargs = arguments(m, node)
    names = list(tool.parameters.get("properties", {}))
    if len(args) > len(names):
        raise ProgramError(f"{tool.name} takes at most {len(names)} arguments, {len(args)} were given: "
                           f"{tool.signature()}")
    for name, value in zip(names, args):
        if name in kwargs:
            raise ProgramError(f"the argument `{name}` is given twice")
        kwargs[name] = value
    m.budget.walk(kwargs)  # the registry goes through them all (validation, JSON)
    with m.budget.tool_call():
        result = m.registry.call(tool.name, dict(kwargs), context=m.context)
    m.tool_calls.append(ToolCallRecord(tool.name, kwargs, result))
    if not result.ok:
        raise ProgramError(result.content.removeprefix("Error: "))
    return tool_value(result.content)


def tool_value(content: str) -> Any:
    """What the program sees of a tool's result: the JSON value if the text is JSON, else the text itself."""
    try:
        return json.loads(content)
    except (ValueError, RecursionError):  # not JSON, or JSON nested past Python's own limit
        return content
