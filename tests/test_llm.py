"""ScriptedLLM behaviour and OpenAIChat's configuration and error paths (real sockets, no mocks)."""
from __future__ import annotations

import pytest

from handmade_agent.errors import ConfigError, LLMError, ScriptExhausted
from handmade_agent.llm import Completion, Message, OpenAIChat, ScriptedLLM, ToolCall, Usage, as_message, cut_at_stop


def test_scripted_replays_in_order_and_records_what_it_was_sent():
    llm = ScriptedLLM(["first", "second"])
    assert llm.complete([Message("user", "a")]).text == "first"
    assert llm.complete([{"role": "user", "content": "b"}], stop=["X"]).text == "second"
    assert [c["messages"][0].content for c in llm.calls] == ["a", "b"]
    assert llm.calls[1]["stop"] == ["X"] and llm.remaining == 0


def test_scripted_applies_stop_sequences_like_a_server():
    llm = ScriptedLLM(["Thought: t\nAction: calc\nObservation: invented"])
    assert llm.complete([Message("user", "q")], stop=["Observation:"]).text == "Thought: t\nAction: calc\n"


def test_scripted_says_clearly_when_it_runs_out():
    llm = ScriptedLLM(["only"])
    llm.complete([Message("user", "q")])
    with pytest.raises(ScriptExhausted, match="1 replies and was asked for reply #2"):
        llm.complete([Message("user", "q")])


def test_scripted_raises_a_scripted_exception_and_returns_a_scripted_completion():
    done = Completion("", [ToolCall("calculator", '{"expression": "1+1"}')])
    llm = ScriptedLLM([LLMError("server down"), done])
    with pytest.raises(LLMError, match="server down"):
        llm.complete([Message("user", "q")])
    assert llm.complete([Message("user", "q")]).tool_calls[0].name == "calculator"


def test_usage_adds_and_messages_round_trip_through_dicts():
    assert Usage(3, 4) + Usage(1, 1) == Usage(4, 5) and Usage(4, 5).total_tokens == 9
    m = Message("assistant", "", [ToolCall("f", '{"a": 1}', "c1")])
    assert as_message(m.to_dict()) == m
    assert cut_at_stop("abcXdefY", ["Y", "X"]) == ("abc", True)
    assert cut_at_stop("abc", None) == ("abc", False)


def test_missing_key_for_a_cloud_endpoint_says_what_to_set(monkeypatch):
    for var in ("HANDMADE_AGENT_API_KEY", "OPENAI_API_KEY", "HANDMADE_AGENT_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(ConfigError, match="HANDMADE_AGENT_API_KEY"):
        OpenAIChat("gpt-4o-mini")
    with pytest.raises(ConfigError, match="No API key for https://api.deepseek.com"):
        OpenAIChat("deepseek-chat", base_url="https://api.deepseek.com")


def test_missing_model_name_says_what_to_set(monkeypatch):
    monkeypatch.delenv("HANDMADE_AGENT_MODEL", raising=False)
    with pytest.raises(ConfigError, match="HANDMADE_AGENT_MODEL"):
        OpenAIChat(base_url="http://127.0.0.1:9/v1")


def test_settings_come_from_the_environment_and_repr_hides_the_key(monkeypatch):
    monkeypatch.setenv("HANDMADE_AGENT_BASE_URL", "https://example.invalid/v1")
    monkeypatch.setenv("HANDMADE_AGENT_MODEL", "some-model")
    monkeypatch.setenv("HANDMADE_AGENT_API_KEY", "sk-test-not-a-real-key")
    llm = OpenAIChat()
    assert (llm.model, llm.base_url) == ("some-model", "https://example.invalid/v1")
    assert "sk-test" not in repr(llm)


def test_unreachable_server_is_one_clear_error():
    from handmade_agent.serve.server import free_port
    port = free_port()  # nothing listens here: a real refused connection
    llm = OpenAIChat("m", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0, timeout=5)
    with pytest.raises(LLMError, match=r"Cannot reach the model server .* `handmade-agent serve`"):
        llm.complete([Message("user", "hi")])


def test_openai_chat_sends_tool_choice_only_when_given():
    llm = OpenAIChat("m", base_url="http://127.0.0.1:9/v1")
    llm._model_checked = True
    sent: list[dict] = []

    class Reply:  # the shape of the SDK's ChatCompletion that complete() reads
        model, usage = "m", None
        choices = [type("Choice", (), {"finish_reason": "stop",
                                       "message": type("Msg", (), {"content": "ok", "tool_calls": None})()})()]

    llm._client.chat.completions.create = lambda **kwargs: sent.append(kwargs) or Reply()
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    for choice in ("none", "required", {"type": "function", "function": {"name": "f"}}, None):
        assert llm.complete([Message("user", "hi")], tools=tools, tool_choice=choice).text == "ok"
    assert [k.get("tool_choice", "-") for k in sent] == ["none", "required", {"type": "function", "function": {"name": "f"}}, "-"]
    assert all(k["tools"] == tools for k in sent)
