"""Golden tests for the JSON Schemas that @tool builds from type hints and docstrings."""
from __future__ import annotations

import enum
import json
import os
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union

import pytest

from handmade_agent.errors import ToolError
from handmade_agent.tools.schema import parse_docstring, type_schema
from handmade_agent.tools import Tool, ToolRegistry, tool

GOLDEN = Path(__file__).parent / "golden"


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


def test_golden_schema_covers_every_supported_hint():
    @tool
    def everything(text: str, count: int, ratio: float, flag: bool, names: list[str],
                   table: dict, mode: Literal["fast", "slow"], color: Color,
                   note: Optional[str] = None, level: int | None = 3, scores: dict[str, float] | None = None,
                   hint: Annotated[str, "Written in the annotation."] = "x", anything: Any = None) -> str:
        """Do everything at once.

        A second paragraph of description.

        Args:
            text: Some text.
            count: How many,
                over two lines.
            ratio (float): A ratio.
            flag: On or off.
            names: Who.
            mode: How fast.
            color: Which colour.
            level: The level.

        Returns:
            Nothing useful.
        """
        return ""

    assert everything.schema() == {"type": "function", "function": {
        "name": "everything",
        "description": "Do everything at once.\nA second paragraph of description.",
        "parameters": {"type": "object", "properties": {
            "text": {"type": "string", "description": "Some text."},
            "count": {"type": "integer", "description": "How many, over two lines."},
            "ratio": {"type": "number", "description": "A ratio."},
            "flag": {"type": "boolean", "description": "On or off."},
            "names": {"type": "array", "items": {"type": "string"}, "description": "Who."},
            "table": {"type": "object"},
            "mode": {"type": "string", "enum": ["fast", "slow"], "description": "How fast."},
            "color": {"type": "string", "enum": ["red", "green"], "description": "Which colour."},
            "note": {"type": ["string", "null"], "default": None},
            "level": {"type": ["integer", "null"], "description": "The level.", "default": 3},
            "scores": {"type": ["object", "null"], "additionalProperties": {"type": "number"}, "default": None},
            "hint": {"type": "string", "description": "Written in the annotation.", "default": "x"},
            "anything": {"default": None},
        }, "required": ["text", "count", "ratio", "flag", "names", "table", "mode", "color"]}}}


def test_decorator_with_options_and_rest_docstring():
    @tool(name="send-mail", side_effects=True, timeout=1.5)
    def send(to: str, body: str = "", urgent: bool = False) -> str:
        """Send an e-mail.

        :param to: The address.
        :param body: What to say,
            possibly long.
        :returns: a receipt
        """
        return "sent"

    assert (send.name, send.side_effects, send.timeout) == ("send-mail", True, 1.5)
    assert send.parameters == {"type": "object", "properties": {
        "to": {"type": "string", "description": "The address."},
        "body": {"type": "string", "description": "What to say, possibly long.", "default": ""},
        "urgent": {"type": "boolean", "default": False}}, "required": ["to"]}
    assert send("a@b.c") == "sent"  # a Tool still calls like the function


def test_signature_line_shows_types_defaults_and_enums():
    @tool
    def f(city: str, date: Literal["today", "tomorrow"] = "today", n: Optional[int] = None,
          tags: list[str] | None = None) -> str:
        """F."""
        return ""

    assert f.signature() == ('f(city: string, date: "today" | "tomorrow" = "today", n: integer | null = null, '
                             'tags: array[string] | null = null)')


def test_docstring_description_stops_at_sections_and_doctests():
    desc, args = parse_docstring("""Add numbers.

    >>> add(1, 2)
    3
    """)
    assert desc == "Add numbers." and args == {}
    desc, args = parse_docstring("Summary line\ncontinues here.\n\nArgs:\n    a: first\n    b (int): second\n")
    assert desc == "Summary line continues here." and args == {"a": "first", "b": "second"}


def test_enum_parameter_reaches_the_function_as_a_member():
    @tool
    def paint(color: Color) -> str:
        """Paint."""
        return f"{color!r}"

    from handmade_agent.tools import ToolRegistry
    assert ToolRegistry([paint]).call("paint", {"color": "GREEN"}).content == "<Color.GREEN: 'green'>"


@pytest.mark.parametrize("hint", [complex, bytes, set[complex], object])
def test_unsupported_hint_is_a_clear_error(hint):
    with pytest.raises(ToolError, match="JSON Schema"):
        type_schema(hint, "f(x)")


def test_tool_building_errors_say_what_to_do():
    def undocumented(x: int) -> int:
        return x

    with pytest.raises(ToolError, match="no docstring"):
        tool(undocumented)
    assert tool(undocumented, description="Echo x.").description == "Echo x."

    def variadic(*numbers: int) -> int:
        """Sum."""
        return sum(numbers)

    with pytest.raises(ToolError, match="named parameters"):
        tool(variadic)
    with pytest.raises(ToolError, match="letters, digits"):
        Tool("天气", "Weather.", {"type": "object"}, lambda: None)
    with pytest.raises(ToolError, match="JSON Schema object"):
        Tool("x", "X.", {"type": "array"}, lambda: None)


def test_hand_written_tool_gets_missing_schema_keys_filled():
    t = Tool("ping", "Answer pong.", {"type": "object"}, lambda: "pong")
    assert t.parameters == {"type": "object", "properties": {}, "required": []}


def test_toolbox_schemas_and_description_match_golden_files():
    """The exact text and schemas the model sees; a change here changes every prompt, so it must be deliberate.

    Regenerate after an intended change with UPDATE_GOLDEN=1 and review the diff.
    """
    import datetime

    from handmade_agent.toolbox import default_registry
    registry = default_registry(today=datetime.date(2024, 5, 20))
    schemas = json.dumps(registry.schemas(), ensure_ascii=False, indent=1) + "\n"
    describe = registry.describe() + "\n"
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.mkdir(exist_ok=True)
        (GOLDEN / "toolbox_schemas.json").write_text(schemas, encoding="utf-8")
        (GOLDEN / "toolbox_describe.txt").write_text(describe, encoding="utf-8")
    assert schemas == (GOLDEN / "toolbox_schemas.json").read_text(encoding="utf-8")
    assert describe == (GOLDEN / "toolbox_describe.txt").read_text(encoding="utf-8")


def test_union_of_several_types_becomes_any_of():
    @tool
    def pick(item: Union[int, list[int]], label: Optional[Union[int, str]] = None) -> str:
        """Pick."""
        return ""

    assert pick.parameters["properties"] == {
        "item": {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"type": "integer"}}]},
        "label": {"anyOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}, {"type": "null"}],
                  "default": None}}
    assert ToolRegistry([pick]).call("pick", {"item": ["1", 2]}).ok


def test_unresolvable_string_annotation_is_a_clear_error():
    def f(x: "NotImportedAnywhere") -> str:  # noqa: F821
        """F."""
        return ""

    with pytest.raises(ToolError, match="cannot resolve its type hints"):
        tool(f)
