"""A tool's error message is never a run's answer: sent back once, then a plain refusal (agent/tool_errors.py)."""
from __future__ import annotations

from handmade_agent.agent import Agent, copies_tool_error
from handmade_agent.agent.tool_errors import RETRY
from handmade_agent.evaluation import check_answer, refused
from handmade_agent.llm import Completion, ScriptedLLM, ToolCall
from handmade_agent.tools import ToolRegistry, tool


@tool
def calculator(expression: str) -> str:
    """Evaluate arithmetic.

    Args:
        expression: the expression
    """
    raise ValueError(f"unknown name {expression!r}")


TOOLS = ToolRegistry([calculator])
CALL = 'Thought: compute\nAction: calculator\nAction Input: {"expression": "中国首都是北京"}'


def test_a_copied_error_is_sent_back_once_and_a_real_answer_then_counts():
    llm = ScriptedLLM([CALL, "Thought: done\nFinal Answer: Error: calculator: unknown name '中国首都是北京'",
                       "Thought: I know this\nFinal Answer: 北京"])
    result = Agent(llm, TOOLS).run("中国的首都是哪里？")
    assert [s.kind for s in result.steps] == ["action", "rejected_answer", "final_answer"]
    assert "error message" in result.steps[1].feedback and result.answer == "北京"
    assert result.steps[1].error == "error_not_answer"  # the check that sent it back is named
    assert result.steps[1].to_messages()[-1].content == f"Observation: {RETRY}"  # the model is told why


def test_a_second_copy_ends_the_run_with_a_refusal_that_no_check_counts_as_the_fact():
    copy = "Thought: done\nFinal Answer: 错误：计算器：unknown name '中国首都是北京'"
    result = Agent(ScriptedLLM([CALL, copy, copy]), TOOLS).run("中国的首都是哪里？")
    assert result.stop_reason == "final_answer" and len(result.steps) == 3
    assert result.answer == "I cannot answer this with the tools I have (the calculator call failed)."
    assert refused(result.answer) and not check_answer(result.answer, {"any": ["北京"]})  # the bad input is not quoted
    assert not copies_tool_error(result.answer)  # the refusal itself is not an error text


def test_the_native_strategy_gets_the_same_rule():
    call = Completion("", tool_calls=[ToolCall("calculator", '{"expression": "x"}', "c1")])
    llm = ScriptedLLM([call, Completion("Error: calculator: unknown name 'x'"), Completion("I cannot compute x.")])
    result = Agent(llm, TOOLS, strategy="native").run("What is x?")
    assert [s.kind for s in result.steps] == ["action", "rejected_answer", "final_answer"]
    assert result.answer == "I cannot compute x."


def test_an_answer_that_merely_mentions_an_error_is_kept():
    llm = ScriptedLLM([CALL, "Thought: fine\nFinal Answer: The tool reported an error, so I cannot say."])
    result = Agent(llm, TOOLS).run("?")
    assert [s.kind for s in result.steps] == ["action", "final_answer"]


def test_without_a_failed_call_an_error_looking_answer_is_left_alone():
    result = Agent(ScriptedLLM(["Thought: x\nFinal Answer: Error: 404 is a status code."]), TOOLS).run("What is 404?")
    assert result.answer == "Error: 404 is a status code." and len(result.steps) == 1


def test_an_answer_that_copies_the_note_it_was_sent_back_with_is_a_refusal_too():
    copy = "Thought: done\nFinal Answer: Error: calculator: unknown name 'x'"
    echo = f"Thought: done\nFinal Answer: No: {RETRY}"  # what the 0.5B model wrote on the suite's refusal tasks
    result = Agent(ScriptedLLM([CALL, copy, echo]), TOOLS).run("Is flight MU5101 late?")
    assert result.answer == "I cannot answer this with the tools I have (the calculator call failed)."
    assert check_answer(result.answer, {"refuse": True, "allowed_numbers": [5101]})
