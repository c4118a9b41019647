"""Recorded model calls (handmade_agent/local/recording.py): the modes, the file, pruning, and the live switch.

No model here: ``run`` stands in for the model's computation, so each test sees exactly when it was asked.
The real model against the committed recordings is tests/test_recording_audit.py.
"""
from __future__ import annotations

import json

import pytest

from handmade_agent.errors import ConfigError, HandmadeAgentError
from handmade_agent.local.recording import (ENV_FILE, ENV_MODE, Recording, RecordingMiss, call_key, code_hash, from_env,
                                            live_calls, prune, reusing)


class Model:
    """Counts how often the 'model' really ran."""

    def __init__(self):
        self.runs = 0

    def __call__(self, text="4"):
        self.runs += 1
        return {"text": text, "finish_reason": "stop", "prompt_tokens": 9, "completion_tokens": 1, "seconds": 1.5}


ABOUT = {"call": "complete", "prompt": "What is 2+2?", "max_tokens": 8}


def test_record_mode_runs_the_model_once_and_replays_it_after_in_a_new_process(tmp_path):
    path, model = tmp_path / "nb.jsonl", Model()
    first = Recording(path, "record").through("k1", model, ABOUT)
    assert model.runs == 1 and "replayed" not in first
    again = Recording(path, "record").through("k1", model, ABOUT)  # a new Recording reads the file: a new kernel
    assert model.runs == 1 and again["replayed"] is True and again["text"] == "4"
    assert again["seconds"] == 0.0  # no model ran: a recorded time is never reported as this run's
    entry = json.loads(path.read_text())
    assert entry["prompt"] == "What is 2+2?" and entry["seconds"] == 1.5  # inputs kept for the audit, time for the plan


def test_replay_mode_raises_on_a_miss_naming_the_call_and_notes_it_for_the_test_run(tmp_path, capsys):
    path, model = tmp_path / "nb.jsonl", Model()
    with pytest.raises(RecordingMiss, match="What is 2\\+2") as e:
        Recording(path, "replay").through("k9", model, ABOUT)
    assert model.runs == 0 and "make notebooks" in str(e.value)
    assert "k9" in (tmp_path / "nb.jsonl.misses").read_text() and "recording miss" in capsys.readouterr().err
    assert not isinstance(e.value, type(None)) and isinstance(e.value, HandmadeAgentError)


def test_live_calls_bypass_the_recording_in_every_mode(tmp_path):
    path, model = tmp_path / "nb.jsonl", Model()
    Recording(path, "record").through("k1", model, ABOUT)
    with live_calls():
        out = Recording(path, "replay").through("k1", lambda: model("live"), ABOUT)
        Recording(path, "record").through("k2", model, ABOUT)
    assert out["text"] == "live" and "replayed" not in out and model.runs == 3
    assert len(path.read_text().splitlines()) == 1  # live calls are never recorded


def test_prune_keeps_what_the_last_run_used_in_the_order_it_used_it(tmp_path):
    path, model = tmp_path / "nb.jsonl", Model()
    old = Recording(path, "record")
    for k in ("a", "b", "c"):
        old.through(k, model, ABOUT)
    (tmp_path / "nb.jsonl.used").unlink()  # a new full run starts: it uses c, then a
    new = Recording(path, "record")
    new.through("c", model, ABOUT)
    new.through("a", model, ABOUT)
    assert prune(path) == (2, 1)
    assert [json.loads(l)["key"] for l in path.read_text().splitlines()] == ["c", "a"]
    assert not (tmp_path / "nb.jsonl.used").exists()


def test_a_corrupt_line_is_a_clear_error_that_says_what_to_do(tmp_path):
    path = tmp_path / "nb.jsonl"
    path.write_text('{"key": "a", "text": "x"}\nnot json\n')
    with pytest.raises(HandmadeAgentError, match=r"nb.jsonl:2 .*make notebooks"):
        Recording(path, "replay")


def test_secrets_in_a_prompt_never_reach_the_committed_file(tmp_path, monkeypatch):
    monkeypatch.setenv("MY_SERVICE_API_KEY", "abcd1234efgh5678")
    path = tmp_path / "nb.jsonl"
    Recording(path, "record").through("k", Model(), {**ABOUT, "prompt": "use key abcd1234efgh5678 please"})
    assert "abcd1234efgh5678" not in path.read_text()


def test_off_is_the_default_and_a_bad_setting_says_what_to_do(monkeypatch, tmp_path):
    monkeypatch.delenv(ENV_MODE, raising=False)
    assert from_env() is None
    monkeypatch.setenv(ENV_MODE, "sometimes")
    with pytest.raises(ConfigError, match="off .* replay, record or reuse"):
        from_env()
    monkeypatch.setenv(ENV_MODE, "replay")
    monkeypatch.delenv(ENV_FILE, raising=False)
    with pytest.raises(ConfigError, match=ENV_FILE):
        from_env()
    monkeypatch.setenv(ENV_FILE, str(tmp_path / "x.jsonl"))
    assert from_env().mode == "replay"


def test_the_key_changes_with_every_input_that_decides_a_greedy_reply():
    base = dict(seed=0, max_tokens=8, stop=["Observation:"], temperature=0.0, grammar="")
    k = call_key("engine", "complete", [1, 2, 3], **base)
    assert k == call_key("engine", "complete", [1, 2, 3], **base)
    changed = [call_key("engine2", "complete", [1, 2, 3], **base), call_key("engine", "complete", [1, 2, 4], **base),
               call_key("engine", "logprobs", [1, 2, 3], **base)]
    changed += [call_key("engine", "complete", [1, 2, 3], **{**base, name: value})
                for name, value in [("seed", 1), ("max_tokens", 9), ("stop", []), ("temperature", 0.7), ("grammar", "root ::= \"a\"")]]
    assert len({k, *changed}) == len(changed) + 1


def test_code_hash_ignores_layout_and_comments_but_not_code(tmp_path):
    a, b, c = tmp_path / "a.py", tmp_path / "b.py", tmp_path / "c.py"
    a.write_text('def f(x):\n    """Doc."""\n    return x + 1\n')
    b.write_text('# a comment\n\ndef f(x):\n    """Doc."""\n\n    return (x +\n            1)  # why\n')
    c.write_text('def f(x):\n    """Doc."""\n    return x + 2\n')
    assert code_hash(a) == code_hash(b) != code_hash(c)
    d = tmp_path / "d.py"
    d.write_text('def f(x):\n    """Other doc."""\n    return x + 1\n')
    assert code_hash(a) != code_hash(d) and code_hash(a, docstrings=False) == code_hash(d, docstrings=False)


def test_reusing_replays_what_is_recorded_runs_the_rest_writes_nothing_and_ends_live(tmp_path, monkeypatch):
    path, model = tmp_path / "nb.jsonl", Model()
    Recording(path, "record").through("k1", model, ABOUT)
    before = sorted(p.name for p in tmp_path.iterdir()), path.read_text()
    monkeypatch.setenv(ENV_MODE, "replay")  # what a learner's kernel never sets; reusing wins inside it anyway
    with reusing(path) as rec:
        assert from_env() is rec
        hit = rec.through("k1", model, ABOUT)
        miss = rec.through("k2", lambda: model("live"), ABOUT)  # replay mode would raise here
    assert hit["replayed"] is True and miss["text"] == "live" and (rec.hits, rec.misses) == (1, 1)
    assert (sorted(p.name for p in tmp_path.iterdir()), path.read_text()) == before  # no entry, no notes
    after = rec.through("k1", lambda: model("now live"), ABOUT)  # a model made inside keeps this object
    assert after["text"] == "now live" and "replayed" not in after and model.runs == 3
    monkeypatch.setenv(ENV_FILE, str(path))
    assert from_env().mode == "replay"  # outside, the environment decides again
