"""Final-answer checks plugged into the loop (agent/policies.py): a check's message goes back to the model as its
observation, each check sends back at most once, and the default checks read figures and comparisons by code."""
from __future__ import annotations

import pytest

from handmade_agent.agent import DEFAULT_CHECKS, Agent, error_not_answer
from handmade_agent.agent.comparison_check import both_sides, like_with_like, same_quantity, wrong_way
from handmade_agent.agent.figure_check import figures_found, unfound

ALL = [error_not_answer, figures_found, like_with_like]  # the default and the two measured, opt-in checks
from handmade_agent.errors import ConfigError
from handmade_agent.llm import Completion, ScriptedLLM, ToolCall
from handmade_agent.tools import ToolRegistry, tool

WEATHER = {"成都": "成都 (Chengdu), today: Cloudy, low 17 °C, high 25 °C, humidity 70%, chance of rain 25%",
           "西安": "西安 (Xi'an), today: Sunny, low 18 °C, high 29 °C, humidity 40%, chance of rain 5%"}


@tool
def get_weather(city: str) -> str:
    """Today's weather in a city."""
    return WEATHER[city]


TOOLS = ToolRegistry([get_weather])
LOOKUPS = [f'Thought: look up {c}.\nAction: get_weather\nAction Input: {{"city": "{c}"}}' for c in WEATHER]
QUESTION = "今天成都和西安哪个最高气温更高？"


def run(*finals: str, **kw):
    llm = ScriptedLLM([*LOOKUPS, *(f"Thought: done.\nFinal Answer: {f}" for f in finals)])
    kw.setdefault("checks", ALL)
    return Agent(llm, TOOLS, **kw).run(QUESTION), llm


def test_a_figure_no_tool_returned_is_sent_back_with_the_figure_named_then_the_repair_counts():
    result, llm = run("西安 29 °C 比成都 25 °C 高，即 84.2 °F。", "西安的最高气温 29 °C，比成都的 25 °C 高。")
    assert [s.kind for s in result.steps] == ["action", "action", "rejected_answer", "final_answer"]
    assert result.steps[2].error == "figures_found" and "84.2" in result.steps[2].feedback
    assert llm.calls[3]["messages"][-1].content == f"Observation: {result.steps[2].feedback}"  # told why
    assert result.answer == "西安的最高气温 29 °C，比成都的 25 °C 高。" and llm.remaining == 0


def test_each_check_sends_back_once_so_a_model_that_cannot_repair_still_ends():
    bad = "西安 29 °C 比成都 25 °C 高，即 84.2 °F。"
    result, llm = run(bad, bad)
    assert [s.kind for s in result.steps][-2:] == ["rejected_answer", "final_answer"] and result.answer == bad


def test_a_high_set_against_a_low_or_no_figures_at_all_is_sent_back():
    for answer in ["成都最高 25 °C，西安最低 18 °C，西安更热。", "西安更热。"]:
        result, _ = run(answer, "西安 29 °C，成都 25 °C：西安更热。")
        assert result.steps[2].error == "like_with_like" and "same quantity" in result.steps[2].feedback
        assert result.answer == "西安 29 °C，成都 25 °C：西安更热。"



def test_sides_are_checked_only_once_two_results_are_in():
    class Run:
        question, results = QUESTION, (WEATHER["成都"],)
    assert like_with_like(Run, "成都最高 25 °C，西安更热。") is None  # one result: no second side to set against it
    Run.results = (WEATHER["成都"], WEATHER["成都"])  # a repeated call is still one side
    assert like_with_like(Run, "成都最高 25 °C，西安更热。") is None
    Run.results = tuple(WEATHER.values())
    assert "same quantity" in like_with_like(Run, "成都最高 25 °C，西安最低 18 °C，西安更热。")

def test_a_comparison_the_wrong_way_round_is_sent_back_naming_both_figures():
    result, _ = run("今天成都的最高气温 25°C，比西安的 29°C 高。", "西安 29 °C 比成都 25 °C 高。")
    assert result.steps[2].error == "like_with_like" and "25 against 29 the wrong way round" in result.steps[2].feedback
    assert wrong_way("Chengdu 25 °C is higher than 29 °C in Xi'an") == (25, 29)
    assert wrong_way("Xi'an is warmer at 29 °C than Chengdu at 25 °C.") is None
    assert wrong_way("西安的最高气温 29°C，比成都的最高气温 25°C 高。") is None  # 最高 names a figure, compares nothing


def test_a_sound_answer_costs_no_extra_call_and_no_checks_is_the_bare_loop():
    result, llm = run("西安更热：最高 29 °C，成都最高 25 °C。")
    assert [s.kind for s in result.steps] == ["action", "action", "final_answer"] and llm.remaining == 0
    result, _ = run("西安更热。", checks=[])
    assert result.answer == "西安更热。" and len(result.steps) == 3


def test_the_native_strategy_gets_the_same_checks():
    calls = [Completion("", tool_calls=[ToolCall("get_weather", f'{{"city": "{c}"}}', f"c{i}")])
             for i, c in enumerate(WEATHER)]
    llm = ScriptedLLM([*calls, Completion("西安更热，高 31 °C。"), Completion("西安 29 °C，成都 25 °C，西安更热。")])
    result = Agent(llm, TOOLS, strategy="native", checks=ALL).run(QUESTION)
    assert [s.kind for s in result.steps] == ["action", "action", "rejected_answer", "final_answer"]
    assert llm.calls[3]["messages"][-1].content == result.steps[2].feedback


def test_checks_are_asked_in_order_and_a_check_returning_no_text_is_a_config_error():
    asked = []

    def first(context, answer):
        asked.append("first")
        return "first objects"

    def second(context, answer):
        asked.append("second")
        return "second objects"
    result, _ = run("a", "b", "c", checks=[first, second])
    assert [s.error for s in result.steps if s.kind == "rejected_answer"] == ["first", "second"]
    assert asked == ["first", "second"] and result.answer == "c"  # spent checks are not asked again
    with pytest.raises(ConfigError, match="returned a bool"):
        run("a", checks=[lambda context, answer: False is False])


def test_figures_the_question_or_a_result_gives_pass_and_names_are_no_figures():
    sources = "\n".join([QUESTION, *WEATHER.values(), "2024-06-19 (Wednesday)"])
    assert unfound("西安 29 °C，25.0 °C；H2O; Tessel T4; 2024年6月19日", sources) == []
    assert unfound("It is 4 °C warmer, 86 °F", sources) == ["4", "86"]
    assert same_quantity("29 °C against 25 °C", list(WEATHER.values()))
    assert not same_quantity("29 °C against 17 °C", list(WEATHER.values()))  # a high against a low


def test_a_figure_the_model_gave_a_tool_that_ran_or_a_percentage_as_a_fraction_is_found():
    @tool
    def calculator(expression: str) -> str:
        """Evaluate arithmetic."""
        return "15.48"
    llm = ScriptedLLM(['Thought: compute.\nAction: calculator\nAction Input: {"expression": "86 * 0.18"}',
                       "Thought: done.\nFinal Answer: 86 * 0.18 = 15.48: the tip is 15.48 dollars."])
    result = Agent(llm, ToolRegistry([calculator]), checks=ALL).run("The bill is 86 dollars. How much is an 18% tip?")
    assert [s.kind for s in result.steps] == ["action", "final_answer"]  # 86 and 0.18 went into the call
    assert unfound("0.18 of it", "an 18% tip") == [] and unfound("0.19 of it", "an 18% tip") == ["0.19"]


def test_a_comparison_resting_on_one_lookup_is_sent_back_naming_the_call_then_the_other_side_counts():
    one = [LOOKUPS[0], "Thought: done.\nFinal Answer: 成都今天 17 °C，明天 25 °C，西安更热。"]
    two = [LOOKUPS[1], "Thought: done.\nFinal Answer: 西安最高 29 °C，成都最高 25 °C，西安更热。"]
    llm = ScriptedLLM([*one, *two])
    result = Agent(llm, TOOLS).run(QUESTION)  # both_sides is one of the default checks
    assert [s.kind for s in result.steps] == ["action", "rejected_answer", "action", "final_answer"]
    assert result.steps[1].error == "both_sides" and '{"city": "成都"}' in result.steps[1].feedback
    assert WEATHER["成都"] in result.steps[1].feedback and "other side" in result.steps[1].feedback
    assert result.answer.startswith("西安最高 29 °C") and llm.remaining == 0
    assert both_sides in DEFAULT_CHECKS and error_not_answer in DEFAULT_CHECKS


def test_the_one_side_check_leaves_two_sides_non_comparisons_and_dates_alone():
    class Run:
        question, results, inputs = QUESTION, tuple(WEATHER.values()), ('{"city": "成都"}', '{"city": "西安"}')
    assert both_sides(Run, "西安 29 °C，成都 25 °C：西安更热。") is None  # a figure from each result
    assert both_sides(Run, "西安更热。") is None  # no figures: nothing read as one side
    assert both_sides(Run, "西安最高 29 °C，比成都高 4 °C。") is None  # 4 = 29 - 25: the difference rests on both
    assert "one result" in both_sides(Run, "西安最高 29 °C，比成都高 3 °C。")  # 3 is no difference of the two
    assert "one result" in both_sides(Run, "成都 17 °C 到 25 °C，西安更热。")
    Run.results, Run.inputs = (WEATHER["成都"], "2024-05-29 + 1 days = 2024-05-30"), ('{"city": "成都"}', "{}")
    assert "one result" in both_sides(Run, "成都 17 °C 到 25 °C，西安更热。")  # a date shows no 29 or 30 °C of a side
    Run.results, Run.inputs = (WEATHER["成都"], WEATHER["成都"]), ('{"city": "成都"}', '{"city": "成都"}')
    assert "one side only" in both_sides(Run, "It is not possible to say whether 西安 is warmer.")  # one look-up
    Run.results = tuple(WEATHER.values())
    assert both_sides(Run, "It is not possible to say whether 西安 is warmer.") is None  # two look-ups, no figure
    Run.question = "What is the weather in 成都 today?"  # no comparative: two figures of one result are right
    assert both_sides(Run, "Cloudy, 17 °C to 25 °C.") is None
    Run.question = "Convert 成都's high to °F. Found so far: 成都 is warmer than 西安."  # a plan step quoting a finding
    assert both_sides(Run, "成都's high is 25 °C, which is 77 °F.") is None  # the answer compares nothing
