"""Turn what a model sent as tool arguments into a dict: a dict, JSON text, plain text or a bare value.

Native tool calls carry arguments as JSON text; text protocols (ReAct) carry
whatever the model typed. ``parse_arguments`` accepts a JSON object, and for a
tool with one obvious parameter also a bare value (``"北京"`` for
``get_weather(city)``); checking the values is ``coercion.py``'s job.

Deliberately left out: guessing positional meaning for several parameters
(``"2024-05-20, 150"``); that is ambiguous, so it is an error the model can fix.

    >>> parse_arguments({"properties": {"city": {"type": "string"}}, "required": ["city"]}, "北京")
    {'city': '北京'}
"""
from __future__ import annotations

import json
from typing import Any

from .coercion import ArgumentError, normalize_name, show_value

_NOT_JSON = object()  # "this text is not JSON", distinct from a JSON null


def shorthand_parameter(schema: dict) -> str | None:
    """The parameter a bare value fills: the only required one, else the only one; None if ambiguous."""
    required, properties = schema.get("required", []), schema.get("properties", {})
    if len(required) == 1:
        return required[0]
    return next(iter(properties)) if len(properties) == 1 and not required else None


def parse_arguments(schema: dict, raw: Any) -> dict:
    """Turn what a model sent (dict, JSON text, plain text, a bare number) into an arguments dict."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    target = shorthand_parameter(schema)
    if isinstance(raw, str):
        text = raw.strip()
        try:
            parsed: Any = json.loads(text)
        except ValueError:
            parsed = _NOT_JSON
        if isinstance(parsed, dict):
            raw = parsed
        elif target is not None:
            kind = schema["properties"][target].get("type")
            wants_text = kind == "string" or (isinstance(kind, list) and "string" in kind)
            # "2+3" stays text for a string parameter; "\"Beijing\"" loses its quotes; "10" feeds an integer
            value = parsed if parsed is not _NOT_JSON and (not wants_text or isinstance(parsed, str)) else text
            return {target: value}
        else:
            names = ", ".join(schema.get("properties", {})) or "no parameters"
            raise ArgumentError([f"arguments must be a JSON object with the parameters ({names}), "
                                 f"got the text {show_value(text)}"])
    if isinstance(raw, dict):
        properties = schema.get("properties", {})
        if len(raw) == 1 and len(properties) == 1 and not any(
                normalize_name(str(k)) in {normalize_name(p) for p in properties} for k in raw):
            # a one-parameter tool called with a wrong key ({"input": ...}, {"query": ...}): intent is clear
            return {next(iter(properties)): next(iter(raw.values()))}
        return raw
    if target is not None:
        return {target: raw}
    raise ArgumentError([f"arguments must be a JSON object, got {show_value(raw)}"])

