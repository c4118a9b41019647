"""GBNF for "a JSON value valid for this JSON Schema", written here so a client without llama.cpp can build it.

A constrained agent sends its grammar with every request; a student whose model is a server
(``OpenAIChat``, no llama-cpp-python installed) must be able to write that grammar too. ``schema_rules``
turns schemas into GBNF rules, one named rule per schema, sharing the primitive rules (``string``,
``number``...). The language is the one llama.cpp's own converter accepts for the same schemas
(``tests/test_json_grammar.py`` checks that string by string), so a grammar built here constrains
exactly as before.

Covered: objects (required properties in their order, then any of the optional ones in theirs; no
other keys; ``additionalProperties`` as a schema when there are no named properties), arrays
(``items``, ``minItems``/``maxItems``), strings (``minLength``/``maxLength``), integers, numbers,
booleans, null, ``enum``, ``const``, ``anyOf``/``oneOf`` and a list of types.
Deliberately left out: numeric ranges, ``pattern``, ``format`` and ``$ref``. The grammar keeps the
type; the tool registry checks the rest and says what is wrong, as it does for any call.

    >>> print(schema_rules([{"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}], "a"))
    ... # doctest: +ELLIPSIS
    a0 ::= "{" space a0-n-kv "}" space
    a0-n-kv ::= "\\"n\\"" space ":" space integer
    ...
"""
from __future__ import annotations

import json
import re
from typing import Any, Sequence

CHAR = r'[^"\\] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F])'
# name: (body, the primitive rules it uses); numbers have at most 16 digits per part, as llama.cpp's
PRIMITIVES: dict[str, tuple[str, tuple[str, ...]]] = {
    "space": ('" "?', ()),
    "char": (CHAR, ()),
    "string": ('"\\"" char* "\\"" space', ("char", "space")),
    "integral-part": ("[0-9] | [1-9] [0-9]{0,15}", ()),
    "decimal-part": ("[0-9]{1,16}", ()),
    "integer": ('("-"? integral-part) space', ("integral-part", "space")),
    "number": ('("-"? integral-part) ("." decimal-part)? ([eE] [-+]? integral-part)? space',
               ("integral-part", "decimal-part", "space")),
    "boolean": ('("true" | "false") space', ("space",)),
    "null": ('"null" space', ("space",)),
    "value": ("object | array | string | number | boolean | null",
              ("object", "array", "string", "number", "boolean", "null")),
    "object": ('"{" space ( string ":" space value ( "," space string ":" space value )* )? "}" space',
               ("string", "value", "space")),
    "array": ('"[" space ( value ( "," space value )* )? "]" space', ("value", "space")),
}


def literal(text: str) -> str:
    """``text`` as a GBNF string literal."""
    return json.dumps(text, ensure_ascii=False)


def schema_rules(schemas: Sequence[dict], prefix: str) -> str:
    """GBNF rules ``<prefix>0`` .. ``<prefix>N-1``, each a JSON value valid for that schema."""
    rules = _Rules()
    for i, schema in enumerate(schemas):
        rules.rule(f"{prefix}{i}", rules.expr(schema, f"{prefix}{i}"))
    return rules.text()


class _Rules:
    def __init__(self) -> None:
        self.rules: dict[str, str] = {}

    def rule(self, name: str, body: str) -> str:
        """Add ``name ::= body`` (a name taken by another body gets a number) and return the name."""
        base = re.sub(r"[^a-zA-Z0-9-]+", "-", name).strip("-") or "r"
        name, n = base, 1
        while self.rules.get(name, body) != body:
            n += 1
            name = f"{base}{n}"
        self.rules[name] = body
        return name

    def primitive(self, name: str) -> str:
        if name not in self.rules:
            body, needs = PRIMITIVES[name]
            self.rules[name] = body
            for other in needs:
                self.primitive(other)
        return name

    def text(self) -> str:
        return "\n".join(f"{name} ::= {body}" for name, body in sorted(self.rules.items())) + "\n"

    def expr(self, schema: Any, name: str) -> str:
        """A GBNF expression for ``schema``: a primitive's name, or a rule made for it."""
        if not isinstance(schema, dict):
            return self.primitive("value")
        if "const" in schema:
            return literal(json.dumps(schema["const"], ensure_ascii=False))
        if "enum" in schema:
            return self.rule(name, " | ".join(literal(json.dumps(v, ensure_ascii=False)) for v in schema["enum"]))
        alternatives = schema.get("anyOf") or schema.get("oneOf")
        kind = schema.get("type")
        if isinstance(kind, list):
            alternatives = [{**schema, "type": k} for k in kind]
        if alternatives:
            return self.rule(name, " | ".join(self.expr(s, f"{name}-{i}") for i, s in enumerate(alternatives)))
        if kind == "object" or "properties" in schema:
            return self.object(schema, name)
        if kind == "array":
            return self.array(schema, name)
        if kind == "string" and ("minLength" in schema or "maxLength" in schema):
            lo, hi = int(schema.get("minLength", 0)), schema.get("maxLength")
            self.primitive("char")
            return self.rule(name, f'"\\"" char{{{lo},{"" if hi is None else int(hi)}}} "\\"" ' + self.primitive("space"))
        if kind in ("string", "integer", "number", "boolean", "null"):
            return self.primitive(kind)
        return self.primitive("value")

    def object(self, schema: dict, name: str) -> str:
        props = schema.get("properties")
        extra = schema.get("additionalProperties")
        space = self.primitive("space")
        if not props:
            if props is None and extra is None or extra is True:
                return self.primitive("object")
            if not isinstance(extra, dict):
                return self.rule(name, f'"{{" {space} "}}" {space}')
            kv = self.rule(f"{name}-additional-kv", f'{self.primitive("string")} ":" {space} '
                                                    f'{self.expr(extra, f"{name}-additional")}')
            return self.rule(name, f'"{{" {space} ( {kv} ( "," {space} {kv} )* )? "}}" {space}')
        required = set(schema.get("required") or ())
        kvs = {k: self.rule(f"{name}-{k}-kv", f'{literal(json.dumps(k, ensure_ascii=False))} {space} ":" {space} '
                                              f'{self.expr(v, f"{name}-{k}")}') for k, v in props.items()}
        must = [kvs[k] for k in props if k in required]
        may = [kvs[k] for k in props if k not in required]
        body = f'"{{" {space} ' + f' "," {space} '.join(must)
        if may:  # then any of the optional keys, each at most once, in their order
            body += f' ( "," {space} ( {self.optional(may, 0, name)} ) )?' if must else f" ( {self.optional(may, 0, name)} )?"
        return self.rule(name, body + f' "}}" {space}')

    def optional(self, kvs: list[str], start: int, name: str) -> str:
        """Alternatives for "the first optional key present is kvs[j], j >= start, then any later ones"."""
        options = []
        for j in range(start, len(kvs)):
            if j == len(kvs) - 1:
                options.append(kvs[j])
            else:
                rest = self.rule(f"{kvs[j]}-rest", f'( "," {self.primitive("space")} ( {self.optional(kvs, j + 1, name)} ) )?')
                options.append(f"{kvs[j]} {rest}")
        return " | ".join(options)

    def array(self, schema: dict, name: str) -> str:
        item = self.expr(schema.get("items", True), f"{name}-item")
        space = self.primitive("space")
        lo, hi = int(schema.get("minItems", 0)), schema.get("maxItems")
        if hi is not None and int(hi) == 0:
            return self.rule(name, f'"[" {space} "]" {space}')
        times = "*" if hi is None and lo <= 1 else f'{{{max(lo - 1, 0)},{"" if hi is None else int(hi) - 1}}}'
        more = f'( "," {space} {item} ){times}'
        items = f"{item} {more}"
        return self.rule(name, f'"[" {space} ' + (items if lo > 0 else f"( {items} )?") + f' "]" {space}')
