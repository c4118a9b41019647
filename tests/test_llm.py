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


class CountingModels:
    """A stand-in for the SDK client's model listing that counts how often it is asked."""

    def __init__(self, listing):
        self.listing, self.asked = listing, 0
        self.models = self

    def with_options(self, **_):
        return self

    def list(self):
        self.asked += 1
        if isinstance(self.listing, BaseException):
            raise self.listing
        return [type("Model", (), {"id": name})() for name in self.listing]


def counting_client(listing) -> tuple[OpenAIChat, CountingModels]:
    llm = OpenAIChat("m", base_url="http://127.0.0.1:9/v1")
    models = CountingModels(listing)
    reply = type("Reply", (), {"model": "m", "usage": None, "choices": [type("Choice", (), {
        "finish_reason": "stop", "message": type("Msg", (), {"content": "ok", "tool_calls": None})()})()]})()
    models.chat = type("Chat", (), {"completions": type("Completions", (), {"create": lambda self, **kw: reply})()})()
    llm._client = models
    return llm, models


@pytest.mark.parametrize("listing", [[], ["m", "other"], "not found"])
def test_the_model_list_is_asked_for_once_per_client_whatever_it_says(listing):
    import httpx2
    import openai
    if listing == "not found":  # a server without a models route
        request = httpx2.Request("GET", "http://127.0.0.1:9/v1/models")
        listing = openai.NotFoundError("no route", response=httpx2.Response(404, request=request), body=None)
    llm, models = counting_client(listing)
    for _ in range(3):
        assert llm.complete([Message("user", "hi")]).text == "ok"
    assert models.asked == 1


def test_a_server_that_was_down_is_asked_for_its_models_again():
    import httpx2
    import openai
    llm, models = counting_client(openai.APIConnectionError(request=httpx2.Request("GET", "http://127.0.0.1:9/v1")))
    llm.complete([Message("user", "hi")])  # the listing failed to connect; the (fake) call itself went through
    models.listing = ["other"]
    with pytest.raises(ConfigError, match="has no model 'm'.*other"):
        llm.complete([Message("user", "hi")])
    assert models.asked == 2


def test_a_wrong_model_name_is_reported_on_every_call():
    llm, models = counting_client(["other"])
    for _ in range(2):
        with pytest.raises(ConfigError, match="has no model 'm'"):
            llm.complete([Message("user", "hi")])
    assert models.asked == 1  # once per client: the answer is remembered, and so is the error


@pytest.fixture
def tokenize_server():
    """A stdlib HTTP server with the course server's tokenize route: one token per character; 500 for "boom"."""
    import http.server
    import json
    import threading

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            text = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["input"]
            if self.path != "/extras/tokenize":
                status, body = 404, {"detail": "Not Found"}
            elif text == "boom":
                status, body = 500, {"error": f"echo: {self.headers['Authorization']}"}
            else:
                status, body = 200, {"tokens": [ord(c) for c in text]}
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_counting_tokens_needs_no_http_library_the_package_does_not_declare(monkeypatch, tokenize_server):
    import sys
    monkeypatch.setitem(sys.modules, "httpx", None)  # openai depends on httpx2; plain httpx may be absent
    llm = OpenAIChat("m", base_url=f"{tokenize_server}/v1", api_key="key-1234567")
    assert llm.can_count_tokens and llm.count_tokens("héllo") == 5
    with pytest.raises(LLMError, match="answered 500") as e:
        llm.count_tokens("boom")
    assert "key-1234567" not in str(e.value)
    elsewhere = OpenAIChat("m", base_url=f"{tokenize_server}/api/v1", api_key="key-1234567")
    assert not elsewhere.can_count_tokens  # 404: no tokenize route there
    with pytest.raises(ConfigError, match="no tokenize route"):
        elsewhere.count_tokens("x")
