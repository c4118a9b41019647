"""JSON Schema for a tool's parameters, built from a Python function's type hints and docstring.

A model only knows a tool through its name, description and parameter
schema, so this is where a Python function becomes something a model can
call. Supported hints: ``str int float bool``, ``list[...]``/``tuple[...]``,
``dict``/``dict[str, ...]``, ``Optional[...]``/``X | None``, ``Literal[...]``
and ``Enum`` (both become ``enum``), ``Annotated[X, "description"]`` and ``Any``.
A parameter with a default is not required. Argument descriptions come from a
Google-style ``Args:`` section or ``:param name:`` lines.

Deliberately left out: nested pydantic models and ``$ref``s, which small models
fill in badly; a tool with such inputs should take a JSON string instead.

    >>> def f(city: str, days: int = 1): ...
    >>> parameters_schema(f)["required"]
    ['city']
"""
from __future__ import annotations

import enum
import inspect
import json
import re
import types
import typing
from typing import Any, Callable

from ..errors import ToolError

_JSON_TYPE = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}
_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Params|Returns?|Raises|Yields?|Examples?|Notes?)\s*:?\s*$")
_PARAM_LINE = re.compile(r"^\s*\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_ARG_SECTIONS = ("args", "arguments", "parameters", "params")
_REST_PARAM = re.compile(r"^\s*:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a docstring into (description, {argument: description}).

    The description is the text before the first section header (``Args:``,
    ``Returns:``...) or doctest line, joined into one paragraph per blank line.
    """
    lines = inspect.cleandoc(doc or "").splitlines()
    desc: list[str] = []
    args: dict[str, str] = {}
    section, current, arg_indent = None, None, 0
    for line in lines:
        stripped = line.strip()
        if header := _SECTION.match(line):
            section, current = header.group(1).lower(), None
        elif stripped.startswith(">>>"):
            section, current = "doctest", None
        elif stripped.startswith(":"):  # reST field list: ":param city: ..."
            section, m = "rest", _REST_PARAM.match(line)
            current = m.group(1) if m else None
            if m:
                args[current] = m.group(2).strip()
        elif section is None:
            desc.append(stripped)
        elif not stripped:
            continue
        elif section == "rest" and current:
            args[current] += " " + stripped
        elif section in _ARG_SECTIONS:
            indent = len(line) - len(line.lstrip())
            m = _PARAM_LINE.match(line)
            if m and (current is None or indent <= arg_indent):
                current, arg_indent = m.group(1), indent
                args[current] = m.group(2).strip()
            elif current is not None:  # continuation line of the previous argument
                args[current] = (args[current] + " " + stripped).strip()
    paragraphs = " ".join(x if x else "\n" for x in desc).split("\n")
    return "\n".join(" ".join(p.split()) for p in paragraphs if p.strip()), args


def type_schema(tp: Any, where: str = "parameter") -> dict:
    """The JSON Schema of one type hint. Raises ToolError for a hint a model could not fill in."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is Any or tp is inspect.Parameter.empty:
        return {}
    if origin is typing.Annotated:
        schema = type_schema(args[0], where)
        notes = [a for a in args[1:] if isinstance(a, str)]
        return {**schema, "description": " ".join(notes)} if notes else schema
    if origin in (typing.Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        inner = type_schema(options[0], where) if len(options) == 1 else {
            "anyOf": [type_schema(a, where) for a in options]}
        if len(options) == len(args):
            return inner
        if isinstance(inner.get("type"), str):  # Optional[int] -> {"type": ["integer", "null"]}
            return {**inner, "type": [inner["type"], "null"],
                    **({"enum": [*inner["enum"], None]} if "enum" in inner else {})}
        return {"anyOf": [inner, {"type": "null"}]}
    if origin is typing.Literal:
        return _enum_schema(list(args))
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return _enum_schema([m.value for m in tp])
    if tp in _JSON_TYPE:
        return {"type": _JSON_TYPE[tp]}
    if tp in (list, tuple, set, frozenset) or origin in (list, tuple, set, frozenset, typing.Sequence):
        items = [a for a in args if a is not Ellipsis]
        if len(set(items)) == 1:
            return {"type": "array", "items": type_schema(items[0], where)}
        return {"type": "array"}
    if tp is dict or origin is dict:
        if len(args) == 2 and args[1] is not Any:
            return {"type": "object", "additionalProperties": type_schema(args[1], where)}
        return {"type": "object"}
    raise ToolError(f"{where}: the type hint {tp!r} has no JSON Schema a model can fill in. "
                    "Use str, int, float, bool, list[...], dict, Optional[...], Literal[...] or an Enum.")


def type_text(schema: dict) -> str:
    """Short type text for prompts: string, integer, array[string], "a" | "b"."""
    if "enum" in schema:
        return " | ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
    if "anyOf" in schema:
        return " | ".join(type_text(s) for s in schema["anyOf"])
    kinds = schema.get("type", "any")
    kinds = [kinds] if isinstance(kinds, str) else kinds
    return " | ".join(f"array[{type_text(schema['items'])}]" if k == "array" and "items" in schema else k
                      for k in kinds)


def _enum_schema(values: list) -> dict:
    kinds = {_JSON_TYPE.get(type(v)) for v in values}
    return {"type": kinds.pop(), "enum": values} if len(kinds) == 1 and None not in kinds else {"enum": values}


def _jsonable(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, tuple):
        value = list(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, list) and all(_jsonable(v) is not _NOT_JSON for v in value):
        return [_jsonable(v) for v in value]
    return _NOT_JSON


_NOT_JSON = object()


def parameters_schema(fn: Callable, arg_docs: dict[str, str] | None = None) -> dict:
    """The ``{"type": "object", "properties": ..., "required": [...]}`` schema of ``fn``'s parameters."""
    if arg_docs is None:
        arg_docs = parse_docstring(inspect.getdoc(fn))[1]
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except NameError as e:  # string annotations name a type that is not importable where fn was defined
        raise ToolError(f"{fn.__name__}: cannot resolve its type hints ({e}); import the types they use at the "
                        "top of the module that defines the function.") from None
    properties: dict[str, dict] = {}
    required: list[str] = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY):
            raise ToolError(f"{fn.__name__}: parameter {p.name!r} is {p.kind.description}; a tool needs plain "
                            "named parameters because a model passes arguments by name.")
        schema = type_schema(hints.get(p.name, Any), f"{fn.__name__}({p.name})")
        if p.name in arg_docs and "description" not in schema:
            schema["description"] = arg_docs[p.name]
        if p.default is p.empty:
            required.append(p.name)
        elif (default := _jsonable(p.default)) is not _NOT_JSON:
            schema["default"] = default
        properties[p.name] = schema
    return {"type": "object", "properties": properties, "required": required}


def enum_converters(fn: Callable) -> dict[str, type[enum.Enum]]:
    """Parameters annotated with an Enum class: the registry turns their JSON values back into members."""
    found = {}
    for name, hint in typing.get_type_hints(fn).items():  # parameters_schema has already checked they resolve
        options = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)
        for option in options:
            if isinstance(option, type) and issubclass(option, enum.Enum):
                found[name] = option
    found.pop("return", None)
    return found
