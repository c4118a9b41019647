"""Trace recorder (the Step records of a run), metrics summary and the console printer, on hand-made events."""
from __future__ import annotations

import io
import subprocess
import sys

import pytest

from handmade_agent.agent import Agent
from handmade_agent.agent.events import (Alert, LLMCallFinished, LLMCallStarted, ReplyEdited, RunStarted,
                                         StepFinished, ToolStarted, emit)
from handmade_agent.agent.steps import Step, ToolUse
from handmade_agent.errors import LLMError
from handmade_agent.llm import ScriptedLLM, Usage
from handmade_agent.observers import ConsolePrinter, Trace, TraceRecorder, fmt_duration, step_errors, summarize
from handmade_agent.react import parse
from handmade_agent.toolbox import default_registry
from observer_samples import QUESTION, sample_run


def recorded(events) -> TraceRecorder:
    rec = TraceRecorder()
    for e in events:
        emit([rec], e)
    return rec


def test_trace_steps_are_the_step_records_the_run_finished():
    events = sample_run()
    steps = recorded(events).trace.steps
    assert steps == [e.record for e in events if isinstance(e, StepFinished)]
    s1, s2, s3, s4 = steps
    assert [s.index for s in steps] == [1, 2, 3, 4] and [s.kind for s in steps] == [
        "action", "format_error", "action", "final_answer"]
    assert s1.thought == "I need tomorrow's weather in Beijing."
    assert (s1.tool, s1.input) == ("get_weather", {"city": "北京", "date": "tomorrow"})
    assert s1.observation == "北京 tomorrow: 晴, 25°C" and step_errors(s1) == []
    assert s2.tool is None and s2.observation.startswith("Write either")
    assert step_errors(s2) == ["format error: no Action or Final Answer found"]
    assert step_errors(s3) == ["tool calculator failed: division by zero"]
    assert s4.answer == "北京明天晴，77°F。" and s4.tool is None and s4.thought == "I have everything."


def test_step_errors_label_a_model_error_and_every_failed_tool():
    step = Step(1, "model_error", error="LLMError: timeout")
    assert step_errors(step) == ["model error: LLMError: timeout"]
    two = Step(2, "action", tool_uses=[ToolUse("a", {}, False, "Error: x", "x"), ToolUse("b", {}, True, "ok"),
                                       ToolUse("c", {}, False, "Error: y")])
    assert step_errors(two) == ["tool a failed: x", "tool c failed: Error: y"]


def test_the_step_in_progress_is_known_from_the_events_after_the_last_finished_step():
    events = sample_run()
    assert recorded(events[:5]).trace.running_step == 1 and recorded(events[:4]).trace.running_tool == "get_weather"
    assert recorded(events[:5]).trace.running_tool is None  # the tool finished; the step has not yet
    assert recorded(events[:6]).trace.running_step is None and recorded(events[:7]).trace.running_step == 2
    assert recorded(events).trace.running_step is None and Trace().running_step is None
    summary_call = LLMCallStarted(run_id="run-abc123", step=4, purpose="summary")  # after the last step
    assert recorded(events[:-1] + [summary_call]).trace.running_step is None


def test_summary_numbers_are_computed_from_the_steps():
    s = recorded(sample_run()).summary()
    assert (s.steps, s.llm_calls, s.prompt_tokens, s.completion_tokens, s.total_tokens) == (4, 4, 740, 80, 820)
    assert s.model_time == pytest.approx(3.8) and s.tool_time == pytest.approx(0.03)
    assert (s.tool_calls, s.tool_errors, s.tool_success_rate) == (2, 1, 0.5)
    assert (s.format_errors, s.llm_errors, s.stop_reason) == (1, 0, "final_answer")
    assert s.question == QUESTION and s.answer == "北京明天晴，77°F。" and s.wall_time == 4.0
    assert s.overhead_time == pytest.approx(4.0 - 3.8 - 0.03)
    assert s.to_dict()["tool_success_rate"] == 0.5
    assert summarize(sample_run()) == s  # the events alone are enough


def test_summary_reads_the_step_records_not_the_per_call_events():
    # only the records: a log written without the per-call events still gives the numbers
    events = [e for e in sample_run() if isinstance(e, (RunStarted, StepFinished))]
    s = summarize(events)
    assert (s.steps, s.llm_calls, s.total_tokens, s.tool_calls, s.tool_errors, s.format_errors) == (4, 4, 820, 2, 1, 1)
    assert s.model_time == pytest.approx(3.8) and s.tool_time == pytest.approx(0.03)


def test_model_calls_that_are_not_steps_count_in_tokens_time_and_calls():
    extra = [LLMCallStarted(run_id="run-abc123", step=4, purpose="summary"),
             LLMCallFinished(run_id="run-abc123", step=4, purpose="summary", usage=Usage(300, 40), latency=2.0)]
    events = sample_run()
    s = summarize(events[:-1] + extra + events[-1:])
    assert (s.llm_calls, s.prompt_tokens, s.completion_tokens) == (5, 1040, 120)
    assert s.model_time == pytest.approx(5.8) and s.steps == 4


def test_retries_and_edits_are_counted():
    events = sample_run()
    events[5].record.model_calls = 3  # step 1 needed two retries
    failures = [LLMCallFinished(run_id="run-abc123", step=1, error="server unreachable") for _ in range(2)]
    edit = ReplyEdited(run_id="run-abc123", step=2, original="Thought: x", text="It is sunny I think.")
    s = summarize(events[:2] + failures + events[2:6] + [edit] + events[6:])
    assert (s.llm_calls, s.llm_errors, s.edited_replies) == (6, 2, 1)
    assert s.prompt_tokens == 740  # a failed attempt has no tokens


def test_summary_prints_numbers_with_units():
    text = str(recorded(sample_run()).summary())
    assert "740 prompt + 80 completion = 820" in text
    assert "model 3.8 s, tools 30 ms, total 4.0 s" in text
    assert "2 (1 failed, success rate 50%)" in text and "format errors   : 1" in text


def test_an_unfinished_run_still_summarizes_its_finished_steps():
    events = sample_run()[:8]  # stopped inside step 2 (e.g. the process crashed)
    s = recorded(events).summary()
    assert s.stop_reason == "" and s.steps == 1 and s.answer is None and s.tool_success_rate == 1.0
    assert s.total_tokens == 150  # step 2's reply arrived, but the step never finished
    assert s.wall_time == pytest.approx(events[-1].ts - events[0].ts)
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


def test_a_model_error_step_is_counted_from_a_real_failing_run():
    rec = TraceRecorder()
    result = Agent(ScriptedLLM([LLMError("down")] * 2), [], llm_retries=1, observers=[rec]).run("q")
    (step,) = rec.trace.steps
    assert result.stop_reason == "model_error" and step.kind == "model_error" and step.model_calls == 2
    assert step_errors(step) == [f"model error: {result.steps[0].error}"]
    s = rec.summary()
    assert (s.llm_calls, s.llm_errors, s.steps, s.stop_reason) == (2, 2, 1, "model_error")


def test_alerts_and_edits_are_found_by_step():
    evs = sample_run()
    alert, edit = Alert(run_id="run-abc123", step=3, name="tool_error"), ReplyEdited(run_id="run-abc123", step=2)
    trace = recorded(evs[:10] + [alert, edit] + evs[10:]).trace
    assert [a.step for a in trace.alerts] == [3] and trace.summary().alerts == ["tool_error"]
    assert trace.edits == {2: edit}


THOUGHTS = [("Thought 1: add them", "add them"), ("Thinking: I should add", "I should add"),
            ("### Thought\nadd them up", "add them up"), ("**Thought:** look it up", "look it up"),
            ("思考：需要查天气", "需要查天气"), ("I should multiply.", "I should multiply.")]


@pytest.mark.parametrize("opening, thought", THOUGHTS)
def test_the_thought_shown_is_the_parsers_thought(opening, thought):
    reply = opening + '\nAction: calculator\nAction Input: {"expression": "1+2"}'
    assert parse(reply).thought == thought  # what the agent records in step.thought
    rec, out = TraceRecorder(), io.StringIO()
    Agent(ScriptedLLM([reply, "Final Answer: 3"]), default_registry(), observers=[rec, ConsolePrinter(file=out)]).run(
        "1+2?")
    assert rec.trace.steps[0].thought == thought
    assert f"  thought: {thought.replace(chr(10), ' ')}" in out.getvalue().splitlines()
    assert "Thought" not in out.getvalue() and "Thinking" not in out.getvalue()


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
    assert lines == [
        f"▶ question: {QUESTION}",
        "── step 1 ──", "  thought: I need tomorrow's weather in Beijing.",
        '  action: get_weather {"city": "北京", "date": "tomorrow"}', "  observation: 北京 tomorrow: 晴, 25°C",
        "── step 2 ──", "  reply: It is sunny I think.", "  ✗ format error: no Action or Final Answer found",
        "  feedback: Write either 'Action:' with 'Action Input:' or 'Final Answe…",
        "── step 3 ──", "  thought: convert 25 °C to °F.", '  action: calculator {"expression": "25*9/5+32"}',
        "  ✗ tool error: Error: division by zero. Check the expression.",
        "── step 4 ──", "  thought: I have everything.", "✔ final answer: 北京明天晴，77°F。",
        "■ final_answer after 4 steps · 820 tokens · 4.0 s"]


def test_console_printer_levels_nest():
    quiet, steps, debug = (printed(level, sample_run()) for level in ("quiet", "steps", "debug"))
    assert quiet == ["✔ final answer: 北京明天晴，77°F。", "■ final_answer after 4 steps · 820 tokens · 4.0 s"]
    assert set(quiet) < set(steps) and len(steps) < len(debug)
    assert "  model call with 2 messages (35 characters); last: 北京明天的天气怎么样？用华氏度回答。" in debug
    assert any(l.startswith("  reply (120+30 tokens, 1.5 s): Thought:") for l in debug)
    assert "  observation (20 ms): 北京 tomorrow: 晴, 25°C" in debug
    assert debug.count("── step 1 ──") == 1 and debug[1] == "── step 1 ──" and debug[2].startswith("  model call")


def test_debug_level_names_calls_that_are_not_steps_and_failed_attempts():
    evs = [LLMCallStarted(run_id="r", step=1), LLMCallFinished(run_id="r", step=1, error="x" * 500, latency=0.5),
           LLMCallStarted(run_id="r", step=1), LLMCallStarted(run_id="r", step=1, purpose="summary", messages=[{}]),
           LLMCallFinished(run_id="r", step=1, purpose="summary", text="short", usage=Usage(7, 2), latency=0.25)]
    lines = printed("debug", evs)
    assert lines.count("── step 1 ──") == 1  # a retry stays under one heading
    assert lines[2].startswith("  ✗ model call failed (500 ms): xxx") and len(lines[2]) == len(
        "  ✗ model call failed (500 ms): ") + 60 and lines[2].endswith("…")
    assert lines[-2:] == ["  model call [summary] with 1 messages (0 characters); last: ",
                          "  reply [summary] (7+2 tokens, 250 ms): short"]
    assert printed("steps", evs) == []  # no step finished: nothing to show at the steps level


def test_console_printer_shows_a_model_error_and_an_edit_under_the_step():
    edit = ReplyEdited(run_id="r", step=1, original="Thougt: typo", text="Final Answer: 2")
    failed = StepFinished(run_id="r", step=2, record=Step(2, "model_error", error="LLMError: down"))
    lines = printed("steps", [RunStarted(run_id="r", question="q"), edit,
                              StepFinished(run_id="r", step=1, record=Step(1, "final_answer", answer="2")), failed])
    assert lines == ["▶ question: q", "── step 1 ──", "  ✎ reply edited by hand; the model wrote: Thougt: typo",
                     "✔ final answer: 2", "── step 2 ──", "  ✗ model error: LLMError: down"]


def test_console_printer_rejects_an_unknown_level():
    with pytest.raises(ValueError, match="not one of"):
        ConsolePrinter("loud")


def test_observer_modules_load_no_widget_or_plotting_library():
    code = ("import sys, handmade_agent.observers.printer; "
            "print([m for m in sys.modules if m.startswith(('ipywidgets', 'matplotlib', 'numpy', 'torch'))])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
