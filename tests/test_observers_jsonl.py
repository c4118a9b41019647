"""JSON Lines logs: a written trace reads back equal; secrets never reach the file."""
from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from handmade_agent.errors import StateError
from handmade_agent.agent.events import LLMCallStarted, RunStarted, StepFinished, ToolFinished, emit
from handmade_agent.agent.steps import Step, ToolUse
from handmade_agent.llm import Usage
from handmade_agent.observers.jsonl import JSONLLogger, read_events, read_trace, read_traces, redact, redact_event
from handmade_agent.observers import TraceRecorder
from observer_samples import sample_run

KEY = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0" * 2
BEARER = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlMTIzNDU2"


def log_and_record(events, path, **kw):
    rec, log = TraceRecorder(), JSONLLogger(path, **kw)
    for e in events:
        emit([rec, log], e)
    return rec


def test_a_trace_written_and_read_back_equals_the_recorded_one(tmp_path):
    path = tmp_path / "logs" / "run.jsonl"  # the logger makes the folder
    rec = log_and_record(sample_run(), path)
    back = read_trace(path)
    assert back == rec.trace
    assert back.summary() == rec.summary() and back.steps == rec.trace.steps
    assert len(path.read_text(encoding="utf-8").splitlines()) == len(sample_run())


def test_step_records_come_back_as_steps_with_their_tool_uses_and_usage(tmp_path):
    path = tmp_path / "run.jsonl"
    log_and_record(sample_run(), path)
    line = next(json.loads(l) for l in path.read_text(encoding="utf-8").splitlines() if '"step_finished"' in l)
    assert line["record"]["tool_uses"][0]["tool"] == "get_weather" and line["record"]["usage"]["prompt_tokens"] == 120
    back = [e for e in read_events(path) if isinstance(e, StepFinished)]
    assert [type(e.record) for e in back] == [Step] * 4 and isinstance(back[0].record.tool_uses[0], ToolUse)
    assert back[2].record.tool_uses[0].ok is False and back[3].record.usage == Usage(260, 15)


def test_the_log_is_readable_json_with_chinese_kept_as_text(tmp_path):
    path = tmp_path / "run.jsonl"
    log_and_record(sample_run(), path)
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert first["kind"] == "run_started" and first["question"].startswith("北京明天")
    assert "\\u5317" not in path.read_text(encoding="utf-8")  # ensure_ascii=False: greppable by a human


def test_several_runs_in_one_file_come_back_as_separate_traces(tmp_path):
    path = tmp_path / "runs.jsonl"
    rec = log_and_record(sample_run("run-aaa111") + sample_run("run-bbb222", t0=5000.0), path)
    assert read_traces(path) == rec.traces
    assert read_trace(path, run_id="run-aaa111") == rec.traces[0]
    assert read_trace(path) == rec.traces[1]
    with pytest.raises(StateError, match="no run run-zzz"):
        read_trace(path, run_id="run-zzz")


def with_secrets():
    """The sample run, with secrets planted where real ones leak: settings, prompts, tool output."""
    events = sample_run()
    events[0].settings = {**events[0].settings, "api_key": "hunter2-very-secret", "base_url": "http://127.0.0.1:8080/v1"}
    events[1].messages = events[1].messages + [
        {"role": "user", "content": f"my key is {KEY}, header Authorization: Bearer {BEARER}"}]
    leak = f"fetched https://api.example.test/?api_key=zz99yy88xx77&city=北京 ok; OPENAI_API_KEY={KEY}"
    events[4].content = events[5].record.tool_uses[0].observation = leak  # the tool's result, and its step's record
    return events


def test_secrets_are_redacted_in_the_file_and_the_rest_reads_back_unchanged(tmp_path):
    path = tmp_path / "run.jsonl"
    rec = log_and_record(with_secrets(), path)
    text = path.read_text(encoding="utf-8")
    for secret in (KEY, "hunter2-very-secret", BEARER, "zz99yy88xx77"):
        assert secret not in text
    back = read_trace(path)
    assert back == type(rec.trace)([redact_event(e) for e in rec.trace.events])
    assert back.events[0].settings["api_key"] == "[REDACTED]"
    assert back.events[0].settings["base_url"] == "http://127.0.0.1:8080/v1"
    assert back.events[4].content.endswith("&city=北京 ok; OPENAI_API_KEY=[REDACTED]")
    assert back.steps[0].observation == back.events[4].content  # the record is redacted the same way
    assert back.summary() == rec.summary()  # the numbers do not change


def test_every_observer_sees_the_redacted_event_so_log_and_trace_agree(tmp_path):
    path = tmp_path / "run.jsonl"
    rec = log_and_record(with_secrets(), path)  # emit() is the choke point: no observer ever sees the key
    assert KEY not in path.read_text(encoding="utf-8") and KEY not in str(rec.trace.events)
    assert read_trace(path) == rec.trace


def test_messages_can_be_left_out_to_keep_logs_small(tmp_path):
    path = tmp_path / "run.jsonl"
    log_and_record(sample_run(), path, include_messages=False)
    starts = [e for e in read_events(path) if isinstance(e, LLMCallStarted)]
    assert len(starts) == 4 and all(e.messages == [] for e in starts)


@pytest.mark.parametrize("text, expected", [
    (f"key {KEY} end", "key [REDACTED] end"),
    ("Authorization: Bearer abc123def456ghi", "Authorization: [REDACTED]"),
    ("curl -H 'Bearer abc123def456ghi'", "curl -H 'Bearer [REDACTED]'"),
    ("api_key=abc123secret&x=1", "api_key=[REDACTED]&x=1"),
    ('{"api-key": "abc123secret"}', '{"api-key": "[REDACTED]"}'),
    ("password: correct-horse", "password: [REDACTED]"),
    ("export HANDMADE_AGENT_API_KEY=qwerty123", "export HANDMADE_AGENT_API_KEY=[REDACTED]"),
    ("access_token=ya29.a0AfH6SM", "access_token=[REDACTED]"),
    ("ghp_" + "a" * 36, "[REDACTED]"),
    ("hf_" + "B" * 34, "[REDACTED]"),
    ("AKIAIOSFODNN7EXAMPLE", "[REDACTED]"),
    (f"token {BEARER}", "token [REDACTED]"),
    (f"我的密钥是{KEY}，别告诉别人", "我的密钥是[REDACTED]，别告诉别人"),
    ("配置api_key=abc123secret", "配置api_key=[REDACTED]"),
])
def test_secret_shapes_are_redacted(text, expected):
    assert redact(text) == expected


@pytest.mark.parametrize("text", [
    "max_tokens=256 prompt_tokens=120 completion_tokens: 30",
    "The bearer of bad news said: Bearer instruments are old.",
    "sk-short is not a key; task-1234567890abcdefgh is a task id",
    "北京 tomorrow: 晴, 25°C",
    "token: 42",
    '{"expression": "25*9/5+32"}',
])
def test_ordinary_text_is_left_alone(text):
    assert redact(text) == text


def test_dict_values_under_secret_names_are_redacted_but_counts_are_not():
    d = {"api_key": "abc", "password": "x", "max_tokens": 256, "nested": [{"client_secret": "s3"}], "token": ""}
    assert redact(d) == {"api_key": "[REDACTED]", "password": "[REDACTED]", "max_tokens": 256,
                         "nested": [{"client_secret": "[REDACTED]"}], "token": ""}


@given(st.text())
def test_redaction_is_idempotent(text):
    once = redact(text)
    assert redact(once) == once


@given(before=st.text(alphabet=" ,.:;()\n北京密钥"), after=st.text(alphabet=" ,.:;()\n上海xyz"),
       body=st.from_regex(r"[A-Za-z0-9]{20,40}", fullmatch=True))
def test_a_key_anywhere_in_text_is_gone(before, after, body):
    assert ("sk-" + body) not in redact(f"{before}sk-{body}{after}")


def test_a_broken_line_is_an_error_naming_the_line_or_skipped_on_request(tmp_path):
    path = tmp_path / "run.jsonl"
    log_and_record(sample_run()[:3], path)
    with path.open("a", encoding="utf-8") as f:
        f.write('{"kind": "tool_fini')  # the process died mid-write
    with pytest.raises(StateError, match=r"line 4: not valid JSON.*strict=False"):
        read_trace(path)
    with pytest.warns(RuntimeWarning, match="line 4"):
        events = list(read_events(path, strict=False))
    assert [e.kind for e in events] == ["run_started", "llm_call_started", "llm_call_finished"]


def test_non_json_arguments_are_logged_as_text_rather_than_crashing(tmp_path):
    path = tmp_path / "run.jsonl"
    JSONLLogger(path)(ToolFinished(run_id="r", name="t", args={"when": object()}))
    (event,) = read_events(path)
    assert re.fullmatch(r"<object object at 0x[0-9a-f]+>", event.args["when"])


def test_logger_appends_so_a_file_collects_many_runs(tmp_path):
    path = tmp_path / "run.jsonl"
    JSONLLogger(path)(RunStarted(run_id="a"))
    JSONLLogger(path)(RunStarted(run_id="b"))
    assert [t.run_id for t in read_traces(path)] == ["a", "b"]
