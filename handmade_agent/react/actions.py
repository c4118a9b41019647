"""Reading the parts of one ReAct step: the action's name, its arguments, actions written as JSON.

``react.parse`` finds the labelled blocks of a reply; the functions here read
what is inside them. ``read_action`` accepts a tool name however it is wrapped
(``The `get_weather` tool.``), a call (``get_weather(city="北京")``), a
signature (``calculator(expression)``, whose values then come from
``Action Input``), ``name {json}``, or a JSON action object. ``read_input``
reads an ``Action Input`` block: JSON (repaired by ``repair.py``), keyword
arguments, or a plain string. Every refusal is a ``FormatError`` made by
``fail``, whose feedback ends with the exact format.

Deliberately left out: knowing which tools exist (the registry answers that).

    >>> read_action("The `get_weather` tool.")
    ('get_weather', None)
"""
from __future__ import annotations

import re

from ..errors import FormatError
from ..llm import TOOL_CALL_BLOCK
from .repair import find_object, loads_lenient, parse_call, parse_kwargs, strip_fences
from .prompt import FORMAT_HELP

NONE_WORDS = {"none", "n/a", "na", "no action", "null", "无", "不需要", "-"}
_FINAL_NAMES = {"finalanswer", "final", "finish", "answer", "最终答案"}
_NAME = re.compile(r"^[`'\"\[*]*([^\W\d][\w.\-]*)[`'\"\]*]*\s*[.,:;。，：]?\s*(.*)$", re.S)
# English wrapper words must stand apart ("the thermometer", "search_tool" keep their letters); Chinese ones need no space
_LEAD = re.compile(r"^(?:(?:the|use|using|call|calling)\s+|(?:调用|使用)\s*)(?=\S)", re.I)
_TRAIL = re.compile(r"(?<=\S)(?:\s+(?:tool|function)|\s*(?:工具|函数))$", re.I)
_ARG_KEYS = ("action_input", "arguments", "args", "input", "parameters", "params", "tool_input")
_EDGE = 40  # characters at each end of an Action line where wrapper words can be
MAX_OBJECTS = 50  # JSON objects json_actions reads from one reply; a real step has one or two
_NAME_KEYS = ("action", "name", "tool", "tool_name", "function")


def fail(message: str, hint: str = "") -> FormatError:
    """A FormatError whose feedback is the problem, the hint, and the exact format again."""
    problem = f"{message} {hint}".strip()
    return FormatError(message, problem + "\n" + FORMAT_HELP, problem=problem)


def is_final_name(name: str) -> bool:
    """Is this "tool name" really the final answer ("Final Answer", "final_answer", "finish")?"""
    return re.sub(r"[\s_\-]", "", name.lower()) in _FINAL_NAMES


def clean(text: str) -> str:
    """Block text without code fences and <tool_call> tags."""
    return re.sub(r"</?tool_call>", "", strip_fences(text), flags=re.I).strip()


def from_json(value) -> tuple[str, object] | None:
    """(tool, arguments or None) from a JSON action object; None if it is not one."""
    if isinstance(value, list):
        found = [a for a in map(from_json, value) if a]
        if len({repr(a) for a in found}) > 1:
            raise fail(f"Your reply asks for {len(found)} actions at once.",
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


def read_input(text: str, tool: str) -> dict | str:
    """The value of an ``Action Input:`` block."""
    t = clean(text).strip("`").strip()
    if not t:
        raise fail(f"The Action Input for {tool} is empty.",
                    'Write its arguments as a JSON object, e.g. Action Input: {"city": "北京"}, or {} if none.')
    if t[0] in "{[":
        found = find_object(t)
        value = loads_lenient(found[0]) if found else None
        if isinstance(value, list) and len(value) == 1:
            value = value[0]
        if not isinstance(value, dict):
            raise fail(f"The Action Input for {tool} is not a valid JSON object: {t[:80]!r}.",
                        'Write one JSON object with double-quoted keys, e.g. {"expression": "2 + 3"}.')
        return value
    kwargs = parse_kwargs(t.splitlines()[0])
    if kwargs is not None:
        return kwargs
    value = loads_lenient(t)
    if isinstance(value, str):
        return value
    return t.split("\n\n")[0].strip()  # a plain-string input: its first paragraph


def bare_name(line: str) -> str:
    """Drop the words small models wrap a tool name in: "The `get_weather` tool." -> "`get_weather`"."""
    line, before = line.strip().rstrip(".。"), None
    for _ in range(4):  # "use the `x` tool" has at most a few wrappers; "the the the ..." is not a name
        if line == before:
            break
        before, line = line, _LEAD.sub("", line, count=1)
        # the trailing "tool" sits in the last few characters: searching only those keeps a long line linear
        tail = _TRAIL.search(line, max(0, len(line) - _EDGE))
        line = line[:tail.start()] if tail else line
        line = line.strip()
    return line


def read_action(text: str) -> tuple[str, object]:
    """(tool, arguments written on the Action line itself, or None)."""
    t = clean(text)
    if t[:1] in "{[" or t.lower().startswith("<tool_call>"):
        found = find_object(t)
        got = from_json(loads_lenient(found[0])) if found else None
        if got:
            return got
    first, _, below = t.partition("\n")
    if is_final_name(first.strip(" *`'\"")):  # "Action: Final Answer" + "Action Input: <answer>"
        return "Final Answer", None
    call = parse_call(first)
    if call:
        return call
    if (m := re.match(r"^[`'\"]*([^\W\d][\w.\-]*)\s*\(", first.strip())) and not below.strip():
        # "calculator(expression: ...)": the name is clear; its arguments must come from Action Input
        return m.group(1), None
    m = _NAME.match(bare_name(first))
    line_rest = m.group(2).strip() if m else ""
    if not m or (line_rest and not line_rest.startswith("{")):
        raise fail(f"'Action:' must be exactly one tool name; you wrote {first.strip()[:60]!r}.",
                    "Write for example 'Action: calculator', and put the arguments on the 'Action Input:' line.")
    name = m.group(1)
    rest = (line_rest + "\n" + below).strip()
    if not rest.startswith("{"):
        return name, None  # a clean name line followed by chatter: the chatter is not an argument
    found = find_object(rest)
    value = loads_lenient(found[0]) if found else None
    if not isinstance(value, dict):
        raise fail(f"The arguments after {name} are not a valid JSON object.",
                    'Write Action Input: {"key": "value"} on its own line.')
    return name, value


def json_actions(text: str) -> list[tuple[str, object]]:
    """Every action written as a JSON object (or inside ``<tool_call>`` blocks) in ``text``, in order."""
    pieces = [m.group(1) for m in TOOL_CALL_BLOCK.finditer(text)] or [text]
    found: list[tuple[str, object]] = []
    looked = 0
    for piece in pieces:
        pos = 0  # an offset, not a slice: slicing 1 MB of "{}" half a million times took 19 s
        while looked < MAX_OBJECTS and (obj := find_object(piece, pos)) is not None:
            looked += 1
            got = from_json(loads_lenient(obj[0]))
            if got:
                found.append(got)
            pos = obj[2]
    return found
