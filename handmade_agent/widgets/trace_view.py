"""How a trace looks: HTML for one step, for a whole trace, and a timeline chart of model vs tool time.

Pure functions from a ``Trace`` and its ``Step`` records to HTML text and PNG bytes,
shared by the live ``TracePanel`` (inside ipywidgets) and its static ``to_html()``
form (what GitHub shows of a committed notebook). Everything shown is escaped; the
thought shown is the parser's (``step.thought``), an unreadable reply is shown raw.

The timeline chart itself is drawn in ``timeline.py``.

Deliberately left out: themes and CSS classes (inline styles survive more
renderers), and interactive charts (a PNG is readable everywhere).

    >>> step_title(Step(1, "final_answer", answer="42"))
    'Step 1 · final answer · 0 ms · 0 tokens'
"""
from __future__ import annotations

import base64
import html
import json
from typing import Any, Sequence

from ..agent.events import Alert, ReplyEdited
from ..agent import Step
from ..observers import Trace, fmt_duration, step_errors
from .timeline import timeline_png, tool_time

ERROR_STYLE = "background:#fdecea;color:#8a1c1c;border-left:4px solid #d93025;padding:4px 8px;margin:4px 0"
ROW_STYLE = "margin:3px 0"
PRE_STYLE = "white-space:pre-wrap;margin:2px 0 2px 12px;font-size:90%;background:#f6f8fa;padding:4px"


def live(body: str) -> str:
    """``body`` for an ipywidgets HTML widget: at a text line height, not the 28 px of a widget control."""
    return f"<div style='line-height:1.4'>{body}</div>"


def esc(value: Any, limit: int) -> str:
    """HTML-escaped text of ``value`` (JSON for non-strings), cut to ``limit`` characters with a note."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    if len(text) > limit:
        text = text[:limit] + f"… ({len(text) - limit} more characters)"
    return html.escape(text)


def step_title(step: Step, edited: bool = False) -> str:
    """One line for a collapsed entry: what the step did, how long, how many tokens; ⚠ if it went wrong."""
    what = step.tool or step.kind.replace("_", " ")
    mark = ("⚠ " if step_errors(step) else "") + ("✎ " if edited else "")
    return f"{mark}Step {step.index} · {what} · {fmt_duration(step.duration)} · {step.usage.total_tokens} tokens"


def running_title(trace: Trace) -> str:
    """The title of the step in progress: what it is doing now."""
    return f"Step {trace.running_step} · {trace.running_tool or 'thinking'}…"


def _row(label: str, text: str) -> str:
    return f"<div style='{ROW_STYLE}'><b>{label}</b>: {text}</div>"


def child_html(run: Any, limit: int = 2000) -> str:
    """A subagent's run (chapter 11) as a nested, folded block: its question, then each of its steps."""
    head = (f"subagent run · {esc(run.question, 200)} · {len(run.steps)} steps · {run.usage.total_tokens} tokens"
            f" · {esc(run.stop_reason, 40)}")
    steps = "".join(f"<div style='{ROW_STYLE}'><b>{esc(step_title(s), 300)}</b>{step_html(s, limit)}</div>"
                    for s in run.steps)
    return (f"<details style='margin:4px 0 4px 12px;border-left:3px solid #8ab4f8;padding-left:8px'>"
            f"<summary>{head}</summary>{steps}</details>")


def step_html(step: Step, limit: int = 2000, *, alerts: Sequence[Alert] = (), edit: ReplyEdited | None = None) -> str:
    """The open entry: thought, action, input, observation, answer, errors highlighted, time and tokens."""
    rows = []
    if step.thought:
        rows.append(_row("Thought", esc(step.thought, limit)))
    for u in step.tool_uses:
        rows.append(_row("Action", f"<code>{esc(u.tool, 200)}</code>"))
        rows.append(_row("Input", f"<code>{esc(u.input, limit)}</code>"))
        rows += [child_html(child, limit) for child in u.children]  # a subagent's run, under the call that made it
        rows.append(f"<div style='{ROW_STYLE}'><b>Observation</b> ({'ok' if u.ok else 'failed'},"
                    f" {fmt_duration(u.duration)}):<pre style='{PRE_STYLE}'>{esc(u.observation, limit)}</pre></div>")
    if step.feedback and (step.kind == "action" or not step.tool_uses):  # an action's feedback: what a program printed
        what = "what the program printed" if step.kind == "action" else "feedback to the model"
        rows.append(f"<div style='{ROW_STYLE}'><b>Observation</b> ({what}):"
                    f"<pre style='{PRE_STYLE}'>{esc(step.feedback, limit)}</pre></div>")
    if step.answer is not None:
        rows.append(_row("Final answer", esc(step.answer, limit)))
    rows += [f"<div style='{ERROR_STYLE}'>⚠ {esc(e, limit)}</div>" for e in step_errors(step)]
    rows += [f"<div style='{ERROR_STYLE}'>alert {esc(a.name, 100)}: {esc(a.message, limit)}</div>" for a in alerts]
    if edit is not None:
        rows.append(f"<div style='{ROW_STYLE};color:#6a4c93'>✎ reply edited by hand; the model wrote:"
                    f"<pre style='{PRE_STYLE}'>{esc(edit.original, limit)}</pre></div>")
    if step.reply:
        label = "reply used (edited)" if edit is not None else "raw model reply"
        opened = " open" if step.kind == "format_error" else ""  # unreadable: the raw reply is all there is
        rows.append(f"<details{opened}><summary>{label}</summary><pre style='{PRE_STYLE}'>"
                    f"{esc(step.reply, limit)}</pre></details>")
    u = step.usage
    rows.append(f"<div style='{ROW_STYLE};color:#555'>time {fmt_duration(step.duration)} (model"
                f" {fmt_duration(step.latency)}, tools {fmt_duration(tool_time(step))}) · {u.total_tokens} tokens"
                f" ({u.prompt_tokens} prompt + {u.completion_tokens} completion)</div>")
    return "\n".join(rows)


def running_html(trace: Trace) -> str:
    """The entry of the step in progress."""
    tool = trace.running_tool
    doing = f"running the tool <code>{esc(tool, 200)}</code>" if tool else "waiting for the model's reply"
    return f"<div style='{ROW_STYLE};color:#555'><i>{doing}…</i></div>"


def step_entry(trace: Trace, step: Step, limit: int = 2000) -> tuple[str, str]:
    """(title, html) of one finished step of ``trace``, with its alerts and edit."""
    edit = trace.edits.get(step.index)
    alerts = [a for a in trace.alerts if a.step == step.index]
    return step_title(step, edit is not None), step_html(step, limit, alerts=alerts, edit=edit)


def totals_html(trace: Trace) -> str:
    """The summary line under the steps."""
    s = trace.summary()
    rate = "n/a" if s.tool_success_rate is None else f"{s.tool_success_rate:.0%}"
    style = ERROR_STYLE if s.stop_reason not in ("", "final_answer") else ROW_STYLE
    return (f"<div style='{style}'><b>{esc(s.stop_reason or 'running', 50)}</b> · {s.steps} steps · "
            f"{s.prompt_tokens} prompt + {s.completion_tokens} completion tokens · model {fmt_duration(s.model_time)}"
            f" · tools {fmt_duration(s.tool_time)} · total {fmt_duration(s.wall_time)} · tool success {rate} · "
            f"format errors {s.format_errors}{' · alerts ' + esc(', '.join(s.alerts), 500) if s.alerts else ''}</div>")


def trace_html(trace: Trace, *, title: str = "Agent trace", chart: bool = True, limit: int = 2000) -> str:
    """The whole trace as static HTML: question, one collapsible ``<details>`` per step, totals, chart."""
    parts = [f"<div style='font-family:sans-serif;font-size:13px'><h4 style='margin:4px 0'>{esc(title, 200)}</h4>",
             f"<div style='{ROW_STYLE}'><b>Question</b>: {esc(trace.question, limit)}</div>"]
    for s in trace.steps:
        opened = " open" if step_errors(s) or s.answer is not None else ""
        head, body = step_entry(trace, s, limit)
        parts.append(f"<details{opened} style='margin:2px 0'><summary>{esc(head, 300)}</summary>"
                     f"<div style='margin-left:16px'>{body}</div></details>")
    if trace.running_step is not None:
        parts.append(f"<div style='{ROW_STYLE}'>{esc(running_title(trace), 300)}</div>")
    parts.append(totals_html(trace))
    if chart and trace.steps:
        png = base64.b64encode(timeline_png(trace)).decode("ascii")
        parts.append(f"<img alt='timeline of model and tool time per step' src='data:image/png;base64,{png}'/>")
    parts.append("</div>")
    return "\n".join(parts)
