"""Argument parsing and coercion against a JSON Schema (the rules behind ToolRegistry.call)."""
from __future__ import annotations

import pytest

from handmade_agent.tools.arguments import parse_arguments, shorthand_parameter
from handmade_agent.tools.coercion import ArgumentError, coerce_arguments, coerce_value, describe_expected


def one(kind, value):
    return coerce_value({"type": kind}, value, "p")


@pytest.mark.parametrize("kind, value, expected", [
    ("integer", "10", 10), ("integer", " -3 ", -3), ("integer", 7.0, 7), ("integer", "7.0", 7), ("integer", 5, 5),
    ("number", "2.5", 2.5), ("number", 3, 3), ("number", "1e3", 1000.0),
    ("boolean", "true", True), ("boolean", "No", False), ("boolean", 1, True), ("boolean", False, False),
    ("string", 2024, "2024"), ("string", 1.5, "1.5"), ("string", "北京", "北京"),
    ("array", "[1, 2]", [1, 2]), ("array", (1, 2), [1, 2]),
    ("object", '{"a": 1}', {"a": 1}), ("null", None, None),
])
def test_safe_coercions(kind, value, expected):
    got = one(kind, value)
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize("kind, value", [
    ("integer", "ten"), ("integer", 2.5), ("integer", "2.5"), ("integer", True), ("integer", None),
    ("number", "abc"), ("number", "inf"), ("number", False), ("boolean", "maybe"), ("boolean", 2),
    ("string", True), ("string", ["a"]), ("string", {"a": 1}), ("array", "a,b"), ("object", "[1]"),
])
def test_unsafe_values_are_refused_with_expected_and_got(kind, value):
    with pytest.raises(ArgumentError) as info:
        one(kind, value)
    assert info.value.problems[0].startswith(f"parameter 'p': expected {kind}, got ")


def test_nested_arrays_objects_and_nullable():
    schema = {"type": "array", "items": {"type": "integer"}}
    assert coerce_value(schema, ["1", 2], "xs") == [1, 2]
    with pytest.raises(ArgumentError, match=r"parameter 'xs\[1\]': expected integer, got \"b\""):
        coerce_value(schema, ["1", "b"], "xs")
    nested = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    assert coerce_value(nested, {"n": "3"}, "opt") == {"n": 3}
    with pytest.raises(ArgumentError, match="missing required parameter 'opt.n'"):
        coerce_value(nested, {}, "opt")
    assert coerce_value({"type": ["integer", "null"]}, None, "p") is None
    assert coerce_value({"anyOf": [{"type": "integer"}, {"type": "array", "items": {"type": "integer"}}]},
                        ["4"], "p") == [4]
    assert coerce_value({}, object, "p") is object  # no type: anything goes


def test_enum_suggests_the_closest_value():
    with pytest.raises(ArgumentError, match=r"got \"tomorow\" \(string\) \(did you mean 'tomorrow'\?\)"):
        coerce_value({"type": "string", "enum": ["today", "tomorrow"]}, "tomorow", "date")
    assert coerce_value({"enum": [1, 2]}, 2, "p") == 2
    with pytest.raises(ArgumentError):  # True == 1 in Python, but a boolean is not the enum value 1
        coerce_value({"enum": [1, 2]}, True, "p")


def test_describe_expected_reads_naturally():
    assert describe_expected({"type": "array", "items": {"type": "string"}}) == "array of string"
    assert describe_expected({"type": ["integer", "null"]}) == "integer or null"
    assert describe_expected({"enum": ["a", "b"]}) == 'one of "a", "b"'
    assert describe_expected({}) == "any value"


SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}, "date": {"type": "string"}},
          "required": ["city"]}


def test_parse_arguments_accepts_every_shape_a_model_sends():
    assert parse_arguments(SCHEMA, None) == {} and parse_arguments(SCHEMA, "  ") == {}
    assert parse_arguments(SCHEMA, {"city": "x"}) == {"city": "x"}
    assert parse_arguments(SCHEMA, '{"city": "x"}') == {"city": "x"}
    assert parse_arguments(SCHEMA, "Beijing") == {"city": "Beijing"}
    assert parse_arguments(SCHEMA, "[1, 2]") == {"city": "[1, 2]"}  # text for a text parameter stays text
    assert parse_arguments(SCHEMA, 42) == {"city": 42}
    single = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    assert parse_arguments(single, "42") == {"n": 42}
    assert parse_arguments(single, {"input": "42"}) == {"n": "42"}  # one-parameter tool, wrong key: remapped


def test_shorthand_parameter_rules():
    assert shorthand_parameter(SCHEMA) == "city"
    assert shorthand_parameter({"properties": {"a": {}}, "required": []}) == "a"
    assert shorthand_parameter({"properties": {"a": {}, "b": {}}, "required": []}) is None
    assert shorthand_parameter({"properties": {"a": {}, "b": {}}, "required": ["a", "b"]}) is None


def test_coerce_arguments_maps_keys_like_tool_names():
    assert coerce_arguments(SCHEMA, {"City": "x", "DATE": "y"}) == {"city": "x", "date": "y"}


@pytest.mark.parametrize("args, path", [({"tags": [1, "b"]}, "tags[1]"), ({"where": {"n": "x"}}, "where.n"),
                                         ({"Tags": ["2", "x"]}, "tags[1]")])
def test_a_required_parameter_given_with_a_bad_part_is_reported_once_and_not_as_missing(args, path):
    schema = {"type": "object", "required": ["where"] if "where" in args else ["tags"],
              "properties": {"tags": {"type": "array", "items": {"type": "integer"}},
                             "where": {"type": "object", "properties": {"n": {"type": "integer"}}}}}
    with pytest.raises(ArgumentError) as info:
        coerce_arguments(schema, args)
    assert len(info.value.problems) == 1 and info.value.problems[0].startswith(f"parameter '{path}': expected ")
