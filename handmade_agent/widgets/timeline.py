"""The timeline of a run: one row per step, its model call and tool calls as bars on the run's clock.

``timeline_bars`` says where a step's bars go (plain numbers, testable without
drawing); ``timeline_png`` draws every step of a trace with matplotlib, imported
only when a chart is drawn. Both read the ``Step`` records only: a step's
``started``, ``duration``, ``latency`` and its tool calls' durations.

Deliberately left out: the exact moment of each retried model call (a ``Step``
keeps the count and the time of the successful call); tools are placed last in
their step and the model just before them, which is how the loop runs them.

    >>> timeline_bars(Step(1, "final_answer", latency=2.0, duration=5.0, started=10.0), t0=0.0)["model"]
    (13.0, 2.0)
"""
from __future__ import annotations

import io

from ..agent import Step
from ..observers import Trace, fmt_duration, step_errors

MODEL_COLOR, TOOL_COLOR, ERROR_COLOR, WAIT_COLOR = "#4c78a8", "#f58518", "#d93025", "#e4e4e4"


def tool_time(step: Step) -> float:
    """Seconds the step spent in tools."""
    return sum(u.duration for u in step.tool_uses)


def timeline_bars(step: Step, t0: float) -> dict:
    """Where one step's bars go, in seconds after ``t0``: the whole step, its model call, each tool call."""
    tools = tool_time(step)
    start, length = step.started - t0, max(step.duration, step.latency + tools)
    at = start + length - tools  # tools run last in a step, the model just before them: any wait came first
    uses = []
    for u in step.tool_uses:
        uses.append((at, u.duration, u.ok))
        at += u.duration
    return {"step": (start, length), "model": (start + length - tools - step.latency, step.latency), "tools": uses}


def timeline_png(trace: Trace, width: float = 7.0) -> bytes:
    """A Gantt chart, one row per step: model calls (blue) and tool calls (orange) on the run's clock."""
    from .fonts import cjk_figures
    with cjk_figures():  # labels in Chinese (a translated edition) draw with a CJK font, never as boxes
        return _draw(trace, width)


def _draw(trace: Trace, width: float) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # heavy: only when a chart is drawn
    from matplotlib.figure import Figure

    steps = trace.steps
    t0 = trace.events[0].ts if trace.events else 0.0
    fig = Figure(figsize=(width, 0.45 * max(len(steps), 1) + 1.1), dpi=90)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    right = 0.001
    for row, s in enumerate(steps):
        bars, y = timeline_bars(s, t0), (row - 0.35, 0.7)
        # the whole step in grey: what is neither model nor tool is waiting (a shared model) or the loop itself
        ax.broken_barh([bars["step"]], y, color=WAIT_COLOR)
        ax.broken_barh([bars["model"]], y, color=MODEL_COLOR)
        for at, secs, ok in bars["tools"]:
            ax.broken_barh([(at, secs)], y, color=TOOL_COLOR if ok else ERROR_COLOR)
        if step_errors(s):  # outline last, so no bar hides it
            ax.broken_barh([bars["step"]], y, facecolor="none", edgecolor=ERROR_COLOR, linewidth=1.5)
        end = sum(bars["step"])
        ax.text(end, row, f"  model {fmt_duration(s.latency)} · tools {fmt_duration(tool_time(s))}",
                va="center", fontsize=8)
        right = max(right, end)
    ax.set_xlim(0, right * 1.35)  # room for the labels
    ax.set_yticks(range(len(steps)), [f"step {s.index}" for s in steps])
    ax.invert_yaxis()
    ax.set_xlabel("seconds since the run started")
    ax.set_title("model (blue) vs tools (orange, red = failed); grey: waiting and the loop", fontsize=10)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()
