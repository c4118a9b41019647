"""The default final-answer check ``asked_unit`` (an answer gives the unit the question names), read by code and sent
back through the loop; and the loop's rule that no check sends back on the last step."""
from __future__ import annotations

from handmade_agent.agent import DEFAULT_CHECKS, Agent, asked_unit
from handmade_agent.agent.unit_check import missing_units
from handmade_agent.llm import ScriptedLLM
from handmade_agent.tools import ToolRegistry, tool


@tool
def convert_temperature(value: float, from_unit: str, to_unit: str) -> str:
    """Convert a temperature between C, F and K."""
    kelvin = {"C": value + 273.15, "F": (value - 32) * 5 / 9 + 273.15, "K": value}[from_unit]
    out = {"C": kelvin - 273.15, "F": (kelvin - 273.15) * 9 / 5 + 32, "K": kelvin}[to_unit]
    return f"{value:g} °{from_unit} = {round(out, 2):g} {'K' if to_unit == 'K' else '°' + to_unit}"


TOOLS = ToolRegistry([convert_temperature])


def call(value, source, target):
    return (f'Thought: convert.\nAction: convert_temperature\nAction Input: {{"value": {value}, '
            f'"from_unit": "{source}", "to_unit": "{target}"}}')


def final(text):
    return f"Thought: done.\nFinal Answer: {text}"


def test_units_the_question_names_and_the_answer_gives_in_both_languages_and_notations():
    assert missing_units("How many kelvin is 0 degrees Fahrenheit?", "0 °F = -17.78 °C.") == ["K"]
    assert missing_units("How many kelvin is 0 degrees Fahrenheit?", "0 °F = 255.37 K.") == []
    assert missing_units("西安明天最高气温是多少华氏度？", "西安明天最高 29 °C。") == ["°F"]
    for answer in ["29 °C，即 84.2 °F。", "29 °C，即 84.2 华氏度。", "华氏 84.2 度", "84.2 ℉", "84.2 degrees Fahrenheit"]:
        assert missing_units("西安明天最高气温是多少华氏度？", answer) == [], answer
    assert missing_units("300 开尔文是多少摄氏度？", "300 K = 26.85 °C") == []  # the unit converted from, restated
    assert missing_units("What's the weather in Harbin today?", "Sunny, 4 to 17 °C.") == []  # Celsius is never asked
    assert missing_units("Is a Kettle at 100 °C boiling?", "Yes.") == []  # "K" inside a word is no kelvin


def test_an_answer_without_the_asked_unit_goes_back_and_the_converted_answer_counts():
    llm = ScriptedLLM([call(0, "F", "C"), final("0 °F = -17.78 °C."), call(0, "F", "K"), final("0 °F = 255.37 K.")])
    result = Agent(llm, TOOLS).run("How many kelvin is 0 degrees Fahrenheit?")
    assert [s.kind for s in result.steps] == ["action", "rejected_answer", "action", "final_answer"]
    assert result.steps[1].error == "asked_unit" and "K" in result.steps[1].feedback
    assert llm.calls[2]["messages"][-1].content.endswith(result.steps[1].feedback)  # the model was told what to do
    assert result.answer == "0 °F = 255.37 K." and llm.remaining == 0


def test_asked_unit_is_default_and_leaves_ordinary_answers_alone():
    assert asked_unit in DEFAULT_CHECKS
    class Run:
        question = "What is 18 °C in Fahrenheit?"
    assert asked_unit(Run, "18 °C = 64.4 °F.") is None
    llm = ScriptedLLM([final("It is 18 °C.")])
    assert Agent(llm, TOOLS, checks=[]).run("What is 18 °C in Fahrenheit?").answer == "It is 18 °C."


def test_on_the_last_step_no_check_sends_back_so_the_answer_is_never_lost():
    llm = ScriptedLLM([call(0, "F", "C"), final("0 °F = -17.78 °C.")])
    result = Agent(llm, TOOLS, max_steps=2).run("How many kelvin is 0 degrees Fahrenheit?")
    assert result.stop_reason == "final_answer" and result.answer == "0 °F = -17.78 °C." and llm.remaining == 0
