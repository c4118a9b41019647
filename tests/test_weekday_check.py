"""weekday_found: a day of the week in an answer must be one a tool result gave (for the answer's date, if it names one)."""
from __future__ import annotations

import datetime

from handmade_agent.agent import DEFAULT_CHECKS, Agent, weekday_found
from handmade_agent.agent.weekday_check import dates, given, weekdays
from handmade_agent.evaluation import parse_configs
from handmade_agent.llm import ScriptedLLM
from handmade_agent.toolbox import default_registry


class Run:
    def __init__(self, *results, tools=("current_date", "add_days", "weekday")):
        self.results, self.tools, self.question = results, tools, "?"


def test_weekdays_are_read_in_english_and_chinese_and_a_frequency_is_no_day():
    assert weekdays("Monday, 星期二, 周三, 礼拜四, friday") == {0, 1, 2, 3, 4}
    assert weekdays("星期日 周天 礼拜天") == {6} and weekdays("Sunday") == {6}
    assert weekdays("每周一次，一周一回") == set() and weekdays("Mondays are long") == set()  # \bmonday\b


def test_dates_are_read_in_iso_and_chinese_form():
    assert dates("2025-1-1 and 2025年10月1日") == ["2025-01-01", "2025-10-01"]
    assert dates("December 31") == [] and dates("3月8日") == []


def test_a_weekday_belongs_to_the_date_it_follows():
    added = "2024-03-01 + 45 days = 2024-04-15 (Monday, 星期一)"
    assert given([added]) == {("2024-04-15", 0)}
    assert given(["From 2024-05-20 to 2024-12-31 is 225 days"]) == set()


def test_a_weekday_no_result_gives_is_sent_back_naming_the_weekday_tool():
    today = Run("Today is 2024-05-20 (Monday, 星期一)")
    message = weekday_found(today, "2025-01-01 是星期一。")  # today's weekday given to another date
    assert message is not None and "Monday" in message and "Call weekday with that exact date" in message
    assert weekday_found(Run("From 2024-01-01 to 2024-12-31 is 365 days"), "It is a Sunday.") is not None
    assert "Look it up with a tool" in weekday_found(Run(tools=("calculator",)), "It is a Sunday.")


def test_a_weekday_a_result_gives_stands():
    assert weekday_found(Run("2025-01-01 is a Wednesday (星期三)"), "2025年1月1日是星期三。") is None
    assert weekday_found(Run("2024-05-20 + 3 days = 2024-05-23 (Thursday, 星期四)"), "三天以后是星期四。") is None
    assert weekday_found(Run(), "The answer is 42.") is None  # no weekday named, nothing to find


def test_in_the_loop_the_answer_goes_back_once_and_the_look_up_is_made():
    replies = ["Thought: today first\nAction: current_date\nAction Input: {}",
               "Thought: done\nFinal Answer: 2025-01-01 是星期一。",
               'Thought: look it up\nAction: weekday\nAction Input: {"date": "2025-01-01"}',
               "Thought: done\nFinal Answer: 2025-01-01 是星期三。"]
    run = Agent(ScriptedLLM(replies), default_registry(today=datetime.date(2024, 5, 20))).run("2025年的元旦是星期几？")
    assert [s.kind for s in run.steps] == ["action", "rejected_answer", "action", "final_answer"]
    assert run.steps[1].error == "weekday_found" and run.answer == "2025-01-01 是星期三。"


def test_it_is_a_default_check_with_an_evaluation_switch():
    assert weekday_found in DEFAULT_CHECKS
    [on], [off] = parse_configs("react+c"), parse_configs("react+c-weekdays")
    assert weekday_found in on.checks() and weekday_found not in off.checks() and off.name == "react+c-weekdays"
