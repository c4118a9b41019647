"""The agent loop with ScriptedLLM and real tools: each stop condition, feedback, events, strategies."""
from __future__ import annotations

import json
import time

import pytest

from handmade_agent.agent import Agent
from handmade_agent.errors import ConfigError, LLMError, StateError
from handmade_agent.llm import Completion, Message, ScriptedLLM, ToolCall, Usage
from handmade_agent.agent import RunResult, Step, ToolUse
from handmade_agent.tools import ToolRegistry, tool


def make_tools(calls: list | None = None) -> ToolRegistry:
    @tool
    def add(a: int, b: int) -> int:
        """Add two integers.

        Args:
            a: first
            b: second
        """
        if calls is not None:
            calls.append((a, b))
        return a + b

    @tool
    def explode(text: str) -> str:
        """Always fails."""
        raise RuntimeError(f"cannot handle {text}")

    @tool(timeout=None)
    def nap(seconds: float) -> str:
        """Sleep a little."""
        time.sleep(seconds)
        return "rested"

    return ToolRegistry([add, explode, nap])


ADD = 'Thought: add them\nAction: add\nAction Input: {"a": 2, "b": 3}'
DONE = "Thought: I know it\nFinal Answer: 5"


def test_tool_step_then_final_answer():
    llm = ScriptedLLM([ADD + "\nObservation: 99 (invented)", DONE])
    result = Agent(llm, make_tools()).run("2+3?")
    assert (result.answer, result.stop_reason, len(result.steps)) == ("5", "final_answer", 2)
    assert result.steps[0].tool == "add" and result.steps[0].observation == "5"
    second_prompt = llm.calls[1]["messages"]
    assert second_prompt[-1].role == "user" and second_prompt[-1].content == "Observation: 5"
    assert "invented" not in second_prompt[-2].content  # the stop sequence cut the model's own observation
    assert llm.calls[0]["stop"] == ["Observation:"]
    assert result.usage == llm_usage_sum(result.steps)
    assert result.run_id.startswith("run-") and result.question == "2+3?"


def llm_usage_sum(steps):
    total = Usage()
    for s in steps:
        total = total + s.usage
    return total


def test_format_error_is_fed_back_and_the_counter_resets():
    llm = ScriptedLLM(["I think it is 5", ADD, "gibberish", DONE])
    result = Agent(llm, make_tools(), max_format_errors=2).run("2+3?")
    assert result.stop_reason == "final_answer"
    assert [s.kind for s in result.steps] == ["format_error", "action", "format_error", "final_answer"]
    feedback = llm.calls[1]["messages"][-1].content
    assert feedback.startswith("Observation: ") and "Final Answer:" in feedback
    assert "<one of: add, explode, nap>" in feedback  # the real tool names replace the placeholder


def test_too_many_consecutive_format_errors_stop_the_run():
    llm = ScriptedLLM(["no", "still no", "nope", DONE])
    result = Agent(llm, make_tools(), max_format_errors=3).run("?")
    assert (result.stop_reason, result.answer, len(result.steps)) == ("format_errors", None, 3)
    assert llm.remaining == 1


def test_tool_errors_become_observations():
    llm = ScriptedLLM(['Action: explode\nAction Input: {"text": "x"}', 'Action: subtract\nAction Input: {"a": 1}',
                       'Action: add\nAction Input: {"a": "two"}', DONE])
    result = Agent(llm, make_tools()).run("?")
    assert result.stop_reason == "final_answer"
    observations = [s.observation for s in result.steps[:3]]
    assert "RuntimeError" in observations[0] and "cannot handle x" in observations[0]
    assert "no tool named 'subtract'" in observations[1] and "add" in observations[1]
    assert "invalid arguments for add" in observations[2]
    assert [u.ok for s in result.steps[:3] for u in s.tool_uses] == [False, False, False]


def test_max_steps():
    llm = ScriptedLLM([f'Action: add\nAction Input: {{"a": {i}, "b": 1}}' for i in range(5)])
    result = Agent(llm, make_tools(), max_steps=3).run("count")
    assert (result.stop_reason, len(result.steps), len(llm.calls)) == ("max_steps", 3, 3)


def test_time_budget_is_checked_before_each_model_call():
    llm = ScriptedLLM(['Action: nap\nAction Input: {"seconds": 0.05}', DONE])
    result = Agent(llm, make_tools(), time_budget=0.01).run("rest")
    assert (result.stop_reason, len(result.steps), llm.remaining) == ("time_budget", 1, 1)


def test_repeated_action_warns_once_then_stops():
    calls: list = []
    llm = ScriptedLLM([ADD, ADD.replace("add them", "again"), ADD, DONE])
    result = Agent(llm, make_tools(calls)).run("2+3?")
    assert result.stop_reason == "repeated_action"
    assert calls == [(2, 3)]  # the tool ran once; the repeats were not executed
    warning = result.steps[1].observation
    assert "already called add" in warning and "5" in warning
    assert len(result.steps) == 3 and result.answer is None


def test_without_the_repeat_guard_a_repeated_call_runs_again_and_never_stops_the_run():
    calls: list = []
    llm = ScriptedLLM([ADD, ADD, ADD, DONE])
    result = Agent(llm, make_tools(calls), repeat_guard=False).run("2+3?")
    assert (result.stop_reason, result.answer, len(result.steps)) == ("final_answer", "5", 4)
    assert calls == [(2, 3)] * 3  # each repeat ran the tool
    assert all(s.tool_uses[0].ok and s.tool_uses[0].error is None for s in result.steps[:3])
    assert "already called" not in llm.calls[3]["messages"][-1].content


def test_model_error_is_retried_then_stops_without_raising():
    llm = ScriptedLLM([LLMError("server down"), LLMError("still down"), DONE])
    result = Agent(llm, make_tools(), llm_retries=1).run("?")
    assert (result.stop_reason, result.answer) == ("model_error", None)
    assert len(llm.calls) == 2 and "still down" in result.steps[-1].error


def test_a_retry_can_save_the_run():
    llm = ScriptedLLM([LLMError("blip"), DONE])
    assert Agent(llm, make_tools(), llm_retries=1).run("?").answer == "5"


def test_non_backend_exceptions_are_not_retried_but_do_not_escape():
    llm = ScriptedLLM([ValueError("bug in a custom backend"), DONE])
    result = Agent(llm, make_tools(), llm_retries=3).run("?")
    assert result.stop_reason == "model_error" and len(llm.calls) == 1
    assert "ValueError" in result.steps[-1].error


def test_running_out_of_script_is_a_model_error():
    result = Agent(ScriptedLLM([ADD]), make_tools(), llm_retries=0).run("?")
    assert result.stop_reason == "model_error" and "ScriptExhausted" in result.steps[-1].error


def test_events_in_order_with_run_id_and_step():
    seen = []
    llm = ScriptedLLM(["oops", ADD, DONE])
    result = Agent(llm, make_tools(), observers=[seen.append]).run("2+3?")
    assert [e.kind for e in seen] == [
        "run_started", "llm_call_started", "llm_call_finished", "parse_failed", "step_finished",
        "llm_call_started", "llm_call_finished", "tool_started", "tool_finished", "step_finished",
        "llm_call_started", "llm_call_finished", "final_answer", "step_finished", "run_finished"]
    assert {e.run_id for e in seen} == {result.run_id}
    assert [e.step for e in seen] == [0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3]
    assert seen[0].settings["max_steps"] == 8 and seen[-1].stop_reason == "final_answer"
    assert seen[8].content == "5" and seen[3].feedback
    # each step is emitted whole, and it is the very record the result holds
    assert [e.record for e in seen if e.kind == "step_finished"] == result.steps


def test_a_broken_observer_cannot_break_the_run():
    def broken(event):
        raise RuntimeError("observer bug")
    with pytest.warns(RuntimeWarning):
        result = Agent(ScriptedLLM([DONE]), make_tools(), observers=[broken]).run("?")
    assert result.answer == "5"


def test_native_strategy_uses_tool_calls_and_tool_messages():
    call = Completion("", [ToolCall("add", '{"a": 2, "b": 3}', "call_7")], Usage(10, 5))
    llm = ScriptedLLM([call, Completion("2 + 3 = 5", usage=Usage(20, 4))])
    result = Agent(llm, make_tools(), strategy="native").run("2+3?")
    assert (result.answer, result.stop_reason) == ("2 + 3 = 5", "final_answer")
    assert llm.calls[0]["tools"][0]["function"]["name"] == "add" and llm.calls[0]["stop"] == []
    msgs = llm.calls[1]["messages"]
    assert msgs[-3].role == "assistant" and msgs[-3].tool_calls[0].id == "call_7"
    assert msgs[-1].role == "user" and "Question: " in msgs[-1].content  # the question restated after results
    assert (msgs[-2].role, msgs[-2].tool_call_id, msgs[-2].content) == ("tool", "call_7", "5")
    assert result.usage == Usage(30, 9)


def test_native_strategy_runs_several_calls_of_one_step():
    calls = [ToolCall("add", '{"a": 1, "b": 1}', "c1"), ToolCall("add", '{"a": 2, "b": 2}', "c2")]
    llm = ScriptedLLM([Completion("", calls), Completion("2 and 4")])
    result = Agent(llm, make_tools(), strategy="native").run("?")
    assert [u.observation for u in result.steps[0].tool_uses] == ["2", "4"]
    assert [m.tool_call_id for m in llm.calls[1]["messages"][-3:-1]] == ["c1", "c2"]


def test_native_malformed_call_is_a_format_error():
    llm = ScriptedLLM([Completion('<tool_call>{"name": "add", "arguments": {a: }</tool_call>'), Completion("ok")])
    result = Agent(llm, make_tools(), strategy="native").run("?")
    assert [s.kind for s in result.steps] == ["format_error", "final_answer"]
    assert "could not be read" in llm.calls[1]["messages"][-1].content


def test_native_reads_a_call_written_as_bare_json_text():
    llm = ScriptedLLM([Completion('{"name": "add", "arguments": {"a": 1, "b": 2}}'), Completion("3")])
    result = Agent(llm, make_tools(), strategy="native").run("?")
    assert result.steps[0].tool_uses[0].observation == "3" and result.answer == "3"
    assert llm.calls[1]["messages"][-2].role == "tool"


def test_step_through_with_a_reply_asked_for_and_replaced():
    calls: list = []
    agent = Agent(ScriptedLLM(['Action: add\nAction Input: {"a": 1, "b": 1}', "Final Answer: 42"]), make_tools(calls))
    with pytest.raises(StateError):
        Agent(ScriptedLLM([]), make_tools()).step()
    agent.start("1+1?")
    assert "Action: add" in agent.ask_model().text and calls == []  # asking does not act
    step = agent.step(Completion('Action: add\nAction Input: {"a": 40, "b": 2}'))
    assert step.tool == "add" and step.observation == "42" and calls == [(40, 2)]
    assert step.model_calls == 1  # the call made by ask_model belongs to this step
    assert agent.step().kind == "final_answer" and agent.finished
    assert agent.step() is None and agent.last_result.answer == "42"


def test_settings_rebuild_the_agent_and_are_json():
    agent = Agent(ScriptedLLM([]), make_tools(), max_steps=4, time_budget=30.0, few_shot=False, llm_retries=2)
    s = agent.settings()
    assert json.loads(json.dumps(s)) == s
    assert Agent(ScriptedLLM([]), make_tools(), **s).settings() == s
    with pytest.raises(ConfigError):
        Agent(ScriptedLLM([]), make_tools(), strategy="magic")


class ListMemory:
    def __init__(self, messages):
        self.items = list(messages)

    def messages(self):
        return list(self.items)

    def add(self, message):
        self.items.append(message)


def test_memory_goes_between_system_prompt_and_question_and_records_the_answer():
    memory = ListMemory([Message("user", "My name is 小明."), Message("assistant", "Nice to meet you, 小明!")])
    llm = ScriptedLLM([DONE])
    Agent(llm, make_tools(), memory=memory, few_shot=False).run("What is my name?")
    sent = llm.calls[0]["messages"]
    assert [m.role for m in sent] == ["system", "system", "user", "assistant", "user"]  # teaching, tools, ...
    assert sent[3].content == "Final Answer: Nice to meet you, 小明!"  # shown in the protocol's form
    assert [(m.role, m.content) for m in memory.items[-2:]] == [("user", "What is my name?"), ("assistant", "5")]


def test_memory_is_not_given_unfinished_runs():
    memory = ListMemory([])
    Agent(ScriptedLLM(["x", "y"]), make_tools(), memory=memory, max_format_errors=2).run("?")
    assert memory.items == []


def test_steps_render_and_round_trip():
    step = Step(1, "action", "raw", "think", [ToolUse("add", {"a": 1, "b": 2}, True, "3")], usage=Usage(3, 4))
    assert [m.content for m in step.to_messages()] == [
        'Thought: think\nAction: add\nAction Input: {"a": 1, "b": 2}', "Observation: 3"]
    result = RunResult("3", [step], "final_answer", Usage(3, 4), 1.5, "run-abc123", "1+2?")
    again = RunResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert again == result and again.tools_used == ["add"]


def test_a_transcript_memory_keeps_the_whole_scratchpad_of_the_run():
    from handmade_agent.memory import ConversationMemory
    memory = ConversationMemory(policy="transcript")
    llm = ScriptedLLM(['Thought: add\nAction: add\nAction Input: {"a": 2, "b": 3}', "Thought: done\nFinal Answer: 5"])
    Agent(llm, make_tools(), memory=memory, few_shot=False).run("2+3?")
    kept = memory.messages()
    assert [m.role for m in kept] == ["user", "assistant"] and kept[0].content == "2+3?"
    assert "Action: add" in kept[1].content and "Observation: 5" in kept[1].content
    assert kept[1].content.rstrip().endswith("Final Answer: 5")


# --- settings, memory, time budget, questions, answer policies ----------------------------------------------

def test_writing_a_setting_on_the_agent_writes_its_config_and_is_checked():
    llm = ScriptedLLM([f'Action: add\nAction Input: {{"a": {i}, "b": 1}}' for i in range(5)])
    agent = Agent(llm, make_tools())
    agent.max_steps = 2
    assert agent.config.max_steps == 2 and "max_steps" not in vars(agent)
    assert len(agent.run("count").steps) == 2
    with pytest.raises(ConfigError, match="at least 1"):
        agent.max_steps = 0
    with pytest.raises(ConfigError, match="should be int"):
        agent.config.max_steps = "many"
    with pytest.raises(ConfigError, match="should be bool"):
        Agent(ScriptedLLM([]), make_tools(), few_shot="yes")
    assert agent.max_steps == 2


def test_two_agents_on_one_memory_each_see_only_the_summaries_they_caused():
    from handmade_agent.memory import SummaryMemory
    memory = SummaryMemory(ScriptedLLM(["notes 1", "notes 2"]), max_turns=1)
    seen_a, seen_b = [], []
    a = Agent(ScriptedLLM([DONE, DONE]), make_tools(), memory=memory, observers=[seen_a.append])
    Agent(ScriptedLLM([DONE]), make_tools(), memory=memory, observers=[seen_b.append])
    assert memory.observers == []  # building an agent does not change the memory it is given
    a.run("first?")
    a.run("second?")  # the first turn is evicted now: one summary call
    summaries = [e for e in seen_a if type(e).__name__ == "LLMCallStarted" and e.purpose == "summary"]
    assert len(summaries) == 1 and summaries[0].run_id == a.last_result.run_id
    assert not any(getattr(e, "purpose", "") == "summary" for e in seen_b) and memory.observers == []


class SlowLLM(ScriptedLLM):
    """A backend that takes ``delay`` seconds per reply."""

    def __init__(self, replies, delay):
        super().__init__(replies)
        self.delay = delay

    def complete(self, messages, **kw):
        time.sleep(self.delay)
        return super().complete(messages, **kw)


def test_a_time_budget_cuts_a_slow_tool_and_starts_nothing_after_it_is_over():
    nap = 'Action: nap\nAction Input: {"seconds": 5}'
    t0 = time.perf_counter()
    result = Agent(SlowLLM([nap, DONE], 0.2), make_tools(), time_budget=1.0).run("rest")
    assert result.stop_reason == "time_budget" and time.perf_counter() - t0 < 2.0  # not the tool's 5 s
    assert result.steps[0].tool_uses[0].error.startswith("timed out")
    late = SlowLLM(['Action: add\nAction Input: {"a": 1, "b": 1}'], 0.4)
    result = Agent(late, make_tools(), time_budget=0.2).run("?")  # the reply comes after the budget
    assert result.steps[0].tool_uses[0].error == "time_budget" and result.stop_reason == "time_budget"


def test_a_backend_that_takes_a_timeout_gets_what_is_left_of_the_budget():
    class Timed(ScriptedLLM):
        def complete(self, messages, *, timeout=None, **kw):
            self.timeouts = [*getattr(self, "timeouts", []), timeout]
            return super().complete(messages, **kw)
    llm = Timed([DONE])
    Agent(llm, make_tools(), time_budget=3.0).run("?")
    assert 2.0 < llm.timeouts[0] <= 3.0
    untimed = Timed([DONE])
    Agent(untimed, make_tools()).run("?")
    assert "timeout" not in untimed.calls[0] and untimed.timeouts == [None]


def test_a_question_that_is_not_text_is_refused_clearly():
    with pytest.raises(ConfigError, match="must be a string"):
        Agent(ScriptedLLM([DONE]), make_tools()).run(42)


def test_answer_policies_rewrite_the_answer_through_the_observed_model_call():
    seen = []

    def shout(context, answer):
        reply = context.ask([Message("user", f"Shout: {answer}")], purpose="shout")
        return reply.text if reply is not None else answer
    llm = ScriptedLLM([DONE, "FIVE!"])
    result = Agent(llm, make_tools(), answer_policies=[shout], observers=[seen.append]).run("2+3?")
    assert result.answer == "FIVE!" and result.steps[-1].reply.endswith("Final Answer: 5")
    assert [e.purpose for e in seen if type(e).__name__ == "LLMCallStarted"] == ["step", "shout"]
    assert result.steps[-1].model_calls == 2
    plain = ScriptedLLM([DONE])
    assert Agent(plain, make_tools()).run("2+3?").answer == "5" and len(plain.calls) == 1  # no policy by default
    with pytest.raises(ConfigError, match="returns the answer as text"):
        Agent(ScriptedLLM([DONE]), make_tools(), answer_policies=[lambda c, a: 5]).run("?")


def test_a_policy_asks_nothing_once_the_time_budget_is_over():
    asked = []
    policy = lambda context, answer: asked.append(context.ask([Message("user", "again?")])) or answer  # noqa: E731
    llm = SlowLLM([DONE, "never"], 0.3)
    result = Agent(llm, make_tools(), time_budget=0.1, answer_policies=[policy]).run("?")
    assert result.answer == "5" and asked == [None] and len(llm.calls) == 1
