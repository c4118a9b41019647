"""Secrets never leave: a corpus of key shapes, and every way out of a run (printer, trace, log, state, SQLite)."""
from __future__ import annotations

import io
import json

import pytest

from handmade_agent.agent import Agent
from handmade_agent.llm import ScriptedLLM
from handmade_agent.memory import ConversationMemory
from handmade_agent.observers import ConsolePrinter, JSONLLogger, TraceRecorder
from handmade_agent.redaction import MARK, redact
from handmade_agent.storage import SQLiteStore, save_agent
from handmade_agent.tools import tool

# Fake keys in real shapes (none of these is a working credential).
SECRETS = [
    "sk-proj-AbCdEfGhIjKlMnOpQrStUv0123",
    "gsk_AbCdEfGhIjKlMnOpQrStUvWx1234",
    "hf_AbCdEfGhIjKlMnOpQrStUvWx12",
    "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz12",
    "AKIAABCDEFGHIJKLMNOP",
    "AIzaSyAbCdEfGhIjKlMnOpQrStUvWxYz0123456",
    "xoxb-1234567890-abcdefghij",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlX2hlcmU",
]
IN_CONTEXT = [  # (text, the secret part that must disappear)
    ("Authorization: Bearer abcdefghijklmnop", "abcdefghijklmnop"),
    ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA=="),
    ("GET https://api.example.com/v1/models?key=AbC123xyz789&limit=3", "AbC123xyz789"),
    ("https://maps.example.com/x?sig=deadbeefcafe", "deadbeefcafe"),
    ('{"api_key": "plainvalue123"}', "plainvalue123"),
    ("password = hunter2hunter2", "hunter2hunter2"),
    ("我的密钥是sk-AbCdEfGhIjKlMnOpQrStUv0123，别告诉别人", "sk-AbCdEfGhIjKlMnOpQrStUv0123"),
]
BENIGN = ["max_tokens=256", "prompt_tokens: 12", "the key: value of it all", "monkey=12345678",
          "commit 9ac8542 at https://example.com/repo?page=2", "Beijing 北京 22-30 °C"]


@pytest.mark.parametrize("secret", SECRETS)
def test_every_known_key_shape_is_redacted(secret):
    out = redact(f"use {secret} now")
    assert secret not in out and MARK in out


@pytest.mark.parametrize("text,secret", IN_CONTEXT)
def test_secrets_in_context_are_redacted(text, secret):
    out = redact(text)
    assert secret not in out and MARK in out and redact(out) == out  # idempotent


@pytest.mark.parametrize("text", BENIGN)
def test_ordinary_text_is_left_alone(text):
    assert redact(text) == text


def test_a_secret_the_process_knows_is_redacted_whatever_its_shape(monkeypatch):
    monkeypatch.setenv("HANDMADE_AGENT_API_KEY", "plain0key0without0prefix")
    monkeypatch.setenv("HANDMADE_AGENT_MODEL", "qwen2.5-coder-0.5b-instruct")  # not a credential name
    out = redact({"note": "the key is plain0key0without0prefix", "model": "qwen2.5-coder-0.5b-instruct"})
    assert out == {"note": f"the key is {MARK}", "model": "qwen2.5-coder-0.5b-instruct"}


def test_no_way_out_of_a_run_carries_the_key(monkeypatch, tmp_path):
    key = "plain0key0without0prefix"
    monkeypatch.setenv("OPENAI_API_KEY", key)

    @tool
    def lookup(q: str) -> str:
        """Look something up."""
        return f"found it, and the token {key}"

    out, recorder = io.StringIO(), TraceRecorder()
    memory = ConversationMemory()
    llm = ScriptedLLM([f'Thought: use {key}\nAction: lookup\nAction Input: {{"q": "{key}"}}',
                       f"Thought: done\nFinal Answer: it was {key}"])
    agent = Agent(llm, [lookup], memory=memory, few_shot=False,
                  observers=[ConsolePrinter("debug", file=out), recorder, JSONLLogger(tmp_path / "log.jsonl")])
    result = agent.run(f"what is {key}?")
    assert key in result.answer  # the caller's own result is theirs; everything written elsewhere is redacted
    store = SQLiteStore(tmp_path / "s.db")
    sid = store.create_session("t")
    store.add_messages(sid, memory.messages())
    store.save_agent(sid, agent)
    for ev in recorder.trace.events:
        store.add_event(sid, ev)
    save_agent(agent, tmp_path / "agent.json")
    written = [out.getvalue(), json.dumps([e.to_dict() for e in recorder.trace.events], ensure_ascii=False),
               (tmp_path / "log.jsonl").read_text(), (tmp_path / "agent.json").read_text(),
               json.dumps([[m.to_dict() for m in store.messages(sid)], store.events(sid), store.load_state(sid)],
                          ensure_ascii=False)]
    for text in written:
        assert key not in text and MARK in text
