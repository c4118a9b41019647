"""The ReAct parser: the public corpus, specific behaviours, feedback text, and a fuzz test."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from handmade_agent.errors import FormatError
from handmade_agent.react import STOP, Action, FinalAnswer, parse
from handmade_agent.react.repair import find_object, loads_lenient, parse_call, parse_kwargs
from handmade_agent.react.labels import drop_thinking, match_label

CORPUS = Path(__file__).resolve().parent.parent / "data" / "react_corpus.jsonl"
ROWS = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_corpus_is_big_and_varied():
    assert len(ROWS) >= 60
    cats = {r["category"] for r in ROWS}
    assert {"labels", "chinese", "action_forms", "json_repair", "multi_step", "chatter", "must_fail"} <= cats
    assert len({r["id"] for r in ROWS}) == len(ROWS)
    assert sum(r["source"] != "handwritten" for r in ROWS) >= 5, "real local-model outputs belong in the corpus"


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_corpus_row(row):
    expect = row["expect"]
    if expect["kind"] == "error":
        with pytest.raises(FormatError):
            parse(row["text"])
        return
    got = parse(row["text"])
    if expect["kind"] == "final":
        assert isinstance(got, FinalAnswer) and got.answer == expect["answer"]
    else:
        assert isinstance(got, Action), got
        assert (got.tool, got.input) == (expect["tool"], expect["input"])
    assert got.raw == row["text"]


def test_thought_is_kept_and_multiline():
    got = parse("Thought: first line\nsecond line\nAction: calculator\nAction Input: {\"expression\": \"1\"}")
    assert got.thought == "first line\nsecond line"


def test_leading_chatter_becomes_the_thought_when_there_is_no_thought_label():
    got = parse('I will add them.\nAction: calculator\nAction Input: {"expression": "1+1"}')
    assert got.thought == "I will add them."


def test_observation_cut_discards_a_later_final_answer():
    text = 'Action: calculator\nAction Input: {"expression": "2+2"}\nObservation: 4\nFinal Answer: 4'
    assert isinstance(parse(text), Action)


@pytest.mark.parametrize("text, fragment", [
    ("", "empty"),
    ("The weather is nice.", "Final Answer:"),
    ("Thought: hmm", "no 'Action:'"),
    ("Action: get_weather", "Action Input"),
    ('Action: a\nAction Input: {}\nAction: b\nAction Input: {}', "two different actions"),
    ('Action: calculator\nAction Input: {"expression": [1, 2}', "not a valid JSON object"),
    ("Action: use the calculator please\nAction Input: {}", "exactly one tool name"),
])
def test_format_error_feedback_says_what_to_write(text, fragment):
    with pytest.raises(FormatError) as info:
        parse(text)
    assert fragment in info.value.feedback
    assert "Action Input:" in info.value.feedback and "Final Answer:" in info.value.feedback


def test_stop_sequence_is_the_observation_label():
    assert STOP == ["Observation:"]


def test_label_matcher():
    assert match_label("## Final Answer") == ("final", "")
    assert match_label("**行动输入：** {}") == ("action_input", "{}")
    assert match_label("Actionable: x") is None
    assert match_label("Action items for today") is None
    assert match_label("The answer: 42") is None


def test_think_blocks():
    assert drop_thinking("<think>a</think>b<think>c</think>d") == "bd"
    assert drop_thinking("reasoning...</think>Final Answer: 1") == "Final Answer: 1"
    assert drop_thinking("Final Answer: 1\n<think>unfinished") == "Final Answer: 1\n"


def test_argument_repair_helpers():
    assert loads_lenient("{'a': True, 'b': None,}") == {"a": True, "b": None}
    assert loads_lenient('{a: 1, "b": null}') == {"a": 1, "b": None}
    assert loads_lenient("not json at all") is None
    assert find_object('x {"a": {"b": "}"}} y')[0] == '{"a": {"b": "}"}}'
    assert find_object('{"a": [1, 2')[0] == '{"a": [1, 2]}'
    assert parse_call('get_weather(city="北京", date="today")') == ("get_weather", {"city": "北京", "date": "today"})
    assert parse_call("calculator(2 + 3)") == ("calculator", "2 + 3")
    assert parse_call("f(1, 2)") is None  # which parameter gets which value would be a guess
    assert parse_kwargs('city="上海"') == {"city": "上海"}
    assert parse_kwargs("just text") is None


LABELS = ["Thought:", "Action:", "Action Input:", "Final Answer:", "Observation:", "思考：", "行动：",
          "行动输入：", "最终答案：", "**Action:**", "### Action", "Answer:", "<think>", "</think>",
          "<tool_call>", "</tool_call>", "```json", "```", "{", "}", "[", "]", '"', "'", ":", ",", "(", ")",
          "=", "\n", "calculator", "get_weather", '{"city": "北京"}', '{"name": "x", "arguments": {}}', "None"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(LABELS), st.text(max_size=12)), max_size=25).map("".join))
def test_parser_raises_only_format_error(text):
    try:
        got = parse(text)
    except FormatError as e:
        assert e.feedback
        return
    assert isinstance(got, (Action, FinalAnswer))
    if isinstance(got, Action):
        assert got.tool and isinstance(got.input, (dict, str))
    else:
        assert got.answer.strip()


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_parser_raises_only_format_error_on_arbitrary_text(text):
    try:
        parse(text)
    except FormatError:
        pass


def test_non_string_input_is_a_format_error():
    with pytest.raises(FormatError):
        parse(None)  # type: ignore[arg-type]
