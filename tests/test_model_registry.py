"""The local-model registry: one setting picks the model for LocalLLM, the server, the backends and the caches.

No model is loaded and nothing is downloaded: where a model would load, the file lookup is stopped first.
"""
from __future__ import annotations

import pytest

import handmade_agent.local.model as model_module
from handmade_agent.backends import course_llm, server_takes_grammar
from handmade_agent.errors import ConfigError
from handmade_agent.local import (DEFAULT_MODEL, MODEL_ID, MODELS, QWEN_CODER_05B, QWEN_CODER_15B, LocalLLM,
                                  model_spec, threads)
from handmade_agent.serve import LocalServer


@pytest.fixture(autouse=True)
def no_choice(monkeypatch):
    monkeypatch.delenv("HANDMADE_AGENT_LOCAL_MODEL", raising=False)
    monkeypatch.delenv("HANDMADE_AGENT_BASE_URL", raising=False)
    monkeypatch.delenv("HANDMADE_AGENT_MODEL", raising=False)


def test_the_default_is_the_15b_the_suite_chose():
    assert DEFAULT_MODEL == "qwen2.5-coder-1.5b" and model_spec() is QWEN_CODER_15B
    assert MODEL_ID == QWEN_CODER_15B.model_id == "qwen2.5-coder-1.5b-instruct"
    assert set(MODELS) == {"qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"}


@pytest.mark.parametrize("name", ["1.5b", "qwen2.5-coder-1.5b", "qwen2.5-coder-1.5b-instruct", " 1.5B "])
def test_a_name_an_alias_or_the_served_id_picks_the_model(name):
    assert model_spec(name) is QWEN_CODER_15B


def test_the_environment_picks_when_no_name_is_given_and_a_name_beats_it(monkeypatch):
    monkeypatch.setenv("HANDMADE_AGENT_LOCAL_MODEL", "0.5b")
    assert model_spec() is QWEN_CODER_05B and model_spec("1.5b") is QWEN_CODER_15B
    monkeypatch.setenv("HANDMADE_AGENT_LOCAL_MODEL", "")
    assert model_spec() is QWEN_CODER_15B


def test_an_unknown_name_lists_the_known_ones_and_says_where_it_came_from(monkeypatch):
    with pytest.raises(ConfigError, match=r"Unknown local model '3b'\. Choose one of: qwen2\.5-coder-0\.5b \(0\.5b\), "
                                          r"qwen2\.5-coder-1\.5b \(1\.5b\)"):
        model_spec("3b")
    monkeypatch.setenv("HANDMADE_AGENT_LOCAL_MODEL", "7b")
    with pytest.raises(ConfigError, match="'7b' \\(set in HANDMADE_AGENT_LOCAL_MODEL\\)"):
        model_spec()


class Looked(Exception):
    """Raised by the stand-in file lookup, so LocalLLM stops before it loads anything."""


def test_local_llm_looks_up_the_chosen_models_file(monkeypatch):
    seen = []

    def lookup(spec, **kw):
        seen.append(spec)
        raise Looked

    monkeypatch.setattr(model_module, "find_model", lookup)
    with pytest.raises(Looked):
        LocalLLM(model="1.5b")
    monkeypatch.setenv("HANDMADE_AGENT_LOCAL_MODEL", "qwen2.5-coder-1.5b")
    with pytest.raises(Looked):
        LocalLLM()
    with pytest.raises(ConfigError, match="Unknown local model"):
        LocalLLM(model="nonsense")
    assert seen == [QWEN_CODER_15B, QWEN_CODER_15B]


def test_the_decode_thread_measurement_is_kept_apart_per_model(monkeypatch):
    a = threads.machine_key(2, "0.3.36", QWEN_CODER_05B.sha256)
    b = threads.machine_key(2, "0.3.36", QWEN_CODER_15B.sha256)
    assert a != b and a.startswith(threads.machine_key(2, "0.3.36"))


@pytest.mark.model  # imports llama_cpp for its version, though it loads no model
def test_a_local_model_keys_its_decode_threads_by_its_own_file(monkeypatch):
    keys = []
    monkeypatch.setattr(threads, "remembered", lambda folder, key: keys.append(key) or 1)
    llm = object.__new__(LocalLLM)  # no model: only what _measured_decode_threads reads
    llm._sha256 = QWEN_CODER_15B.sha256
    assert llm._measured_decode_threads(2) == 1 and QWEN_CODER_15B.sha256[:16] in keys[0]


def test_a_server_of_either_model_is_trusted_with_grammars_and_named_after_the_choice(monkeypatch):
    assert server_takes_grammar(QWEN_CODER_05B.model_id) and server_takes_grammar(QWEN_CODER_15B.model_id)
    assert not server_takes_grammar("deepseek-chat")
    monkeypatch.setenv("HANDMADE_AGENT_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("HANDMADE_AGENT_LOCAL_MODEL", "1.5b")
    assert course_llm().model == "qwen2.5-coder-1.5b-instruct"


def test_local_server_passes_the_model_name_and_its_file_to_the_child(tmp_path):
    gguf = tmp_path / "m.gguf"
    command = LocalServer(model="1.5b", model_path=gguf).command()
    assert command[command.index("--model") + 1] == "qwen2.5-coder-1.5b"
    assert command[command.index("--gguf") + 1] == str(gguf)
