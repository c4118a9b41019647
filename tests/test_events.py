"""Event records, their dict/JSON round trip, and emit()'s promise that an observer cannot break a run."""
from __future__ import annotations

import json
import sys
from dataclasses import fields
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from handmade_agent.agent.events import (EVENT_TYPES, Alert, AnswerRejected, Event, FinalAnswer, LLMCallFinished, ReplyEdited, RunFinished,
                                   ToolFinished, emit, event_from_dict)
from handmade_agent.llm import Usage
from observer_samples import sample_run


def test_emit_delivers_every_event_to_every_observer_in_order():
    a, b = [], []
    for e in sample_run():
        emit([a.append, b.append], e)
    assert a == b == sample_run()


def test_a_failing_observer_becomes_a_warning_and_the_others_still_see_the_event():
    seen_before, seen_after = [], []

    def broken(event):
        raise KeyError("boom")

    with pytest.warns(RuntimeWarning, match=r"broken failed on final_answer: KeyError"):
        emit([seen_before.append, broken, seen_after.append], FinalAnswer(run_id="r", step=1, answer="42"))
    assert [e.answer for e in seen_before] == [e.answer for e in seen_after] == ["42"]


def test_every_event_kind_is_distinct_and_carries_run_step_and_time():
    assert len(EVENT_TYPES) == 12
    for kind, cls in EVENT_TYPES.items():
        assert cls.kind == kind
        assert {"run_id", "step", "ts"} <= {f.name for f in fields(cls)}


@pytest.mark.parametrize("event", sample_run() + [Alert(run_id="r", step=2, name="slow_tool", message="took 3 s"),
                                                  ReplyEdited(run_id="r", step=1, original="Acton: x", text="Action: x"),
                                                  AnswerRejected(run_id="r", step=2, check="figures_found", answer="5",
                                                                 feedback="Your answer states 5")],
                         ids=lambda e: e.kind)
def test_each_event_survives_dict_and_json_round_trip(event):
    d = event.to_dict()
    assert d["kind"] == event.kind
    back = event_from_dict(json.loads(json.dumps(d, ensure_ascii=False)))
    assert back == event and type(back) is type(event)


def test_usage_comes_back_as_usage_not_dict():
    back = event_from_dict(RunFinished(usage=Usage(3, 4)).to_dict())
    assert isinstance(back.usage, Usage) and back.usage.total_tokens == 7


def test_unknown_keys_are_ignored_and_unknown_kinds_named():
    d = {**ToolFinished(name="calculator", ok=False).to_dict(), "added_in_a_later_version": 1}
    assert event_from_dict(d) == ToolFinished(name="calculator", ok=False, ts=d["ts"])
    with pytest.raises(ValueError, match="unknown event kind 'tool_exploded'.*run_started"):
        event_from_dict({"kind": "tool_exploded"})


@given(text=st.text(), step=st.integers(0, 10_000), ts=st.floats(0, 4e9), pt=st.integers(0, 10**6),
       latency=st.floats(0, 1e4), error=st.none() | st.text())
def test_any_model_call_event_round_trips_through_json(text, step, ts, pt, latency, error):
    e = LLMCallFinished(run_id="run-x", step=step, ts=ts, text=text, usage=Usage(pt, 1), latency=latency, error=error)
    assert event_from_dict(json.loads(json.dumps(e.to_dict()))) == e


def test_events_module_imports_no_observer_and_no_heavy_library():
    # The package __init__ re-exports observers for convenience, so check what events.py itself imports.
    import ast
    import handmade_agent.agent.events as events_module
    tree = ast.parse(Path(events_module.__file__).read_text(encoding="utf-8"))
    imported = {(n.module or "") for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    bad = {m for m in imported if m.lstrip(".").startswith(("observers", "trace", "widgets", "ipywidgets",
                                                              "matplotlib", "numpy", "handmade_agent.observers.printer"))}
    assert imported and not bad


def test_base_event_timestamps_itself():
    assert Event().ts > 1_600_000_000  # time.time() at creation, not zero
