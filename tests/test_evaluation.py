"""The evaluation harness with ScriptedLLM: answer checks, refusals, trajectories, runs of a task, failures inside one.

Configuration names, loading, the JSONL record, the summary and the CLI are in test_evaluation_runs.py."""
from __future__ import annotations

import pytest

from handmade_agent.agent import RunResult, Step, ToolUse
from handmade_agent.evaluation import (EvalConfig, Task, TaskOutcome, check_answer, evaluate, expected_tools_called,
                                       invented_observation, no_tool_called, read_outcomes, refused, run_task,
                                       trajectory_ok)
from handmade_agent.evaluation.checks import numbers_in
from handmade_agent.llm import ScriptedLLM
from handmade_agent.toolbox import default_registry

TOOLBOX = default_registry()
WEEKDAY = Task("w", "en", "weekday", "What day of the week is 2025-12-25?", "toolbox",
               {"any": ["Thursday", "星期四"], "tools": ["weekday"]})
CALL = 'Thought: look it up\nAction: weekday\nAction Input: {"date": "2025-12-25"}'
RIGHT, WRONG = "Thought: done\nFinal Answer: 2025-12-25 is a Thursday.", "Thought: done\nFinal Answer: A Monday."


def tools_for(toolset: str):
    return TOOLBOX


def test_numbers_are_read_through_full_width_commas_ranges_and_chinese_minus():
    assert numbers_in("14-27 °C, 1，250 元, ２７度, 零下40度, 27，23") == [14, 27, 1250, 27, -40, 27, 23]
    assert check_answer("总价是 1，035 元。", {"numbers": [1035]}) and not check_answer("总价 1035.5 元", {"numbers": [1035]})
    assert check_answer("about 310.9 K", {"numbers": [310.93]})
    assert not check_answer("about 311 K", {"numbers": [310.93]})
    assert check_answer("311 K", {"numbers": [310.93], "tolerance": 0.5})


def test_all_any_none_and_an_empty_answer():
    checker = {"all": ["2024-10-17"], "any": ["Thursday", "星期四"], "none": ["Friday"]}
    assert check_answer("2024-10-17, 星期四", checker)
    assert not check_answer("2024-10-17, Friday or Thursday", checker)  # a forbidden text
    assert not check_answer("Thursday", checker) and not check_answer("2024-10-17", checker)
    assert not check_answer(None, {"any": ["x"]}) and not check_answer("  ", {"none": ["x"]})


@pytest.mark.parametrize("answer", ["I'm sorry, I can't see live stock prices.", "I don't know.",
                                    "I am unable to check.", "There is no tool for flight status.",
                                    "No flight status available for that flight today.",
                                    "I cannot answer this: none of my tools gives prices.",
                                    "我无法查询实时股价。", "我不知道。", "我没有查询航班的工具。", "这个我不能回答。"])
def test_refusals_in_english_and_chinese(answer):
    assert refused(answer) and check_answer(answer, {"refuse": True})


@pytest.mark.parametrize("answer", ["The share price is 189 dollars.", "Paris", "航班准点。", None,
                                    "I cannot be sure, but it is about 189 dollars.",
                                    "No delay is expected; seats are available.", "No, CA981 is on time.",
                                    "None of my tools was needed: it is 189 dollars."])
def test_an_answer_that_states_a_fact_is_no_refusal(answer):
    assert not check_answer(answer, {"refuse": True, "allowed_numbers": [981]})


def test_a_refusal_may_repeat_the_question_s_numbers_and_dates():
    checker = {"refuse": True, "allowed_numbers": [981]}
    assert check_answer("I cannot check flight CA981 on 2024-05-20.", checker)
    assert not check_answer("I cannot check CA981; it landed at 14:35.", checker)


def run(replies: list, task: Task = WEEKDAY, name: str = "react") -> tuple[TaskOutcome, ScriptedLLM]:
    llm = ScriptedLLM(replies)
    return run_task(llm, task, EvalConfig.parse(name), tools_for), llm


def test_a_right_answer_after_the_right_tool():
    outcome, _ = run([CALL, RIGHT])
    assert (outcome.success, outcome.trajectory_ok, outcome.stop_reason) == (True, True, "final_answer")
    assert outcome.tools_called == ["weekday"] and outcome.steps == 2 and outcome.error is None
    assert outcome.prompt_tokens > 0 and outcome.completion_tokens > 0 and outcome.latency > 0
    assert (outcome.task_id, outcome.kind, outcome.lang, outcome.config) == ("w", "weekday", "en", "react")


def test_the_outcome_says_whether_the_answer_is_in_the_question_s_language():
    assert run([CALL, RIGHT])[0].language_ok is True
    zh = Task("z", "zh", "weekday", "2025-12-25 是星期几？", "toolbox", {"any": ["Thursday", "星期四"]})
    english, _ = run([CALL, RIGHT], zh, "react+c")
    assert english.success and english.language_ok is False  # the fact counts in either language; this does not
    chinese, _ = run([CALL, "Thought: done\nFinal Answer: 2025-12-25 是星期四。"], zh, "react+c")
    assert chinese.success and chinese.language_ok is True
    mixed = Task("m", "zh", "weekday", "What is 星期四 in English?", "toolbox", {"any": ["Thursday"]})
    assert run(["Thought: known\nFinal Answer: Thursday"], mixed)[0].language_ok is None  # no script to ask for


def test_a_wrong_answer_and_a_guess_without_the_tool():
    outcome, _ = run([CALL, WRONG])
    assert (outcome.success, outcome.trajectory_ok) == (False, True)
    outcome, _ = run([RIGHT], name="react-weekdays")  # the check weekday_found off: the guess stands
    assert (outcome.success, outcome.trajectory_ok, outcome.tools_called) == (True, False, [])
    outcome, _ = run([RIGHT, CALL, RIGHT])  # on (the default), the guessed weekday goes back and is looked up
    assert outcome.sent_back == ["weekday_found"] and (outcome.success, outcome.trajectory_ok) == (True, True)


def test_a_refusal_task_and_a_no_tool_task():
    refuse = Task("r", "zh", "refuse", "腾讯现在的股价是多少？", "toolbox", {"refuse": True})
    assert run(["Thought: no tool\nFinal Answer: 抱歉，我无法查询实时股价。"], refuse)[0].success
    assert not run(["Thought: guess\nFinal Answer: 腾讯股价是 380 港元。"], refuse)[0].success
    no_tool = Task("n", "en", "no_tool", "What is the capital of France?", "toolbox", {"any": ["Paris"], "tools": []})
    assert run(["Thought: I know\nFinal Answer: Paris"], no_tool)[0].trajectory_ok
    calc = 'Thought: check\nAction: calculator\nAction Input: {"expression": "1+1"}'
    late = run([calc, "Final Answer: Paris"], no_tool)
    assert late[0].success and not late[0].trajectory_ok


def test_a_repeated_call_with_the_guard_on_and_off():
    guarded, llm = run([CALL, CALL, CALL, RIGHT], name="react")
    assert (guarded.stop_reason, guarded.success, guarded.tools_called) == ("repeated_action", False, ["weekday"])
    assert llm.remaining == 1
    free, llm = run([CALL, CALL, RIGHT], name="react-guard")
    assert (free.stop_reason, free.success, free.tools_called) == ("final_answer", True, ["weekday", "weekday"])
    assert "already called" not in llm.calls[2]["messages"][-1].content
    assert "repeat_guard" in guarded.fired and free.fired == []


def test_the_outcome_names_the_mechanisms_that_acted():
    bad = "Thought: hm\nAction: weekday\nAction Input: {not json"
    outcome, _ = run([bad, CALL, RIGHT], name="react")
    assert outcome.fired == ["format_error"] and outcome.success
    zh = Task("z", "zh", "weekday", "2025-12-25 是星期几？", "toolbox", {"any": ["Thursday", "星期四"]})
    translated, llm = run([CALL, RIGHT, "2025-12-25 是星期四。"], zh, "react+c")
    assert translated.fired == ["call:translate"] and llm.remaining == 0
    assert run([CALL, RIGHT], zh, "react+c-translate")[0].fired == []


def step(reply: str = "", tools: list[tuple[str, bool]] = ()) -> Step:
    return Step(1, "action" if tools else "final_answer", reply, tool_uses=[ToolUse(n, {}, ok, "x") for n, ok in tools])


def test_trajectory_checks_on_a_run_result():
    result = RunResult("a", [step(tools=[("get_weather", True)]), step(tools=[("get_weather", True)])], "final_answer")
    assert expected_tools_called(result, ["get_weather", "get_weather"])
    assert not expected_tools_called(result, ["get_weather", "get_weather", "get_weather"])
    failed = RunResult("a", [step(tools=[("weekday", False)])], "final_answer")
    assert not expected_tools_called(failed, ["weekday"]) and not no_tool_called(failed)
    assert no_tool_called(RunResult("a", [step("Final Answer: a")], "final_answer"))
    own = "Action: weekday\nObservation: it is a Monday\nFinal Answer: Monday"  # a native reply: no stop sequence cut it
    invented = RunResult("a", [step(own)], "final_answer")
    assert invented_observation(invented) and not trajectory_ok(invented, {"any": ["Monday"]})
    assert not invented_observation(RunResult("a", [step("The Observation: part is mine")], "final_answer"))
    assert trajectory_ok(result, {"numbers": [1]}) and not trajectory_ok(result, {"tools": []})


def test_an_exception_inside_a_task_is_a_failed_outcome_and_the_run_goes_on(tmp_path):
    def broken(toolset: str):
        if toolset == "kb":
            raise RuntimeError("the retriever is not installed")
        return TOOLBOX
    kb_task = Task("k", "en", "kb", "What is E-17?", "kb", {"any": ["calibration"]})
    outcomes = evaluate(ScriptedLLM([CALL, RIGHT]), [kb_task, WEEKDAY], [EvalConfig("react")], progress=None,
                        tools_for=broken, out=tmp_path / "r.jsonl")
    assert [o.success for o in outcomes] == [False, True]
    assert outcomes[0].stop_reason == "error" and "RuntimeError: the retriever is not installed" in outcomes[0].error
    assert read_outcomes(tmp_path / "r.jsonl")[0].error == outcomes[0].error


def test_minus_translate_runs_the_agent_without_the_translation_policy():
    zh = Task("w-zh", "zh", "weekday", "2025-12-25 是星期几？", "toolbox", {"any": ["Thursday", "星期四"], "tools": ["weekday"]})
    translated, llm = run([CALL, RIGHT, "2025-12-25 是星期四。"], zh, "react")
    assert len(llm.calls) == 3 and translated.answer == "2025-12-25 是星期四。"
    kept, llm = run([CALL, RIGHT], zh, "react-translate")
    assert len(llm.calls) == 2 and kept.answer == "2025-12-25 is a Thursday." and kept.config == "react-translate"
