"""Grammars from tool schemas (no model): they parse, accept well-formed replies and refuse the rest."""
from __future__ import annotations

import datetime

import pytest
from gbnf_match import matches, parse_gbnf

from handmade_agent.agent import Agent
from handmade_agent.grammar import answer_grammar, tool_call_grammar
from handmade_agent.llm import ScriptedLLM
from handmade_agent.react import react_grammar
from handmade_agent.toolbox import default_registry
from handmade_agent.tools import Tool


@pytest.fixture(scope="module")
def tools():
    return default_registry(today=datetime.date(2024, 5, 20))


def new_tool() -> Tool:
    return Tool("book_court", "Book a tennis court.", {"type": "object", "properties": {
        "club": {"type": "string"}, "hours": {"type": "integer"},
        "surface": {"type": "string", "enum": ["clay", "grass"]}}, "required": ["club", "hours"]}, lambda **k: "ok")


def test_the_react_grammar_takes_a_real_tool_with_valid_arguments(tools):
    rules = parse_gbnf(react_grammar(tools))
    assert matches(rules, 'Thought: weather first\nAction: get_weather\nAction Input: {"city": "北京", "date": "tomorrow"}')
    assert matches(rules, 'Thought: none\nAction: current_date\nAction Input: {}')
    assert matches(rules, 'Thought: start before end\nAction: days_between\n'
                          'Action Input: {"start": "2024-03-15", "end": "2024-08-01"}')
    assert not matches(rules, 'Thought: x\nAction: get_weather\nAction Input: {"city": "北京", "date": "someday"}')
    assert not matches(rules, 'Thought: x\nAction: wether\nAction Input: {"city": "北京"}')
    assert not matches(rules, 'Thought: x\nAction: add_days\nAction Input: {"date": "2024-01-01"}')  # days missing
    assert not matches(rules, 'Thought: x\nAction: calculator\nAction Input: {"expression": "1+1"}\nObservation: 2')


def test_the_react_grammar_keeps_the_final_answer_open(tools):
    rules = parse_gbnf(react_grammar(tools))
    assert matches(rules, "Thought: no tool fits\nFinal Answer: I cannot book flights.\nSorry.")
    assert not matches(rules, "Final Answer: no thought first")
    only_final = parse_gbnf(react_grammar([]))
    assert matches(only_final, "Thought: t\nFinal Answer: a")
    assert not matches(only_final, 'Thought: t\nAction: calculator\nAction Input: {"expression": "1"}')


def test_a_new_tool_gets_rules_of_its_own_and_optional_keys_stay_optional(tools):
    rules = parse_gbnf(react_grammar([*tools, new_tool()]))
    assert matches(rules, 'Thought: t\nAction: book_court\nAction Input: {"club": "Elm", "hours": 2}')
    assert matches(rules, 'Thought: t\nAction: book_court\nAction Input: {"club": "Elm", "hours": 2, "surface": "clay"}')
    assert not matches(rules, 'Thought: t\nAction: book_court\nAction Input: {"club": "Elm", "hours": "two"}')
    assert not matches(rules, 'Thought: t\nAction: book_court\nAction Input: {"club": "Elm", "hours": 2, "x": 1}')


def test_the_native_grammar_takes_a_call_or_plain_text(tools):
    rules = parse_gbnf(tool_call_grammar(tools.schemas()))
    call = '{"name": "calculator", "arguments": {"expression": "2*3"}}'
    assert matches(rules, f"<tool_call>\n{call}\n</tool_call>") and matches(rules, call)
    assert matches(rules, "Paris is the capital of France.")
    assert not matches(rules, '<tool_call>\n{"name": "nope", "arguments": {}}\n</tool_call>')
    assert not matches(rules, '{"name": "calculator", "arguments": {"expr": "2*3"}}')


def test_grammars_are_cached_per_tool_set(tools):
    assert react_grammar(tools) is react_grammar(list(tools))
    assert react_grammar(tools) != react_grammar([*tools, new_tool()])


def test_act_first_closes_the_final_answer_on_the_first_reply_only(tools):
    act = parse_gbnf(react_grammar(tools, act=True))
    assert matches(act, 'Thought: t\nAction: calculator\nAction Input: {"expression": "1"}')
    assert not matches(act, "Thought: no tool fits\nFinal Answer: I cannot.")

    class Constrainable(ScriptedLLM):
        supports_grammar = True
    llm = Constrainable(['Thought: t\nAction: calculator\nAction Input: {"expression": "2+2"}', "Thought: t\nFinal Answer: 4"])
    run = Agent(llm, tools, act_first=True).run("2+2?")
    assert run.answer == "4" and [c["grammar"] for c in llm.calls] == [react_grammar(tools, act=True), react_grammar(tools)]


def test_the_agent_sends_a_grammar_only_to_a_backend_that_can_constrain(tools):
    class Constrainable(ScriptedLLM):
        supports_grammar = True
    llm = Constrainable(["Thought: t\nFinal Answer: 4"])
    Agent(llm, tools).run("2+2?")
    assert llm.calls[0]["grammar"] == react_grammar(tools)
    off = Constrainable(["Thought: t\nFinal Answer: 4"])
    Agent(off, tools, constrained=False).run("2+2?")
    assert off.calls[0]["grammar"] is None
    plain = ScriptedLLM(["Thought: t\nFinal Answer: 4"])
    Agent(plain, tools, constrained=True).run("2+2?")
    assert plain.calls[0]["grammar"] is None


CALL = '{"name": "calculator", "arguments": {"expression": "2*3"}}'
WEATHER = '{"name": "get_weather", "arguments": {"city": "北京", "date": "tomorrow"}}'


def test_tool_choice_auto_is_the_default_grammar(tools):
    assert tool_call_grammar(tools.schemas(), "auto") == tool_call_grammar(tools.schemas())
    assert tool_call_grammar(tools.schemas(), None) == tool_call_grammar(tools.schemas())


def test_tool_choice_none_allows_only_text(tools):
    rules = parse_gbnf(tool_call_grammar(tools.schemas(), "none"))
    assert tool_call_grammar(tools.schemas(), "none") == answer_grammar()
    assert matches(rules, "北京明天多云，13-24 °C。")
    assert not matches(rules, f"<tool_call>\n{CALL}\n</tool_call>") and not matches(rules, CALL)


def test_tool_choice_required_allows_only_calls(tools):
    rules = parse_gbnf(tool_call_grammar(tools.schemas(), "required"))
    assert matches(rules, f"<tool_call>\n{CALL}\n</tool_call>") and matches(rules, CALL)
    assert matches(rules, f"<tool_call>\n{WEATHER}\n</tool_call>\n<tool_call>\n{CALL}\n</tool_call>")  # parallel
    assert not matches(rules, "Paris is the capital of France.")
    assert not matches(rules, '<tool_call>\n{"name": "nope", "arguments": {}}\n</tool_call>')


def test_tool_choice_naming_a_function_allows_only_calls_to_it(tools):
    choice = {"type": "function", "function": {"name": "get_weather"}}
    rules = parse_gbnf(tool_call_grammar(tools.schemas(), choice))
    assert matches(rules, f"<tool_call>\n{WEATHER}\n</tool_call>") and matches(rules, WEATHER)
    assert not matches(rules, f"<tool_call>\n{CALL}\n</tool_call>") and not matches(rules, CALL)
    assert not matches(rules, "晴。")
    assert not matches(rules, '{"name": "get_weather", "arguments": {"city": "北京", "date": "someday"}}')
    assert tool_call_grammar(list(tools), choice) == tool_call_grammar(tools.schemas(), choice)  # Tool or dict


@pytest.mark.parametrize("choice, says", [
    ("sometimes", "tool_choice must be one of"), ({"type": "function"}, "tool_choice must be one of"),
    ({"type": "function", "function": {"name": "book_flight"}}, "no tool offered is called that"),
])
def test_a_tool_choice_that_cannot_be_followed_is_a_clear_error(tools, choice, says):
    with pytest.raises(ValueError, match=says):
        tool_call_grammar(tools.schemas(), choice)
    with pytest.raises(ValueError, match="at least one tool"):
        tool_call_grammar([], "required")
    assert tool_call_grammar([], "auto") == answer_grammar()  # no tools: a text answer is all there is
