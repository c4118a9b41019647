"""The OpenTelemetry observer (handmade_agent/observers/otel.py): a run's span tree, its attributes, and redaction.

A real OpenTelemetry SDK with its in-memory exporter receives the spans of runs of the package's ``Agent`` (a
``ScriptedLLM`` gives the exact replies a case needs). The same spans in Arize Phoenix's UI are
tests/test_trace_ui.py.
"""
from __future__ import annotations

import datetime
import json
import subprocess
import sys

import pytest

from handmade_agent.agent import Agent
from handmade_agent.llm import ScriptedLLM
from handmade_agent.observers import JSONLLogger, read_trace
from handmade_agent.observers.otel import OTelObserver, export_trace
from handmade_agent.tools import ToolRegistry, tool
from handmade_agent.toolbox import default_registry
from observer_samples import planted_key_run

pytest.importorskip("opentelemetry.sdk")
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402
from opentelemetry.trace import StatusCode  # noqa: E402

TODAY = datetime.date(2024, 5, 20)
REPLIES = ['Thought: weather first.\nAction: get_weather\nAction Input: {"city": "北京", "date": "tomorrow"}',
           'Thought: now convert.\nAction: calculator\nAction Input: {"expression": "25 * 9 / 5 + 32"}',
           "Final Answer: 北京明天最高 77°F。"]


def run(replies, tools, question="北京明天最高气温是多少华氏度？", **settings):
    memory = InMemorySpanExporter()
    observer = OTelObserver(memory, model="scripted")
    result = Agent(ScriptedLLM(replies), tools, observers=[observer], **settings).run(question)
    return result, memory.get_finished_spans()


def test_a_run_is_a_root_span_with_a_child_per_model_call_and_tool_call():
    result, spans = run(REPLIES, default_registry(today=TODAY))
    root = next(s for s in spans if s.parent is None)
    children = sorted((s for s in spans if s.parent is not None), key=lambda s: s.start_time)
    steps = [s for s in children if s.attributes.get("handmade_agent.purpose", "step") == "step"]
    assert [s.name for s in steps] == ["chat scripted", "execute_tool get_weather", "chat scripted",
                                       "execute_tool calculator", "chat scripted"]  # then the answer checks' calls
    assert {s.parent.span_id for s in children} == {root.context.span_id}
    assert {s.context.trace_id for s in spans} == {root.context.trace_id}
    assert root.name == "invoke_agent handmade-agent" and root.status.status_code == StatusCode.OK
    a = root.attributes
    assert a["handmade_agent.stop_reason"] == result.stop_reason == "final_answer"
    assert a["output.value"] == result.answer and a["openinference.span.kind"] == "AGENT"
    assert a["gen_ai.usage.input_tokens"] == result.usage.prompt_tokens > 0
    chat, weather = children[0].attributes, children[1].attributes
    assert chat["gen_ai.operation.name"] == "chat" and chat["gen_ai.request.model"] == "scripted"
    assert chat["llm.output_messages.0.message.content"] == REPLIES[0] and chat["gen_ai.usage.output_tokens"] > 0
    assert chat["llm.input_messages.0.message.role"] == "system"
    assert json.loads(weather["gen_ai.tool.call.arguments"]) == {"city": "北京", "date": "tomorrow"}
    assert weather["gen_ai.tool.name"] == "get_weather" and "high 24 °C" in weather["gen_ai.tool.call.result"]
    assert all(c.start_time >= root.start_time and c.end_time <= root.end_time for c in children)
    assert root.resource.attributes["openinference.project.name"] == "handmade-agent"


def test_a_failing_tool_and_a_run_without_an_answer_are_error_spans_with_the_reason():
    @tool
    def explode(x: int) -> int:
        """Always fails."""
        raise RuntimeError("boom")

    loop = 'Thought: try.\nAction: explode\nAction Input: {"x": 1}'
    result, spans = run([loop] * 3, ToolRegistry([explode]), "go", max_steps=2)
    tools = [s for s in spans if s.name == "execute_tool explode"]
    root = next(s for s in spans if s.parent is None)
    assert tools and all(s.status.status_code == StatusCode.ERROR for s in tools)
    assert "boom" in tools[0].status.description and "boom" in tools[0].attributes["output.value"]
    assert result.answer is None and root.status.status_code == StatusCode.ERROR
    assert result.stop_reason in root.status.description and root.attributes["handmade_agent.stop_reason"] == \
        result.stop_reason


def test_a_key_in_an_argument_a_result_a_reply_or_a_url_never_reaches_the_exporter(monkeypatch):
    key = "sk-proj-" + "Zq9" * 12
    monkeypatch.setenv("OPENAI_API_KEY", key)
    tools, replies, question = planted_key_run(key)
    _, spans = run(replies, tools, question)
    exported = json.dumps([json.loads(s.to_json()) for s in spans], ensure_ascii=False)
    assert key not in exported and key[:20] not in exported and "[REDACTED]" in exported
    assert "execute_tool fetch" in exported  # the spans are there, only the key is gone


def test_a_run_read_back_from_its_jsonl_log_exports_the_same_tree(tmp_path):
    log = tmp_path / "run.jsonl"
    Agent(ScriptedLLM(REPLIES), default_registry(today=TODAY), observers=[JSONLLogger(log)]).run("北京明天？")
    memory = InMemorySpanExporter()
    export_trace(read_trace(log).events, OTelObserver(memory))
    names = [s.name for s in sorted(memory.get_finished_spans(), key=lambda s: s.start_time)]
    assert names[0] == "invoke_agent handmade-agent" and names.count("chat") >= 3
    assert names.count("execute_tool get_weather") == 1 and names.count("execute_tool calculator") == 1


def test_the_package_and_its_observers_import_without_opentelemetry():
    code = ("import sys; sys.modules['opentelemetry'] = None\n"
            "import handmade_agent, handmade_agent.observers, handmade_agent.observers.otel as o\n"
            "assert not [m for m in sys.modules if m.startswith('opentelemetry.')]\n"
            "try:\n    o.OTelObserver()\nexcept Exception as e:\n    print(type(e).__name__, e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("ConfigError") and "pip install 'handmade-agent[otel]'" in out


def test_serve_with_trace_to_turns_each_answered_request_into_a_redacted_chat_span(monkeypatch):
    from starlette.testclient import TestClient

    from handmade_agent.cli import request_spans
    from handmade_agent.llm import Completion, Usage
    from handmade_agent.serve.app import make_app
    key = "sk-proj-" + "Rq4" * 12
    monkeypatch.setenv("OPENAI_API_KEY", key)

    class Served:
        model = "served-model"

        def complete(self, messages, **kwargs):
            return Completion(f"hello, {key}", [], Usage(12, 3), 0.0, self.model, "stop")

    memory = InMemorySpanExporter()
    app = make_app(Served(), on_request=request_spans(OTelObserver(memory, project="handmade-agent-serve")))
    client = TestClient(app, base_url="http://127.0.0.1:8080")
    for text in ("hi", f"my key is {key}"):
        reply = client.post("/v1/chat/completions", json={"messages": [{"role": "user", "content": text}]})
        assert reply.status_code == 200
    assert client.post("/v1/chat/completions", json={"messages": []}).status_code == 400  # refused: no span
    spans = memory.get_finished_spans()
    assert [s.name for s in spans] == ["chat served-model"] * 2 and all(s.parent is None for s in spans)
    assert spans[0].attributes["gen_ai.usage.input_tokens"] == 12 and spans[0].attributes["handmade_agent.purpose"] == "served"
    assert spans[1].resource.attributes["service.name"] == "handmade-agent-serve"
    exported = json.dumps([json.loads(s.to_json()) for s in spans], ensure_ascii=False)
    assert key not in exported and "my key is [REDACTED]" in exported
