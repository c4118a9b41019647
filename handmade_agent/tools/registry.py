"""Tools: what a model can call. ``Tool``, the ``@tool`` decorator, and ``ToolRegistry``.

To a model a tool is a name, a description and a JSON Schema of its
parameters; to Python it is a function. ``@tool`` builds the schema from type
hints and the docstring (``schema.py``); a ``Tool`` whose schema is malformed (``"type": 5``,
``{"a": true}``) is refused when made, naming the fault (``schema_check.py``). ``ToolRegistry.call`` is the one
place a model's request turns into running code, so it never raises: an
unknown name, bad arguments (``arguments.py``, ``coercion.py``), an exception, a time-out or a
denied approval all come back as a ``ToolResult`` whose ``content`` tells the
model what went wrong and what to do.

A tool that needs to know about the run (the user's own question, the time left) asks for a
``RunContext`` (``context.py``): ``Tool(context_arg=...)``, or with ``@tool`` a parameter annotated
``RunContext``. The registry passes it by keyword; it is never in the schema, so a model cannot set it.

Deliberately left out: killing a runaway tool. Python cannot stop a thread, so
a timed-out tool keeps running in a daemon thread while the registry returns at
once; tools that may hang for real belong in a subprocess.

    >>> @tool
    ... def add(a: int, b: int) -> int:
    ...     "Add two integers."
    ...     return a + b
    >>> ToolRegistry([add]).call("Add", {"a": "2", "b": 3}).content
    '5'
"""
from __future__ import annotations

import difflib
import functools
import inspect
import json
import re
import threading
import time
import typing
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from .arguments import parse_arguments
from .coercion import ArgumentError, coerce_arguments, normalize_name
from ..errors import ToolError
from .execution import ToolTimeout, clean_output, run_with_timeout, shorten, to_text
from .context import RunContext
from .schema import enum_converters, parameters_schema, parse_docstring, type_text
from .schema_check import parameters_problem

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # what the OpenAI tools API accepts


@dataclass
class Tool:
    """A function plus what a model needs to know to call it. Calling the Tool calls the function."""
    name: str
    description: str
    parameters: dict
    fn: Callable[..., Any]
    side_effects: bool = False   # needs the registry's approval hook before it runs
    timeout: float | None = 5.0  # seconds; None runs inline with no cut-off
    # the keyword under which fn receives the run's RunContext (the user's question, run id, step, deadline):
    # never in the schema, so the model cannot set it (knowledge_search wants the asker's own words)
    context_arg: str | None = None
    # a worked example of using this tool, as plain data (question, calls with thought/tool/args/result, thought,
    # answer; chapter 02's Example has these fields): the ReAct prompt shows it to an agent offered this tool
    example: Any = None
    # answers questions of many kinds (a calculator, a search, another agent): the fit gate (agent/tool_fit.py) cannot
    # tell from the question whether it fits, so a toolset holding one is never gated
    broad: bool = False

    def __post_init__(self) -> None:
        if not _NAME.match(self.name or ""):
            raise ToolError(f"tool name {self.name!r} must be 1-64 letters, digits, '_' or '-' "
                            "(the OpenAI tools format requires it); pick a name like 'get_weather'.")
        if not isinstance(self.parameters, dict) or self.parameters.get("type", "object") != "object":
            raise ToolError(f"{self.name}: parameters must be a JSON Schema object "
                            '{"type": "object", "properties": {...}, "required": [...]}.')
        self.parameters = {"type": "object", "properties": {}, "required": [], **self.parameters}
        if problem := parameters_problem(self.parameters):  # refused here, not as a TypeError inside Agent.run
            raise ToolError(f"{self.name}: its parameters schema cannot be read: {problem}.")
        if self.context_arg and self.context_arg in self.parameters["properties"]:
            raise ToolError(f"{self.name}: context_arg {self.context_arg!r} is also a parameter the model fills; "
                            "the run context comes from the agent, so remove it from the schema.")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def schema(self) -> dict:
        """This tool in the OpenAI ``tools`` format."""
        return {"type": "function", "function": {
            "name": self.name, "description": self.description, "parameters": self.parameters}}

    def signature(self) -> str:
        """A one-line, Python-like summary: ``get_weather(city: string, date: "today" | "tomorrow" = "today")``."""
        parts = []
        for pname, schema in self.parameters["properties"].items():
            text = f"{pname}: {type_text(schema)}"
            if pname not in self.parameters["required"] and "default" in schema:
                text += " = " + json.dumps(schema["default"], ensure_ascii=False)
            elif pname not in self.parameters["required"]:
                text += " (optional)"
            parts.append(text)
        return f"{self.name}({', '.join(parts)})"


def tool(fn: Callable | None = None, *, name: str | None = None, description: str | None = None,
         side_effects: bool = False, timeout: float | None = 5.0, example: Any = None, broad: bool = False) -> Any:
    """Turn a function into a ``Tool``; use as ``@tool`` or ``@tool(name=..., side_effects=True)``.

    The description is the docstring's text before its ``Args:`` section;
    parameter descriptions come from ``Args:``; the schema from type hints. A parameter annotated
    ``RunContext`` is left out of the schema and receives the run's context (``context_arg``).
    """
    def build(f: Callable) -> Tool:
        summary, arg_docs = parse_docstring(inspect.getdoc(f))
        text = description or summary
        if not text:
            raise ToolError(f"{f.__name__} has no docstring. A model chooses tools by their description: "
                            "write one (or pass description=...).")
        context_arg = _context_parameter(f)
        parameters = parameters_schema(_without(f, context_arg) if context_arg else f, arg_docs)
        run = f
        if converters := enum_converters(f):  # JSON carries the Enum's value; the function wants the member
            @functools.wraps(f)
            def run(*args: Any, **kwargs: Any) -> Any:
                for key, kind in converters.items():
                    if key in kwargs and kwargs[key] is not None and not isinstance(kwargs[key], kind):
                        kwargs[key] = kind(kwargs[key])
                return f(*args, **kwargs)
        return Tool(name or f.__name__, text, parameters, run, side_effects, timeout, context_arg, example, broad)
    return build(fn) if fn is not None else build


def _context_parameter(f: Callable) -> str | None:
    """The name of ``f``'s parameter annotated ``RunContext`` (or ``RunContext | None``), if any."""
    try:
        hints = typing.get_type_hints(f)
    except Exception:  # unresolvable hints: parameters_schema says what is wrong
        return None
    for pname, hint in hints.items():
        if pname != "return" and (hint is RunContext or RunContext in typing.get_args(hint)):
            return pname
    return None


def _without(f: Callable, pname: str) -> Callable:
    """``f`` as the schema builder should see it: without the parameter ``pname``."""
    sig = inspect.signature(f)

    @functools.wraps(f)
    def shown(*args: Any, **kwargs: Any) -> Any:
        return f(*args, **kwargs)
    shown.__signature__ = sig.replace(parameters=[p for p in sig.parameters.values() if p.name != pname])
    shown.__annotations__ = {k: v for k, v in getattr(f, "__annotations__", {}).items() if k != pname}
    return shown


@dataclass
class ToolResult:
    """What a call produced. ``content`` is always the observation text to show the model."""
    ok: bool
    content: str
    error: str | None = None     # one line: what went wrong (None when ok)
    duration: float = 0.0        # seconds, including validation
    status: str = "ok"           # ok | unknown_tool | invalid_arguments | denied | error | timeout
    tool: str | None = None      # the registered name the call resolved to
    truncated: bool = False      # the output was cut to the registry's max_chars

    @property
    def timed_out(self) -> bool:
        return self.status == "timeout"

    def __str__(self) -> str:
        return self.content


class ToolRegistry:
    """The tools an agent may use, looked up forgivingly and called safely.

    ``approve(tool, args) -> bool`` is asked before any ``side_effects`` tool
    runs; without a hook such tools are refused (safe by default).
    ``max_chars`` caps what one result may put into the model's context.
    """

    def __init__(self, tools: Iterable[Tool | Callable] = (), approve: Callable[[Tool, dict], bool] | None = None,
                 *, max_chars: int = 2000):
        self._tools: dict[str, Tool] = {}
        self.approve = approve
        self.max_chars = max_chars
        self._abandoned: list[threading.Thread] = []
        for t in tools:
            self.add(t)

    @staticmethod
    def _key(name: str) -> str:
        name = name.strip().strip("`'\"").removeprefix("functions.")
        return normalize_name(name.removesuffix("()"))

    def add(self, tool_: Tool | Callable) -> None:
        """Register a Tool (a plain documented function is wrapped with ``@tool`` first)."""
        if not isinstance(tool_, Tool):
            if not callable(tool_):
                raise ToolError(f"cannot register {tool_!r}: give a Tool or a documented function.")
            tool_ = tool(tool_)
        key = self._key(tool_.name)
        if key in self._tools:
            raise ToolError(f"a tool named {self._tools[key].name!r} is already registered; "
                            "names must differ by more than case or separators.")
        self._tools[key] = tool_

    def get(self, name: str) -> Tool | None:
        """The tool called ``name``, ignoring case and separators (``Get-Weather`` finds ``get_weather``)."""
        return self._tools.get(self._key(name)) if isinstance(name, str) else None

    def names(self) -> list[str]:
        return [t.name for t in self._tools.values()]

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools.values()))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, (str, Tool)) and self.get(name.name if isinstance(name, Tool) else name) is not None

    def describe(self) -> str:
        """The tool list as text for a ReAct system prompt: signature, description, argument notes."""
        blocks = []
        for t in self._tools.values():
            lines = [t.signature(), f"    {t.description}".replace("\n", "\n    ")]
            lines += [f"    - {p}: {s['description']}" for p, s in t.parameters["properties"].items()
                      if s.get("description")]
            if t.side_effects:
                lines.append("    (has side effects: runs only if the user approves)")
            blocks.append("\n".join(lines))
        return "\n".join(blocks)

    def schemas(self) -> list[dict]:
        """All tools in the OpenAI ``tools`` format, for native function calling."""
        return [t.schema() for t in self._tools.values()]

    def still_running(self) -> int:
        """How many timed-out tool threads are still running in the background (they cannot be killed)."""
        self._abandoned = [t for t in self._abandoned if t.is_alive()]
        return len(self._abandoned)

    def call(self, name: str, args: dict | str | None = None, *, context: RunContext | None = None) -> ToolResult:
        """Validate, approve, run with a time-out, and clean the output. Never raises.

        ``context`` (the run's ``RunContext``) reaches only a tool that names a ``context_arg``; its deadline
        shortens the tool's time-out, so a tool cannot outlast the run's time budget.
        """
        t0 = time.perf_counter()

        def fail(status: str, error: str, content: str, resolved: str | None = None) -> ToolResult:
            # every error text is bounded: a tool's exception or a 1 MB name must not flood the context
            return ToolResult(False, "Error: " + shorten(content, self.max_chars), shorten(error),
                              time.perf_counter() - t0, status, resolved)

        try:
            t = self.get(name)
            if t is None:
                return fail("unknown_tool", f"unknown tool {shorten(repr(name), 80)}", self._unknown_text(name))
            try:
                kwargs = coerce_arguments(t.parameters, parse_arguments(t.parameters, args))
            except ArgumentError as e:
                text = (f"invalid arguments for {t.name}:\n" + "\n".join(f"- {p}" for p in e.problems)
                        + f"\nCall it again with arguments that fit: {t.signature()}")
                return fail("invalid_arguments", str(e), text, t.name)
            if t.context_arg and context is not None:
                kwargs[t.context_arg] = context
            if t.side_effects:
                denied = self._denied(t, kwargs)
                if denied:
                    return fail("denied", denied, f"{denied}. Do not call {t.name} again with these arguments; "
                                "continue without it or tell the user what you wanted to do.", t.name)
            timeout = _time_limit(t.timeout, context)
            try:
                value = run_with_timeout(t.fn, kwargs, timeout, t.name)
            except ToolTimeout as e:
                self._abandoned.append(e.thread)
                return fail("timeout", f"timed out after {timeout:.3g} s",
                            f"{t.name} did not finish within {timeout:.3g} s and was cut off. Try simpler "
                            "input, or answer without this tool.", t.name)
            except Exception as e:  # the tool's own failure becomes the model's observation
                if isinstance(e, ToolError):
                    return fail("error", str(e), f"{t.name}: {shorten(e)}", t.name)
                return fail("error", f"{type(e).__name__}: {e}", f"{t.name} failed with {type(e).__name__}: "
                            f"{shorten(e)}. Check the arguments and try again, or answer without this tool.", t.name)
            text, cut = clean_output(to_text(value), self.max_chars)
            return ToolResult(True, text, None, time.perf_counter() - t0, "ok", t.name, cut)
        except Exception as e:  # a bug in the registry itself must not crash the agent either
            return fail("error", f"{type(e).__name__}: {e}", f"the tool call could not be handled "
                        f"({type(e).__name__}: {e}).")

    def _unknown_text(self, name: Any) -> str:
        available = ", ".join(self.names()) or "(none)"
        keys = {self._key(n): n for n in self.names()}
        typed = self._key(name) if isinstance(name, str) and len(name) <= 200 else ""  # no name is that long
        close = difflib.get_close_matches(typed, list(keys), n=1, cutoff=0.6)
        hint = f" Did you mean {keys[close[0]]!r}?" if close else ""
        return f"there is no tool named {shorten(repr(name), 80)}.{hint} Available tools: {available}."

    def _denied(self, t: Tool, kwargs: dict) -> str | None:
        if self.approve is None:
            return f"{t.name} has side effects and this registry has no approval hook, so it was not run"
        try:
            approved = self.approve(t, dict(kwargs))
        except Exception as e:  # a broken hook must deny, never approve
            return f"the approval check for {t.name} failed ({type(e).__name__}: {e}), so it was not run"
        return None if approved else f"the user did not approve running {t.name}"


def _time_limit(timeout: float | None, context: RunContext | None) -> float | None:
    """The tool's own time-out, shortened to what is left of the run's budget (never 0: that means no cut-off)."""
    left = context.remaining() if context is not None else None
    if left is None:
        return timeout
    return max(0.001, left if not timeout else min(timeout, left))
