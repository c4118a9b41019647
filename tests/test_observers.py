"""Trace recorder (spans per step), metrics summary and the console printer, on hand-made event sequences."""
from __future__ import annotations

import io
import subprocess
import sys

import pytest

from handmade_agent.agent.events import Alert, LLMCallFinished, LLMCallStarted, RunStarted, ToolFinished, emit
from handmade_agent.llm import Usage
from handmade_agent.observers import fmt_duration
from handmade_agent.observers import ConsolePrinter, TraceRecorder
from handmade_agent.observers import Trace, thought_of
from observer_samples import QUESTION, sample_run


def recorded(events) -> TraceRecorder:
    rec = TraceRecorder()
    for e in events:
        emit([rec], e)
    return rec


def test_trace_has_one_span_per_step_with_thought_action_input_observation():
    steps = recorded(sample_run()).trace.steps
    assert [s.step for s in steps] == [1, 2, 3, 4]
    s1, s2, s3, s4 = steps
    assert s1.thought == "I need tomorrow's weather in Beijing."
    assert (s1.action, s1.action_input) == ("get_weather", {"city": "北京", "date": "tomorrow"})
    assert s1.observation == "北京 tomorrow: 晴, 25°C" and s1.errors == []
    assert s2.action is None and s2.parse_error == "no Action or Final Answer found"
    assert s2.observation.startswith("Write either") and s2.errors == ["format error: no Action or Final Answer found"]
    assert s3.tools[0].ok is False and s3.errors == ["tool calculator failed: division by zero"]
    assert s4.answer == "北京明天晴，77°F。" and s4.action is None and s4.thought == "I have everything."


def test_step_spans_carry_their_own_time_and_tokens():
    s1 = recorded(sample_run()).trace.steps[0]
    assert s1.usage == Usage(120, 30) and s1.llm_calls == 1
    assert s1.model_time == pytest.approx(1.5) and s1.tool_time == pytest.approx(0.02)
    assert s1.duration == pytest.approx(1.5 + 0.001 + 0.02)  # first to last event of the step


def test_summary_numbers_are_computed_from_the_events():
    s = recorded(sample_run()).summary()
    assert (s.steps, s.llm_calls, s.prompt_tokens, s.completion_tokens, s.total_tokens) == (4, 4, 740, 80, 820)
    assert s.model_time == pytest.approx(3.8) and s.tool_time == pytest.approx(0.03)
    assert (s.tool_calls, s.tool_errors, s.tool_success_rate) == (2, 1, 0.5)
    assert (s.format_errors, s.llm_errors, s.stop_reason) == (1, 0, "final_answer")
    assert s.question == QUESTION and s.answer == "北京明天晴，77°F。" and s.wall_time == 4.0
    assert s.overhead_time == pytest.approx(4.0 - 3.8 - 0.03)
    assert s.to_dict()["tool_success_rate"] == 0.5


def test_summary_prints_numbers_with_units():
    text = str(recorded(sample_run()).summary())
    assert "740 prompt + 80 completion = 820" in text
    assert "model 3.8 s, tools 30 ms, total 4.0 s" in text
    assert "2 (1 failed, success rate 50%)" in text and "format errors   : 1" in text


def test_an_unfinished_run_still_summarizes():
    s = recorded(sample_run()[:6]).summary()  # stopped inside step 2 (e.g. the process crashed)
    assert s.stop_reason == "" and s.steps == 2 and s.answer is None and s.tool_success_rate == 1.0
    assert s.wall_time == pytest.approx(sample_run()[5].ts - sample_run()[0].ts)
    assert "(still running)" in str(s)


def test_no_tool_calls_means_no_success_rate_rather_than_a_made_up_one():
    assert Trace().summary().tool_success_rate is None
    assert "success rate n/a" in str(Trace().summary())


def test_recorder_keeps_one_trace_per_run_and_latest_is_trace():
    rec = recorded(sample_run("run-aaa111") + sample_run("run-bbb222", t0=2000.0))
    assert [t.run_id for t in rec.traces] == ["run-aaa111", "run-bbb222"]
    assert rec.trace.run_id == "run-bbb222" and len(rec.trace.events) == len(sample_run())
    rec.clear()
    assert rec.traces == [] and rec.trace.steps == []


def test_model_errors_and_retries_are_counted():
    evs = [RunStarted(run_id="r", question="q"),
           LLMCallStarted(run_id="r", step=1), LLMCallFinished(run_id="r", step=1, error="server unreachable"),
           LLMCallStarted(run_id="r", step=1), LLMCallFinished(run_id="r", step=1, text="Final Answer: 1",
                                                               usage=Usage(5, 3), latency=0.2)]
    trace = recorded(evs).trace
    assert trace.steps[0].llm_calls == 2 and trace.steps[0].llm_error is None  # the retry succeeded
    assert trace.summary().llm_errors == 1 and trace.summary().llm_calls == 2


def test_tool_finish_without_start_is_still_a_tool_call():
    trace = recorded([ToolFinished(run_id="r", step=1, ts=10.0, name="clock", ok=True, content="9:00", duration=0.5)]).trace
    assert trace.steps[0].tools[0].name == "clock" and trace.summary().tool_calls == 1


def test_alerts_attach_to_their_step_even_when_they_arrive_first():
    evs = [Alert(run_id="r", step=1, ts=1.0, name="too_many_steps"), LLMCallStarted(run_id="r", step=1, ts=1.0)]
    trace = recorded(evs).trace
    assert [a.name for a in trace.steps[0].alerts] == ["too_many_steps"] and trace.summary().alerts == ["too_many_steps"]


@pytest.mark.parametrize("text, thought", [
    ("Thought: add them\nAction: calculator", "add them"),
    ("**Thought:** look it up\n**Action:** get_weather", "look it up"),
    ("思考：需要查天气\n行动：get_weather", "需要查天气"),
    ("I should multiply.\nAction: calculator", "I should multiply."),
    ("Thought: line one\nline two\nFinal Answer: 3", "line one\nline two"),
    ("", ""),
])
def test_thought_is_the_text_before_the_action_or_answer(text, thought):
    assert thought_of(text) == thought


@pytest.mark.parametrize("seconds, text", [(0.0004, "0 ms"), (0.0345, "34 ms"), (0.9994, "999 ms"), (1.0, "1.0 s"),
                                           (61.26, "61.3 s")])
def test_durations_always_have_a_unit(seconds, text):
    assert fmt_duration(seconds) == text


def printed(level: str, events) -> list[str]:
    out = io.StringIO()
    printer = ConsolePrinter(level, file=out, width=60)
    for e in events:
        printer(e)
    return out.getvalue().splitlines()


def test_console_printer_steps_level_shows_each_step():
    lines = printed("steps", sample_run())
    assert lines[0] == f"▶ question: {QUESTION}"
    assert "── step 1 ──" in lines and "  thought: I need tomorrow's weather in Beijing." in lines
    assert '  action: get_weather {"city": "北京", "date": "tomorrow"}' in lines
    assert "  ✗ format error: no Action or Final Answer found" in lines
    assert "  ✗ tool error: Error: division by zero. Check the expression." in lines
    assert "✔ final answer: 北京明天晴，77°F。" in lines
    assert lines[-1] == "■ final_answer after 4 steps · 820 tokens · 4.0 s"


def test_console_printer_levels_nest():
    quiet, steps, debug = (printed(level, sample_run()) for level in ("quiet", "steps", "debug"))
    assert quiet == ["✔ final answer: 北京明天晴，77°F。", "■ final_answer after 4 steps · 820 tokens · 4.0 s"]
    assert set(quiet) < set(steps) and len(steps) < len(debug)
    assert "  model call with 2 messages; last: 北京明天的天气怎么样？用华氏度回答。" in debug
    assert any(l.startswith("  reply (120+30 tokens, 1.5 s): Thought:") for l in debug)
    assert "  observation (20 ms): 北京 tomorrow: 晴, 25°C" in debug


def test_console_printer_cuts_long_text_and_prints_a_retry_under_one_heading():
    evs = [LLMCallStarted(run_id="r", step=1), LLMCallFinished(run_id="r", step=1, error="x" * 500),
           LLMCallStarted(run_id="r", step=1)]
    lines = printed("steps", evs)
    assert lines.count("── step 1 ──") == 1 and len(lines[1]) == len("  ✗ model error: ") + 60
    assert lines[1].endswith("…")


def test_console_printer_rejects_an_unknown_level():
    with pytest.raises(ValueError, match="not one of"):
        ConsolePrinter("loud")


def test_observer_modules_load_no_widget_or_plotting_library():
    code = ("import sys, handmade_agent.observers.printer; "
            "print([m for m in sys.modules if m.startswith(('ipywidgets', 'matplotlib', 'numpy', 'torch'))])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_model_call_that_waited_is_placed_where_it_really_ran():
    # the call was requested at t=10 but the shared model was busy: it ran from 13 to 15 (latency 2 s)
    evs = [LLMCallStarted(run_id="r", step=1, ts=10.0), LLMCallFinished(run_id="r", step=1, ts=15.0, latency=2.0)]
    span = recorded(evs).trace.steps[0]
    assert span.model_calls == [(13.0, 2.0)] and span.model_time == 2.0 and span.duration == 5.0
    assert recorded(evs).summary().model_time == 2.0
