"""Observers on a real Agent (scripted model, real toolbox; one test with the local model): the trace agrees
with the RunResult, the JSONL log round-trips, and an observer that raises cannot change what the run returns."""
from __future__ import annotations

import datetime
import io
import warnings

import pytest

from handmade_agent.agent import Agent
from handmade_agent.observers import ThresholdAlerts
from handmade_agent.observers import JSONLLogger, read_trace
from handmade_agent.llm import ScriptedLLM
from handmade_agent.observers import ConsolePrinter, TraceRecorder
from handmade_agent.toolbox import default_registry
from observer_samples import REPLIES


def run(observers=(), question="北京明天天气怎么样？"):
    agent = Agent(ScriptedLLM(REPLIES), default_registry(today=datetime.date(2024, 5, 20)), observers=observers)
    return agent, agent.run(question)


def comparable(result):
    """Everything a run returns except what differs between any two runs (id, timings)."""
    d = result.to_dict()
    d.pop("run_id"), d.pop("duration")
    for s in d["steps"]:
        s.pop("duration"), s.pop("latency"), s.pop("started")
        for u in s["tool_uses"]:
            u.pop("duration")
    return d


def test_an_observer_that_raises_does_not_change_the_result():
    _, clean = run()
    calls = []

    def broken(event):
        calls.append(event.kind)
        raise RuntimeError("the log disk is full")

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _, noisy = run([broken, TraceRecorder()])
    assert comparable(noisy) == comparable(clean)
    assert noisy.answer == "北京明天多云。" and noisy.stop_reason == "final_answer"
    assert len(calls) > 10 and len(caught) == len(calls)  # every event reached it, every failure became a warning
    assert all("the log disk is full" in str(w.message) for w in caught)


def test_the_trace_agrees_with_the_run_result():
    rec = TraceRecorder()
    _, result = run([rec])
    s = rec.summary()
    assert (s.run_id, s.answer, s.stop_reason, s.steps) == (result.run_id, result.answer, result.stop_reason, 4)
    assert (s.prompt_tokens, s.completion_tokens) == (result.usage.prompt_tokens, result.usage.completion_tokens)
    assert (s.tool_calls, s.tool_errors, s.format_errors) == (2, 1, 1)
    assert s.wall_time == result.duration
    assert rec.trace.steps == result.steps  # the trace holds the very records the run returned
    assert s.llm_calls == sum(step.model_calls for step in result.steps) == 4


def test_a_real_run_logged_to_jsonl_reads_back_equal(tmp_path):
    rec = TraceRecorder()
    _, result = run([rec, JSONLLogger(tmp_path / "agent.jsonl")])
    back = read_trace(tmp_path / "agent.jsonl")
    assert back == rec.trace and back.steps == result.steps and back.summary() == rec.summary()


def test_console_printer_follows_a_real_run():
    out = io.StringIO()
    run([ConsolePrinter(file=out)])
    lines = out.getvalue().splitlines()
    assert lines[0] == "▶ question: 北京明天天气怎么样？"
    assert '  action: get_weather {"city": "北京", "date": "tomorrow"}' in lines
    assert any(l.startswith("  ✗ format error:") for l in lines)
    assert "  ✗ tool error: Error: calculator: division by zero" in lines
    assert "  reply: It will be cloudy, I think." in lines  # an unreadable reply is shown as written
    error, feedback = (lines.index(l) for l in lines if l.startswith(("  ✗ format error:", "  feedback:")))
    assert feedback == error + 1 and lines[error][len("  ✗ format error: "):] not in lines[feedback]  # not twice
    assert "  thought: I need the weather." in lines and "  thought: convert." in lines
    assert lines[-2] == "✔ final answer: 北京明天多云。" and lines[-1].startswith("■ final_answer after 4 steps")


def test_alerts_in_the_agents_own_observer_list_reach_the_trace():
    rec = TraceRecorder()
    agent = Agent(ScriptedLLM(REPLIES), default_registry(today=datetime.date(2024, 5, 20)), observers=[rec])
    agent.observers.append(ThresholdAlerts(max_steps=3, max_format_errors=0, tool_errors=True, notify=agent.observers))
    agent.run("北京明天天气怎么样？")
    assert rec.summary().alerts == ["format_errors", "tool_error", "too_many_steps"]


def test_a_run_that_hits_max_steps_is_reported_as_such():
    rec = TraceRecorder()
    loop = ['Thought: again\nAction: calculator\nAction Input: {"expression": "%d+1"}' % i for i in range(5)]
    agent = Agent(ScriptedLLM(loop), default_registry(today=datetime.date(2024, 5, 20)), max_steps=3,
                  observers=[rec, ThresholdAlerts(notify=[rec])])
    result = agent.run("count")
    assert result.stop_reason == "max_steps" and rec.summary().stop_reason == "max_steps"
    assert rec.summary().alerts == ["no_answer"] and rec.summary().answer is None


@pytest.mark.model
def test_a_real_local_model_run_is_traced_logged_and_read_back(local_llm, tmp_path):
    rec, alerts = TraceRecorder(), ThresholdAlerts(max_steps=3)
    agent = Agent(local_llm, default_registry(today=datetime.date(2024, 5, 20)), max_steps=3, max_tokens=128,
                  observers=[rec, JSONLLogger(tmp_path / "real.jsonl")])
    agent.observers.append(alerts)
    result = agent.run("Today is 2024-05-20. What weekday will it be 150 days later?")
    s = rec.summary()
    assert (s.steps, s.stop_reason, s.answer) == (len(result.steps), result.stop_reason, result.answer)
    assert (s.prompt_tokens, s.completion_tokens) == (result.usage.prompt_tokens, result.usage.completion_tokens)
    assert s.prompt_tokens > 0 and s.model_time > 0 and s.llm_calls >= s.steps
    assert read_trace(tmp_path / "real.jsonl") == rec.trace
    assert rec.trace.steps == result.steps and read_trace(tmp_path / "real.jsonl").steps == result.steps
    assert [a.name for a in alerts.fired] == ([] if result.stop_reason == "final_answer" else ["no_answer"])
