"""The prefix cache's files: verified reads, atomic writes, LRU eviction, the off switch. No model needed here;
the tests that load real llama.cpp states into the model are marked ``model``."""
from __future__ import annotations

import multiprocessing
import os
import warnings

import pytest

from handmade_agent.local import prefix_cache
from handmade_agent.local.prefix_cache import PrefixCache

SHA = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
TOKENS = list(range(100, 400))
SETTINGS = {"n_ctx": 4096, "llama_cpp": "0.3.36"}


@pytest.fixture
def cache(tmp_path):
    return PrefixCache(tmp_path / "pc", max_bytes=10_000_000)


def test_a_stored_state_comes_back_only_for_the_same_model_tokens_and_settings(cache):
    cache.put(SHA, TOKENS, SETTINGS, b"\x01state")
    assert cache.get(SHA, TOKENS, SETTINGS) == b"\x01state"
    assert cache.get("0" * 64, TOKENS, SETTINGS) is None
    assert cache.get(SHA, TOKENS[:-1], SETTINGS) is None
    assert cache.get(SHA, TOKENS[:-1] + [7], SETTINGS) is None
    assert cache.get(SHA, TOKENS, {**SETTINGS, "n_ctx": 2048}) is None


@pytest.mark.parametrize("damage", ["truncate", "flip", "foreign", "empty"])
def test_a_damaged_file_is_a_warned_miss_and_is_rebuilt(cache, damage):
    path = cache.put(SHA, TOKENS, SETTINGS, os.urandom(5000))
    data = path.read_bytes()
    path.write_bytes({"truncate": data[:-100], "flip": data[:-1] + bytes([data[-1] ^ 1]),
                      "foreign": b"GGUF" + data[4:], "empty": b""}[damage])
    with pytest.warns(UserWarning, match="Ignoring prefix-cache file"):
        assert cache.get(SHA, TOKENS, SETTINGS) is None
    assert not path.exists()
    cache.put(SHA, TOKENS, SETTINGS, b"fresh")
    assert cache.get(SHA, TOKENS, SETTINGS) == b"fresh"


def test_a_file_under_the_right_name_with_other_tokens_or_model_never_loads(cache):
    """Even if a file sits under the key of these tokens, its own header and token ids must match."""
    other = cache.put(SHA, TOKENS[::-1], SETTINGS, b"other tokens")
    foreign_model = cache.put("f" * 64, TOKENS, SETTINGS, b"other model")
    target = cache.path(SHA, TOKENS, SETTINGS)
    for impostor in (other, foreign_model):
        target.write_bytes(impostor.read_bytes())
        with pytest.warns(UserWarning, match="token ids differ|different model"):
            assert cache.get(SHA, TOKENS, SETTINGS) is None


def test_eviction_keeps_the_total_under_the_cap_dropping_the_least_recently_used(tmp_path):
    size = PrefixCache(tmp_path / "probe").put(SHA, [0] * 10, SETTINGS, bytes(1000)).stat().st_size
    cache = PrefixCache(tmp_path / "pc", max_bytes=int(3.5 * size))  # room for three entries
    paths = [cache.put(SHA, [i] * 10, SETTINGS, bytes(1000)) for i in range(3)]
    for i, p in enumerate(paths):
        os.utime(p, ns=(i * 10**9, i * 10**9))  # make the order unambiguous on coarse clocks
    assert cache.get(SHA, [0] * 10, SETTINGS)  # a hit makes entry 0 the most recently used
    cache.put(SHA, [3] * 10, SETTINGS, bytes(1000))
    assert sum(st.st_size for _, st in cache.entries()) <= cache.max_bytes
    assert cache.get(SHA, [1] * 10, SETTINGS) is None  # the least recently used went first
    assert cache.get(SHA, [0] * 10, SETTINGS) and cache.get(SHA, [3] * 10, SETTINGS)


def _write_many(directory: str, fill: int, n: int) -> None:
    c = PrefixCache(directory)
    for _ in range(n):
        c.put(SHA, TOKENS, SETTINGS, bytes([fill]) * 2_000_000)


def test_two_processes_writing_one_entry_leave_a_whole_file(cache):
    ctx = multiprocessing.get_context("spawn")
    writers = [ctx.Process(target=_write_many, args=(str(cache.directory), b, 15)) for b in (1, 2)]
    for w in writers:
        w.start()
    seen = set()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a half-written file would warn here
        while any(w.is_alive() for w in writers):
            blob = cache.get(SHA, TOKENS, SETTINGS)
            if blob is not None:
                assert blob in (bytes([1]) * 2_000_000, bytes([2]) * 2_000_000)
                seen.add(blob[0])
    for w in writers:
        w.join()
        assert w.exitcode == 0
    assert cache.get(SHA, TOKENS, SETTINGS)[0] in (1, 2) and seen
    names = [p.name for p in cache.directory.iterdir() if p.name != ".cache-key"]  # the folder's HMAC key stays
    assert names == [cache.path(SHA, TOKENS, SETTINGS).name]


def test_the_environment_switches_the_cache_off_and_sets_its_size(monkeypatch, tmp_path):
    monkeypatch.setenv("HANDMADE_AGENT_PREFIX_CACHE", "0")
    assert not prefix_cache.enabled()
    monkeypatch.setenv("HANDMADE_AGENT_PREFIX_CACHE", "1")
    assert prefix_cache.enabled()
    monkeypatch.setenv("HANDMADE_AGENT_PREFIX_CACHE_MB", "2")
    monkeypatch.setenv("HANDMADE_AGENT_CACHE", str(tmp_path))
    c = PrefixCache()
    assert c.max_bytes == 2 * 1024 * 1024 and c.directory == tmp_path / "prefix-cache"


def test_clear_removes_every_entry(cache):
    for i in range(3):
        cache.put(SHA, [i], SETTINGS, b"x")
    assert cache.info()["entries"] == 3
    assert cache.clear() == 3 and cache.info()["entries"] == 0
    assert PrefixCache(cache.directory / "never-made").clear() == 0


# --- with the real model: states made and loaded by llama.cpp ------------------------------------------------

PREAMBLE = [{"role": "system", "content": "You answer questions about the Lumen 3 desk lamp. " + " ".join(
    f"Fact {i}: setting {i} gives {i * 40} lumens." for i in range(1, 15))}]
QUESTION = PREAMBLE + [{"role": "user", "content": "How many lumens does setting 7 give? Answer in one sentence."}]


@pytest.fixture
def llm(local_llm, tmp_path, monkeypatch):
    """The session's model with an empty cache of its own and a threshold this short preamble passes."""
    monkeypatch.setattr(local_llm, "prefix_cache", PrefixCache(tmp_path / "pc"))
    monkeypatch.setattr(local_llm, "prefix_min_tokens", 64)
    local_llm.forget()
    yield local_llm
    local_llm.forget()


def prefix_end(llm, msgs) -> int:
    """Where the last user turn starts: the end of the prefix that is cached."""
    from handmade_agent.local.kv_state import turn_starts
    return turn_starts(llm._tokens(llm.format_prompt(msgs)), llm._user_turn)[-1]


def generated_ids(llm, n_prompt: int) -> list[int]:
    return llm._llama.input_ids[n_prompt:llm._llama.n_tokens].tolist()


def cold(llm, monkeypatch, msgs):
    with monkeypatch.context() as m:
        m.setattr(llm, "prefix_cache", None)
        llm.forget()
        c = llm.complete(msgs, max_tokens=24)
        return c, generated_ids(llm, c.usage.prompt_tokens)


@pytest.mark.model
def test_greedy_output_with_a_prefix_loaded_from_disk_is_token_identical_to_a_cold_run(llm, monkeypatch):
    reference, reference_ids = cold(llm, monkeypatch, QUESTION)
    n = reference.usage.prompt_tokens  # (llama.cpp's own counter is measured here to be 1 short of the prompt)
    assert llm.last_prefix is None and llm.last_prompt_eval_tokens >= n - 1
    llm.forget()
    first = llm.complete(QUESTION, max_tokens=24)
    assert llm.last_prefix == "computed" and llm.prefix_cache.info()["entries"] == 1
    llm.forget()
    loaded = llm.complete(QUESTION, max_tokens=24)
    end = prefix_end(llm, QUESTION)
    assert llm.last_prefix == "disk" and n - end - 1 <= llm.last_prompt_eval_tokens <= n - end
    assert first.text == loaded.text == reference.text and "280" in reference.text
    assert generated_ids(llm, loaded.usage.prompt_tokens) == reference_ids


def stored_entry(llm, monkeypatch):
    """A cold reference answer, then the one prefix-cache file that answering wrote."""
    reference, _ = cold(llm, monkeypatch, QUESTION)
    llm.forget()
    llm.complete(QUESTION, max_tokens=24)
    (path, _), = llm.prefix_cache.entries()
    return reference, path


@pytest.mark.model
def test_a_damaged_entry_is_warned_about_recomputed_and_rewritten(llm, monkeypatch):
    reference, path = stored_entry(llm, monkeypatch)
    path.write_bytes(path.read_bytes()[:-4096])
    llm.forget()
    with pytest.warns(UserWarning, match="truncated or corrupt"):
        again = llm.complete(QUESTION, max_tokens=24)
    assert llm.last_prefix == "computed" and again.text == reference.text
    llm.forget()
    assert llm.complete(QUESTION, max_tokens=24).text == reference.text and llm.last_prefix == "disk"


@pytest.mark.model
def test_a_whole_file_whose_state_llama_cpp_refuses_is_a_warned_miss(llm, monkeypatch):
    reference, path = stored_entry(llm, monkeypatch)
    end = prefix_end(llm, QUESTION)
    tokens = llm._tokens(llm.format_prompt(QUESTION))[:end]
    assert llm.prefix_cache.path(llm.model_sha256(), tokens, llm._prefix_settings) == path
    llm.prefix_cache.put(llm.model_sha256(), tokens, llm._prefix_settings, bytes(256))  # valid file, bad state
    llm.forget()
    with pytest.warns(UserWarning, match="llama.cpp refused"):
        again = llm.complete(QUESTION, max_tokens=24)
    assert llm.last_prefix == "computed" and again.text == reference.text


@pytest.mark.model
def test_warm_loads_a_prefix_ahead_so_the_first_call_evaluates_only_the_question(llm):
    assert llm.warm(PREAMBLE) == "computed"
    llm.forget()
    assert llm.warm(PREAMBLE) == "disk"
    c = llm.complete(QUESTION, max_tokens=8)
    assert llm.last_prefix == "memory" and llm.last_prompt_eval_tokens < 40 < c.usage.prompt_tokens
