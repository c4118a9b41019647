"""Worked examples chosen per question: the right tool's example, only tools we have, no leaked answers."""
from __future__ import annotations

import datetime
import re

from handmade_agent.agent import Agent
from handmade_agent.evaluation.tasks import load_tasks
from handmade_agent.llm import ScriptedLLM
from handmade_agent.react.choice import bigrams, choose_examples, days_named
from handmade_agent.react.examples import EXAMPLES, GENERIC, NO_TOOL, REFUSED
from handmade_agent.toolbox import default_registry, make_date_tools

TOOLS = list(default_registry(today=datetime.date(2024, 5, 20)))


def first_tool(question: str, tools=TOOLS) -> str:
    return choose_examples(question, tools)[0].calls[0].tool


def test_bigrams_ignore_case_spaces_and_which_digit():
    assert bigrams("A b1") == bigrams("ab 7") == {"ab", "b0"}
    assert bigrams("") == set() and bigrams("x") == set()


def test_a_question_gets_an_example_of_the_tool_it_needs_in_either_language():
    assert first_tool("Which weekday is 2030-03-09?") == "weekday"
    assert first_tool("2030年3月9日是星期几？") == "weekday"
    assert first_tool("How many days lie between 2030-01-02 and 2030-03-09?") == "days_between"
    assert first_tool("5 摄氏度是多少华氏度？") == "convert_temperature"


def test_only_examples_whose_tools_exist_are_chosen():
    dates = make_date_tools(today=datetime.date(2024, 5, 20))
    chosen = choose_examples("What is 5 °C in Fahrenheit?", dates)
    assert chosen and all(c.tool in {t.name for t in dates} for e in chosen for c in e.calls)
    assert choose_examples("anything", []) == []


def test_the_agent_sends_the_examples_chosen_for_its_question():
    agent = Agent(ScriptedLLM(["Final Answer: ok"]), TOOLS)
    agent.run("2030年3月9日是星期几？")
    sent = [m.content for m in agent.messages()]
    assert "2027年10月1日那天星期几？" in sent  # the Chinese weekday example
    assert "厦门 or 青岛: where is it warmer today?" not in sent  # the fixed default's comparison is not
    assert agent.prompt_messages() != agent.prompt_messages("2030年3月9日是星期几？")


def test_without_any_fitting_example_the_generic_ones_are_sent():
    from handmade_agent.tools import tool

    @tool
    def tide(port: str) -> str:
        """High tide time at a port."""
        return "06:12"

    sent = [m.content for m in Agent(ScriptedLLM([]), [tide]).prompt_messages("When is high tide in Brest?")]
    assert GENERIC[0].question in sent


def test_no_example_hands_over_the_numbers_of_an_evaluation_task():
    """An example for the same tool whose question holds all the numbers of a task's would give the answer away."""
    tasks = load_tasks()
    number = re.compile(r"\d+(?:\.\d+)?")
    for e in EXAMPLES:
        mine = set(number.findall(e.question))
        for t in (t for t in tasks if e.calls[0].tool in t.checker.get("tools", [])):
            theirs = set(number.findall(t.question))
            telling = len(theirs) > 1 or any(float(x) >= 100 for x in theirs)  # "45 days" alone is not an answer
            assert not (telling and theirs <= mine), f"example {e.question!r} holds every number of {t.id}"


def test_next_to_the_tool_examples_go_one_answered_without_a_tool_and_one_refused():
    chosen = choose_examples("腾讯现在的股价是多少？", TOOLS)
    assert [bool(e.calls) for e in chosen] == [True, True, False, False]
    assert chosen[2] in NO_TOOL and chosen[3] in REFUSED
    assert chosen[3].question == "现在上海到北京的高铁还有票吗？"  # the one in the question's script
    assert choose_examples("What is the share price of Apple?", TOOLS)[3].question.startswith("What is the price")
    assert all(e.calls for e in choose_examples("腾讯现在的股价是多少？", TOOLS, no_tool=False))


def test_examples_without_a_call_never_go_alone():
    from handmade_agent.tools import tool

    @tool
    def tide(port: str) -> str:
        """High tide time at a port."""
        return "06:12"

    assert choose_examples("Who painted the Mona Lisa?", [tide]) == []
    sent = [m.content for m in Agent(ScriptedLLM([]), [tide]).prompt_messages("Who painted the Mona Lisa?")]
    assert NO_TOOL[0].question not in sent and GENERIC[0].question in sent


def test_the_agent_sends_the_refused_example_before_the_tool_examples():
    sent = [m.content for m in Agent(ScriptedLLM([]), TOOLS).prompt_messages("Is flight CA981 on time?")]
    closest = choose_examples("Is flight CA981 on time?", TOOLS)[0]
    refused, tool_example = sent.index(REFUSED[0].question), sent.index(closest.question)
    assert refused < tool_example  # the closest tool example stays next to the question



def days_of(example) -> set[str]:
    return {v for c in example.calls for v in c.args.values() if v in ("today", "tomorrow")}


def test_the_closest_example_gives_way_to_one_of_the_same_script_and_tools_on_the_question_s_day():
    # notebook 09: handed a look-up of Kunming *today*, plan-and-execute's step "Get tomorrow's weather" looked up today
    first = choose_examples("Get tomorrow's weather in 上海", TOOLS)[0]
    assert [c.tool for c in first.calls] == ["get_weather"] and days_of(first) == {"tomorrow"}
    assert first.question.isascii()  # an English question keeps an English example
    first = choose_examples("Get today's weather in 上海", TOOLS)[0]
    assert [c.tool for c in first.calls] == ["get_weather"] and days_of(first) == {"today"}


def test_without_such_an_example_the_closest_one_stays():
    from handmade_agent.react.choice import _same_day
    dry = next(e for e in EXAMPLES if e.question == "兰州和拉萨明天哪个更干燥？")
    warm = next(e for e in EXAMPLES if e.question.startswith("厦门 or 青岛"))
    assert _same_day(dry, [dry, warm], {"today"}) is dry  # the other script's comparison does not replace it
    assert _same_day(dry, [dry, warm], {"tomorrow"}) is dry and _same_day(warm, [dry, warm], {"today"}) is warm


def test_a_question_naming_no_day_or_both_days_keeps_the_closest_examples():
    for question in ("What is the weather like in Xi'an?", "武汉今天和明天的最高气温分别是多少？"):
        assert choose_examples(question, TOOLS)[0].calls[0].tool == "get_weather"
    assert days_named("Will it rain?") == set() and days_named("今天和明天") == {"today", "tomorrow"}
