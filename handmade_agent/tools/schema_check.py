"""Is a tool's parameters schema one the registry, the prompts and the grammar can read? Checked when a Tool is made.

A hand-written tool or an MCP server can bring any JSON as a schema. The code that reads it (``type_text``
for the prompt, ``coerce_arguments``, the grammar builder) assumes the shapes JSON Schema describes: a
sub-schema is an object, ``type`` a name or a list of names, ``enum`` a list, ``items`` one schema. Anything
else used to surface as a ``TypeError`` inside ``Agent.run``, before the first model call, with no word of
which tool was at fault. ``parameters_problem`` names the first fault and where it is, so the ``Tool``
can be refused when it is made.

Deliberately left out: the rest of JSON Schema's rules (``$ref`` resolution, ``pattern`` syntax, formats);
those keywords are ignored by every reader here, so they cannot break a run. Boolean sub-schemas
(``"items": true``) are valid JSON Schema but refused: no reader here handles them, and ``{}`` says the same.

    >>> parameters_problem({"type": "object", "properties": {"a": {"type": 5}}})
    'properties.a.type is 5; use one of string, number, integer, boolean, object, array, null (or a list of them)'
"""
from __future__ import annotations

import json
from typing import Any

JSON_TYPES = ("string", "number", "integer", "boolean", "object", "array", "null")
MAX_NESTING = 32  # sub-schemas inside sub-schemas; deeper is refused before Python's recursion limit
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf")
_COUNTS = ("minLength", "maxLength", "minItems", "maxItems")
_TEXTS = ("description", "title")
_VALUES = ("default", "const")


def parameters_problem(schema: Any) -> str | None:
    """What makes ``schema`` (a tool's parameters) unreadable, as ``where is what; what to use``, or None."""
    return _problem(schema, "", 0)


def _shown(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = type(value).__name__
    return text if len(text) <= 40 else text[:40] + "…"


def _problem(node: Any, where: str, depth: int) -> str | None:
    here = where or "the schema"
    if depth > MAX_NESTING:
        return f"{here} nests more than {MAX_NESTING} sub-schemas deep; flatten the parameters"
    if not isinstance(node, dict):
        return f"{here} is {_shown(node)}, not a schema object; use {{}} for any value"
    prefix = f"{where}." if where else ""
    kinds = node.get("type")
    if "type" in node and not (kinds in JSON_TYPES or isinstance(kinds, list) and kinds
                                and all(isinstance(k, str) and k in JSON_TYPES for k in kinds)):
        return f"{prefix}type is {_shown(kinds)}; use one of {', '.join(JSON_TYPES)} (or a list of them)"
    if "enum" in node and not (isinstance(node["enum"], list) and node["enum"]):
        return f"{prefix}enum is {_shown(node['enum'])}; use a non-empty list of the allowed values"
    for key in [k for k in ("enum", *_VALUES) if k in node]:
        try:
            json.dumps(node[key], allow_nan=False)
        except (TypeError, ValueError):
            return f"{prefix}{key} holds {_shown(node[key])}, which is not JSON; use JSON values"
    if text := next((k for k in _TEXTS if k in node and not isinstance(node[k], str)), None):
        return f"{prefix}{text} is {_shown(node[text])}; use a string"
    count = next((k for k in _COUNTS if k in node and (isinstance(node[k], bool) or not isinstance(node[k], int)
                                                          or node[k] < 0)), None)
    if count:  # the grammar spells these out as repetition counts: -1 or "x" breaks it
        return f"{prefix}{count} is {_shown(node[count])}; use a whole number, 0 or more"
    required = node.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        return f"{prefix}required is {_shown(required)}; use a list of parameter names"
    return _children_problem(node, prefix, depth)


def _children_problem(node: dict, prefix: str, depth: int) -> str | None:
    """The first fault in ``node``'s sub-schemas (properties, items, anyOf ..., additionalProperties)."""
    properties = node.get("properties", {})
    if not isinstance(properties, dict):
        return f"{prefix}properties is {_shown(properties)}; use an object of name: schema"
    children = [(f"{prefix}properties.{name}", sub) for name, sub in properties.items()]
    if "items" in node:
        if isinstance(node["items"], list):
            return f"{prefix}items is a list; use one schema that every item fits"
        children.append((f"{prefix}items", node["items"]))
    extra = node.get("additionalProperties", True)
    if not isinstance(extra, bool):
        children.append((f"{prefix}additionalProperties", extra))
    for key in [k for k in _SCHEMA_LISTS if k in node]:
        if not (isinstance(node[key], list) and node[key]):
            return f"{prefix}{key} is {_shown(node[key])}; use a non-empty list of schemas"
        children += [(f"{prefix}{key}[{i}]", sub) for i, sub in enumerate(node[key])]
    for where, sub in children:
        if problem := _problem(sub, where, depth + 1):
            return problem
    return None
