"""The package's JSON-Schema-to-GBNF writer against llama.cpp's own converter (the reference), string by string.

For every tool schema the course ships (its toolbox, the 46 unfamiliar tools) and for schemas of every
feature the JSON part of ``grammar`` covers, candidate replies (valid arguments, and near misses: a key missing, an
extra key, keys swapped, wrong types, spaces, trailing commas) must be accepted by both grammars or by
neither. The candidates are generated from each schema, not hand-picked. No model loaded; llama.cpp's
converter is pure Python inside llama-cpp-python (skipped where it is not installed).
"""
from __future__ import annotations

import datetime
import itertools
import json
from pathlib import Path

import pytest

from gbnf_match import matches, parse_gbnf
from handmade_agent.grammar import _closed, argument_rules
from handmade_agent.grammar import schema_rules
from handmade_agent.toolbox import default_registry

ROOT = Path(__file__).resolve().parents[1]
FEATURES = [
    {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}, "c": {"type": "number"},
                                      "d": {"type": "boolean"}}, "required": ["b"]},
    {"type": "object", "properties": {"unit": {"enum": ["C", "F", "K"]}, "n": {"type": ["integer", "null"]}},
     "required": ["unit", "n"]},
    {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}},
                                      "pair": {"type": "array", "items": {"type": "integer"}, "minItems": 2,
                                               "maxItems": 2}}, "required": ["tags"]},
    {"type": "object", "properties": {"x": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                                      "k": {"const": "fixed"}}, "required": ["x", "k"]},
    {"type": "object", "properties": {"scores": {"type": "object", "additionalProperties": {"type": "number"}},
                                      "code": {"type": "string", "maxLength": 3}}, "required": ["scores"]},
    {"type": "object", "properties": {"p": {"type": "string"}, "q": {"type": "string"}, "r": {"type": "string"}}},
]
ATOMS = ['"x"', '"北京"', '""', "3", "-12", "2.5", "1e3", "true", "null", '["a"]', "[1, 2]", "[]", "{}", '{"k": 1.5}',
         '"C"', '"fixed"', '"abcd"', "0.1234567890123456", "0.12345678901234567", "12345678901234567"]


def schemas() -> list[dict]:
    tools = json.loads((ROOT / "data" / "unfamiliar_tools.json").read_text(encoding="utf-8"))
    found: list[dict] = []

    def walk(o):
        if isinstance(o, dict):
            if isinstance(o.get("parameters"), dict):
                found.append(o["parameters"])
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)
    walk(tools)
    found += [s["function"]["parameters"] for s in default_registry(today=datetime.date(2024, 5, 20)).schemas()]
    return found + FEATURES


def example(schema: dict) -> object:
    kind = schema.get("type")
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][-1]
    if "anyOf" in schema:
        return example(schema["anyOf"][0])
    if isinstance(kind, list):
        return example({**schema, "type": kind[0]})
    if kind == "object" or "properties" in schema:
        if not schema.get("properties") and isinstance(schema.get("additionalProperties"), dict):
            return {"any": example(schema["additionalProperties"])}
        return {k: example(v) for k, v in (schema.get("properties") or {}).items()}
    if kind == "array":
        return [example(schema.get("items", {"type": "string"}))] * max(1, schema.get("minItems", 1))
    return {"string": "Ada 北京", "integer": 7, "number": 2.5, "boolean": False, "null": None}.get(kind, "x")


def candidates(schema: dict) -> list[str]:
    """Valid arguments in a few spellings, and near misses built from them."""
    full = example(schema)
    keys = list(full) if isinstance(full, dict) else []
    required = [k for k in keys if k in (schema.get("required") or [])]
    out = {json.dumps(full, ensure_ascii=False), json.dumps(full, ensure_ascii=False, separators=(",", ":")),
           json.dumps({k: full[k] for k in required}, ensure_ascii=False)}
    for k in keys:
        out.add(json.dumps({j: full[j] for j in keys if j != k}, ensure_ascii=False))       # one key missing
        for atom in ATOMS:                                                                 # another value
            out.add(json.dumps(full, ensure_ascii=False).replace(json.dumps({k: full[k]}, ensure_ascii=False)[1:-1],
                                                                 f'"{k}": {atom}', 1))
    out.add(json.dumps({**full, "extra": 1}, ensure_ascii=False) if isinstance(full, dict) else "1")
    out.add(json.dumps(dict(reversed(list(full.items()))), ensure_ascii=False) if isinstance(full, dict) else "2")
    out |= {s + " ", " " + s, s.replace(", ", " , "), s.replace(": ", ":  "), s.replace("}", ",}")} if (s := json.dumps(full, ensure_ascii=False)) else set()
    return sorted(out)


def reference_rules(schemas_: list[dict], prefix: str) -> str:
    converter_module = pytest.importorskip("llama_cpp.llama_grammar")
    converter = converter_module.SchemaConverter(prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False)
    for i, schema in enumerate(schemas_):
        converter.visit(converter.resolve_refs(schema, f"{prefix}{i}"), f"{prefix}{i}")
    return converter.format_grammar()


@pytest.mark.model  # llama.cpp's own converter is the reference: it needs llama-cpp-python
@pytest.mark.parametrize("index", range(len(schemas())))
def test_same_language_as_llama_cpp(index):
    schema = _closed(schemas()[index])
    ours = parse_gbnf("root ::= a0\n" + schema_rules([schema], "a"))
    reference = parse_gbnf("root ::= a0\n" + reference_rules([schema], "a"))
    tried = candidates(schema)
    differ = [c for c in tried if matches(ours, c) != matches(reference, c)]
    assert not differ, f"{len(differ)} of {len(tried)} replies judged differently, e.g. {differ[:3]}"
    assert any(matches(ours, c) for c in tried) and not all(matches(ours, c) for c in tried)


def test_argument_rules_need_no_llama_cpp(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "llama_cpp", None)   # as in a client-only install: importing it fails
    monkeypatch.setitem(sys.modules, "llama_cpp.llama_grammar", None)
    rules = parse_gbnf("root ::= args0\n" + argument_rules([{"properties": {"city": {"type": "string"}},
                                                               "required": ["city"]}], "args"))
    assert matches(rules, '{"city": "上海"}') and not matches(rules, '{"town": "上海"}')


def test_optional_keys_any_subset_in_order():
    rules = parse_gbnf("root ::= a0\n" + schema_rules([FEATURES[5]], "a"))
    for n in range(4):
        for keys in itertools.combinations("pqr", n):
            assert matches(rules, json.dumps({k: "v" for k in keys}))
    assert not matches(rules, '{"q": "v", "p": "v"}') and not matches(rules, '{"p": "v", "p": "v"}')
