"""Threshold alerts: each limit fires an Alert event, once per run, delivered to the other observers."""
from __future__ import annotations

import pytest

from handmade_agent.observers import ThresholdAlerts
from handmade_agent.agent.events import Alert, LLMCallFinished, ParseFailed, RunFinished, RunStarted, ToolFinished, emit
from handmade_agent.llm import Usage
from handmade_agent.observers import TraceRecorder
from observer_samples import sample_run


def fired(events, **limits) -> list[str]:
    alerts = ThresholdAlerts(**limits)
    for e in events:
        alerts(e)
    return [a.name for a in alerts.fired]


OFF = dict(max_steps=None, slow_tool=None, max_format_errors=None, no_answer=False)


def test_a_quiet_run_within_every_limit_raises_no_alert():
    assert fired(sample_run(), max_steps=4, slow_model=2.0, slow_tool=1.0, max_tokens=1000, max_format_errors=1) == []


@pytest.mark.parametrize("limit, names", [
    (dict(max_steps=3), ["too_many_steps"]),                      # step 4 is past 3, and fires once
    (dict(slow_model=0.9), ["slow_model", "slow_model"]),         # 1.5 s and 1.0 s calls: one alert per call
    (dict(slow_tool=0.015), ["slow_tool"]),                       # get_weather took 20 ms
    (dict(max_tokens=500), ["token_budget"]),                     # 150 + 170 + 225 = 545 after step 3
    (dict(max_format_errors=0), ["format_errors"]),
    (dict(tool_errors=True), ["tool_error"]),
])
def test_each_limit_fires_its_alert(limit, names):
    assert fired(sample_run(), **{**OFF, **limit}) == names


def test_alert_messages_say_what_and_how_much():
    alerts = ThresholdAlerts(**{**OFF, "slow_tool": 0.015, "max_tokens": 500})
    for e in sample_run():
        alerts(e)
    by_name = {a.name: a for a in alerts.fired}
    assert by_name["slow_tool"].message == "tool get_weather took 20 ms (limit 15 ms)"
    assert by_name["slow_tool"].step == 1 and by_name["slow_tool"].run_id == "run-abc123"
    assert by_name["token_budget"].message == "545 tokens used, budget 500" and by_name["token_budget"].step == 3


@pytest.mark.parametrize("reason, names", [("final_answer", []), ("max_steps", ["no_answer"]),
                                           ("format_errors", ["no_answer"])])
def test_a_run_that_ends_without_an_answer_alerts(reason, names):
    assert fired([RunFinished(run_id="r", stop_reason=reason)], **{**OFF, "no_answer": True}) == names


def test_limits_reset_at_each_run():
    two_runs = sample_run("run-aaa111") + sample_run("run-bbb222", t0=2000.0)
    assert fired(two_runs, **{**OFF, "max_steps": 3, "max_tokens": 500}) == ["token_budget", "too_many_steps"] * 2
    no_run_started = [e for e in two_runs if not isinstance(e, RunStarted)]  # an alert observer added mid-run
    assert fired(no_run_started, **{**OFF, "max_steps": 3}) == ["too_many_steps"] * 2


def test_alerts_reach_the_other_observers_and_the_trace():
    rec = TraceRecorder()
    observers: list = [rec]
    observers.append(ThresholdAlerts(**{**OFF, "tool_errors": True}, notify=observers))  # the agent's own list
    for e in sample_run():
        emit(observers, e)
    trace = rec.trace
    assert [a.name for a in trace.alerts] == ["tool_error"]
    assert (trace.alerts[0].step, trace.alerts[0].message) == (3, "tool calculator failed: division by zero")
    assert trace.summary().alerts == ["tool_error"]


def test_an_alert_coming_back_through_notify_is_not_processed_again():
    observers: list = []
    alerts = ThresholdAlerts(**{**OFF, "max_steps": 0}, notify=observers)
    observers.append(alerts)  # alerts notifies itself: must not loop
    emit(observers, LLMCallFinished(run_id="r", step=1))
    emit(observers, Alert(run_id="r", step=5, name="other"))
    assert [a.name for a in alerts.fired] == ["too_many_steps"]


def test_format_errors_count_per_run_not_per_step():
    evs = [RunStarted(run_id="r")] + [ParseFailed(run_id="r", step=i) for i in (1, 2)]
    assert fired(evs, **{**OFF, "max_format_errors": 1}) == ["format_errors"]
    assert fired(evs[:2], **{**OFF, "max_format_errors": 1}) == []


def test_slow_tools_alert_per_call():
    evs = [ToolFinished(run_id="r", step=i, name="t", duration=3.0) for i in (1, 2)]
    assert fired(evs, **{**OFF, "slow_tool": 2.0}) == ["slow_tool", "slow_tool"]


def test_token_budget_counts_prompt_and_completion():
    evs = [LLMCallFinished(run_id="r", step=1, usage=Usage(90, 5)), LLMCallFinished(run_id="r", step=2, usage=Usage(5, 1))]
    assert fired(evs, **{**OFF, "max_tokens": 100}) == ["token_budget"]
    assert fired(evs[:1], **{**OFF, "max_tokens": 100}) == []
