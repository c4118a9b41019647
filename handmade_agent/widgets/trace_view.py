"""How a trace looks: HTML for one step, for a whole trace, and a timeline chart of model vs tool time.

Pure functions from ``Trace`` / ``StepSpan`` to HTML text and PNG bytes, shared
by the live ``TracePanel`` (inside ipywidgets) and its static ``to_html()``
form (what GitHub shows of a committed notebook). Everything shown is escaped.

Deliberately left out: themes and CSS classes (inline styles survive more
renderers), and interactive charts (a PNG is readable everywhere).

    >>> from handmade_agent.observers import StepSpan
    >>> step_title(StepSpan(1, answer="42"))
    'Step 1 · final answer · 0 ms · 0 tokens'
"""
from __future__ import annotations

import base64
import html
import io
import json
from typing import Any

from ..observers import StepSpan, Trace, fmt_duration

ERROR_STYLE = "background:#fdecea;color:#8a1c1c;border-left:4px solid #d93025;padding:4px 8px;margin:4px 0"
ROW_STYLE = "margin:3px 0"
PRE_STYLE = "white-space:pre-wrap;margin:2px 0 2px 12px;font-size:90%;background:#f6f8fa;padding:4px"
MODEL_COLOR, TOOL_COLOR, ERROR_COLOR, WAIT_COLOR = "#4c78a8", "#f58518", "#d93025", "#e4e4e4"


def esc(value: Any, limit: int) -> str:
    """HTML-escaped text of ``value`` (JSON for non-strings), cut to ``limit`` characters with a note."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    if len(text) > limit:
        text = text[:limit] + f"… ({len(text) - limit} more characters)"
    return html.escape(text)


def step_title(span: StepSpan) -> str:
    """One line for a collapsed entry: what the step did, how long, how many tokens; ⚠ if it went wrong."""
    what = span.action or ("final answer" if span.answer is not None else
                           "format error" if span.parse_error else "model error" if span.llm_error else "thinking…")
    mark = ("⚠ " if span.errors else "") + ("✎ " if span.edited_from is not None else "")
    return f"{mark}Step {span.step} · {what} · {fmt_duration(span.duration)} · {span.usage.total_tokens} tokens"


def step_html(span: StepSpan, limit: int = 2000) -> str:
    """The open entry: thought, action, input, observation, answer, errors highlighted, time and tokens."""
    rows = []
    if span.thought:
        rows.append(f"<div style='{ROW_STYLE}'><b>Thought</b>: {esc(span.thought, limit)}</div>")
    for t in span.tools:
        rows.append(f"<div style='{ROW_STYLE}'><b>Action</b>: <code>{esc(t.name, 200)}</code></div>")
        rows.append(f"<div style='{ROW_STYLE}'><b>Input</b>: <code>{esc(t.args, limit)}</code></div>")
        state = "running…" if t.ok is None else f"{'ok' if t.ok else 'failed'}, {fmt_duration(t.duration)}"
        rows.append(f"<div style='{ROW_STYLE}'><b>Observation</b> ({state}):"
                    f"<pre style='{PRE_STYLE}'>{esc(t.content, limit)}</pre></div>")
    if span.feedback and not span.tools:
        rows.append(f"<div style='{ROW_STYLE}'><b>Observation</b> (feedback to the model):"
                    f"<pre style='{PRE_STYLE}'>{esc(span.feedback, limit)}</pre></div>")
    if span.answer is not None:
        rows.append(f"<div style='{ROW_STYLE}'><b>Final answer</b>: {esc(span.answer, limit)}</div>")
    rows += [f"<div style='{ERROR_STYLE}'>⚠ {esc(e, limit)}</div>" for e in span.errors]
    rows += [f"<div style='{ERROR_STYLE}'>alert {esc(a.name, 100)}: {esc(a.message, limit)}</div>"
             for a in span.alerts]
    if span.edited_from is not None:
        rows.append(f"<div style='{ROW_STYLE};color:#6a4c93'>✎ reply edited by hand; the model wrote:"
                    f"<pre style='{PRE_STYLE}'>{esc(span.edited_from, limit)}</pre></div>")
    if span.text:
        label = "reply used (edited)" if span.edited_from is not None else "raw model reply"
        rows.append(f"<details><summary>{label}</summary><pre style='{PRE_STYLE}'>"
                    f"{esc(span.text, limit)}</pre></details>")
    u = span.usage
    rows.append(f"<div style='{ROW_STYLE};color:#555'>time {fmt_duration(span.duration)} (model"
                f" {fmt_duration(span.model_time)}, tools {fmt_duration(span.tool_time)}) · {u.total_tokens} tokens"
                f" ({u.prompt_tokens} prompt + {u.completion_tokens} completion)</div>")
    return "\n".join(rows)


def totals_html(trace: Trace) -> str:
    """The summary line under the steps."""
    s = trace.summary()
    rate = "n/a" if s.tool_success_rate is None else f"{s.tool_success_rate:.0%}"
    style = ERROR_STYLE if s.stop_reason not in ("", "final_answer") else ROW_STYLE
    return (f"<div style='{style}'><b>{esc(s.stop_reason or 'running', 50)}</b> · {s.steps} steps · "
            f"{s.prompt_tokens} prompt + {s.completion_tokens} completion tokens · model {fmt_duration(s.model_time)}"
            f" · tools {fmt_duration(s.tool_time)} · total {fmt_duration(s.wall_time)} · tool success {rate} · "
            f"format errors {s.format_errors}{' · alerts ' + esc(', '.join(s.alerts), 500) if s.alerts else ''}</div>")


def timeline_png(trace: Trace, width: float = 7.0) -> bytes:
    """A Gantt chart, one row per step: model calls (blue) and tool calls (orange) on the run's clock."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # heavy: only when a chart is drawn
    from matplotlib.figure import Figure

    steps = trace.steps
    t0 = trace.events[0].ts if trace.events else 0.0
    fig = Figure(figsize=(width, 0.45 * max(len(steps), 1) + 1.1), dpi=90)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for row, s in enumerate(steps):
        # the whole step in grey: what is neither model nor tool is waiting (a shared model) or the loop itself
        ax.broken_barh([(s.start - t0, s.duration)], (row - 0.35, 0.7), color=WAIT_COLOR)
        ax.broken_barh([(start - t0, secs) for start, secs in s.model_calls], (row - 0.35, 0.7), color=MODEL_COLOR)
        for t in s.tools:
            ax.broken_barh([(t.start - t0, t.duration)], (row - 0.35, 0.7),
                           color=ERROR_COLOR if t.ok is False else TOOL_COLOR)
        if s.errors:  # outline last, so no bar hides it
            ax.broken_barh([(s.start - t0, s.duration)], (row - 0.35, 0.7), facecolor="none",
                           edgecolor=ERROR_COLOR, linewidth=1.5)
        end = s.start - t0 + s.duration
        ax.text(end, row, f"  model {fmt_duration(s.model_time)} · tools {fmt_duration(s.tool_time)}",
                va="center", fontsize=8)
    right = max([s.end - t0 for s in steps] + [s.start - t0 + s.model_time + s.tool_time for s in steps] + [0.001])
    ax.set_xlim(0, right * 1.35)  # room for the labels
    ax.set_yticks(range(len(steps)), [f"step {s.step}" for s in steps])
    ax.invert_yaxis()
    ax.set_xlabel("seconds since the run started")
    ax.set_title("model (blue) vs tools (orange, red = failed); grey: waiting and the loop", fontsize=10)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def trace_html(trace: Trace, *, title: str = "Agent trace", chart: bool = True, limit: int = 2000) -> str:
    """The whole trace as static HTML: question, one collapsible ``<details>`` per step, totals, chart."""
    parts = [f"<div style='font-family:sans-serif;font-size:13px'><h4 style='margin:4px 0'>{esc(title, 200)}</h4>",
             f"<div style='{ROW_STYLE}'><b>Question</b>: {esc(trace.question, limit)}</div>"]
    for s in trace.steps:
        opened = " open" if s.errors or s.answer is not None else ""
        parts.append(f"<details{opened} style='margin:2px 0'><summary>{esc(step_title(s), 300)}</summary>"
                     f"<div style='margin-left:16px'>{step_html(s, limit)}</div></details>")
    parts.append(totals_html(trace))
    if chart and trace.steps:
        png = base64.b64encode(timeline_png(trace)).decode("ascii")
        parts.append(f"<img alt='timeline of model and tool time per step' src='data:image/png;base64,{png}'/>")
    parts.append("</div>")
    return "\n".join(parts)
