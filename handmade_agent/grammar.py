"""GBNF grammars from tool schemas: what a constrained model is allowed to write.

llama.cpp can restrict decoding to a grammar (GBNF). ``argument_rules(schemas, prefix)``
turns each tool's JSON Schema into a rule (``<prefix>0``, ``<prefix>1``, ...) for a JSON
object valid for that schema, all in one rule set (``json_grammar``, no llama.cpp needed, so a
client of a server builds the same grammar; shared rules such as ``string`` are written once). ``literal`` quotes text for GBNF.
``tool_call_grammar(tools)`` is the grammar for Qwen's native tool calls: one to four
calls in ``<tool_call>`` tags (or one bare call) with a real tool name and schema-valid arguments, or a plain-text answer
(so "no tool fits" stays possible). ``tool_call_grammar(tools, choice)`` also implements OpenAI's
``tool_choice`` by constraining: ``"auto"`` (a call or text), ``"none"`` (text only, ``answer_grammar()``),
``"required"`` (a call, no text), or ``{"type": "function", "function": {"name": X}}`` (a call to X only).
The ReAct text grammar lives in chapter 02 (``react/grammar.py``) and is built from these pieces.

Deliberately left out: checking a grammar here. llama.cpp parses it when a call uses it
(a bad grammar is an ``LLMError`` then); the tests parse every grammar the package builds.

    >>> literal('say "hi"\\n')
    '"say \\\\"hi\\\\"\\\\n"'
    >>> tool_choice_name({"type": "function", "function": {"name": "get_weather"}})
    'get_weather'
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Sequence

from .json_grammar import literal, schema_rules

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
