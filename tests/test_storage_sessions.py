"""SQLiteStore: sessions, messages, events, snapshots, and two writer processes at once."""
from __future__ import annotations

import multiprocessing as mp
import sqlite3
from itertools import count

import pytest

from handmade_agent.errors import StateError
from handmade_agent.agent.events import RunFinished, RunStarted, ToolFinished
from handmade_agent.llm import Message, ToolCall, Usage
from handmade_agent.storage import SQLiteStore


@pytest.fixture
def store(tmp_path):
    ticks = count(1000)
    with SQLiteStore(tmp_path / "chat.db", clock=lambda: float(next(ticks))) as s:
        yield s


def test_the_database_is_in_wal_mode(store):
    assert store.journal_mode == "wal"


def test_sessions_are_listed_newest_first_with_counts(store):
    a = store.create_session("first")
    b = store.create_session("second 第二")
    store.add_message(a, Message("user", "hi"))  # touching a makes it the most recent
    listed = store.list_sessions()
    assert [(s.id, s.title, s.messages, s.events, s.has_state) for s in listed] == [
        (a, "first", 1, 0, False), (b, "second 第二", 0, 0, False)]
    assert listed[0].updated > listed[0].created


def test_messages_keep_order_roles_and_tool_calls(store):
    sid = store.create_session()
    msgs = [Message("user", "把 2024-03-10 加 45 天"),
            Message("assistant", "", [ToolCall("add_days", '{"days": 45}', "c1")]),
            Message("tool", "2024-04-24", tool_call_id="c1"),
            Message("assistant", "2024-04-24")]
    store.add_messages(sid, msgs[:2])
    store.add_messages(sid, msgs[2:])
    assert store.messages(sid) == msgs


def test_events_are_stored_as_json_and_filterable(store):
    sid = store.create_session()
    store.add_event(sid, RunStarted(run_id="run-1", question="q"))
    store.add_event(sid, ToolFinished(run_id="run-1", step=1, name="calc", args={"e": "1+1"}, content="2"))
    store.add_event(sid, {"kind": "custom", "note": "a dict works too"})
    kinds = [e["kind"] for e in store.events(sid)]
    assert kinds == ["run_started", "tool_finished", "custom"]
    (tool,) = store.events(sid, kind="tool_finished")
    assert tool["args"] == {"e": "1+1"} and tool["step"] == 1 and tool["run_id"] == "run-1"


def test_the_observer_records_events_and_the_question_answer_pair(store):
    sid = store.create_session()
    observe = store.observer(sid)
    observe(RunStarted(run_id="run-1", question="What is 6*7?"))
    observe(RunFinished(run_id="run-1", answer="42", stop_reason="final_answer", steps=2, usage=Usage(10, 3)))
    observe(RunStarted(run_id="run-2", question="And then?"))
    observe(RunFinished(run_id="run-2", answer=None, stop_reason="max_steps"))
    assert [(m.role, m.content) for m in store.messages(sid)] == [
        ("user", "What is 6*7?"), ("assistant", "42"), ("user", "And then?")]
    assert store.events(sid, "run_finished")[0]["usage"] == {"prompt_tokens": 10, "completion_tokens": 3}


def test_delete_removes_the_session_with_its_messages_and_events(store, tmp_path):
    keep, drop = store.create_session("keep"), store.create_session("drop")
    for sid in (keep, drop):
        store.add_message(sid, Message("user", sid))
        store.add_event(sid, RunStarted(question=sid))
    assert store.delete_session(drop) is True and store.delete_session(drop) is False
    assert [s.id for s in store.list_sessions()] == [keep]
    raw = sqlite3.connect(tmp_path / "chat.db")
    assert raw.execute("SELECT COUNT(*) FROM messages WHERE session_id = ?", (drop,)).fetchone()[0] == 0
    assert raw.execute("SELECT COUNT(*) FROM events WHERE session_id = ?", (drop,)).fetchone()[0] == 0
    raw.close()
    assert len(store.messages(keep)) == 1


def test_writing_to_an_unknown_session_is_a_clear_error_and_writes_nothing(store):
    with pytest.raises(StateError, match="No session 'ghost'.*create_session"):
        store.add_message("ghost", Message("user", "boo"))
    with pytest.raises(StateError, match="No session"):
        store.load_state("ghost")
    assert store.db.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == 0


def test_snapshots_use_the_versioned_format(store):
    sid = store.create_session()
    assert store.load_state(sid) is None
    store.save_state(sid, {"memory": {"turns": []}, "名字": "李雷"})
    assert store.load_state(sid) == {"memory": {"turns": []}, "名字": "李雷"}
    assert store.list_sessions()[0].has_state
    store.db.execute("UPDATE sessions SET state = ? WHERE id = ?",
                     ('{"format": "handmade-agent-state", "version": 99, "data": {}}', sid))
    with pytest.raises(StateError, match="newer handmade-agent"):
        store.load_state(sid)


def test_a_database_from_a_newer_schema_is_refused_untouched(tmp_path):
    p = tmp_path / "future.db"
    raw = sqlite3.connect(p)
    raw.execute("PRAGMA user_version = 7")
    raw.execute("CREATE TABLE sessions (id TEXT)")
    raw.commit()
    raw.close()
    before = p.read_bytes()
    with pytest.raises(StateError, match="newer handmade-agent"):
        SQLiteStore(p)
    assert p.read_bytes() == before


def test_a_file_that_is_not_a_database_is_refused_untouched(tmp_path):
    p = tmp_path / "notes.db"
    p.write_bytes(b"these are my notes, not SQLite " * 200)
    before = p.read_bytes()
    with pytest.raises(StateError, match="not a SQLite database"):
        SQLiteStore(p)
    assert p.read_bytes() == before and [x.name for x in tmp_path.iterdir()] == ["notes.db"]


def test_reopening_keeps_everything(tmp_path):
    with SQLiteStore(tmp_path / "chat.db") as s:
        sid = s.create_session("persist")
        s.add_message(sid, Message("user", "remember me"))
    with SQLiteStore(tmp_path / "chat.db") as s:
        assert [m.content for m in s.messages(sid)] == ["remember me"]


N_MESSAGES, N_EVENTS = 120, 40


def writer(path: str, title: str, barrier, out) -> None:
    """One process: its own store, its own session, many small transactions."""
    store = SQLiteStore(path)
    sid = store.create_session(title)
    barrier.wait()  # both processes start writing at the same moment
    for i in range(N_MESSAGES):
        store.add_message(sid, Message("user" if i % 2 == 0 else "assistant", f"{title} {i}"))
        if i % 3 == 0:
            store.add_event(sid, RunStarted(run_id=title, step=i, question=f"{title} {i}"))
    store.close()
    out.put(sid)


def test_two_processes_writing_different_sessions_lose_nothing(tmp_path):
    path = str(tmp_path / "shared.db")
    SQLiteStore(path).close()  # create the schema once, as an app would at install time
    ctx = mp.get_context("spawn")
    barrier, out = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=writer, args=(path, name, barrier, out)) for name in ("alpha", "beta")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0, 0]
    sids = {out.get(timeout=5), out.get(timeout=5)}
    with SQLiteStore(path) as store:
        by_title = {s.title: s for s in store.list_sessions()}
        assert set(by_title) == {"alpha", "beta"} and {s.id for s in by_title.values()} == sids
        for title, info in by_title.items():
            assert [m.content for m in store.messages(info.id)] == [f"{title} {i}" for i in range(N_MESSAGES)]
            assert [e["step"] for e in store.events(info.id)] == list(range(0, N_MESSAGES, 3))
        # The writes really interleaved: ids of the two sessions' rows alternate in the shared table.
        owners = [r[0] for r in store.db.execute("SELECT session_id FROM messages ORDER BY id")]
        switches = sum(a != b for a, b in zip(owners, owners[1:]))
        assert len(owners) == 2 * N_MESSAGES and switches >= 1
