"""Wrong answers the answer checks must fail: a tool's error text, a figure inside a longer number or with the wrong
unit, and a "refusal" that states a fact. Right answers next to each, which must still pass."""
from __future__ import annotations

import pytest

from handmade_agent.evaluation import EvalConfig, Task, check_answer, refused, run_task
from handmade_agent.evaluation.checks import tool_error_text
from handmade_agent.evaluation.tasks import checker_problem
from handmade_agent.llm import ScriptedLLM
from handmade_agent.toolbox import default_registry

TOOLBOX = default_registry()
CAPITAL = {"any": ["北京", "Beijing"], "tools": []}
CALC_ERROR = TOOLBOX.call("calculator", {"expression": "北京"}).content  # Error: calculator: unknown name '北京'; …


# --- a. tool-error text ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("answer", [
    CALC_ERROR,
    "错误：计算器：未知名称 '北京'；允许的常量：pi, e, tau",         # the same error, put into Chinese by translate_answer
    f"Observation: {CALC_ERROR}",
    f"`{CALC_ERROR}`",
    f"北京\n{CALC_ERROR}",                                          # an answer line, then the error pasted under it
    "Final Answer: Error: there is no tool named 'capital_of'. Available tools: calculator.",
])
def test_a_tool_error_message_is_never_the_answer(answer):
    assert tool_error_text(answer) and not check_answer(answer, CAPITAL)


def test_a_tool_error_is_no_refusal_either():
    error = TOOLBOX.call("stock_price", {"symbol": "AAPL"}).content  # "Error: there is no tool named …"
    assert not check_answer(error, {"refuse": True})


def test_an_error_copied_without_its_label_is_caught_with_the_run_s_failed_results():
    copied = CALC_ERROR.removeprefix("Error: ")  # "calculator: unknown name '北京'; allowed constants: …"
    assert not check_answer(copied, CAPITAL, tool_errors=[CALC_ERROR])
    assert check_answer("中国的首都是北京。", CAPITAL, tool_errors=[CALC_ERROR])  # a right answer after a failed call


def test_a_run_that_hands_back_a_tool_error_fails_and_one_that_answers_passes():
    task = Task("no_tool-55", "zh", "no_tool", "中国的首都是哪座城市？", "toolbox", CAPITAL)
    call = 'Thought: compute\nAction: calculator\nAction Input: {"expression": "北京"}'
    copied = f"Thought: done\nFinal Answer: {CALC_ERROR.removeprefix('Error: ')}"
    for answer, right in ((copied, False), ("Thought: done\nFinal Answer: 北京", True)):
        outcome = run_task(ScriptedLLM([call, answer]), task, EvalConfig.parse("react"), lambda toolset: TOOLBOX)
        assert outcome.success is right, outcome.answer


@pytest.mark.parametrize("answer", ["E-17 means a calibration error: recalibrate the arm.",
                                    "The error in the reading is 0.5 °C.", "No error: it is 北京."])
def test_the_word_error_inside_an_answer_is_not_a_tool_error(answer):
    assert not tool_error_text(answer)


# --- b. whole quantities, with their unit ------------------------------------------------------------------------

def test_a_text_with_a_figure_matches_whole_numbers_only():
    assert not check_answer("Replace it every 13 months.", {"any": ["3 months", "90 days"]})
    assert not check_answer("It is 130 days away.", {"all": ["30 days"]})
    assert check_answer("Replace it every 3 months (90 days).", {"all": ["3 months", "90 days"]})
    assert check_answer("304.15 K", {"numbers": [304.15], "none": ["30"]})  # 30 is not in 304.15
    assert not check_answer("about 30.5 K", {"numbers": [30.5], "none": ["30.5"]})


def test_a_number_matches_only_with_the_unit_the_checker_gives():
    celsius = {"numbers": [30], "unit": ["°C", "摄氏度"]}
    assert check_answer("最高 30 °C。", celsius) and check_answer("24-30 °C", celsius) and check_answer("30摄氏度", celsius)
    assert not check_answer("30 °F", celsius) and not check_answer("It is 86 °F, that is 304.15 °C.", celsius)
    dollars = {"numbers": [30], "unit": ["dollars", "$", "美元"]}
    assert check_answer("Each pays $30.", dollars) and check_answer("30 dollars each", dollars)
    assert not check_answer("30 people pay 4 dollars each", dollars)
    loud = {"numbers": [41], "unit": "dB"}
    assert check_answer("It runs at 41 dB while pumping.", loud)
    assert not check_answer("It runs at 141 dB.", loud) and not check_answer("41 dBm", loud)


def test_a_unit_is_a_valid_checker_key():
    assert checker_problem({"numbers": [41], "unit": ["dB", "分贝"]}) is None
    assert checker_problem({"numbers": [41], "unit": "dB"}) is None
    assert checker_problem({"numbers": [41], "unit": 41}) is not None
    assert checker_problem({"any": ["x"], "unit": "dB"}) is not None  # a unit without numbers means nothing


# --- c. a refusal says it cannot know, and nothing else ----------------------------------------------------------

@pytest.mark.parametrize("answer", [
    "The capital of Australia is Sydney.",
    "CA981 cannot be late: it lands on time.",
    "I cannot see live flight data, but CA981 is on time.",
    "I don't know the exact time. The flight is on time.",
    "抱歉，我不能查询航班。不过 CA981 今天准点。",
    "航班不能晚点，一切正常。",
])
def test_an_answer_that_states_a_fact_is_no_refusal(answer):
    assert not refused(answer) and not check_answer(answer, {"refuse": True, "allowed_numbers": [981]})


@pytest.mark.parametrize("answer", [
    "I'm sorry, I can't check live flight status. Please check the airline's website.",
    "I cannot access real-time stock prices, but you can look them up on a finance site.",
    "Sorry, I don't have a tool for flight data.",
    "我无法查询实时股价，建议您查看财经网站。",
    "抱歉，我无法提供李娜的手机号码，也没有查询个人信息的工具。",
    "I'm not able to look that up. Would you like help with something else?",
])
def test_a_refusal_may_apologise_and_point_elsewhere(answer):
    assert refused(answer) and check_answer(answer, {"refuse": True, "allowed_numbers": [981]})


def test_a_chinese_date_written_with_spaces_is_the_same_date():
    checker = {"any": ["2024-08-28", "2024年8月28日", "8月28日"]}
    assert check_answer("100 天后是 2024 年 8 月 28 日，星期三。", checker)
    assert not check_answer("100 天后是 2024 年 8 月 29 日。", checker)
    assert not check_answer("2024 年 18 月 28 日", checker)  # 18月28日 holds no 8月28日 either
