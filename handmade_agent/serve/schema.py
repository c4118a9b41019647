"""What the server accepts and answers: an OpenAI chat request checked field by field, and the reply.

``chat_request(body)`` turns a parsed JSON body into keyword arguments for ``LLM.complete`` or raises
``BadRequest`` with one short sentence (the server answers 400 with it; never a traceback). Checked:
the shapes the ``openai`` client sends (messages with text or text parts, tool calls, ``stop`` as a
string or list, ``max_tokens``/``max_completion_tokens``, ``temperature``, ``tools``, ``tool_choice``),
plus llama.cpp's ``grammar`` field. Text that cannot be UTF-8 (a lone surrogate) is refused here, not in the
tokenizer. ``tool_choice`` is passed on only when sent (the model enforces it by constraining its reply);
"required" or a named tool needs ``tools``, and the named tool must be among them. What could make the
one model line work for minutes (a huge grammar, hundreds of tools, thousands of stop strings) is
refused by the limits of ``limits.py``.

Deliberately left out: ``n`` > 1, logprobs, response_format, and sampling options the in-process
model has no use for (``top_p``, ``seed``, ``repeat_penalty``... are accepted and ignored: decoding is
greedy at temperature 0, as in-process).

    >>> chat_request({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 4})["max_tokens"]
    4
"""
from __future__ import annotations

import time
import uuid
from typing import Any

from ..grammar import tool_choice_name
from .limits import BadRequest, check_grammar, check_stop, check_tool_grammar, check_tools

ROLES = ("system", "user", "assistant", "tool")


def _text(value: Any, where: str) -> str:
    if value is None:
        return ""
    if isinstance(value, list):  # content parts: keep the text ones
        if not all(isinstance(p, dict) for p in value):
            raise BadRequest(f"{where} parts must be objects")
        value = "".join(p.get("text", "") for p in value if p.get("type") == "text" and isinstance(p.get("text"), str))
    if not isinstance(value, str):
        raise BadRequest(f"{where} must be a string")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise BadRequest(f"{where} is not valid UTF-8 text (a lone surrogate?)") from None
    return value


def _message(m: Any, i: int) -> dict:
    where = f"messages[{i}]"
    if not isinstance(m, dict) or m.get("role") not in ROLES:
        raise BadRequest(f"{where} must be an object with a role in {', '.join(ROLES)}")
    d: dict[str, Any] = {"role": m["role"], "content": _text(m.get("content"), f"{where}.content")}
    calls = m.get("tool_calls") or []
    if not isinstance(calls, list):
        raise BadRequest(f"{where}.tool_calls must be a list")
    for j, c in enumerate(calls):
        f = c.get("function") if isinstance(c, dict) else None
        if not (isinstance(f, dict) and isinstance(f.get("name"), str)):
            raise BadRequest(f"{where}.tool_calls[{j}] needs function.name")
        _text(f.get("arguments"), f"{where}.tool_calls[{j}].function.arguments")
    if calls:
        d["tool_calls"] = calls
    if m.get("tool_call_id") is not None:
        d["tool_call_id"] = _text(m["tool_call_id"], f"{where}.tool_call_id")
    return d


def _number(body: dict, key: str, kind: type, low: float, high: float) -> Any:
    v = body.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float) if kind is float else int) or not low <= v <= high:
        raise BadRequest(f"{key} must be {'a number' if kind is float else 'an integer'} from {low} to {high}")
    return v


def chat_request(body: Any, max_tokens_limit: int = 4096) -> dict:
    """Keyword arguments for ``LLM.complete`` from a chat request body (raises BadRequest)."""
    if not isinstance(body, dict):
        raise BadRequest("the body must be a JSON object")
    msgs = body.get("messages")
    if not isinstance(msgs, list) or not msgs:
        raise BadRequest("messages must be a non-empty list")
    if body.get("stream"):
        raise BadRequest("streaming is not supported by this server; send stream=false")
    if body.get("n", 1) != 1:
        raise BadRequest("n must be 1")
    stop = body.get("stop")
    stop = [stop] if isinstance(stop, str) else stop
    if stop is not None and not (isinstance(stop, list) and all(isinstance(s, str) for s in stop)):
        raise BadRequest("stop must be a string or a list of strings")
    stop = check_stop(stop or [])
    tools = body.get("tools")
    if tools is not None and not (isinstance(tools, list) and all(isinstance(t, dict) for t in tools)):
        raise BadRequest("tools must be a list of objects")
    check_tools(tools or [])
    grammar = body.get("grammar")
    if grammar is not None:
        grammar = check_grammar(_text(grammar, "grammar"))
    max_tokens = _number(body, "max_tokens", int, 1, max_tokens_limit)
    max_tokens = max_tokens or _number(body, "max_completion_tokens", int, 1, max_tokens_limit)
    kwargs = {"messages": [_message(m, i) for i, m in enumerate(msgs)], "stop": [_text(s, "stop") for s in stop],
              "tools": tools or None, "temperature": _number(body, "temperature", float, 0, 2),
              "max_tokens": max_tokens, "grammar": grammar or None}
    choice = body.get("tool_choice")
    if choice is not None:  # only when sent: a model without the keyword still serves every other request
        kwargs["tool_choice"] = _tool_choice(choice, tools or [])
        if tools and not grammar and choice != "none":  # the model will build this grammar: build it here first
            check_tool_grammar(tools, choice)
    return kwargs


def _tool_choice(choice: Any, tools: list) -> Any:
    """``tool_choice`` checked against the tools of the request (raises BadRequest)."""
    try:
        name = tool_choice_name(choice)
    except ValueError as e:
        raise BadRequest(str(e)) from None
    functions = [t.get("function", t) for t in tools]
    offered = [f.get("name") for f in functions if isinstance(f, dict)]
    if (choice == "required" or name is not None) and not offered:
        raise BadRequest("tool_choice 'required' or a named tool needs tools in the request")
    if name is not None and name not in offered:
        raise BadRequest(f"tool_choice names {name[:100]!r}, which is not among the request's tools")
    return choice


def chat_response(completion: Any, model: str) -> dict:
    """The OpenAI ``chat.completion`` object for a package ``Completion``."""
    calls = [c.to_dict() for c in completion.tool_calls]
    message: dict[str, Any] = {"role": "assistant", "content": completion.text if not calls else completion.text or None}
    if calls:
        message["tool_calls"] = calls
    u = completion.usage
    return {"id": f"chatcmpl-{uuid.uuid4().hex[:24]}", "object": "chat.completion", "created": int(time.time()),
            "model": model, "choices": [{"index": 0, "message": message, "finish_reason": completion.finish_reason}],
            "usage": {"prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens,
                      "total_tokens": u.prompt_tokens + u.completion_tokens}}
