"""The agent with the package prompt on the real local model: the course's date and weather tasks."""
from __future__ import annotations

import datetime
import re

import pytest

from handmade_agent.agent import Agent
from handmade_agent.react import parse
from handmade_agent.toolbox import default_registry

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def tools():
    return default_registry(today=datetime.date(2024, 5, 20))


def test_date_task_with_the_date_tools(local_llm, tools):
    result = Agent(local_llm, tools, max_steps=5).run("Today is 2024-05-20. What weekday is it 150 days later?")
    assert result.stop_reason == "final_answer"
    assert "add_days" in result.tools_used
    assert "Thursday" in result.answer and "2024-10-17" in result.answer


COMPARISON = "Compare tomorrow's weather in 北京 with today's in 上海."


@pytest.fixture(scope="module")
def comparison(local_llm, tools):
    return Agent(local_llm, tools, max_steps=5).run(COMPARISON)


def test_weather_comparison_looks_up_each_city_for_its_own_day(comparison):
    """The 0.5B paired 北京 with today and 上海 with tomorrow; the 1.5B gets the days right."""
    asked = [(s.input["city"], s.input.get("date", "today")) for s in comparison.steps if s.tool == "get_weather"]
    assert ("北京", "tomorrow") in asked and ("上海", "today") in asked, asked


# was an expected failure until 2026-12-07 (days_between on invented dates, then 北京's high against 上海's low); the
# 1.5B now sets 北京 tomorrow's high, 24 °C, against 上海 today's, 23 °C: both, or one and the difference ("1 °C higher")
def test_weather_comparison_answer_rests_on_both_highs(comparison):
    assert comparison.stop_reason == "final_answer"
    said = re.findall(r"(?<![\d.])\d+(?![\d.])", comparison.answer)
    assert "24" in said and ("23" in said or "1" in said), comparison.answer
    assert not {"13", "18"} & set(said), comparison.answer  # neither low


def test_every_reply_of_a_real_run_parses(local_llm, tools):
    result = Agent(local_llm, tools, max_steps=4).run("What is 23 * 47 + 12?")
    assert result.answer and "1093" in result.answer
    for step in result.steps:
        parse(step.reply)  # raises FormatError if a real reply could not be read
