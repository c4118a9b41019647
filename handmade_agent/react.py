"""The ReAct protocol's reader: ``parse(reply) -> Action | FinalAnswer``, or ``FormatError``.

A reply is read as ONE step. The first decisive label wins: ``Action:``
(with its ``Action Input:``) or ``Final Answer:``; whatever follows is
discarded, and so is everything from an invented ``Observation:`` on.
Labels may be decorated (see ``react_labels``); actions may be written as
``name``, ``name(key=value)``, ``name {json}``, a JSON object
(``{"action": ..., "action_input": ...}`` / ``{"name": ..., "arguments": ...}``),
or a ``<tool_call>`` block; arguments may need repair (see ``react_args``).
Anything unreadable or ambiguous raises ``FormatError`` whose ``feedback``
tells the model what to write instead. Nothing else is ever raised.

Deliberately left out: knowing the tools. Whether ``Action: wether`` names a
real tool is the registry's question, answered as an observation.

    >>> parse('Thought: add\\nAction: calculator\\nAction Input: {"expression": "2+3"}')
    Action(tool='calculator', input={'expression': '2+3'}, thought='add', raw='...')
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .errors import FormatError
from .react_args import find_object, loads_lenient, parse_call, parse_kwargs, strip_fences
from .react_labels import Block, drop_thinking, split_blocks
from .react_prompt import FORMAT_HELP, STOP, build_system_prompt

__all__ = ["Action", "FinalAnswer", "parse", "build_system_prompt", "STOP", "FORMAT_HELP"]

_NONE_WORDS = {"none", "n/a", "na", "no action", "null", "无", "不需要", "-"}
_FINAL_NAMES = {"finalanswer", "final", "finish", "answer", "最终答案"}
_NAME = re.compile(r"^[`'\"\[*]*([^\W\d][\w.\-]*)[`'\"\]*]*\s*[.,:;。，：]?\s*(.*)$", re.S)
# English wrapper words must stand apart ("the thermometer", "search_tool" keep their letters); Chinese ones need no space
_WRAPPER = re.compile(r"^(?:(?:the|use|using|call|calling)\s+|(?:调用|使用)\s*)(?=\S)"
                      r"|(?<=\S)(?:\s+(?:tool|function)|\s*(?:工具|函数))$", re.I)
_TOOL_CALL = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.S | re.I)
_ARG_KEYS = ("action_input", "arguments", "args", "input", "parameters", "params", "tool_input")
_NAME_KEYS = ("action", "name", "tool", "tool_name", "function")


@dataclass
class Action:
    """The model asks to run ``tool`` with ``input`` (a dict of arguments, or one plain string)."""
    tool: str
    input: dict | str
    thought: str = ""
    raw: str = field(default="", repr=False)

    def __repr__(self) -> str:  # raw can be long; the doctest shows it elided
        return f"Action(tool={self.tool!r}, input={self.input!r}, thought={self.thought!r}, raw='...')"


@dataclass
class FinalAnswer:
    """The model is done; ``answer`` is for the user."""
    answer: str
    thought: str = ""
    raw: str = field(default="", repr=False)


def _fail(message: str, hint: str = "") -> FormatError:
    return FormatError(message, f"{message} {hint}".strip() + "\n" + FORMAT_HELP)


def _is_final_name(name: str) -> bool:
    return re.sub(r"[\s_\-]", "", name.lower()) in _FINAL_NAMES


def _clean(text: str) -> str:
    return re.sub(r"</?tool_call>", "", strip_fences(text), flags=re.I).strip()


def _from_json(value) -> tuple[str, object] | None:
    """(tool, arguments or None) from a JSON action object; None if it is not one."""
    if isinstance(value, list):
        found = [a for a in map(_from_json, value) if a]
        if len({repr(a) for a in found}) > 1:
            raise _fail(f"Your reply asks for {len(found)} actions at once.",
                        "Write exactly one Action and one Action Input, then stop.")
        return found[0] if found else None
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("function"), dict):  # OpenAI style: {"function": {"name", "arguments"}}
        value = value["function"]
    name = next((value[k] for k in _NAME_KEYS if isinstance(value.get(k), str)), None)
    if name is None:
        return ("Final Answer", value["final_answer"]) if "final_answer" in value else None
    args = next((value[k] for k in _ARG_KEYS if k in value), None)
    if isinstance(args, str) and args.strip().startswith("{"):
        args = loads_lenient(args) if isinstance(loads_lenient(args), dict) else args
    return name.strip(), args


def _read_input(text: str, tool: str) -> dict | str:
    """The value of an ``Action Input:`` block."""
    t = _clean(text).strip("`").strip()
    if not t:
        raise _fail(f"The Action Input for {tool} is empty.",
                    'Write its arguments as a JSON object, e.g. Action Input: {"city": "北京"}, or {} if none.')
    if t[0] in "{[":
        found = find_object(t)
        value = loads_lenient(found[0]) if found else None
        if isinstance(value, list) and len(value) == 1:
            value = value[0]
        if not isinstance(value, dict):
            raise _fail(f"The Action Input for {tool} is not a valid JSON object: {t[:80]!r}.",
                        'Write one JSON object with double-quoted keys, e.g. {"expression": "2 + 3"}.')
        return value
    kwargs = parse_kwargs(t.splitlines()[0])
    if kwargs is not None:
        return kwargs
    value = loads_lenient(t)
    if isinstance(value, str):
        return value
    return t.split("\n\n")[0].strip()  # a plain-string input: its first paragraph


def _bare_name(line: str) -> str:
    """Drop the words small models wrap a tool name in: "The `get_weather` tool." -> "`get_weather`"."""
    line, before = line.strip().rstrip(".。"), None
    while line != before:
        before, line = line, _WRAPPER.sub("", line).strip()
    return line


def _read_action(text: str) -> tuple[str, object]:
    """(tool, arguments written on the Action line itself, or None)."""
    t = _clean(text)
    if t[:1] in "{[" or t.lower().startswith("<tool_call>"):
        found = find_object(t)
        got = _from_json(loads_lenient(found[0])) if found else None
        if got:
            return got
    first, _, below = t.partition("\n")
    if _is_final_name(first.strip(" *`'\"")):  # "Action: Final Answer" + "Action Input: <answer>"
        return "Final Answer", None
    call = parse_call(first)
    if call:
        return call
    if (m := re.match(r"^[`'\"]*([^\W\d][\w.\-]*)\s*\(", first.strip())) and not below.strip():
        # "calculator(expression: ...)": the name is clear; its arguments must come from Action Input
        return m.group(1), None
    m = _NAME.match(_bare_name(first))
    line_rest = m.group(2).strip() if m else ""
    if not m or (line_rest and not line_rest.startswith("{")):
        raise _fail(f"'Action:' must be exactly one tool name; you wrote {first.strip()[:60]!r}.",
                    "Write for example 'Action: calculator', and put the arguments on the 'Action Input:' line.")
    name = m.group(1)
    rest = (line_rest + "\n" + below).strip()
    if not rest.startswith("{"):
        return name, None  # a clean name line followed by chatter: the chatter is not an argument
    found = find_object(rest)
    value = loads_lenient(found[0]) if found else None
    if not isinstance(value, dict):
        raise _fail(f"The arguments after {name} are not a valid JSON object.",
                    'Write Action Input: {"key": "value"} on its own line.')
    return name, value


def _read_step(blocks: list[Block], i: int) -> tuple[Action | FinalAnswer, int]:
    """Read the action at ``blocks[i]`` with its input; return it and the index after its blocks."""
    tool, value = _read_action(blocks[i].text)
    j, inputs = i + 1, []
    while j < len(blocks) and blocks[j].label == "action_input":
        inputs.append(_read_input(blocks[j].text, tool))
        j += 1
    if not inputs and i > 0 and blocks[i - 1].label == "action_input":  # written in swapped order
        inputs.append(_read_input(blocks[i - 1].text, tool))
    if any(x != inputs[0] for x in inputs) or (inputs and value not in (None, {}, inputs[0])):
        raise _fail(f"Your reply gives two different inputs for {tool}.",
                    "Write exactly one Action Input.")
    value = inputs[0] if inputs else value
    if _is_final_name(tool):
        answer = value if isinstance(value, str) else ("" if value is None else str(value))
        if not answer.strip():
            raise _fail("Your Final Answer is empty.", "Write the answer after 'Final Answer:'.")
        return FinalAnswer(answer.strip()), j
    if value is None:
        raise _fail(f"You wrote 'Action: {tool}' but no 'Action Input:'.",
                    f"Add the arguments as JSON on the next line, e.g. Action Input: {{...}} ({{}} if {tool} takes none).")
    return Action(tool, value), j


def _thought(blocks: list[Block]) -> str:
    parts = [_clean(b.text) for b in blocks if b.label == "thought"]
    if not parts:
        parts = [_clean(b.text) for b in blocks[:1] if b.label == ""]
    return "\n".join(p for p in parts if p)


def _without_json(text: str) -> str:
    found = find_object(text)
    return _clean(text[:found[1]] + text[found[2]:]) if found else _clean(text)


def _anywhere(text: str, blocks: list[Block]) -> Action | FinalAnswer:
    """No Action/Final Answer label: look for an action written as JSON or a <tool_call> block."""
    pieces = [m.group(1) for m in _TOOL_CALL.finditer(text)] or [text]
    found: list[tuple[str, object]] = []
    for piece in pieces:
        rest = piece
        while (obj := find_object(rest)) is not None:
            got = _from_json(loads_lenient(obj[0]))
            if got:
                found.append(got)
            rest = rest[obj[2]:]
    if len({repr(f) for f in found}) > 1:
        raise _fail(f"Your reply asks for {len(found)} actions at once.",
                    "Write exactly one Action and one Action Input, then stop.")
    if found:
        tool, value = found[0]
        if _is_final_name(tool):
            if not str(value or "").strip():
                raise _fail("Your Final Answer is empty.", "Write the answer after 'Final Answer:'.")
            return FinalAnswer(str(value).strip(), _without_json(_thought(blocks)))
        if value is None:
            raise _fail(f"Your JSON action for {tool} has no arguments.",
                        'Write them as "action_input": {...}, or use Action / Action Input lines.')
        return Action(tool, value, _without_json(_thought(blocks)))
    if not text.strip():
        raise _fail("Your reply was empty.")
    if any(b.label == "thought" for b in blocks):
        raise _fail("Your reply has a Thought but no 'Action:' and no 'Final Answer:'.",
                    "Continue with the Action you need, or with 'Final Answer:' if you know the answer.")
    raise _fail("Your reply does not follow the format: it has no 'Action:' and no 'Final Answer:' line.",
                "If you already know the answer, write it after 'Final Answer:'.")


def parse(text: str) -> Action | FinalAnswer:
    """Read one ReAct step from a model reply; raise ``FormatError`` if it is unreadable or ambiguous."""
    raw = text if isinstance(text, str) else ""
    body = drop_thinking(raw)
    blocks = split_blocks(body)
    cut = next((i for i, b in enumerate(blocks) if b.label == "observation"), len(blocks))
    blocks = blocks[:cut]  # an invented Observation and all that follows it are not the model's step
    for i, b in enumerate(blocks):
        if b.label == "final":
            answer = _clean(b.text)
            if not answer:
                raise _fail("Your Final Answer is empty.", "Write the answer after 'Final Answer:'.")
            return FinalAnswer(answer, _thought(blocks[:i]), raw)
        if b.label != "action":
            continue
        if _clean(b.text).lower() in _NONE_WORDS or not _clean(b.text):
            if any(x.label == "action_input" for x in blocks[i + 1:i + 2]):
                raise _fail("Your 'Action:' line has no tool name.", "Write for example 'Action: calculator'.")
            continue  # "Action: None" then "Final Answer: ...": there is no action
        step, j = _read_step(blocks, i)
        nxt = next((k for k in range(j, len(blocks)) if blocks[k].label in ("action", "thought", "final")), None)
        if nxt is not None and blocks[nxt].label == "action" and _clean(blocks[nxt].text).lower() not in _NONE_WORDS:
            try:
                other, _ = _read_step(blocks, nxt)
            except FormatError:
                other = None
            if other != step:  # the same action twice is one action; two different ones are ambiguous
                raise _fail("Your reply asks for two different actions at once.",
                            "Write exactly one Action and one Action Input, then stop and wait for the Observation.")
        step.thought, step.raw = _thought(blocks[:i]), raw
        return step
    step = _anywhere("\n".join(b.text for b in blocks), blocks)
    step.raw = raw
    return step
