"""Chapter 04: watching an agent — who listens to the events the loop emits.

``ConsolePrinter`` prints a run (``printer.py``); ``TraceRecorder`` keeps each run's ``Trace``
with one span per step and a ``TraceSummary`` of its numbers (``trace.py``, ``spans.py``,
``metrics.py``); ``JSONLLogger`` writes events to a log with secrets redacted and
``read_trace`` reads it back (``jsonl.py``); ``ThresholdAlerts`` raises alerts (``alerts.py``).

    >>> from handmade_agent.agent.events import FinalAnswer
    >>> ConsolePrinter()(FinalAnswer(run_id="r", step=1, answer="42"))
    ✔ final answer: 42
"""
from .alerts import ThresholdAlerts
from .jsonl import JSONLLogger, read_events, read_trace, read_traces, redact
from .metrics import TraceSummary, fmt_duration, summarize
from .printer import LEVELS, ConsolePrinter
from .spans import StepSpan, ToolSpan, thought_of
from .trace import Trace, TraceRecorder

__all__ = ["ConsolePrinter", "LEVELS", "TraceRecorder", "Trace", "TraceSummary", "summarize", "StepSpan",
           "ToolSpan", "thought_of", "JSONLLogger", "read_events", "read_trace", "read_traces", "redact",
           "ThresholdAlerts", "fmt_duration"]
