"""Chapter 04: watching an agent — who listens to the events the loop emits.

Every observer reads one record of a step: the agent's ``Step``, carried whole by
``StepFinished`` events. ``ConsolePrinter`` prints a run (``printer.py``); ``TraceRecorder``
keeps each run's ``Trace`` (its events; ``trace.steps`` are the ``Step`` records) and
``summarize`` turns a run's events into a ``TraceSummary`` of its numbers (``trace.py``,
``metrics.py``); ``JSONLLogger`` writes events to a log with secrets redacted and
``read_trace`` reads it back (``jsonl.py``); ``ThresholdAlerts`` raises alerts (``alerts.py``).
``OTelObserver`` exports a run as OpenTelemetry spans (``otel.py``, the ``otel`` extra, imported only when one is
made) and ``TraceUI`` runs Arize Phoenix on loopback to look at them (``trace_ui.py``, the ``trace-ui`` extra).

    >>> from handmade_agent.agent.events import StepFinished
    >>> from handmade_agent.agent.steps import Step
    >>> ConsolePrinter("quiet")(StepFinished(run_id="r", step=1, record=Step(1, "final_answer", answer="42")))
    ✔ final answer: 42
"""
from .alerts import ThresholdAlerts
from .jsonl import JSONLLogger, json_line, read_events, read_jsonl, read_trace, read_traces, redact
from .metrics import TraceSummary, fmt_duration, summarize
from .otel import LOCAL_ENDPOINT, OTelObserver, export_trace
from .printer import LEVELS, ConsolePrinter
from .trace import Trace, TraceRecorder, step_errors
from .trace_ui import TraceUI

__all__ = ["ConsolePrinter", "LEVELS", "TraceRecorder", "Trace", "TraceSummary", "summarize", "step_errors",
           "JSONLLogger", "read_events", "read_jsonl", "json_line", "read_trace", "read_traces", "redact", "ThresholdAlerts", "fmt_duration",
           "OTelObserver", "export_trace", "LOCAL_ENDPOINT", "TraceUI"]
