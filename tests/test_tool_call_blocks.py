"""One reading of ``<tool_call>`` blocks: the in-process model's native calls and the ReAct parser agree."""
from __future__ import annotations

import pytest

from handmade_agent.local import parse_tool_calls
from handmade_agent.react import Action, parse

BLOCKS = [
    '<tool_call>\n{"name": "calculator", "arguments": {"expression": "2+3"}}\n</tool_call>',
    '<TOOL_CALL>{"name": "calculator", "arguments": {"expression": "2+3"}}</TOOL_CALL>',  # a model's capitals
    '<tool_call>{"name": "calculator", "arguments": {"expression": "2+3"}}',  # cut off before the closing tag
]


@pytest.mark.parametrize("reply", BLOCKS)
def test_native_calls_and_react_read_the_same_blocks(reply):
    text, calls = parse_tool_calls(reply)
    assert [(c.name, c.arguments) for c in calls] == [("calculator", '{"expression": "2+3"}')] and text == ""
    step = parse(reply)
    assert isinstance(step, Action) and (step.tool, step.input) == ("calculator", {"expression": "2+3"})


def test_the_block_pattern_is_written_once():
    from pathlib import Path
    package = Path(__file__).resolve().parents[1] / "handmade_agent"
    written = [p.relative_to(package).as_posix() for p in package.rglob("*.py")
               if "re.compile(r\"<tool_call>" in p.read_text(encoding="utf-8")]
    assert written == ["llm.py"]
