"""GBNF grammars from tool schemas: what a constrained model is allowed to write.

llama.cpp can restrict decoding to a grammar (GBNF). ``argument_rules(schemas, prefix)``
turns each tool's JSON Schema into a rule (``<prefix>0``, ``<prefix>1``, ...) for a JSON
object valid for that schema, all in one rule set (the JSON part below: no llama.cpp needed, so a
client of a server builds the same grammar; shared rules such as ``string`` are written once). ``literal`` quotes text for GBNF.
``tool_call_grammar(tools)`` is the grammar for Qwen's native tool calls: one to four
calls in ``<tool_call>`` tags (or one bare call) with a real tool name and schema-valid arguments, or a plain-text answer
(so "no tool fits" stays possible). ``tool_call_grammar(tools, choice)`` also implements OpenAI's
``tool_choice`` by constraining: ``"auto"`` (a call or text), ``"none"`` (text only, ``answer_grammar()``),
``"required"`` (a call, no text), or ``{"type": "function", "function": {"name": X}}`` (a call to X only).
The ReAct text grammar lives in chapter 02 (``react/grammar.py``) and is built from these pieces.

The JSON part. A constrained agent sends its grammar with every request; a student whose model is a
server (``OpenAIChat``, no llama-cpp-python installed) must be able to write that grammar too. ``schema_rules``
turns schemas into GBNF rules, one named rule per schema, sharing the primitive rules (``string``,
``number``...). The language is the one llama.cpp's own converter accepts for the same schemas
(``tests/test_json_grammar.py`` checks that string by string), so a grammar built here constrains
exactly as before.

Covered: objects (required properties in their order, then any of the optional ones in theirs; no
other keys; ``additionalProperties`` as a schema when there are no named properties), arrays
(``items``, ``minItems``/``maxItems``), strings (``minLength``/``maxLength``), integers, numbers,
booleans, null, ``enum``, ``const``, ``anyOf``/``oneOf`` and a list of types.
Deliberately left out: numeric ranges, ``pattern``, ``format`` and ``$ref``. The grammar keeps the
type; the tool registry checks the rest and says what is wrong, as it does for any call. Also left out:
checking a grammar here. llama.cpp parses it when a call uses it
(a bad grammar is an ``LLMError`` then); the tests parse every grammar the package builds.

    >>> literal('say "hi"\\n')
    '"say \\\\"hi\\\\"\\\\n"'
    >>> tool_choice_name({"type": "function", "function": {"name": "get_weather"}})
    'get_weather'
    >>> print(schema_rules([{"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}], "a"))
    ... # doctest: +ELLIPSIS
    a0 ::= "{" space a0-n-kv "}" space
    a0-n-kv ::= "\\"n\\"" space ":" space integer
    ...
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, Sequence

from .errors import HandmadeAgentError

# What one request may ask the grammar builder (and llama.cpp's grammar parser) for. A schema is
# client input on a server: without limits a few hundred bytes can ask for minutes of work.
MAX_SCHEMA_BYTES = 64_000   # all the schemas of one grammar, as JSON
MAX_PROPERTIES = 64         # properties of one object
MAX_DEPTH = 16              # schemas nested in schemas
MAX_CHOICES = 256           # values of one enum, or alternatives of one anyOf/oneOf/type list
MAX_REPEAT = 256            # a length or item bound; a larger maximum is left to the tool registry
MAX_CLIENT_GRAMMAR_BYTES = 64_000  # GBNF text a client sends
MAX_GROUP_DEPTH = 64        # "(" inside "(": llama.cpp's parser recurses once per level
MAX_REPEAT_WORK = 65_536    # sum over {m,n} of bound x length of what repeats: llama.cpp copies it out


class GrammarTooLarge(HandmadeAgentError, ValueError):
    """A schema or a GBNF text asks for more than the limits above (a ValueError too: a bad request)."""

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
    size = len(json.dumps(list(schemas), ensure_ascii=False, default=str).encode("utf-8", "surrogatepass"))
    if size > MAX_SCHEMA_BYTES:
        raise GrammarTooLarge(f"the tool schemas take {size} bytes of JSON; a grammar is built for at most "
                              f"{MAX_SCHEMA_BYTES} (grammar.MAX_SCHEMA_BYTES): offer fewer tools per request "
                              "or shorten their schemas (descriptions included)")
    rules = _Rules()
    for i, schema in enumerate(schemas):
        rules.rule(f"{prefix}{i}", rules.expr(schema, f"{prefix}{i}"))
    return rules.text()


class _Rules:
    def __init__(self) -> None:
        self.rules: dict[str, str] = {}
        self.depth = 0

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
        self.depth += 1
        try:
            _check_schema(schema, name, self.depth)
            return self._expr(schema, name)
        finally:
            self.depth -= 1

    def _expr(self, schema: dict, name: str) -> str:
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
            lo, hi = int(schema.get("minLength", 0)), _bound(schema.get("maxLength"))
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
            body += f' ( "," {space} {self.optional(may, 0, name)} )?' if must else f" {self.optional(may, 0, name)}?"
        return self.rule(name, body + f' "}}" {space}')

    def optional(self, kvs: list[str], start: int, name: str) -> str:
        """A rule for "any non-empty run of kvs[start:], in order": one rule per start index, so the
        grammar grows linearly with the optional keys (inlining the alternatives doubled it per key)."""
        tail = self.optional(kvs, start + 1, name) if start + 1 < len(kvs) else None
        body = kvs[start] if tail is None else \
            f'{kvs[start]} ( "," {self.primitive("space")} {tail} )? | {tail}'
        return self.rule(f"{name}-optional{start}", body)

    def array(self, schema: dict, name: str) -> str:
        item = self.expr(schema.get("items", True), f"{name}-item")
        space = self.primitive("space")
        lo, hi = int(schema.get("minItems", 0)), _bound(schema.get("maxItems"))
        if hi is not None and int(hi) == 0:
            return self.rule(name, f'"[" {space} "]" {space}')
        times = "*" if hi is None and lo <= 1 else f'{{{max(lo - 1, 0)},{"" if hi is None else int(hi) - 1}}}'
        more = f'( "," {space} {item} ){times}'
        items = f"{item} {more}"
        return self.rule(name, f'"[" {space} ' + (items if lo > 0 else f"( {items} )?") + f' "]" {space}')


def _bound(hi: Any) -> int | None:
    """A maximum the grammar spells out, or None: a larger one costs llama.cpp a copy per unit."""
    return None if hi is None or int(hi) > MAX_REPEAT else int(hi)


def _check_schema(schema: dict, name: str, depth: int) -> None:
    """Refuse what would make the grammar (or llama.cpp's work on it) grow past the limits."""
    def refuse(what: str, limit: str, advice: str) -> None:
        raise GrammarTooLarge(f"schema {name!r}: {what}, over the limit grammar.{limit}; {advice}")
    if depth > MAX_DEPTH:
        refuse(f"nested more than {MAX_DEPTH} deep", "MAX_DEPTH", "flatten the parameters")
    props = schema.get("properties")
    if isinstance(props, dict) and len(props) > MAX_PROPERTIES:
        refuse(f"{len(props)} properties", "MAX_PROPERTIES",
               "split the tool, or group rarely used parameters into one object parameter")
    for key in ("enum", "anyOf", "oneOf", "type"):
        if isinstance(schema.get(key), list) and len(schema[key]) > MAX_CHOICES:
            refuse(f"{len(schema[key])} {key} choices", "MAX_CHOICES", "take a string and check it in the tool")
    for key in ("minLength", "minItems"):
        if int(schema.get(key) or 0) > MAX_REPEAT:
            refuse(f"{key} {schema[key]}", "MAX_REPEAT", f"check a {key} above {MAX_REPEAT} in the tool")


def check_client_grammar(text: str) -> None:
    """Refuse GBNF ``text`` a client sent when it would cost llama.cpp's parser too much (``GrammarTooLarge``
    saying which limit): more than ``MAX_CLIENT_GRAMMAR_BYTES``, groups nested deeper than ``MAX_GROUP_DEPTH``
    (llama.cpp recurses per level: thousands crash the process), a ``{m,n}`` bound above ``MAX_REPEAT``, or
    repetitions that copy out more than ``MAX_REPEAT_WORK`` elements in all. One pass, linear in the text;
    whether the grammar is valid GBNF is still llama.cpp's to say.

        >>> check_client_grammar('root ::= "a"{0,3}')
        >>> check_client_grammar('root ::= ' + '(' * 100 + '"a"' + ')' * 100)
        Traceback (most recent call last):
        ...
        handmade_agent.grammar.GrammarTooLarge: grammar groups nested more than 64 deep ...
    """
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_CLIENT_GRAMMAR_BYTES:
        raise GrammarTooLarge(f"grammar is {size} bytes, more than {MAX_CLIENT_GRAMMAR_BYTES} "
                              "(grammar.MAX_CLIENT_GRAMMAR_BYTES): send a smaller grammar, or tools and let "
                              "the server build it")
    depth, work, last, i, n = 0, 0, 1, 0, len(text)
    while i < n:
        c, start = text[i], i
        if c in "\"[":  # a literal or a character class: skip to its end, escapes included
            close = '"' if c == '"' else "]"
            i += 1
            while i < n and text[i] != close:
                i += 2 if text[i] == "\\" else 1
            last = i - start + 1  # what a repetition after it copies, at most one element a character
        elif c == "#":
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif c == "(":
            depth += 1
            if depth > MAX_GROUP_DEPTH:
                raise GrammarTooLarge(f"grammar groups nested more than {MAX_GROUP_DEPTH} deep "
                                      "(grammar.MAX_GROUP_DEPTH): name the inner groups as rules")
        elif c == ")":
            depth, last = max(depth - 1, 0), 1  # a group is one rule reference
        elif c == "{":
            end = text.find("}", i)
            end = n if end < 0 else end
            numbers = re.findall(r"[0-9]+", text[i + 1:end])
            bound = max((int(d) if len(d) < 9 else MAX_REPEAT + 1 for d in numbers), default=0)
            if bound > MAX_REPEAT:
                raise GrammarTooLarge(f"grammar repeats something {text[i:end + 1][:40]} times, more than "
                                      f"{MAX_REPEAT} (grammar.MAX_REPEAT): use * or + and check the length after")
            work += bound * last
            if work > MAX_REPEAT_WORK:
                raise GrammarTooLarge(f"grammar repetitions copy out more than {MAX_REPEAT_WORK} elements "
                                      "(grammar.MAX_REPEAT_WORK): repeat rule names rather than long literals, "
                                      "or use * and +")
            i = end
        elif c.isalnum() or c in "-_":
            while i + 1 < n and (text[i + 1].isalnum() or text[i + 1] in "-_"):
                i += 1
            last = 1
        i += 1


# --- tool calls and answers, built from the JSON part

# an answer in plain text may not start like a tool call, or the constraint would be a sieve
TEXT_ANSWER = 'text ::= [^<{`\\n ] [^\\x00]*'


def tool_parameters(tool: Any) -> tuple[str, dict]:
    """(name, parameters schema) of a ``Tool`` or of an OpenAI-format tool dict."""
    if isinstance(tool, dict):
        fn = tool.get("function", tool)
        return str(fn.get("name", "")), dict(fn.get("parameters") or {"type": "object"})
    return tool.name, dict(tool.parameters or {"type": "object"})


def _closed(schema: dict) -> dict:
    """The schema with no extra keys allowed where it says nothing (a model inventing keys is an error)."""
    schema = dict(schema)
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    return schema


def argument_rules(schemas: Sequence[dict], prefix: str) -> str:
    """GBNF rules ``<prefix>0`` .. ``<prefix>N-1``: a JSON object valid for each schema (rules joined by lines)."""
    return schema_rules([_closed(s) for s in schemas], prefix)


def answer_grammar() -> str:
    """A plain-text answer and nothing else (no call): for a reply that must answer now."""
    return "root ::= text\n" + TEXT_ANSWER + "\n"


TOOL_CHOICES = ("auto", "none", "required")


def tool_choice_name(choice: Any) -> str | None:
    """The tool a ``tool_choice`` names (``{"type": "function", "function": {"name": X}}``), or None for
    "auto", "none", "required" and None. Anything else is a ValueError saying what is accepted."""
    if choice is None or choice in TOOL_CHOICES:
        return None
    fn = choice.get("function") if isinstance(choice, dict) and choice.get("type") == "function" else None
    if isinstance(fn, dict) and isinstance(fn.get("name"), str) and fn["name"]:
        return fn["name"]
    raise ValueError(f"tool_choice must be one of {', '.join(TOOL_CHOICES)} or "
                     f'{{"type": "function", "function": {{"name": ...}}}}, not {str(choice)[:80]}')


def tool_call_grammar(tools: Sequence[Any], choice: Any = "auto") -> str:
    """Qwen's native format, constrained: up to four ``<tool_call>`` blocks (parallel calls), each naming a
    real tool with schema-valid arguments; one bare call; or a plain-text answer.

    ``choice`` is OpenAI's ``tool_choice``: "auto" (all of the above; None means it too), "none" (only
    text), "required" (only calls), or ``{"type": "function", "function": {"name": X}}`` (only calls to X;
    ValueError if no tool is called X). "required" or a name with no tools is a ValueError too."""
    named = [tool_parameters(t) for t in tools]
    wanted = tool_choice_name(choice)
    if choice == "none":
        return answer_grammar()
    if wanted is not None:
        named = [(n, p) for n, p in named if n == wanted]
        if not named:
            raise ValueError(f"tool_choice names {wanted!r}, but no tool offered is called that; "
                             f"offered: {', '.join(n for n, _ in map(tool_parameters, tools)) or 'none'}")
    if choice == "required" and not named:
        raise ValueError('tool_choice "required" needs at least one tool')
    return _tool_call_grammar(json.dumps(named, ensure_ascii=False), wanted is None and choice != "required")


@lru_cache(maxsize=64)  # building is not free and an agent asks for the same tool set at every step
def _tool_call_grammar(key: str, text: bool = True) -> str:
    named = json.loads(key)
    if not named:
        return answer_grammar()
    # the bare JSON object is accepted too: it is what the 0.5B model starts with most often, and forcing
    # <tool_call> instead made it write prose about the call rather than the call
    # several tagged calls in one reply are parallel calls (Qwen's template writes them one after another)
    # text=False ("required", or one named tool): the plain-text answer is not on offer
    lines = ["root ::= tagged ( " + literal(chr(10)) + " tagged ){0,3} | call" + (" | text" if text else ""),
             f"tagged ::= {literal('<tool_call>' + chr(10))} call {literal(chr(10) + '</tool_call>')}",
             "call ::= " + " | ".join(f"call{i}" for i in range(len(named))), *([TEXT_ANSWER] if text else [])]
    lines += [f'call{i} ::= {literal(json.dumps({"name": name})[:-1] + ", " + chr(34) + "arguments" + chr(34) + ": ")}'
              f' callargs{i} "}}"' for i, (name, _) in enumerate(named)]
    return "\n".join(lines) + "\n" + argument_rules([p for _, p in named], "callargs")
