"""``CodeAgent``: the loop with one program per step (codeact/agent.py), its replies and grammar (codeact/replies.py),
its prompt (codeact/prompt.py) and the evaluation's ``code`` configurations. Scripted models only."""
from __future__ import annotations

import datetime

import pytest

from gbnf_match import matches, parse_gbnf
from handmade_agent.agent import Step
from handmade_agent.agent import events as ev
from handmade_agent.codeact import NOTHING_PRINTED, CodeAgent, ProgramStep, code_grammar, read_code_reply
from handmade_agent.codeact.agent import REPEATED
from handmade_agent.codeact.prompt import FORMAT, GENERIC_NOTE
from handmade_agent.codeact.replies import NO_STEP, STOP
from handmade_agent.errors import ConfigError
from handmade_agent.evaluation import EvalConfig, Task, run_task
from handmade_agent.llm import Message, ScriptedLLM
from handmade_agent.toolbox import default_registry
from handmade_agent.tools import ToolRegistry, tool

TOOLS = default_registry(today=datetime.date(2024, 5, 20))
BEIJING = ("北京 (Beijing), today: Sunny / 晴, low 14 °C, high 27 °C, humidity 28%, wind NW 18 km/h, "
           "chance of rain 5%")
SHANGHAI = ("上海 (Shanghai), today: Light rain / 小雨, low 18 °C, high 23 °C, humidity 86%, wind E 15 km/h, "
            "chance of rain 80%")
TWO_CALLS = ('Thought: Both cities in one program.\n```python\na = get_weather(city="北京", date="today")\n'
             'b = get_weather(city="上海", date="today")\nprint(a)\nprint(b)\n```')
ANSWER = "Thought: 27 °C against 23 °C.\nFinal Answer: 北京 is warmer: 27 °C, against 23 °C in 上海."
UNKNOWN_CITY = ("get_weather: unknown city 'Atlantis'. Known cities: 北京 (Beijing), 上海 (Shanghai), 广州 (Guangzhou), "
                "深圳 (Shenzhen), 杭州 (Hangzhou), 成都 (Chengdu), 西安 (Xi'an), 武汉 (Wuhan), 南京 (Nanjing), "
                "重庆 (Chongqing), 哈尔滨 (Harbin), 香港 (Hong Kong).")


class GrammarLLM(ScriptedLLM):
    supports_grammar = True  # records the grammar it is sent, as ScriptedLLM does; applies none


def run(replies: list[str], question: str = "Which is warmer today, 北京 or 上海?", llm_class=ScriptedLLM, **kw):
    llm = llm_class(replies)
    events: list[ev.Event] = []
    result = CodeAgent(llm, TOOLS, observers=[events.append], **kw).run(question)
    return result, llm, events


def test_two_tools_in_one_program_then_a_final_answer():
    result, llm, _ = run([TWO_CALLS, ANSWER])
    assert (result.answer, result.stop_reason) == ("北京 is warmer: 27 °C, against 23 °C in 上海.", "final_answer")
    assert [s.kind for s in result.steps] == ["action", "final_answer"] and len(llm.calls) == 2
    step = result.steps[0]
    assert type(step) is ProgramStep and step.thought == "Both cities in one program." and step.error is None
    assert [(u.tool, u.input, u.ok, u.observation) for u in step.tool_uses] == [
        ("get_weather", {"city": "北京", "date": "today"}, True, BEIJING),
        ("get_weather", {"city": "上海", "date": "today"}, True, SHANGHAI)]
    assert step.feedback == step.observation == f"{BEIJING}\n{SHANGHAI}"


def test_tools_used_lists_the_real_tools_and_each_call_is_an_event():
    result, _, events = run(['Thought: t\n```python\nprint(convert_temperature(value=20, from_unit="C", '
                             'to_unit="F"), calculator(expression="2 * 21"))\n```', ANSWER])
    assert result.tools_used == ["convert_temperature", "calculator"]
    assert [(type(e).__name__, e.name) for e in events if isinstance(e, (ev.ToolStarted, ev.ToolFinished))] == [
        ("ToolStarted", "convert_temperature"), ("ToolFinished", "convert_temperature"),
        ("ToolStarted", "calculator"), ("ToolFinished", "calculator")]
    assert result.steps[0].feedback == "20 °C = 68 °F 42"


def test_the_model_sees_its_step_then_what_the_program_printed():
    _, llm, _ = run([TWO_CALLS + "\nObservation: made up", ANSWER])
    assert llm.calls[0]["stop"] == STOP == ["Observation:", "\n```\n"] and llm.calls[0]["grammar"] is None
    assert llm.calls[1]["messages"][-3:] == [
        Message("user", "Which is warmer today, 北京 or 上海?"),
        Message("assistant", TWO_CALLS),
        Message("user", f"Observation: {BEIJING}\n{SHANGHAI}")]


def test_a_refused_construct_is_an_observation_and_the_run_goes_on():
    result, llm, _ = run(["Thought: t\n```python\nimport os\nprint(os.name)\n```", TWO_CALLS, ANSWER])
    step = result.steps[0]
    assert (step.kind, step.tool_uses, step.error) == (
        "action", [], "line 1: `import` is not allowed in an agent program; call the tools listed instead")
    assert llm.calls[1]["messages"][-1] == Message("user", "Observation: Error: line 1: `import` is not allowed in an "
                                                   "agent program; call the tools listed instead")
    assert result.stop_reason == "final_answer" and result.tools_used == ["get_weather", "get_weather"]


def test_a_tool_error_stops_the_program_and_is_shown_after_what_it_printed():
    result, llm, _ = run(['Thought: t\n```python\nprint(convert_temperature(value=20, from_unit="C", to_unit="F"))\n'
                          'print(get_weather(city="Atlantis"))\n```', "Thought: t\nFinal Answer: 20 °C is 68 °F."],
                             question="What is 20 °C in °F, and the weather in Atlantis?")
    uses = result.steps[0].tool_uses
    assert [(u.tool, u.ok, u.error) for u in uses] == [("convert_temperature", True, None),
                                                       ("get_weather", False, UNKNOWN_CITY.split(": ", 1)[1])]
    assert uses[1].observation == f"Error: {UNKNOWN_CITY}"
    assert llm.calls[1]["messages"][-1].content == f"Observation: 20 °C = 68 °F\nError: line 2: {UNKNOWN_CITY}"
    assert result.answer == "20 °C is 68 °F." and result.tools_used == ["convert_temperature", "get_weather"]


def test_a_program_that_calls_no_tool_is_still_an_action():
    result, _, _ = run(["Thought: t\n```python\nx = 6 * 7\n```", "Thought: t\n```python\nprint(6 * 7)\n```", ANSWER])
    assert [(s.kind, s.feedback, s.tool_uses) for s in result.steps[:2]] == [
        ("action", NOTHING_PRINTED, []), ("action", "42", [])]


def test_a_reply_with_neither_program_nor_answer_is_a_format_error_that_restates_the_format():
    result, llm, events = run(["I think 北京 is warmer.", ANSWER])
    step = result.steps[0]
    assert (step.kind, step.error, step.feedback) == ("format_error", NO_STEP, f"{NO_STEP}\n{FORMAT}")
    assert llm.calls[1]["messages"][-2:] == [Message("assistant", "I think 北京 is warmer."),
                                             Message("user", f"Observation: {NO_STEP}\n{FORMAT}")]
    assert sum(isinstance(e, ev.ParseFailed) for e in events) == 1 and result.stop_reason == "final_answer"


def test_three_unreadable_replies_stop_the_run():
    result, _, _ = run(["hm", "Thought: t\nFinal Answer:", "```json\n{}\n```"])
    assert result.stop_reason == "format_errors" and [s.error for s in result.steps] == [
        NO_STEP, "The Final Answer is empty.", NO_STEP]


def test_a_final_answer_meets_the_loop_s_checks():  # _final is the base loop's: a copied tool error goes back once
    result, llm, _ = run(['Thought: t\n```python\nprint(get_weather(city="Atlantis"))\n```',
                          f"Thought: t\nFinal Answer: Error: {UNKNOWN_CITY}", ANSWER])
    assert [s.kind for s in result.steps] == ["action", "rejected_answer", "final_answer"]
    assert result.steps[1].error == "error_not_answer" and len(llm.calls) == 3


def test_a_copied_refusal_of_the_interpreter_goes_back_once_then_becomes_a_plain_refusal():
    # code+c, 2026-12-06: date tasks met "`import` is not allowed…" and the 1.5B answered with it; a refused program
    # is the interpreter's error, not a tool's, and error_not_answer must see it all the same
    copied = "Thought: t\nFinal Answer: `import` is not allowed in an agent program."
    result, llm, events = run(["Thought: t\n```python\nimport datetime\n```", copied, copied],
                              question="What date is 3 days after 2024-07-04?")
    assert [s.kind for s in result.steps] == ["action", "rejected_answer", "final_answer"]
    assert result.steps[1].error == "error_not_answer" and len(llm.calls) == 3
    assert result.answer == "I cannot answer this with the tools I have (the program call failed)."
    assert [e.check for e in events if isinstance(e, ev.AnswerRejected)] == ["error_not_answer"]


def test_a_failed_tool_in_a_program_is_one_failure_named_by_its_tool():
    agent = CodeAgent(ScriptedLLM(['Thought: t\n```python\nprint(get_weather(city="Atlantis"))\n```', ANSWER]),
                      TOOLS)
    agent.run("Weather in Atlantis?")
    assert agent._failures(agent._run) == [(f"Error: {UNKNOWN_CITY}", "get_weather")]


def test_an_answer_that_only_mentions_a_refused_construct_stands():
    result, _, _ = run(["Thought: t\n```python\nimport datetime\n```",
                        "Thought: t\nFinal Answer: I could not import a module, but 2024-07-07 is 3 days later."])
    assert result.answer == "I could not import a module, but 2024-07-07 is 3 days later."


def test_the_printer_and_the_trace_panel_show_the_program_and_what_it_printed():
    import io

    from handmade_agent.observers import ConsolePrinter
    from handmade_agent.widgets.trace_view import step_html
    out = io.StringIO()
    result = CodeAgent(ScriptedLLM([TWO_CALLS, ANSWER]), TOOLS, observers=[ConsolePrinter(file=out)]).run("q?")
    text = out.getvalue()
    assert 'program: a = get_weather(city="北京", date="today") ⏎ b = get_weather(' in text
    assert f"printed: {BEIJING} {SHANGHAI}"[:150] in text and "feedback:" not in text
    html = step_html(result.steps[0])
    assert "what the program printed" in html and "low 18 °C, high 23 °C" in html.split("what the program printed")[1]


def test_reading_a_reply():
    assert read_code_reply("Thought: a\n```python\nprint(1)\n```\nFinal Answer: 1").code == "print(1)"
    final = read_code_reply("Thought: done\nFinal Answer: 42\n```python\nprint(42)\n```")
    assert (final.thought, final.answer, final.code) == ("done", "42", None)
    assert read_code_reply("Sure:\n```\nprint(2)\n```").code == "print(2)"  # no Thought: still a program
    assert read_code_reply("```json\n{}\n```").problem == NO_STEP


def test_the_same_program_again_is_not_run_and_a_second_repeat_stops():
    again = 'Thought: again\n```python\nprint(get_weather(city="北京"))\n```'
    result, llm, _ = run([again, again + "\n", again])
    assert result.tools_used == ["get_weather"] and result.stop_reason == "repeated_action"
    assert [s.error for s in result.steps] == [None, "repeated_action", "repeated_action"]
    assert llm.calls[2]["messages"][-1].content == "Observation: " + REPEATED.format(BEIJING)


def test_a_tool_called_again_in_a_new_program_runs_again():  # programs keep no variables: no per-call guard
    result, _, _ = run(['Thought: a\n```python\nprint(get_weather(city="北京"))\n```',
                        'Thought: b\n```python\nw = get_weather(city="北京")\nprint(w)\n```', ANSWER])
    assert result.tools_used == ["get_weather", "get_weather"] and all(u.ok for u in result.steps[1].tool_uses)


def test_constrained_steps_use_the_grammar_and_only_an_answer_after_a_repeat():
    again = 'Thought: again\n```python\nprint(get_weather(city="北京"))\n```'
    result, llm, _ = run([again, again, ANSWER], llm_class=GrammarLLM, question="What is the weather in 北京 today?")
    assert [c["grammar"] for c in llm.calls] == [code_grammar(), code_grammar(), code_grammar(answer_only=True)]
    assert [c["stop"] for c in llm.calls] == [[], [], []]
    assert llm.calls[2]["messages"][-1].content == f"Observation: {BEIJING}"  # bare, as the base loop shows it
    assert result.answer is not None


def test_no_call_of_a_program_starts_once_the_time_budget_is_over():
    agent = CodeAgent(ScriptedLLM([]), TOOLS, time_budget=60.0)
    agent.start("2 * 21?")
    agent._out_of_time = lambda: True  # the program began in time; its next call would start after the budget
    step = agent._program(agent._run, 1, "", "t", 'print(calculator(expression="2 * 21"))')
    assert [(u.tool, u.ok, u.error, u.observation) for u in step.tool_uses] == [
        ("calculator", False, "time_budget", "Error: not run: the run's time budget is over.")]
    assert step.feedback == "Error: line 1: not run: the run's time budget is over."


def test_the_grammar_accepts_a_step_and_an_answer_and_rejects_an_action_line():
    rules, answer_only = parse_gbnf(code_grammar()), parse_gbnf(code_grammar(answer_only=True))
    program = 'Thought: both\n```python\na = get_weather(city="北京")\n\nprint(a)\n```'
    assert matches(rules, program) and matches(rules, "Thought: done\nFinal Answer: 27 °C")
    assert not matches(rules, 'Thought: t\nAction: get_weather\nAction Input: {"city": "北京"}')
    assert not matches(rules, program + "\nObservation: 27 °C")  # nothing after the closing fence
    assert not matches(rules, "Thought: t\n```python\n```")  # at least one line
    assert not matches(rules, "Thought: t\n```python\nprint(1)\n```\nprint(2)\n```")  # ``` alone closes the block
    assert not matches(answer_only, program) and matches(answer_only, "Thought: done\nFinal Answer: 27 °C")


def test_the_prompt_lists_the_tools_as_signatures_and_fits_the_examples_to_them():
    system = CodeAgent(None, TOOLS).prompt_messages()[0].content
    assert ('- get_weather(city: string, date: "today" | "tomorrow" = "today"): Weather forecast for a city, today or '
            'tomorrow.') in system and GENERIC_NOTE not in system

    @tool
    def train_time(origin: str, destination: str) -> str:
        """Train journey time between two cities."""
        return "1 h"
    messages = CodeAgent(None, ToolRegistry([train_time])).prompt_messages()
    assert GENERIC_NOTE in messages[0].content and "get_weather" not in "".join(m.content for m in messages)
    assert CodeAgent(None, TOOLS, few_shot=False).prompt_messages() == [Message("system", system)]


SANYA_Q, LIJIANG_Q = ("Sanya or Guilin: where is rain more likely tomorrow? Give both chances.",
                      "How warm will Lijiang get tomorrow afternoon, in Fahrenheit?")


@pytest.mark.parametrize("question, first_line", [
    ("What will tomorrow's high in 北京 be in Fahrenheit?", LIJIANG_Q), ("广州明天的最高气温是多少华氏度？", "大理明天午后最暖时是几华氏度？"),
    ("Which is warmer today, 北京 or 上海? Give both highs.", SANYA_Q), ("明天上海和广州哪个更可能下雨？", "桂林和三亚，明天哪边更干燥？"),
    ("What is 30 °C in Fahrenheit?", SANYA_Q)])  # a unit without a day's forecast: the comparison
def test_a_question_gets_the_example_of_its_shape_in_its_language(question, first_line):
    messages = CodeAgent(None, TOOLS).prompt_messages(question)
    assert [m.content for m in messages[1:3]] == ["In which language did Cervantes write Don Quixote?",
                                                  "Thought: No tool fits; this is general knowledge.\n"
                                                  "Final Answer: Cervantes wrote Don Quixote in Spanish."]
    assert messages[3] == Message("user", first_line) and messages[-1].role == "assistant"


def test_a_code_agent_refuses_native_tool_calling():
    with pytest.raises(ConfigError, match="own text protocol"):
        CodeAgent(None, TOOLS, strategy="native")


def test_a_program_step_saved_and_read_back_is_a_plain_step():
    result, _, _ = run([TWO_CALLS, ANSWER])
    back = Step.from_dict(result.steps[0].to_dict())
    assert type(back) is Step and back.feedback == f"{BEIJING}\n{SHANGHAI}" and len(back.tool_uses) == 2


COMPARE = Task("compare-x", "en", "compare", "Which is warmer today, 北京 or 上海?", "toolbox",
               {"numbers": [27, 23], "compare": {"aspect": "warm", "more": ["北京"], "less": ["上海"]},
                "tools": ["get_weather", "get_weather"]})


@pytest.mark.parametrize("name, constrained", [("code", False), ("code+c", True), ("code+c-guard", True)])
def test_the_code_configurations_run_a_code_agent(name, constrained):
    config = EvalConfig.parse(name)
    assert config.name == name and config.agent_class() is CodeAgent and "strategy" not in config.agent_settings()
    llm = GrammarLLM([TWO_CALLS, ANSWER])
    outcome = run_task(llm, COMPARE, config, lambda toolset: TOOLS)
    assert (outcome.success, outcome.trajectory_ok, outcome.steps, outcome.error) == (True, True, 2, None)
    assert outcome.tools_called == ["get_weather", "get_weather"] and outcome.prompt_tokens > 1000
    assert (llm.calls[0]["grammar"] is not None) is constrained


@pytest.mark.parametrize("bad", ["plan+code+c", "reflect+code", "code+native"])
def test_code_takes_no_method_prefix(bad):
    with pytest.raises(ConfigError, match="Valid forms"):
        EvalConfig.parse(bad)
