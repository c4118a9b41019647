"""Property tests: whatever is saved is what is loaded (files, memories, SQLite), and windows obey their limits."""
from __future__ import annotations

import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from handmade_agent.llm import Message, ScriptedLLM, ToolCall
from handmade_agent.memory import ConversationMemory, memory_from_dict, message_tokens, window
from handmade_agent.storage import SQLiteStore
from handmade_agent.storage import load_state, save_state
from handmade_agent.memory import SummaryMemory
from handmade_agent.redaction import redact

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

json_data = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20)

texts = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x9FFF) | st.sampled_from("\n\t\"\\"), max_size=40)
calls = st.builds(ToolCall, st.text(string.ascii_lowercase + "_", min_size=1, max_size=10),
                  st.builds(lambda x: '{"x": %d}' % x, st.integers()), st.text(string.ascii_letters, min_size=1, max_size=6))
messages = st.one_of(
    st.builds(Message, st.sampled_from(["user", "assistant", "system"]), texts),
    st.builds(Message, st.just("assistant"), texts, st.lists(calls, min_size=1, max_size=2)),
    st.builds(Message, st.just("tool"), texts, st.just([]), st.text(string.ascii_letters, min_size=1, max_size=6)))
limits = st.none() | st.integers(min_value=0, max_value=400)


@FAST
@given(data=st.dictionaries(st.text(max_size=10), json_data, max_size=6))
def test_any_json_state_saved_is_loaded_back_equal(tmp_path, data):
    # saved state is redacted by design ({"TOKEN": "0"} is saved as [REDACTED]), so what comes back is the redacted data
    assert load_state(save_state(data, tmp_path / "s.json")) == redact(data)


def test_a_credential_named_key_is_saved_redacted_and_everything_else_as_it_was(tmp_path):
    data = {"": {"TOKEN": "0"}, "max_tokens": 5, "note": "plain"}
    assert load_state(save_state(data, tmp_path / "s.json")) == {"": {"TOKEN": "[REDACTED]"}, "max_tokens": 5,
                                                                  "note": "plain"}


@FAST
@given(msgs=st.lists(messages, max_size=12), max_turns=st.none() | st.integers(0, 5), max_tokens=limits,
       policy=st.sampled_from(["answers", "transcript"]))
def test_a_memory_saved_and_loaded_is_the_same_memory(tmp_path, msgs, max_turns, max_tokens, policy):
    m = ConversationMemory(max_turns=max_turns, max_tokens=max_tokens, policy=policy)
    for x in msgs:
        m.add(x)
    back = memory_from_dict(load_state(save_state(m.to_dict(), tmp_path / "m.json")))
    assert back.to_dict() == m.to_dict()
    assert back.messages() == m.messages()


@FAST
@given(msgs=st.lists(messages, max_size=10), summaries=st.lists(texts, min_size=10, max_size=10))
def test_a_summary_memory_saved_and_loaded_is_the_same_memory(tmp_path, msgs, summaries):
    m = SummaryMemory(ScriptedLLM(summaries), max_turns=2, summary_max_tokens=20)
    for x in msgs:
        m.add(x)
    back = memory_from_dict(load_state(save_state(m.to_dict(), tmp_path / "m.json")), llm=ScriptedLLM([]))
    assert back.to_dict() == m.to_dict() and back.messages() == m.messages()


@FAST
@given(msgs=st.lists(messages, max_size=10))
def test_messages_stored_in_sqlite_come_back_equal(tmp_path, msgs):
    with SQLiteStore(tmp_path / "p.db") as store:
        sid = store.create_session()
        store.add_messages(sid, msgs)
        assert store.messages(sid) == msgs


@settings(max_examples=200, deadline=None)
@given(sizes=st.lists(st.lists(st.integers(0, 30), min_size=1, max_size=3), max_size=8),
       max_turns=st.none() | st.integers(0, 6), max_tokens=limits)
def test_a_window_is_the_longest_suffix_within_both_limits(sizes, max_turns, max_tokens):
    turns = [[Message("user", "w " * n) for n in turn] for turn in sizes]
    count = lambda text: len(text.split())  # noqa: E731
    cost = [sum(message_tokens(m, count) for m in t) for t in turns]
    w = window(turns, max_turns=max_turns, max_tokens=max_tokens, count=count)
    k = len(w.kept)
    assert w.kept == turns[len(turns) - k:] and w.evicted == turns[:len(turns) - k]
    assert w.tokens == sum(cost[len(turns) - k:])
    assert max_turns is None or k <= max_turns
    assert max_tokens is None or w.tokens <= max_tokens
    if k < len(turns):  # one more turn would break a limit
        assert (max_turns is not None and k + 1 > max_turns) or \
               (max_tokens is not None and w.tokens + cost[len(turns) - k - 1] > max_tokens)
