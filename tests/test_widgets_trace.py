"""TracePanel and StepDebugger driven without a browser: scripted runs, then the widgets' state is inspected."""
from __future__ import annotations

import datetime

import pytest

pytest.importorskip("ipywidgets")

from handmade_agent.agent import Agent
from handmade_agent.agent.events import Alert, ReplyEdited
from handmade_agent.agent.steps import Step
from handmade_agent.errors import LLMError
from handmade_agent.llm import ScriptedLLM
from handmade_agent.observers import TraceRecorder
from handmade_agent.toolbox import default_registry
from handmade_agent.widgets import StepDebugger
from handmade_agent.widgets import TracePanel
from handmade_agent.widgets.timeline import timeline_bars
from observer_samples import REPLIES, sample_run

PNG = b"\x89PNG\r\n\x1a\n"


def tools():
    return default_registry(today=datetime.date(2024, 5, 20))


def fed(events, **kw) -> TracePanel:
    panel = TracePanel(**kw)
    for e in events:
        panel(e)
    return panel


def test_one_collapsible_entry_per_step_with_titles_time_and_tokens():
    panel = fed(sample_run())
    assert len(panel.accordion.children) == 4
    assert panel.accordion.titles == ("Step 1 · get_weather · 1.5 s · 150 tokens",
                                      "⚠ Step 2 · format error · 501 ms · 170 tokens",
                                      "⚠ Step 3 · calculator · 1.0 s · 225 tokens",
                                      "Step 4 · final answer · 801 ms · 275 tokens")
    assert panel.accordion.selected_index == 3  # the latest step is open, the others collapsed


def test_entries_hold_thought_action_input_observation_and_highlighted_errors():
    panel = fed(sample_run())
    first = panel.entries[0]
    assert first["thought"] == "I need tomorrow's weather in Beijing." and first["action"] == "get_weather"
    assert first["input"] == {"city": "北京", "date": "tomorrow"} and first["observation"] == "北京 tomorrow: 晴, 25°C"
    assert panel.error_steps == [2, 3]
    html2 = panel.accordion.children[1].value
    assert "background:#fdecea" in html2 and "format error: no Action or Final Answer found" in html2
    assert "Write either" in html2  # the feedback is step 2's observation
    assert "&quot;city&quot;: &quot;北京&quot;" in panel.accordion.children[0].value  # escaped, Chinese kept


def test_totals_and_timeline_after_the_run():
    panel = fed(sample_run())
    assert ("final_answer</b> · 4 steps · 740 prompt + 80 completion tokens · model 3.8 s · tools 30 ms"
            in panel.totals.value)
    assert "tool success 50%" in panel.totals.value and "format errors 1" in panel.totals.value
    assert bytes(panel.timeline.value).startswith(PNG) and panel.timeline.layout.display is None


def test_the_panel_updates_live_event_by_event():
    events = sample_run()
    panel = TracePanel()
    panel(events[0])
    assert panel.accordion.children == () and "北京明天" in panel.header.value
    panel(events[1])  # step 1's model call started: the step in progress is shown, not yet an entry
    assert panel.accordion.titles == ("Step 1 · thinking…",) and panel.entries == []
    assert "waiting for the model" in panel.accordion.children[0].value and "running" in panel.totals.value
    panel(events[2]), panel(events[3])  # the reply came; the tool started
    assert panel.accordion.titles == ("Step 1 · get_weather…",)
    for e in events[4:7]:  # the tool finished, step 1 finished, step 2's model call started
        panel(e)
    assert panel.accordion.titles == ("Step 1 · get_weather · 1.5 s · 150 tokens", "Step 2 · thinking…")
    assert panel.entries[0]["thought"] == "I need tomorrow's weather in Beijing."
    assert panel.accordion.selected_index == 1  # the step in progress is open
    assert bytes(panel.timeline.value) == b"" and panel.timeline.layout.display == "none"  # drawn once, at the end


def test_a_new_run_clears_the_panel():
    panel = fed(sample_run("run-aaa111") + sample_run("run-bbb222", t0=2000.0)[:6])
    assert len(panel.accordion.children) == 1 and panel.trace.run_id == "run-bbb222"
    assert panel.summary.stop_reason == ""


def test_static_html_has_the_same_entries_and_the_chart():
    panel = fed(sample_run())
    page = panel.to_html()
    assert page.count("<details") == 4 + 4  # one per step, plus each step's raw-reply block
    for title in panel.accordion.titles:
        assert title in page
    assert "data:image/png;base64," in page and "北京明天的天气怎么样" in page
    bundle = panel._repr_mimebundle_()
    assert bundle["text/html"] == page and "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/plain"] == "TracePanel(4 steps)"


def test_html_is_escaped():
    events = sample_run()
    events[5].record.thought = "<script>alert(1)</script>"
    assert "<script>" not in fed(events).to_html() and "&lt;script&gt;" in fed(events).to_html()


def test_a_panel_on_a_real_scripted_agent_run():
    panel = TracePanel()
    result = Agent(ScriptedLLM(REPLIES), tools(), observers=[panel]).run("北京明天天气怎么样？")
    assert [e["step"] for e in panel.entries] == [s.index for s in result.steps]
    assert [e["action"] for e in panel.entries] == ["get_weather", None, "calculator", None]
    assert panel.error_steps == [2, 3] and panel.entries[-1]["answer"] == result.answer
    assert panel.summary.total_tokens == result.usage.total_tokens
    assert f"{result.usage.prompt_tokens} prompt" in panel.totals.value


def test_a_model_error_step_is_one_entry_with_the_error_shown():
    panel = TracePanel()
    Agent(ScriptedLLM([LLMError("timeout")] * 2), tools(), llm_retries=1, observers=[panel]).run("q")
    assert panel.error_steps == [1] and panel.accordion.titles[0].startswith("⚠ Step 1 · model error")
    assert "model error: LLMError: timeout" in panel.accordion.children[0].value


def test_a_format_error_shows_the_raw_reply_open_and_no_thought():
    panel = fed(sample_run())
    assert panel.entries[1]["thought"] == "" and "<b>Thought</b>" not in panel.accordion.children[1].value
    assert "<details open><summary>raw model reply</summary>" in panel.accordion.children[1].value


def test_alerts_and_edits_show_in_their_steps_entry():
    events = sample_run()
    events.insert(14, Alert(run_id="run-abc123", step=3, name="tool_error", message="calculator failed"))
    events.insert(6, ReplyEdited(run_id="run-abc123", step=2, original="Thought: mine", text="It is sunny I think."))
    panel = fed(events)
    assert panel.accordion.titles[1].startswith("⚠ ✎ Step 2") and "Thought: mine" in panel.accordion.children[1].value
    assert "alert tool_error: calculator failed" in panel.accordion.children[2].value
    assert "alert" not in panel.accordion.children[0].value and panel.summary.edited_replies == 1


@pytest.mark.parametrize("opening, label, thought", [("Thought 1: add them", "Thought 1", "add them"),
                                                     ("Thinking: I add", "Thinking", "I add"),
                                                     ("### Thought\nadd them up", "###", "add them up")])
def test_the_panel_shows_exactly_the_parsers_thought(opening, label, thought):
    panel = TracePanel()
    reply = opening + '\nAction: calculator\nAction Input: {"expression": "1+2"}'
    Agent(ScriptedLLM([reply, "Final Answer: 3"]), tools(), observers=[panel]).run("1+2?")
    assert panel.entries[0]["thought"] == thought
    rows = panel.accordion.children[0].value.split("<details>")[0]  # the entry without its raw-reply block
    assert f"<b>Thought</b>: {thought}</div>" in rows and label not in rows


def test_the_timeline_places_the_model_before_the_tools_at_the_end_of_the_step():
    step = fed(sample_run()).trace.steps[0]  # began at 1000.01, model 1.5 s, tool 20 ms, 1.521 s in all
    bars = timeline_bars(step, t0=1000.0)
    assert bars["step"] == pytest.approx((0.01, 1.521)) and bars["model"] == pytest.approx((0.011, 1.5))
    assert len(bars["tools"]) == 1 and bars["tools"][0][:2] == pytest.approx((1.511, 0.02)) and bars["tools"][0][2]
    # a model call that had to wait for a shared model: the wait comes first, the model's work last
    waited = timeline_bars(Step(1, "final_answer", latency=2.0, duration=5.0, started=10.0), t0=0.0)
    assert waited["step"] == (10.0, 5.0) and waited["model"] == (13.0, 2.0)


# --- StepDebugger ----------------------------------------------------------------------------------

def debugger(replies=REPLIES, **kw):
    llm = ScriptedLLM(replies)
    return llm, StepDebugger(Agent(llm, tools(), **kw), "北京明天天气怎么样？")


def test_ask_puts_the_models_reply_in_the_box_and_previews_the_parse():
    llm, dbg = debugger()
    dbg.ask_button.click()
    assert dbg.reply.value == REPLIES[0] and len(llm.calls) == 1
    assert "Action: get_weather" in dbg.preview.value and "The loop will run the tool." in dbg.preview.value
    assert "Next: step 1 of at most 8." in dbg.status.value


def test_editing_the_reply_changes_what_the_parser_and_the_loop_do():
    llm, dbg = debugger()
    dbg.ask()
    dbg.reply.value = "It is sunny."  # the learner breaks the format on purpose
    assert "FormatError" in dbg.preview.value and "Format error 1 in a row." in dbg.preview.value
    dbg.apply_button.click()
    h = dbg.history[0]
    assert (h.kind, dbg.edits[1].original, h.reply) == ("format_error", REPLIES[0], "It is sunny.")
    assert h.observation.startswith("Your reply does not follow the format")
    assert len(llm.calls) == 1  # the edited reply replaced the model's; no second call was made
    assert dbg.panel.accordion.titles[0].startswith("⚠ ✎ Step 1 · format error")
    assert dbg.panel.summary.edited_replies == 1 and dbg.reply.value == ""


def test_an_edited_action_calls_the_tool_the_learner_wrote():
    _, dbg = debugger()
    dbg.ask()
    dbg.reply.value = 'Thought: convert\nAction: convert_temperature\nAction Input: {"value": 100, "from_unit": "C", "to_unit": "F"}'
    step = dbg.apply()
    assert step.tool == "convert_temperature" and "212" in step.observation
    assert dbg.panel.entries[0]["action"] == "convert_temperature"
    assert any(isinstance(e, ReplyEdited) for e in dbg.panel.trace.events)


def test_unknown_tool_and_final_answer_previews():
    _, dbg = debugger()
    dbg.reply.value = 'Action: weather_magic\nAction Input: {"x": 1}'
    assert "weather_magic&#x27; is not a registered tool" in dbg.preview.value
    dbg.reply.value = "Thought: done\nFinal Answer: 42"
    assert "Final Answer: 42" in dbg.preview.value and "The run will end" in dbg.preview.value


def test_the_preview_warns_when_the_next_format_error_will_stop_the_run():
    _, dbg = debugger(max_format_errors=2)
    dbg.apply("nonsense")
    dbg.reply.value = "more nonsense"
    assert "Format error 2 in a row. This reaches max_format_errors: the run will stop." in dbg.preview.value
    dbg.apply()
    assert dbg.agent.last_result.stop_reason == "format_errors" and "format_errors" in dbg.status.value
    assert dbg.apply_button.disabled and dbg.apply() is None


def test_stepping_without_edits_gives_the_same_run_as_run():
    _, dbg = debugger()
    dbg.apply_button.click()  # an empty box: the model replies by itself
    dbg.ask()
    dbg.apply()               # the proposal unchanged: no edit recorded
    result = dbg.run_to_end()
    reference = Agent(ScriptedLLM(REPLIES), tools()).run("北京明天天气怎么样？")
    assert dbg.edits == {} and dbg.history == result.steps
    assert [s.kind for s in result.steps] == [s.kind for s in reference.steps]
    assert result.answer == reference.answer and "Run finished: <b>final_answer</b>" in dbg.status.value


def test_restart_begins_a_fresh_run_and_static_html_shows_the_steps():
    llm, dbg = debugger(REPLIES + REPLIES)
    dbg.ask()
    dbg.apply("Thought: skip\nFinal Answer: 不知道")
    page = dbg.to_html()
    assert "✎ edited" in page and "不知道" in page and "Step debugger" in page
    assert "'>Thought: skip</div>" in page and dbg.history[0].thought == "skip"  # the parser's thought, shown
    rec = TraceRecorder()
    dbg.agent.observers.append(rec)
    dbg.start_button.click()
    assert dbg.history == [] and dbg.panel.entries == [] and not dbg.apply_button.disabled
    dbg.run_to_end()  # the script goes on from reply 2: the first reply was proposed and replaced
    assert [t.question for t in rec.traces] == ["北京明天天气怎么样？"]
    assert rec.summary().steps == 3 and rec.summary().edited_replies == 0 and len(llm.calls) == 4
