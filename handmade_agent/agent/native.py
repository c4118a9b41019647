"""Reading a reply of native tool calling: tool calls, a final answer, or a problem to report.

With ``strategy="native"`` the backend returns structured ``Completion.tool_calls``.
Small models do not always use that channel: they write the call as bare
JSON text, or in ReAct form. ``read_native`` recovers such a call with the
ReAct parser when it is unambiguous, treats other text as the final answer,
and reports what cannot be read (a malformed call, an empty reply) so the
agent can send it back as feedback.

A reply whose text is ``None`` or whose call has no name is normalised first
(``clean_completion``): an unnamed call becomes an unknown-tool observation, not a crash.

``native_reminder`` restates the question (and the results so far) after the latest tool result.

Deliberately left out: running the calls (the agent does that, with the same
repeat detection and events as text ReAct).

    >>> from handmade_agent.llm import Completion
    >>> read_native(Completion('{"name": "add", "arguments": {"a": 1}}'), 3).calls[0].id
    'call_3'
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace

from ..errors import FormatError
from ..llm import Completion, Message, ToolCall
from ..react import Action, FinalAnswer, parse

NATIVE_SYSTEM_PROMPT = ("You are a helpful assistant. Call a tool whenever it can compute or look up what is asked; "
                        "when a call needs an earlier call's result, wait for it. If no tool fits, answer yourself "
                        "or say what you cannot do. Your answer uses the results: compare when asked to compare, "
                        "convert when asked to convert, with the numbers.")


def native_reminder(question: str, results: list[str], answer_now: bool = False) -> Message:
    """A user turn after the latest tool results: the results so far and the question, restated.

    Qwen's template shows tool results as ``<tool_response>`` in a user turn; measured on the 0.5B
    model, after one it repeated the same call or wrote the call and its result as text, never
    the answer. Restating the question and the results, as text ReAct's observation does, lets it go on.
    ``answer_now`` (after a repeated call, when the agent allows only an answer) asks for the answer.
    """
    listed = "\n".join(f"{i}. {r}" for i, r in enumerate(results, 1))
    recap = f"Results so far:\n{listed}\n" if len(results) > 1 or answer_now else ""
    if answer_now:  # after a repeated call: the agent allows only an answer now
        return Message("user", f"{recap}Question: {question}\nAnswer it now in plain text, using these results.")
    return Message("user", f"{recap}Question: {question}\nIf the results answer it, reply with the answer in "
                           "plain text, using them; otherwise call the next tool.")


@dataclass
class NativeReply:
    calls: list[ToolCall] = field(default_factory=list)
    answer: str | None = None
    problem: str | None = None  # set when the reply could not be used; ``feedback`` says what to do
    feedback: str | None = None


def clean_completion(c: Completion, index: int) -> Completion:
    """``c`` with text always a string and each call's name, arguments and id strings.

    Servers and SDKs do send ``content: null``, a call without a name, or arguments as an object;
    everything after this point may then rely on strings.
    """
    def text(value: object, default: str) -> str:
        if value is None:
            return default
        if isinstance(value, str):
            return value
        return json.dumps(value, ensure_ascii=False, default=str) if isinstance(value, (dict, list)) else str(value)
    calls = [ToolCall(text(getattr(t, "name", None), ""), text(getattr(t, "arguments", None), "{}"),
                      text(getattr(t, "id", None), f"call_{index}_{i}"))
             for i, t in enumerate(c.tool_calls or [])]
    return replace(c, text=text(c.text, ""), tool_calls=calls)


def read_native(c: Completion, index: int) -> NativeReply:
    """What a native-tool-calling reply asks for; ``index`` numbers recovered calls (``call_<index>``)."""
    c = clean_completion(c, index)
    if c.tool_calls:
        return NativeReply(list(c.tool_calls))
    try:
        parsed = parse(c.text)
    except FormatError:
        parsed = None
    if isinstance(parsed, Action):
        args = parsed.input if isinstance(parsed.input, str) else json.dumps(parsed.input, ensure_ascii=False)
        return NativeReply([ToolCall(parsed.tool, args, f"call_{index}")])
    if '"arguments"' in c.text or "<tool_call>" in c.text or not c.text.strip():
        problem = "Your reply was empty." if not c.text.strip() else "Your tool call could not be read."
        return NativeReply(problem=problem, feedback=problem + " Call one tool with a valid JSON object of "
                           "arguments, or answer the user in plain text.")
    return NativeReply(answer=parsed.answer if isinstance(parsed, FinalAnswer) else c.text.strip())
