"""Counting tokens and sending grammars through a server, as a classroom does: OpenAIChat against the
course's ASGI app (served for real by uvicorn on loopback, with a fake model) and against a server
without a tokenize route. No model loaded."""
from __future__ import annotations

import threading
import time

import pytest

from handmade_agent.backends import course_llm, server_takes_grammar, token_counter
from handmade_agent.errors import ConfigError
from handmade_agent.llm import Completion, OpenAIChat, Usage, estimate_tokens
from handmade_agent.memory import ConversationMemory
from handmade_agent.serve.app import make_app
from handmade_agent.serve.server import free_port

uvicorn = pytest.importorskip("uvicorn")
KEY = "room-word-77c1"


class CharModel:
    """One token per character, so every count is known in advance."""
    model = "fake"

    def complete(self, messages, **kwargs) -> Completion:
        return Completion("ok", [], Usage(1, 1), 0.0, self.model, "stop")

    def tokenize(self, text: str) -> list[int]:
        return [ord(c) for c in text]


@pytest.fixture(scope="module")
def served():
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(make_app(CharModel(), api_key=KEY), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/v1"
    server.should_exit = True
    thread.join(10)


def test_the_course_server_counts_with_the_model_tokenizer(served):
    llm = OpenAIChat("fake", base_url=served, api_key=KEY)
    assert llm.can_count_tokens
    assert llm.count_tokens("北京明天") == 4 and llm.count_tokens("") == 0
    assert token_counter(llm) == llm.count_tokens
    memory = ConversationMemory(max_tokens=100, llm=llm)
    assert memory.tokenizer == "model" and memory.count("abc") == 3


def test_a_wrong_key_is_an_error_that_hides_the_key(served):
    llm = OpenAIChat("fake", base_url=served, api_key="not-the-room-word")
    with pytest.raises(Exception) as e:
        llm.count_tokens("x")
    assert "401" in str(e.value) and "not-the-room-word" not in str(e.value)
    assert not llm.can_count_tokens and token_counter(llm) is estimate_tokens


def test_a_server_without_a_tokenize_route_falls_back_to_the_estimate(served):
    # the /v1 prefix doubled: every route 404s there, as on a provider with no tokenize route
    llm = OpenAIChat("fake", base_url=served + "/v1", api_key=KEY)
    with pytest.raises(ConfigError, match="no tokenize route"):
        llm.count_tokens("x")
    assert token_counter(llm) is estimate_tokens
    assert ConversationMemory(llm=llm).tokenizer == "estimate"


def test_an_unreachable_server_cannot_count():
    llm = OpenAIChat("fake", base_url=f"http://127.0.0.1:{free_port()}/v1", api_key=KEY)
    assert not llm.can_count_tokens


def test_grammars_go_to_the_course_server_only_unless_told(monkeypatch):
    monkeypatch.setenv("HANDMADE_AGENT_BASE_URL", "http://127.0.0.1:8080/v1")
    monkeypatch.delenv("HANDMADE_AGENT_GRAMMAR", raising=False)
    monkeypatch.delenv("HANDMADE_AGENT_MODEL", raising=False)
    assert course_llm().supports_grammar                      # the course's server takes GBNF
    monkeypatch.setenv("HANDMADE_AGENT_MODEL", "qwen2.5:0.5b")
    assert not course_llm().supports_grammar                  # e.g. Ollama: it would reject the field
    monkeypatch.setenv("HANDMADE_AGENT_GRAMMAR", "1")
    assert course_llm().supports_grammar and server_takes_grammar("anything")
    monkeypatch.setenv("HANDMADE_AGENT_GRAMMAR", "0")
    assert not server_takes_grammar("qwen2.5-coder-0.5b-instruct")
    monkeypatch.setenv("HANDMADE_AGENT_GRAMMAR", "maybe")
    with pytest.raises(ConfigError, match="neither 1 nor 0"):
        server_takes_grammar("m")
