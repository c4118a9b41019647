"""The model server's ASGI app with a fake model: keys, limits, errors, the line to the model. No model loaded."""
from __future__ import annotations

import threading
import time

import pytest

from handmade_agent.llm import Completion, ScriptedLLM, Usage
from handmade_agent.serve.app import make_app

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

KEY = "room-word-4f9a1c77"
HI = {"model": "fake", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}


class SlowLLM:
    """A fake model that decodes `tokens` tokens of `pause` seconds each, stopping when the server says so."""
    model = "fake"

    def __init__(self, tokens: int = 1, pause: float = 0.0):
        self.tokens, self.pause, self.calls, self.decoded = tokens, pause, 0, 0
        self.line = None

    def complete(self, messages, **kwargs) -> Completion:
        self.calls += 1
        for _ in range(self.tokens):
            if self.line.current is not None and self.line.current.is_set():
                break  # what stop_on_cancel does for llama.cpp
            time.sleep(self.pause)
            self.decoded += 1
        return Completion("hello", [], Usage(3, 1), 0.0, self.model, "stop")

    def tokenize(self, text: str) -> list[int]:
        return [ord(c) for c in text]


def client(llm=None, **kwargs) -> TestClient:
    llm = llm or SlowLLM()
    app = make_app(llm, **kwargs)
    llm.line = app.state.line
    return TestClient(app, base_url="http://127.0.0.1:8080")  # the server answers to loopback names only


def test_a_chat_completion_is_openai_shaped():
    r = client().post("/v1/chat/completions", json=HI)
    assert r.status_code == 200
    body = r.json()
    assert body["object"] == "chat.completion" and body["model"] == "fake"
    assert body["choices"][0]["message"] == {"role": "assistant", "content": "hello"}
    assert body["usage"] == {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}


def test_the_api_key_is_required_and_never_echoed():
    c = client(api_key=KEY)
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": KEY}):
        r = c.post("/v1/chat/completions", json=HI, headers=headers)
        assert r.status_code == 401 and r.json()["error"]["type"] == "authentication_error"
        assert KEY not in r.text
    assert c.get("/v1/models").status_code == 401
    assert c.get("/health").status_code == 200  # a liveness probe needs no key
    ok = c.post("/v1/chat/completions", json=HI, headers={"Authorization": f"Bearer {KEY}"})
    assert ok.status_code == 200


def test_a_body_over_the_limit_is_413():
    c = client(max_body=1000)
    big = {**HI, "messages": [{"role": "user", "content": "x" * 2000}]}
    assert c.post("/v1/chat/completions", json=big).status_code == 413
    chunked = c.post("/v1/chat/completions", content=iter([b"{" + b" " * 800, b" " * 800 + b"}"]),
                     headers={"Content-Type": "application/json"})
    assert chunked.status_code == 413  # no Content-Length: counted as it arrives


@pytest.mark.parametrize("body, says", [
    (b"{not json", "not valid JSON"), (b"[" * 100_000 + b"]" * 100_000, "not valid JSON"),
    (b"[1, 2]", "JSON object"), (b'{"messages": "hi"}', "messages"),
    (b'{"messages": [{"role": "wizard", "content": "hi"}]}', "role"),
    (b'{"messages": [{"role": "user", "content": 5}]}', "content"),
    (b'{"messages": [{"role": "user", "content": "\\ud800"}]}', "UTF-8"),
    (b'{"messages": [{"role": "user", "content": "hi"}], "max_tokens": "4"}', "max_tokens"),
    (b'{"messages": [{"role": "user", "content": "hi"}], "max_tokens": true}', "max_tokens"),
    (b'{"messages": [{"role": "user", "content": "hi"}], "temperature": -1}', "temperature"),
    (b'{"messages": [{"role": "user", "content": "hi"}], "stop": [1]}', "stop"),
])
def test_bad_requests_are_400_with_a_short_json_error(body, says):
    r = client().post("/v1/chat/completions", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 400, r.text
    err = r.json()["error"]
    assert says in err["message"] and err["type"] == "invalid_request_error" and "Traceback" not in r.text


def test_another_model_name_is_404_naming_the_served_one():
    c = client()
    r = c.post("/v1/chat/completions", json={**HI, "model": "gpt-4o"})
    assert r.status_code == 404 and "'fake'" in r.json()["error"]["message"]
    assert c.post("/v1/chat/completions", json={**HI, "model": ""}).status_code == 200
    assert [m["id"] for m in c.get("/v1/models").json()["data"]] == ["fake"]


def test_a_full_line_answers_503_with_retry_after():
    llm = SlowLLM(tokens=20, pause=0.05)
    c = client(llm, queue_limit=2)
    results: list = []
    threads = [threading.Thread(target=lambda: results.append(c.post("/v1/chat/completions", json=HI)))
               for _ in range(2)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 5
    while c.get("/health").json()["queue"] < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    r = c.post("/v1/chat/completions", json=HI)
    assert r.status_code == 503 and r.headers["Retry-After"].isdigit()
    for t in threads:
        t.join()
    assert [x.status_code for x in results] == [200, 200] and llm.calls == 2


def test_health_and_tokenize():
    c = client()
    assert c.get("/health").json() == {"status": "ok", "model": "fake", "queue": 0, "queue_limit": 16}
    assert c.post("/extras/tokenize", json={"input": "ab"}).json() == {"tokens": [97, 98]}
    assert c.post("/extras/tokenize", json={"input": 3}).status_code == 400


def test_errors_of_the_model_are_redacted_json(monkeypatch):
    monkeypatch.setenv("SOME_SERVICE_API_KEY", "very-secret-value-123")
    llm = ScriptedLLM([__import__("handmade_agent.errors").errors.LLMError("boom very-secret-value-123")])
    llm.model = "fake"
    r = client(llm).post("/v1/chat/completions", json=HI)
    assert r.status_code == 500 and "very-secret-value-123" not in r.text and "boom" in r.text


def test_requests_whose_client_left_are_dropped_or_stop_decoding():
    import socket

    import uvicorn

    from handmade_agent.serve.server import bind, free_port
    llm = SlowLLM(tokens=200, pause=0.02)  # 4 s per request if nobody stops it
    app = make_app(llm)
    llm.line = app.state.line
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [bind("127.0.0.1", port)]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    body = b'{"messages": [{"role": "user", "content": "hi"}]}'
    request = (b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
               b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    t0 = time.monotonic()
    clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(4)]
    for s in clients:
        s.sendall(request)
        time.sleep(0.05)
    time.sleep(0.3)
    for s in clients:
        s.close()  # four students closed their notebooks
    while app.state.line.pending and time.monotonic() - t0 < 10:
        time.sleep(0.02)
    elapsed = time.monotonic() - t0
    server.should_exit = True
    thread.join(timeout=10)
    assert llm.calls == 1, "the three waiting requests were dropped before their turn"
    assert llm.decoded < 60 and elapsed < 3, "the running one stopped decoding soon after its client left"


def test_the_line_serves_in_arrival_order_one_at_a_time():
    from handmade_agent.serve.queue import Abandoned, Line
    line, order, running = Line(limit=10), [], []

    def job(i):
        def run():
            running.append(i)
            assert len(running) == 1, "two jobs at once on one llama context"
            time.sleep(0.01)
            order.append(i)
            running.remove(i)
        return run
    flags = [threading.Event() for _ in range(6)]
    flags[3].set()  # this client left while waiting
    futures = [line.submit(job(i), flags[i]) for i in range(6)]
    with pytest.raises(Abandoned):
        futures[3].result(timeout=5)
    for f in futures[:3] + futures[4:]:
        f.result(timeout=5)
    assert order == [0, 1, 2, 4, 5] and line.pending == 0
    line.close()


def test_an_unexpected_failure_is_a_json_500_without_a_traceback():
    llm = ScriptedLLM([ZeroDivisionError("secret internals")])
    llm.model = "fake"
    r = client(llm).post("/v1/chat/completions", json=HI)
    assert r.status_code == 500 and r.json()["error"]["message"] == "Internal error (ZeroDivisionError)."


class RecordingLLM:
    """A fake model that records the keywords each request was turned into."""
    model = "fake"

    def __init__(self):
        self.kwargs: list[dict] = []

    def complete(self, messages, **kwargs) -> Completion:
        self.kwargs.append(kwargs)
        return Completion("晴", [], Usage(3, 1), 0.0, self.model, "stop")


WEATHER_TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}


@pytest.mark.parametrize("choice", ["auto", "none", "required", {"type": "function", "function": {"name": "get_weather"}}])
def test_tool_choice_is_passed_to_the_model(choice):
    llm = RecordingLLM()
    r = client(llm).post("/v1/chat/completions", json={**HI, "tools": [WEATHER_TOOL], "tool_choice": choice})
    assert r.status_code == 200, r.text
    assert llm.kwargs[0]["tool_choice"] == choice and llm.kwargs[0]["tools"] == [WEATHER_TOOL]


def test_no_tool_choice_sends_no_keyword_so_any_model_still_serves():
    llm = RecordingLLM()
    assert client(llm).post("/v1/chat/completions", json={**HI, "tools": [WEATHER_TOOL]}).status_code == 200
    assert "tool_choice" not in llm.kwargs[0]


@pytest.mark.parametrize("extra, says", [
    ({"tool_choice": "sometimes", "tools": [WEATHER_TOOL]}, "tool_choice must be one of"),
    ({"tool_choice": {"type": "function", "function": {}}, "tools": [WEATHER_TOOL]}, "tool_choice must be one of"),
    ({"tool_choice": 3, "tools": [WEATHER_TOOL]}, "tool_choice must be one of"),
    ({"tool_choice": "required"}, "needs tools"),
    ({"tool_choice": {"type": "function", "function": {"name": "get_weather"}}}, "needs tools"),
    ({"tool_choice": {"type": "function", "function": {"name": "book_flight"}}, "tools": [WEATHER_TOOL]},
     "not among the request's tools"),
])
def test_a_tool_choice_the_request_cannot_have_is_400(extra, says):
    llm = RecordingLLM()
    r = client(llm).post("/v1/chat/completions", json={**HI, **extra})
    assert r.status_code == 400 and says in r.json()["error"]["message"], r.text
    assert llm.kwargs == []  # refused before the model was asked


def test_openai_chat_sends_tool_choice_through_the_real_client_to_the_server():
    import openai

    from handmade_agent.llm import OpenAIChat
    llm = RecordingLLM()
    chat = OpenAIChat("fake", base_url="http://127.0.0.1:9/v1")
    chat._client = openai.OpenAI(api_key="none", base_url="http://localhost/v1", http_client=client(llm),
                                 max_retries=0)  # the real SDK, the app in process: nothing leaves this machine
    choice = {"type": "function", "function": {"name": "get_weather"}}
    assert chat.complete([{"role": "user", "content": "北京明天天气怎么样？"}], tools=[WEATHER_TOOL],
                         tool_choice=choice).text == "晴"
    chat.complete([{"role": "user", "content": "hi"}], tools=[WEATHER_TOOL])
    assert llm.kwargs[0]["tool_choice"] == choice and "tool_choice" not in llm.kwargs[1]


def test_the_401_says_which_header_to_send_after_redaction():
    r = client(api_key=KEY).post("/v1/chat/completions", json=HI)
    assert r.status_code == 401
    assert "send the header Authorization: Bearer <the room key>" in r.json()["error"]["message"]


@pytest.mark.parametrize("path, body", [("/v1/chat/completions", HI), ("/extras/tokenize", {"input": "ab"})])
def test_a_post_that_is_not_json_is_415(path, body):
    import json
    c, text = client(), json.dumps(body)
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None):
        r = c.post(path, content=text, headers={"Content-Type": kind} if kind else {})
        assert r.status_code == 415 and "Content-Type: application/json" in r.json()["error"]["message"], kind
    ok = c.post(path, content=text, headers={"Content-Type": "Application/JSON; charset=utf-8"})
    assert ok.status_code == 200


def test_a_host_header_that_is_not_loopback_is_403_on_every_route():
    c = client()
    for host in ("evil.example", "evil.example:8080", "127.0.0.1.evil.example", "192.168.1.20:8080", ""):
        headers = {"Host": host}
        for r in (c.post("/v1/chat/completions", json=HI, headers=headers), c.get("/v1/models", headers=headers),
                  c.get("/health", headers=headers), c.post("/extras/tokenize", json={"input": "a"}, headers=headers)):
            assert r.status_code == 403 and "host names" in r.json()["error"]["message"], (host, r.text)
    for host in ("localhost:8080", "LOCALHOST", "127.0.0.1", "[::1]:8080"):
        assert c.post("/v1/chat/completions", json=HI, headers={"Host": host}).status_code == 200, host
    anywhere = client(hosts=None)  # bound to a room's address: the room reaches it by any name
    assert anywhere.post("/v1/chat/completions", json=HI, headers={"Host": "teacher.lan"}).status_code == 200


def test_host_names_lose_their_port():
    from handmade_agent.serve.app import host_name
    assert [host_name(h) for h in ("[::1]:8080", "Localhost.:80", "127.0.0.1", "[::1]", "a.b:1")] == [
        "::1", "localhost", "127.0.0.1", "::1", "a.b"]


def test_tokenize_has_an_input_limit_and_its_own_bounded_line():
    from handmade_agent.serve.limits import MAX_TOKENIZE_CHARS
    release = threading.Event()

    class Stuck(SlowLLM):
        def tokenize(self, text):
            release.wait(5)
            return [1]
    c = client(Stuck(), queue_limit=2)
    r = c.post("/extras/tokenize", json={"input": "x" * (MAX_TOKENIZE_CHARS + 1)})
    assert r.status_code == 400 and f"{MAX_TOKENIZE_CHARS:,}" in r.json()["error"]["message"]
    results: list = []
    threads = [threading.Thread(target=lambda: results.append(c.post("/extras/tokenize", json={"input": "a"})))
               for _ in range(2)]
    for t in threads:
        t.start()
    time.sleep(0.3)
    busy = c.post("/extras/tokenize", json={"input": "a"})
    assert c.post("/v1/chat/completions", json=HI).status_code == 200  # the model's line is not the tokenizer's
    release.set()
    for t in threads:
        t.join()
    assert busy.status_code == 503 and busy.headers["Retry-After"].isdigit()
    assert [x.status_code for x in results] == [200, 200]


@pytest.mark.parametrize("stop, says", [(["x"] * 17, "at most 16"), (["x" * 65], "at most 64"),
                                        (["s"] * 80_000, "80000 strings")])
def test_too_many_or_too_long_stop_strings_are_400(stop, says):
    llm = RecordingLLM()
    r = client(llm).post("/v1/chat/completions", json={**HI, "stop": stop})
    assert r.status_code == 400 and says in r.json()["error"]["message"], r.text
    assert client(llm).post("/v1/chat/completions", json={**HI, "stop": ["y" * 64] * 16}).status_code == 200


@pytest.mark.parametrize("grammar, says", [
    ("root ::= " + "(" * 20_000 + '"a"' + ")" * 20_000, "nested more than 64"),
    ("root ::= " + '"a"{0,2000} ' * 5000, "more than 256"),
    ("root ::= " + '"a"{0,256} ' * 100, "copy out more than"),
    ("root ::= " + '"' + "a" * 70_000 + '"', "bytes"),
])
def test_a_grammar_that_would_wedge_or_crash_llama_cpp_is_400(grammar, says):
    llm = RecordingLLM()
    r = client(llm, max_body=2_000_000).post("/v1/chat/completions", json={**HI, "grammar": grammar})
    assert r.status_code == 400 and says in r.json()["error"]["message"], r.text[:300]
    assert llm.kwargs == []
    fine = 'root ::= ("a" | "b"){1,8} ' + "(" * 10 + '"c"' + ")" * 10
    assert client(llm).post("/v1/chat/completions", json={**HI, "grammar": fine}).status_code == 200
    assert llm.kwargs[0]["grammar"] == fine


def _tool(name: str, properties: int, **extra) -> dict:
    return {"type": "function", "function": {"name": name, "parameters": {
        "type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(properties)}, **extra}}}


def _nested(depth: int) -> dict:
    schema: dict = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"x": schema}, "required": ["x"]}
    return {"type": "function", "function": {"name": "deep", "parameters": schema}}


@pytest.mark.parametrize("tools, choice, says", [
    ([_tool(f"t{i}", 1) for i in range(65)], None, "at most 64"),
    ([_tool("wide", 65)], None, "65 properties"),
    ([_tool("wide", 60, description="d" * 70_000)], None, "bytes of JSON"),
    ([_nested(40)], "required", "cannot constrain the reply"),
    ([{"type": "function", "function": "oops"}], "auto", "cannot constrain the reply"),
])
def test_tools_that_would_wedge_the_grammar_builder_are_400(tools, choice, says):
    llm = RecordingLLM()
    body = {**HI, "tools": tools, **({"tool_choice": choice} if choice else {})}
    r = client(llm, max_body=2_000_000).post("/v1/chat/completions", json=body)
    assert r.status_code == 400 and says in r.json()["error"]["message"], r.text[:300]
    assert llm.kwargs == []


def test_serving_beyond_loopback_without_a_key_warns_before_the_model_loads(monkeypatch):
    import handmade_agent.local
    from handmade_agent.serve.server import exposure_warning, free_port, run_server

    class Loaded(Exception):
        pass

    def no_model(*args, **kwargs):
        raise Loaded
    monkeypatch.setattr(handmade_agent.local, "LocalLLM", no_model)
    said: list[str] = []
    with pytest.raises(Loaded):
        run_server("0.0.0.0", free_port(), announce=said.append)
    assert len(said) == 1 and said[0].startswith("warning:") and "API key" in said[0]
    assert exposure_warning("0.0.0.0", 80, "room-word") == exposure_warning("127.0.0.1", 80, None) == ""
    assert exposure_warning("::", 80, None) and not exposure_warning("localhost", 80, None)
