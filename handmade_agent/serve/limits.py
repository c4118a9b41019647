"""What the server refuses before a request reaches the model: the limits of one request.

One model serves the whole room through one line (``queue.py``): a request that makes llama.cpp
work for minutes, or crash, takes every student's turn with it. So these are checked at the door,
each refusal a ``BadRequest`` (HTTP 400) that names the limit and says what to send instead:

- a client's ``grammar``: ``grammar.check_client_grammar`` (its bytes, how deep groups nest, ``{m,n}``
  bounds and the copying they cost llama.cpp's parser), then ``grammar_cost.check_grammar_cost`` (the chains
  llama.cpp follows to set it up and the stacks it keeps alive while decoding; what llama.cpp could not parse
  is refused here too, a 400 rather than a 500 from the line);
- ``tools``: at most ``MAX_TOOLS`` tools, ``MAX_TOOL_PROPERTIES`` properties in one tool's schema (nested
  ones count) and ``MAX_TOOLS_BYTES`` of JSON; with a ``tool_choice`` the server constrains the reply
  with a grammar built from them, so that grammar is built here (a schema the builder refuses, or a length or
  item bound that is not a whole number from 0, is a 400, not an error in the middle of the line; the builder
  caches it, so the model does not build it again);
- ``stop``: at most ``MAX_STOP`` strings of ``MAX_STOP_CHARS`` characters (each one is searched for
  after every token);
- the text of ``/extras/tokenize``: ``MAX_TOKENIZE_CHARS``.

Deliberately left out: limits per client, and an exact cost of an ambiguous grammar (``grammar_cost.py``
estimates it; what it leaves out, it says).

    >>> check_stop(["Observation:"])
    ['Observation:']
"""
from __future__ import annotations

import json
from typing import Any

from ..errors import HandmadeAgentError

MAX_TOOLS = 64
MAX_TOOL_PROPERTIES = 64     # properties in one tool's parameters, nested objects included
MAX_TOOLS_BYTES = 64_000     # the request's tools as JSON
MAX_STOP = 16                # OpenAI takes 4
MAX_STOP_CHARS = 64
MAX_TOKENIZE_CHARS = 100_000  # about 25,000 tokens or more: past any context this server runs


class BadRequest(HandmadeAgentError):
    """A request the server cannot take as it is (HTTP 400)."""


def check_grammar(text: str) -> str:
    """``text`` if llama.cpp may parse it and run it at a bounded cost; BadRequest naming the limit otherwise."""
    from ..grammar import check_client_grammar
    from .grammar_cost import check_grammar_cost
    try:
        check_client_grammar(text)  # first: it bounds what the cost estimate reads
        check_grammar_cost(text)
    except ValueError as e:  # GrammarTooLarge, GrammarUnreadable
        raise BadRequest(str(e)) from None
    return text


def check_stop(stop: list[str]) -> list[str]:
    if len(stop) > MAX_STOP:
        raise BadRequest(f"stop has {len(stop)} strings; this server takes at most {MAX_STOP}")
    for s in stop:
        if len(s) > MAX_STOP_CHARS:
            raise BadRequest(f"a stop string has {len(s)} characters; this server takes at most {MAX_STOP_CHARS}")
    return stop


def _properties(schema: Any) -> int:
    """How many properties a schema names, at every depth (iterative: a schema may nest thousands deep)."""
    count, todo = 0, [schema]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            props = item.get("properties")
            count += len(props) if isinstance(props, dict) else 0
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return count


def check_tools(tools: list[dict]) -> list[dict]:
    """``tools`` within the limits above (BadRequest otherwise)."""
    if len(tools) > MAX_TOOLS:
        raise BadRequest(f"tools has {len(tools)} tools; this server takes at most {MAX_TOOLS} per request")
    size = len(json.dumps(tools, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    if size > MAX_TOOLS_BYTES:
        raise BadRequest(f"tools take {size:,} bytes of JSON; this server takes at most {MAX_TOOLS_BYTES:,}: "
                         f"offer fewer tools, or shorter descriptions")
    for i, tool in enumerate(tools):
        fn = tool.get("function", tool)
        n = _properties(fn.get("parameters") if isinstance(fn, dict) else None)
        if n > MAX_TOOL_PROPERTIES:
            raise BadRequest(f"tools[{i}] has {n} properties; this server takes at most {MAX_TOOL_PROPERTIES} "
                             f"per tool: split the tool, or group rarely used parameters")
    return tools


def check_tool_grammar(tools: list[dict], choice: Any) -> None:
    """Build the grammar that will constrain the reply to ``tools`` under ``choice``, and check llama.cpp can read and
    run it (BadRequest if not)."""
    from ..grammar import tool_call_grammar
    from .grammar_cost import check_grammar_cost
    for i, tool in enumerate(tools):
        fn = tool.get("function", tool)
        bad = _bad_bound(fn.get("parameters") if isinstance(fn, dict) else None)
        if bad:  # a grammar spells bounds out: -1 made one llama.cpp could not parse, a 500 in the line
            raise BadRequest(f"tools[{i}]: {bad[0]} must be a whole number from 0, not {bad[1][:40]}: fix the "
                             "schema (the grammar that constrains the reply is built from it)")
    try:
        check_grammar_cost(tool_call_grammar(tools, choice))
    except (ValueError, TypeError, AttributeError, RecursionError) as e:  # a schema of odd shape is the client's
        raise BadRequest(f"cannot constrain the reply to these tools: {str(e)[:300] or type(e).__name__}") from None


BOUNDS = ("minLength", "maxLength", "minItems", "maxItems")


def _bad_bound(schema: Any) -> tuple[str, str] | None:
    """The first length or item bound in ``schema`` that is not a count, as (key, its value), or None. Walks what
    the grammar builder reads (properties, items, additionalProperties, anyOf, oneOf), iteratively."""
    todo = [schema]
    while todo:
        item = todo.pop()
        if not isinstance(item, dict):
            continue
        for key in BOUNDS:
            v = item.get(key)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0
                                  or isinstance(v, float) and not v.is_integer()):
                return key, repr(v)
        props = item.get("properties")
        todo += list(props.values()) if isinstance(props, dict) else []
        todo += [item.get("items"), item.get("additionalProperties")]
        todo += [s for key in ("anyOf", "oneOf") if isinstance(item.get(key), list) for s in item[key]]
    return None


def check_tokenize(text: str) -> str:
    if len(text) > MAX_TOKENIZE_CHARS:
        raise BadRequest(f"input has {len(text):,} characters; this server tokenizes at most {MAX_TOKENIZE_CHARS:,} "
                         f"at once: send it in parts")
    return text
