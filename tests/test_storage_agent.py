"""Saving an agent and resuming it: in a new object, in a new process, and from a SQLite session."""
from __future__ import annotations

import datetime
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from handmade_agent.agent import Agent
from handmade_agent.errors import StateError
from handmade_agent.llm import ScriptedLLM
from handmade_agent.memory import ConversationMemory
from handmade_agent.storage import SQLiteStore
from handmade_agent.storage import load_state, save_state
from handmade_agent.storage import agent_state, load_agent, save_agent
from handmade_agent.memory import SummaryMemory
from handmade_agent.toolbox import default_registry

ROOT = Path(__file__).resolve().parents[1]
TODAY = datetime.date(2024, 3, 10)
Q1, Q2 = "What date is 45 days after 2024-03-10?", "Add 30 days to the date you just computed."
FIRST_RUN = ['Thought: I will add the days.\nAction: add_days\nAction Input: {"date": "2024-03-10", "days": 45}',
             "Thought: I have it.\nFinal Answer: 2024-04-24"]
FOLLOW_UP = ['Thought: The earlier date was 2024-04-24.\nAction: add_days\n'
             'Action Input: {"date": "2024-04-24", "days": 30}', "Thought: Done.\nFinal Answer: 2024-05-24"]


def first_agent(memory=None, **settings) -> Agent:
    agent = Agent(ScriptedLLM(FIRST_RUN), default_registry(today=TODAY),
                  memory=memory if memory is not None else ConversationMemory(max_turns=6),
                  max_steps=5, max_tokens=200, **settings)
    assert agent.run(Q1).answer == "2024-04-24"
    return agent


def test_save_then_load_builds_a_new_agent_with_the_same_state(tmp_path):
    old = first_agent(few_shot=False)
    path = save_agent(old, tmp_path / "agent.json")
    new = load_agent(path, ScriptedLLM(FOLLOW_UP), default_registry(today=TODAY))
    assert new is not old and new.memory is not old.memory
    assert new.settings() == old.settings() and new.settings()["few_shot"] is False
    assert new.memory.to_dict() == old.memory.to_dict()
    assert new.last_result.to_dict() == old.last_result.to_dict()  # the last trace came back too
    assert agent_state(new) == agent_state(old)


def test_the_resumed_agent_answers_a_follow_up_using_the_saved_conversation(tmp_path):
    path = save_agent(first_agent(), tmp_path / "agent.json")
    llm = ScriptedLLM(FOLLOW_UP)
    new = load_agent(path, llm, default_registry(today=TODAY))
    result = new.run(Q2)
    assert result.answer == "2024-05-24" and result.steps[0].tool_uses[0].observation.startswith("2024-04-24 + 30")
    sent = [m.content for m in llm.calls[0]["messages"]]
    # the memory sits right before the new question (after the system prompt and any few-shot turns)
    assert sent[-3:] == [Q1, "Final Answer: 2024-04-24", Q2] and sent.count(Q1) == 1
    assert [m.content for m in new.memory.messages()][-2:] == [Q2, "2024-05-24"]


def test_resume_in_a_new_process_built_only_from_the_file(tmp_path):
    path = save_agent(first_agent(), tmp_path / "agent.json")
    child = textwrap.dedent(f"""
        import datetime, json, sys
        sys.path.insert(0, {str(ROOT)!r})
        from handmade_agent.llm import ScriptedLLM
        from handmade_agent.storage import load_agent
        from handmade_agent.toolbox import default_registry
        llm = ScriptedLLM({FOLLOW_UP!r})
        agent = load_agent(sys.argv[1], llm, default_registry(today=datetime.date(2024, 3, 10)))
        result = agent.run({Q2!r})
        print(json.dumps({{"answer": result.answer, "sent": [m.content for m in llm.calls[0]["messages"]]}}))
    """)
    out = subprocess.run([sys.executable, "-c", child, str(path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["answer"] == "2024-05-24" and Q1 in report["sent"] and "Final Answer: 2024-04-24" in report["sent"]


def test_a_summary_memory_agent_round_trips(tmp_path):
    memory = SummaryMemory(ScriptedLLM([]), max_turns=2)
    old = first_agent(memory=memory)
    new = load_agent(save_agent(old, tmp_path / "a.json"), ScriptedLLM([]), default_registry(today=TODAY))
    assert isinstance(new.memory, SummaryMemory) and new.memory.to_dict() == old.memory.to_dict()


def test_an_agent_without_memory_or_runs_round_trips(tmp_path):
    old = Agent(ScriptedLLM([]), [], strategy="native", max_steps=3)
    new = load_agent(save_agent(old, tmp_path / "a.json"), ScriptedLLM([]), [])
    assert new.memory is None and new.last_result is None and new.settings() == old.settings()


def test_bad_agent_files_are_state_errors_and_untouched(tmp_path):
    p = tmp_path / "a.json"
    p.write_text('{"format": "handmade-agent-state", "version": 1, "kind": "agent", "data": {"settings": {"max_st')
    before = p.read_bytes()
    with pytest.raises(StateError, match="corrupt"):
        load_agent(p, ScriptedLLM([]), [])
    assert p.read_bytes() == before
    save_state({"settings": {"temperature_of_the_sun": 1}}, p)
    with pytest.raises(StateError, match="do not fit this Agent"):
        load_agent(p, ScriptedLLM([]), [])
    save_state({"settings": {}}, p, kind="session")
    with pytest.raises(StateError, match="not 'agent'"):
        load_agent(p, ScriptedLLM([]), [])


def test_overrides_win_over_saved_settings(tmp_path):
    path = save_agent(first_agent(), tmp_path / "a.json")
    assert load_agent(path, ScriptedLLM([]), [], max_steps=2).max_steps == 2


def test_no_api_key_ever_reaches_the_saved_state(tmp_path):
    pytest.importorskip("openai")
    from handmade_agent.llm import OpenAIChat
    secret = "sk-test-DO-NOT-SAVE-1234567890"
    agent = Agent(OpenAIChat("gpt-x", base_url="http://127.0.0.1:9/v1", api_key=secret), [],
                  memory=ConversationMemory())
    text = save_agent(agent, tmp_path / "a.json").read_text()
    assert secret not in text and load_state(tmp_path / "a.json")["model"] == "gpt-x"


def test_a_sqlite_session_records_a_run_and_resumes_it(tmp_path):
    with SQLiteStore(tmp_path / "chat.db") as store:
        sid = store.create_session("dates")
        agent = Agent(ScriptedLLM(FIRST_RUN), default_registry(today=TODAY), memory=ConversationMemory(),
                      observers=[store.observer(sid)])
        agent.run(Q1)
        store.save_agent(sid, agent)
        assert [(m.role, m.content) for m in store.messages(sid)] == [("user", Q1), ("assistant", "2024-04-24")]
        assert store.events(sid)[0]["kind"] == "run_started" and store.events(sid)[-1]["kind"] == "run_finished"
    with SQLiteStore(tmp_path / "chat.db") as store:  # later, a new connection
        llm = ScriptedLLM(FOLLOW_UP)
        resumed = store.resume(sid, llm, default_registry(today=TODAY))
        assert resumed.run(Q2).answer == "2024-05-24"
        assert Q1 in [m.content for m in llm.calls[0]["messages"]]
        assert [m.content for m in store.messages(sid)][-2:] == [Q2, "2024-05-24"]  # still recording


def test_a_session_without_a_snapshot_resumes_from_its_message_log(tmp_path):
    with SQLiteStore(tmp_path / "chat.db") as store:
        sid = store.create_session()
        Agent(ScriptedLLM(FIRST_RUN), default_registry(today=TODAY), observers=[store.observer(sid)]).run(Q1)
        assert store.load_state(sid) is None
        llm = ScriptedLLM(FOLLOW_UP)
        resumed = store.resume(sid, llm, default_registry(today=TODAY))
        assert resumed.memory is not None and resumed.run(Q2).answer == "2024-05-24"
        assert Q1 in [m.content for m in llm.calls[0]["messages"]]
