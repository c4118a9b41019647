"""What a model reply asks for, in either protocol: tool calls, a final answer, or a problem to send back.

``read_reply`` turns a completion into a ``Reply``: text ReAct is parsed (chapter 02's ``parse``, whose
``FormatError`` names what is wrong, with ``format_help`` listing the tools); a native reply is read by
``native.read_native``. Each call comes out as ``(name, arguments, call id)``, whatever protocol wrote it, so the
loop runs them one way.

Deliberately left out: repairing a reply (the parser's own repairs are in ``react/repair.py``), and running anything.

    >>> from handmade_agent.llm import Completion
    >>> read_reply(Completion('Thought: add\\nAction: add\\nAction Input: {"a": 1}'), 1, react=True, tools=["add"]).calls
    [('add', {'a': 1}, None)]
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from ..errors import FormatError
from ..llm import Completion
from ..react import FinalAnswer, format_help, loads_lenient, parse
from .native import clean_completion, read_native


@dataclass
class Reply:
    text: str = ""                                    # what the model wrote ("" for none)
    calls: list[tuple] = field(default_factory=list)  # (tool name, arguments: dict or the text as written, call id)
    answer: str | None = None
    thought: str = ""
    problem: str | None = None                        # set when the reply cannot be used; ``feedback`` says what to do
    feedback: str | None = None


def read_reply(c: Completion, index: int, *, react: bool, tools: Sequence[str]) -> Reply:
    """The ``Reply`` of completion ``c`` at step ``index`` (``tools``: the names a format error lists)."""
    if not react:
        c = clean_completion(c, index)  # a None text or tool name from a server must not crash the step
        native = read_native(c, index)
        calls = []
        for call in native.calls:
            args = loads_lenient(call.arguments or "{}")  # arguments that are no JSON object reach the tool as written
            calls.append((call.name or "", args if isinstance(args, dict) else call.arguments, call.id))
        return Reply(c.text or "", calls, native.answer, "", native.problem, native.feedback or native.problem)
    try:
        parsed = parse(c.text)
    except FormatError as e:
        return Reply(c.text or "", problem=str(e), feedback=e.problem + "\n" + format_help(tools))
    if isinstance(parsed, FinalAnswer):
        return Reply(c.text, answer=parsed.answer, thought=parsed.thought)
    return Reply(c.text, [(parsed.tool, parsed.input, None)], thought=parsed.thought)
