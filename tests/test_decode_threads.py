"""local.threads: the decode thread count measured once per CPU, remembered, never trusted when foreign."""
from __future__ import annotations

import json

import pytest

from handmade_agent.local import threads as dt

KEY = "Test CPU | 2 cores | llama_cpp 0.0"


def test_the_fastest_count_wins_and_a_tie_takes_fewer_threads():
    assert dt.choose({1: 42.7, 2: 30.0}) == 1 and dt.choose({1: 16.9, 2: 28.5}) == 2
    assert dt.choose({1: 20.0, 2: 20.0}) == 1 and dt.choose({}) is None


def test_a_measurement_is_remembered_for_the_same_machine_only(tmp_path):
    assert dt.remembered(tmp_path, KEY) is None  # nothing measured yet
    dt.remember(tmp_path, KEY, {1: 42.2, 2: 27.6})
    assert dt.remembered(tmp_path, KEY) == 1
    assert dt.remembered(tmp_path, KEY.replace("Test", "Other")) is None  # another CPU measures again
    saved = json.loads((tmp_path / dt.FILE).read_text())
    assert saved["rates"] == {"1": 42.2, "2": 27.6} and saved["format"] == dt.FORMAT
    assert not list(tmp_path.glob(".*.tmp"))  # written atomically: no temporary file left


@pytest.mark.parametrize("text", ["", "{", "[1, 2]", '{"format": 1, "machine": "%s", "threads": 0}' % KEY,
                                  '{"format": 99, "machine": "%s", "threads": 1}' % KEY, "\x00\xff"])
def test_a_corrupt_old_or_foreign_file_means_measuring_again(tmp_path, text):
    (tmp_path / dt.FILE).write_text(text, encoding="utf-8", errors="surrogateescape")
    assert dt.remembered(tmp_path, KEY) is None


def test_the_machine_key_names_the_cpu_cores_and_llama_version():
    key = dt.machine_key(2, "0.3.36")
    assert key.endswith("| 2 cores | llama_cpp 0.3.36") and key.split(" | ")[0]


@pytest.mark.model
def test_the_local_model_measures_once_then_remembers_and_keeps_its_answers(local_llm, monkeypatch, tmp_path):
    import handmade_agent.local.files as files
    msgs = [{"role": "user", "content": "Name three rivers in China, comma-separated."}]
    local_llm.forget()  # both answers computed cold: a prefix reused from an earlier test can change a token
    before = local_llm.complete(msgs, max_tokens=20).text
    monkeypatch.setattr(files, "cache_dir", lambda: tmp_path)
    monkeypatch.setattr(local_llm._watch, "others", lambda: 0.0)  # a quiet machine, as measuring requires
    n = local_llm._measured_decode_threads(2)
    saved = json.loads((tmp_path / dt.FILE).read_text())
    assert n in (1, 2) and saved["threads"] == n and set(saved["rates"]) == {"1", "2"}
    assert all(rate > 1.0 for rate in saved["rates"].values())  # real tokens per second, not zeros
    monkeypatch.setattr(dt, "measure", lambda *a, **k: pytest.fail("measured twice on one machine"))
    assert local_llm._measured_decode_threads(2) == n
    assert local_llm.complete(msgs, max_tokens=20).text == before  # measuring left no state behind


@pytest.mark.model
def test_a_busy_machine_is_not_measured(local_llm, monkeypatch, tmp_path):
    import handmade_agent.local.files as files
    monkeypatch.setattr(files, "cache_dir", lambda: tmp_path)
    monkeypatch.setattr(local_llm._watch, "others", lambda: 1.0)
    monkeypatch.setattr(dt, "measure", lambda *a, **k: pytest.fail("measured under load"))
    assert local_llm._measured_decode_threads(2) == 2 and not (tmp_path / dt.FILE).exists()
