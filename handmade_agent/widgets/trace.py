"""``TracePanel``: an observer that shows an agent run live, one collapsible entry per step.

Give it to an agent (``Agent(llm, tools, observers=[panel])``) and display it
(``panel`` as a cell's last line, or ``display(panel)``). Each event updates
the panel while the run goes on: the step's entry (thought, action, input,
observation, errors highlighted, time and tokens) and the totals line; when the
run finishes, a timeline chart of model vs tool time per step (drawn once: an
observer runs inside the agent's loop, so a slow one would slow every step). ``to_html()`` is the
static form; a displayed panel also carries it, refreshed when the run
finishes, so a saved notebook shows the final trace where widgets cannot run.

Deliberately left out: several runs at once (a new run clears the panel; use a
``TraceRecorder`` to keep history) and editing (see ``StepDebugger``).

    >>> TracePanel().entries
    []
"""
from __future__ import annotations

from typing import Any

from ..agent.events import Event, RunFinished, RunStarted
from ..observers import StepSpan, Trace, TraceSummary
from .trace_view import step_html, step_title, timeline_png, totals_html, trace_html


class TracePanel:
    """Live trace widget. ``entries`` / ``summary`` expose its state for tests and exercises."""

    def __init__(self, *, title: str = "Agent trace", chart: bool = True, open_latest: bool = True,
                 limit: int = 2000):
        import ipywidgets as w  # heavy: only when a panel is built

        self.title, self.chart, self.open_latest, self.limit = title, chart, open_latest, limit
        self.trace = Trace()
        self.header = w.HTML()
        self.accordion = w.Accordion(children=[])
        self.totals = w.HTML()
        self.timeline = w.Image(format="png", layout=w.Layout(max_width="640px"))
        self.widget = w.VBox([self.header, self.accordion, self.totals, self.timeline])
        self._handle: Any = None  # the IPython display handle, to refresh the static form at the end
        self._refresh_all()

    # -- the observer ------------------------------------------------------------
    def __call__(self, event: Event) -> None:
        if isinstance(event, RunStarted) or (self.trace.events and event.run_id != self.trace.run_id):
            self.clear()
        self.trace.add(event)
        steps = self.trace.steps
        if isinstance(event, RunStarted):
            self._refresh_header()
        elif steps and event.step == steps[-1].step:
            self._refresh_entry(len(steps) - 1, steps[-1])
        else:
            self._refresh_all()  # an event for an earlier step (rare): redraw everything
        self.totals.value = totals_html(self.trace)
        if isinstance(event, RunFinished):
            self._refresh_all()
            if self._handle is not None:
                self._handle.update(self._repr_mimebundle_(), raw=True)

    def clear(self) -> None:
        """Forget the shown run (a new run does this by itself)."""
        self.trace = Trace()
        self.accordion.children = []
        self._refresh_all()

    # -- what tests and learners read ---------------------------------------------
    @property
    def steps(self) -> list[StepSpan]:
        return self.trace.steps

    @property
    def summary(self) -> TraceSummary:
        return self.trace.summary()

    @property
    def entries(self) -> list[dict]:
        """One dict per step entry, exactly what the panel shows."""
        return [{"step": s.step, "title": step_title(s), "thought": s.thought, "action": s.action,
                 "input": s.action_input, "observation": s.observation, "answer": s.answer, "errors": s.errors,
                 "time": s.duration, "tokens": s.usage.total_tokens} for s in self.trace.steps]

    @property
    def error_steps(self) -> list[int]:
        """Step numbers whose entry is highlighted as an error."""
        return [s.step for s in self.trace.steps if s.errors]

    # -- drawing ------------------------------------------------------------------
    def _refresh_header(self) -> None:
        import html
        q = html.escape(self.trace.question) if self.trace.events else "<i>waiting for a run…</i>"
        self.header.value = f"<h4 style='margin:4px 0'>{html.escape(self.title)}</h4><div><b>Question</b>: {q}</div>"

    def _refresh_entry(self, i: int, span: StepSpan) -> None:
        import ipywidgets as w
        children = list(self.accordion.children)
        while len(children) <= i:
            children.append(w.HTML())
        if len(children) != len(self.accordion.children):
            self.accordion.children = children
        children[i].value = step_html(span, self.limit)
        self.accordion.set_title(i, step_title(span))
        if self.open_latest:
            self.accordion.selected_index = i

    def _refresh_chart(self) -> None:
        if self.chart and self.trace.steps and self.trace.finished:
            self.timeline.value = timeline_png(self.trace)
            self.timeline.layout.display = None
        else:
            self.timeline.value = b""
            self.timeline.layout.display = "none"  # an empty image would show a broken-picture icon

    def _refresh_all(self) -> None:
        self._refresh_header()
        steps = self.trace.steps
        if len(self.accordion.children) > len(steps):
            self.accordion.children = list(self.accordion.children)[: len(steps)]
        for i, span in enumerate(steps):
            self._refresh_entry(i, span)
        if not steps:
            self.accordion.selected_index = None
        self.totals.value = totals_html(self.trace) if self.trace.events else ""
        self._refresh_chart()

    # -- display ------------------------------------------------------------------
    def to_html(self) -> str:
        """The static form: the same entries as ``<details>`` blocks, totals and the chart as an image."""
        return trace_html(self.trace, title=self.title, chart=self.chart, limit=self.limit)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        bundle = dict(self.widget._repr_mimebundle_(**kwargs) or {})
        bundle["text/html"] = self.to_html()  # shown where the widget cannot be (GitHub, nbconvert)
        bundle["text/plain"] = f"TracePanel({len(self.trace.steps)} steps)"
        return bundle

    def _ipython_display_(self) -> None:
        from IPython.display import display
        self._handle = display(self._repr_mimebundle_(), raw=True, display_id=True)
