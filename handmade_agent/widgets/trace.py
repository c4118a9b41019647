"""``TracePanel``: an observer that shows an agent run live, one collapsible entry per step.

Give it to an agent (``Agent(llm, tools, observers=[panel])``) and display it
(``panel`` as a cell's last line, or ``display(panel)``). Each finished step
(its ``Step`` record, from ``StepFinished``) becomes an entry: thought, action,
input, observation, errors highlighted, time and tokens; the step in progress
shows as a last entry saying what it is doing; the totals line follows; when the
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
from ..agent import Step
from ..observers import Trace, TraceSummary, step_errors
from .trace_view import live, running_html, running_title, step_entry, timeline_png, totals_html, trace_html


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
        if isinstance(event, RunStarted):
            self._refresh_header()
        else:
            self._refresh_entries()
        self.totals.value = live(totals_html(self.trace))
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
    def steps(self) -> list[Step]:
        return self.trace.steps

    @property
    def summary(self) -> TraceSummary:
        return self.trace.summary()

    @property
    def entries(self) -> list[dict]:
        """One dict per finished step's entry, exactly what the panel shows."""
        return [{"step": s.index, "title": step_entry(self.trace, s)[0], "thought": s.thought, "action": s.tool,
                 "input": s.input, "observation": s.observation, "answer": s.answer, "errors": step_errors(s),
                 "time": s.duration, "tokens": s.usage.total_tokens} for s in self.trace.steps]

    @property
    def error_steps(self) -> list[int]:
        """Step numbers whose entry is highlighted as an error."""
        return [s.index for s in self.trace.steps if step_errors(s)]

    # -- drawing ------------------------------------------------------------------
    def _refresh_header(self) -> None:
        import html
        q = html.escape(self.trace.question) if self.trace.events else "<i>waiting for a run…</i>"
        self.header.value = live(f"<h4 style='margin:4px 0'>{html.escape(self.title)}</h4><div><b>Question</b>: {q}</div>")

    def _refresh_entries(self) -> None:
        """One entry per finished step, plus the step in progress; only what changed is sent to the browser."""
        import ipywidgets as w
        entries = [step_entry(self.trace, s, self.limit) for s in self.trace.steps]
        if self.trace.running_step is not None:
            entries.append((running_title(self.trace), running_html(self.trace)))
        children = list(self.accordion.children)[: len(entries)]
        children += [w.HTML() for _ in range(len(entries) - len(children))]
        if len(children) != len(self.accordion.children):
            self.accordion.children = children
        for i, (title, body) in enumerate(entries):
            body = live(body)
            if children[i].value != body:
                children[i].value = body
            if self.accordion.get_title(i) != title:
                self.accordion.set_title(i, title)
        if self.open_latest or not entries:
            self.accordion.selected_index = len(entries) - 1 if entries else None

    def _refresh_chart(self) -> None:
        if self.chart and self.trace.steps and self.trace.finished:
            self.timeline.value = timeline_png(self.trace)
            self.timeline.layout.display = None
        else:
            self.timeline.value = b""
            self.timeline.layout.display = "none"  # an empty image would show a broken-picture icon

    def _refresh_all(self) -> None:
        self._refresh_header()
        self._refresh_entries()
        self.totals.value = live(totals_html(self.trace)) if self.trace.events else ""
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
