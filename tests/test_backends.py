"""The one switch: HANDMADE_AGENT_BASE_URL moves every notebook from the in-process model to a server."""
from __future__ import annotations

import handmade_agent.local
from handmade_agent.backends import course_llm, describe_backend, needs_local
from handmade_agent.llm import OpenAIChat


class FakeLocal:
    def __init__(self, **settings):
        self.settings = settings


def test_without_a_url_the_course_uses_the_in_process_model(monkeypatch):
    monkeypatch.delenv("HANDMADE_AGENT_BASE_URL", raising=False)
    monkeypatch.setattr(handmade_agent.local, "LocalLLM", FakeLocal)
    llm = course_llm(n_ctx=2048)
    assert isinstance(llm, FakeLocal) and llm.settings == {"n_ctx": 2048}
    assert "in-process" in describe_backend()


def test_with_a_url_every_notebook_talks_to_the_server(monkeypatch):
    monkeypatch.setenv("HANDMADE_AGENT_BASE_URL", "http://127.0.0.1:8080/v1")
    monkeypatch.delenv("HANDMADE_AGENT_MODEL", raising=False)
    llm = course_llm(n_ctx=2048)  # local settings do not apply to a server
    assert isinstance(llm, OpenAIChat) and llm.model == "qwen2.5-coder-1.5b-instruct"  # the default model's id
    assert llm.base_url.startswith("http://127.0.0.1:8080") and "8080" in describe_backend()
    monkeypatch.setenv("HANDMADE_AGENT_MODEL", "qwen2.5:0.5b")
    assert course_llm().model == "qwen2.5:0.5b"


def test_a_cell_that_needs_the_local_model_says_why_it_skips(monkeypatch, capsys):
    monkeypatch.setattr(handmade_agent.local, "LocalLLM", FakeLocal)
    assert needs_local(FakeLocal(), "it reads the KV cache")
    assert not needs_local(OpenAIChat("m", base_url="http://127.0.0.1:9/v1", api_key="x"), "it reads the KV cache")
    assert "skipped on OpenAIChat" in capsys.readouterr().out
