"""Check tool arguments against a JSON Schema, converting values where the meaning is unambiguous.

Small models send ``"10"`` for an integer, ``"True"`` for a boolean, ``"Today"``
for the enum value ``"today"``, ``{"City": ...}`` for ``city``. ``coerce_arguments``
accepts those and converts them; anything else becomes an ``ArgumentError``
whose ``problems`` name the parameter, what was expected and what came, so the
model can correct itself. Unknown parameters are errors (with a close-match
suggestion), never silently dropped: a misspelt optional parameter would
otherwise change the answer without anyone noticing.

Deliberately left out: full JSON Schema (``$ref``, ``pattern``, ``minimum``...).
This covers the subset that ``schema.py`` generates and hand-written tools use.

    >>> coerce_arguments({"type": "object", "properties": {"n": {"type": "integer"}}}, {"n": "10"})
    {'n': 10}
"""
from __future__ import annotations

import difflib
import json
import math
import re
from typing import Any

from ..errors import ToolError

_INT = re.compile(r"^[+-]?\d+$")
_TRUE, _FALSE = {"true", "yes", "y", "1", "on"}, {"false", "no", "n", "0", "off"}


class ArgumentError(ToolError):
    """Arguments that do not fit the schema; ``problems`` is one line per problem."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


class _Mismatch(Exception):
    pass


def json_type_name(value: Any) -> str:
    """The JSON name of a Python value's type: 'string', 'integer', 'array'..."""
    for py, name in ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
                     (dict, "object"), (list, "array"), (tuple, "array"), (type(None), "null")):
        if isinstance(value, py):
            return name
    return type(value).__name__


def describe_expected(schema: dict) -> str:
    """Human text for what a schema accepts: 'integer', "one of 'today', 'tomorrow'", 'array of string'."""
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
    if "anyOf" in schema:
        return " or ".join(describe_expected(s) for s in schema["anyOf"])
    kinds = schema.get("type")
    if kinds is None:
        return "any value"
    kinds = [kinds] if isinstance(kinds, str) else kinds
    names = [f"array of {describe_expected(schema['items'])}" if k == "array" and "items" in schema else k
             for k in kinds]
    return " or ".join(names)


def show_value(value: Any) -> str:
    """A value for an error message: short JSON plus its JSON type, e.g. '"ten" (string)'."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    text = text if len(text) <= 60 else text[:57] + "..."
    return f"{text} ({json_type_name(value)})"


def _coerce_type(kind: str, value: Any, schema: dict, path: str) -> Any:
    if kind == "null":
        if value is None:
            return None
    elif kind == "string":
        if isinstance(value, str):
            return value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)  # a model wrote 2024 for "2024"; the text is unambiguous
    elif kind == "integer":
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str) and _INT.match(value.strip()):
            return int(value.strip())
        if isinstance(value, str):
            try:
                number = float(value)
            except ValueError:
                raise _Mismatch from None
            if number.is_integer():
                return int(number)
    elif kind == "number":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
        if isinstance(value, str):
            try:
                number = float(value.strip())
            except ValueError:
                raise _Mismatch from None
            if math.isfinite(number):
                return number
    elif kind == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            return value.strip().lower() in _TRUE
    elif kind == "array":
        if isinstance(value, str) and value.strip().startswith("["):
            value = _loads(value)
        if isinstance(value, (list, tuple)):
            items = schema.get("items", {})
            return [coerce_value(items, v, f"{path}[{i}]") for i, v in enumerate(value)]
    elif kind == "object":
        if isinstance(value, str) and value.strip().startswith("{"):
            value = _loads(value)
        if isinstance(value, dict):
            if "properties" in schema:
                return coerce_arguments(schema, value, prefix=f"{path}.")
            extra = schema.get("additionalProperties")
            return {k: coerce_value(extra, v, f"{path}.{k}") for k, v in value.items()} if isinstance(
                extra, dict) else value
    raise _Mismatch


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        raise _Mismatch from None


def coerce_value(schema: dict, value: Any, path: str) -> Any:
    """Check one value against its schema and convert it if safe; raises ArgumentError."""
    if "anyOf" in schema:
        for option in schema["anyOf"]:
            try:
                return coerce_value(option, value, path)
            except ArgumentError:
                continue
        raise ArgumentError([f"parameter {path!r}: expected {describe_expected(schema)}, got {show_value(value)}"])
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else list(kinds or [])
    result, matched = value, not kinds
    for kind in kinds:
        try:
            result, matched = _coerce_type(kind, value, schema, path), True
            break
        except _Mismatch:
            continue
    if matched and "enum" in schema:
        result, matched = _match_enum(schema["enum"], result)
    if not matched:
        hint = ""
        if "enum" in schema and isinstance(value, str):
            close = difflib.get_close_matches(value, [str(v) for v in schema["enum"]], n=1, cutoff=0.5)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ArgumentError([f"parameter {path!r}: expected {describe_expected(schema)}, got {show_value(value)}{hint}"])
    return result


def _match_enum(options: list, value: Any) -> tuple[Any, bool]:
    for option in options:  # True == 1 in Python, but not in JSON
        if option == value and isinstance(option, bool) == isinstance(value, bool):
            return option, True
    if isinstance(value, str):  # "Today" -> "today": same word, other case or padding
        for option in options:
            if isinstance(option, str) and option.lower() == value.strip().lower():
                return option, True
    return value, False


def normalize_name(name: str) -> str:
    """Case- and separator-insensitive key: 'Get-Weather', 'get_weather', 'getWeather' -> 'getweather'."""
    return re.sub(r"[\s_\-.]+", "", name).lower()


def coerce_arguments(schema: dict, args: dict, prefix: str = "") -> dict:
    """Check ``args`` against an object schema; return converted arguments or raise ArgumentError."""
    properties: dict = schema.get("properties", {})
    by_key = {normalize_name(k): k for k in properties}
    problems, out, given = [], {}, set()
    for key, value in args.items():
        name = key if key in properties else by_key.get(normalize_name(str(key)))
        given.add(name)
        if name is None:
            close = difflib.get_close_matches(str(key), list(properties), n=1, cutoff=0.5)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            accepted = ", ".join(properties) or "none"
            problems.append(f"unknown parameter {prefix + str(key)!r}{hint}; accepted parameters: {accepted}")
            continue
        try:
            out[name] = coerce_value(properties[name], value, prefix + name)
        except ArgumentError as e:
            problems.extend(e.problems)
    for name in schema.get("required", []):
        if name not in given:  # given with a bad value is a problem already reported, not a missing one
            expected = describe_expected(properties.get(name, {}))
            problems.append(f"missing required parameter {prefix + name!r} (expected {expected})")
    if problems:
        raise ArgumentError(problems)
    return out
