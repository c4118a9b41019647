"""The run as OpenTelemetry spans: a root span per run, a child per model call and per tool call.

Chapter 04's events map one to one onto the spans tracing tools show: ``RunStarted`` opens the root
(``invoke_agent``), ``LLMCallStarted``/``Finished`` a ``chat`` span with its token usage, ``ToolStarted``/``Finished``
an ``execute_tool`` span; rejected answers, parse failures and alerts become span events on the root, and
``RunFinished`` closes it with the stop reason. Each span carries OpenTelemetry's generative-AI attributes
(``gen_ai.*``) and OpenInference's (``openinference.span.kind``, ``input.value``, ``llm.token_count.*``), which
Arize Phoenix reads to draw messages and token counts. Times come from the events, so a run read back from a JSONL
log exports the same spans (``export_trace``).

Every attribute passes ``redact`` (the JSONL log's redactor) before it reaches a span: an exporter sees no key.

Needs the ``otel`` extra (``opentelemetry-sdk``, and ``opentelemetry-exporter-otlp-proto-http`` to send); it is
imported when an ``OTelObserver`` is made, never with the package. Left out: metrics and logs signals, sampling,
context propagation into tool processes, and the global tracer provider (this observer keeps its own).

    >>> from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    >>> from handmade_agent.agent.events import RunFinished, RunStarted
    >>> memory = InMemorySpanExporter()
    >>> export_trace([RunStarted(run_id="r", question="2+2?"), RunFinished(run_id="r", answer="4")], OTelObserver(memory))
    >>> [(s.name, s.attributes["output.value"]) for s in memory.get_finished_spans()]
    [('invoke_agent handmade-agent', '4')]
"""
from __future__ import annotations

from typing import Any, Iterable

from ..agent.events import (Alert, AnswerRejected, Event, LLMCallFinished, LLMCallStarted, ParseFailed, RunFinished,
                            RunStarted, ToolFinished, ToolStarted)
from ..redaction import redact
from .jsonl import json_line

LOCAL_ENDPOINT = "http://127.0.0.1:6006/v1/traces"  # OTLP over HTTP of `handmade-agent trace-ui` (Phoenix)
PROJECT = "handmade-agent"


def _ns(ts: float) -> int:
    return int(ts * 1e9)


def _text(value: Any) -> str:
    """A string attribute as it is; anything else as the JSON log writes it (``json_line``)."""
    return value if isinstance(value, str) else json_line(value)


class OTelObserver:
    """An observer that turns a run's events into spans and hands them to ``exporter`` (OTLP to ``endpoint`` when
    none is given). ``model`` names the model on the ``chat`` spans; ``flush()`` sends what is pending."""

    def __init__(self, exporter: Any = None, endpoint: str = LOCAL_ENDPOINT, model: str = "",
                 project: str = PROJECT):
        try:
            from opentelemetry.sdk.resources import Resource
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
        except ImportError:
            from ..errors import ConfigError
            raise ConfigError("OTelObserver needs OpenTelemetry: pip install 'handmade-agent[otel]'.") from None
        if exporter is None:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            processor = BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint))
        else:  # a given exporter (a test's in-memory one) gets each span as it ends
            processor = SimpleSpanProcessor(exporter)
        resource = Resource.create({"service.name": project, "openinference.project.name": project})
        self.provider = TracerProvider(resource=resource)
        self.provider.add_span_processor(processor)
        self.tracer = self.provider.get_tracer("handmade_agent.observers.otel")
        self.model = model
        self._open: dict[tuple[str, str], Any] = {}  # (run_id, "run" | "llm" | "tool:<name>:<args>") -> its span

    def __call__(self, event: Event) -> None:
        handler = getattr(self, f"_on_{event.kind}", None)
        if handler is not None:
            handler(event)

    def flush(self) -> None:
        self.provider.force_flush()

    def shutdown(self) -> None:
        self.provider.shutdown()

    def _start(self, event: Event, slot: str, name: str, attrs: dict) -> None:
        from opentelemetry import trace
        root = self._open.get((event.run_id, "run"))
        context = trace.set_span_in_context(root) if root is not None and slot != "run" else None
        span = self.tracer.start_span(name, context=context, start_time=_ns(event.ts))
        self._open[(event.run_id, slot)] = span
        self._set(span, {"handmade_agent.run_id": event.run_id, "handmade_agent.step": event.step, **attrs})

    def _end(self, event: Event, slot: str, attrs: dict, error: str | None = None) -> None:
        from opentelemetry.trace import Status, StatusCode
        span = self._open.pop((event.run_id, slot), None)
        if span is None:  # its start was not seen (an observer added mid-run): nothing to close
            return
        self._set(span, attrs)
        span.set_status(Status(StatusCode.ERROR, redact(error)) if error else Status(StatusCode.OK))
        span.end(end_time=_ns(event.ts))

    @staticmethod
    def _set(span: Any, attrs: dict) -> None:
        for key, value in attrs.items():
            if value is not None and value != "":
                span.set_attribute(key, redact(value) if isinstance(value, str) else value)

    def _on_run_started(self, e: RunStarted) -> None:
        self._start(e, "run", f"invoke_agent {PROJECT}", {
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": PROJECT, "openinference.span.kind": "AGENT",
            "input.value": e.question, "handmade_agent.settings": _text(e.settings)})

    def _on_llm_call_started(self, e: LLMCallStarted) -> None:
        attrs = {"gen_ai.operation.name": "chat", "gen_ai.request.model": self.model, "llm.model_name": self.model,
                 "openinference.span.kind": "LLM", "handmade_agent.purpose": e.purpose,
                 "input.value": _text(e.messages[-1].get("content", "")) if e.messages else ""}
        for i, m in enumerate(e.messages):
            attrs[f"llm.input_messages.{i}.message.role"] = str(m.get("role", ""))
            attrs[f"llm.input_messages.{i}.message.content"] = _text(m.get("content") or "")
        self._start(e, "llm", f"chat {self.model}".strip(), attrs)

    def _on_llm_call_finished(self, e: LLMCallFinished) -> None:
        u = e.usage
        self._end(e, "llm", {
            "gen_ai.usage.input_tokens": u.prompt_tokens, "gen_ai.usage.output_tokens": u.completion_tokens,
            "llm.token_count.prompt": u.prompt_tokens, "llm.token_count.completion": u.completion_tokens,
            "llm.token_count.total": u.prompt_tokens + u.completion_tokens, "output.value": e.text,
            "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": e.text},
            e.error)

    def _on_tool_started(self, e: ToolStarted) -> None:  # keyed by name and arguments: parallel calls overlap
        self._start(e, f"tool:{e.name}:{_text(e.args)}", f"execute_tool {e.name}", {
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": e.name, "tool.name": e.name,
            "gen_ai.tool.call.id": f"{e.run_id}-{e.step}-{e.name}", "openinference.span.kind": "TOOL",
            "gen_ai.tool.call.arguments": _text(e.args), "input.value": _text(e.args)})

    def _on_tool_finished(self, e: ToolFinished) -> None:
        self._end(e, f"tool:{e.name}:{_text(e.args)}", {"gen_ai.tool.call.result": e.content, "output.value": e.content},
                  e.error or (None if e.ok else e.content or "the tool failed"))

    def _note(self, e: Event, name: str, attrs: dict) -> None:
        root = self._open.get((e.run_id, "run"))
        if root is not None:
            root.add_event(name, {k: redact(v) for k, v in attrs.items() if v}, timestamp=_ns(e.ts))

    def _on_parse_failed(self, e: ParseFailed) -> None:
        self._note(e, "parse_failed", {"error": e.error, "feedback": e.feedback})

    def _on_answer_rejected(self, e: AnswerRejected) -> None:
        self._note(e, "answer_rejected", {"check": e.check, "answer": e.answer, "feedback": e.feedback})

    def _on_alert(self, e: Alert) -> None:
        self._note(e, "alert", {"name": e.name, "message": e.message})

    def _on_run_finished(self, e: RunFinished) -> None:
        for _, slot in [k for k in self._open if k[0] == e.run_id and k[1] != "run"]:  # stopped mid-call
            self._end(e, slot, {}, f"the run ended ({e.stop_reason}) before this finished")
        u = e.usage
        self._end(e, "run", {"handmade_agent.stop_reason": e.stop_reason, "output.value": e.answer or "",
                             "handmade_agent.steps": e.steps, "gen_ai.usage.input_tokens": u.prompt_tokens,
                             "gen_ai.usage.output_tokens": u.completion_tokens,
                             "llm.token_count.prompt": u.prompt_tokens, "llm.token_count.completion": u.completion_tokens,
                             "llm.token_count.total": u.prompt_tokens + u.completion_tokens},
                  None if e.answer is not None else f"no answer: {e.stop_reason}")
        self.flush()


def export_trace(events: Iterable[Event], observer: OTelObserver) -> None:
    """Send a finished run's events (e.g. ``read_trace(path).events`` from a JSONL log) as spans, then flush."""
    for event in events:
        observer(event)
    observer.flush()
