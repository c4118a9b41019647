"""``StepDebugger``: run an agent one step at a time, and edit the model's reply before it is parsed.

Buttons: *Ask the model* fills an editable box with the model's next reply
(``agent.ask_model()``, kept here until used); as you edit it, a preview says what the parser makes of
it and what the loop will do (call a tool, end the run, send format feedback,
stop); *Parse & act* takes the step with the text in the box
(``agent.step(completion)``, with a new completion when edited, emitting a ``ReplyEdited``
event so traces show the change); *Run to end* lets the model finish alone.
The steps taken are the agent's own ``Step`` records (``history``, from ``StepFinished``
events) and the edits are the ``ReplyEdited`` events (``edits``); a ``TracePanel``
underneath shows the run so far. The HTML shows every text redacted (``redaction``: it is saved into
notebooks); the reply box itself holds the model's real reply, the text ② uses. Every button has a method
of the same meaning (``ask``, ``apply``, ``run_to_end``, ``start``), so tests
and notebooks drive it without a browser; ``to_html()`` is the static form.

Deliberately left out: stepping backwards (an agent run is not reversible:
tools may have side effects) and editing tool results (edit the reply instead).

    >>> StepDebugger  # doctest: +ELLIPSIS
    <class '...StepDebugger'>
"""
from __future__ import annotations

import html
from typing import Any

from ..agent.events import ReplyEdited, RunStarted, StepFinished, emit
from ..agent import Step
from ..llm import Completion
from ..redaction import redact_text
from .debugger_view import explain_reply, history_html, shown
from .trace import TracePanel
from .trace_view import ERROR_STYLE, PRE_STYLE, ROW_STYLE, live


class StepDebugger:
    """Step through ``agent`` (an ``Agent``), optionally starting on ``question`` at once."""

    def __init__(self, agent: Any, question: str | None = None, *, trace: bool = True):
        import ipywidgets as w  # heavy: only when a debugger is built

        self.agent = agent
        self.history: list[Step] = []               # the steps of the current run, as the agent recorded them
        self.edits: dict[int, ReplyEdited] = {}     # step number -> how a person changed its reply
        self._proposal: str | None = None
        self._completion: Completion | None = None  # the model reply behind the proposal, until used
        self._run_id = ""
        self.panel = TracePanel(title="Trace so far", chart=True) if trace else None
        agent.observers.append(self._observe)
        if self.panel is not None:
            agent.observers.append(self.panel)
        self.question = w.Text(value=question or "", description="Question", layout=w.Layout(width="70%"))
        self.start_button = w.Button(description="↺ Start", tooltip="start a new run on the question")
        self.ask_button = w.Button(description="① Ask the model", tooltip="get the model's next reply, editable")
        self.apply_button = w.Button(description="② Parse & act", button_style="primary",
                                     tooltip="take the step with the reply in the box")
        self.end_button = w.Button(description="▶▶ Run to end", tooltip="let the model finish on its own")
        self.reply = w.Textarea(placeholder="the model's reply appears here; edit it before ② to see what "
                                "the parser and the loop do", layout=w.Layout(width="95%", height="120px"))
        self.preview, self.status, self.steps_view = w.HTML(), w.HTML(), w.HTML()
        self.start_button.on_click(lambda _: self.start())
        self.ask_button.on_click(lambda _: self.ask())
        self.apply_button.on_click(lambda _: self.apply())
        self.end_button.on_click(lambda _: self.run_to_end())
        self.reply.observe(lambda change: self._show_preview(), names="value")
        parts = [w.HBox([self.question, self.start_button]),
                 w.HBox([self.ask_button, self.apply_button, self.end_button]),
                 self.reply, self.preview, self.status, self.steps_view]
        self.widget = w.VBox(parts + ([self.panel.widget] if self.panel else []))
        self._handle: Any = None
        if question:
            self.start()
        else:
            self._refresh()

    # -- actions (the buttons call these) -------------------------------------------
    def start(self, question: str | None = None) -> None:
        """Begin a new run on ``question`` (or the text in the question box)."""
        if question is not None:
            self.question.value = question
        self.history, self.edits, self._proposal, self._completion = [], {}, None, None
        self.agent.start(self.question.value)
        self.reply.value = ""
        self._refresh()

    def ask(self) -> str | None:
        """Ask the model for its next reply and put it in the box. None when the run is over."""
        if self.agent.finished or self.agent.stop_reason():
            self._proposal = self._completion = None
        else:  # the proposal is held here, not in the agent: the loop itself knows nothing of debugging
            self._completion = self.agent.ask_model()
            self._proposal = self._completion.text if self._completion is not None else None
        self.reply.value = self._proposal or ""
        self._refresh()
        return self._proposal

    def apply(self, text: str | None = None) -> Any:
        """Take one step with ``text`` (default: the box). An empty box with no proposal lets the model reply."""
        if self.agent.finished:
            self._refresh()
            return None
        text = self.reply.value if text is None else text
        if bool(text) and text != self._proposal:  # an edit: the trace must not pretend the model wrote it
            emit(self.agent.observers, ReplyEdited(run_id=self._run_id, step=len(self.history) + 1,
                                                   original=self._proposal or "", text=text))
            step = self.agent.step(Completion(text, model="edited by hand"))
        else:
            step = self.agent.step(self._completion)
        self._proposal = self._completion = None
        self.reply.value = ""
        self._refresh()
        return step

    def run_to_end(self) -> Any:
        """Let the model take every remaining step; returns the ``RunResult``."""
        while not self.agent.finished:
            self.apply(self._proposal or "")
        return self.agent.last_result

    # -- what the learner sees ------------------------------------------------------
    def preview_of(self, text: str) -> str:
        """In words: what the parser makes of ``text`` and what the loop will do with it."""
        streak = 1  # the reply would be the n-th format error in a row
        for h in reversed(self.history):
            if h.kind != "format_error":
                break
            streak += 1
        return explain_reply(text, self.agent, streak)

    def _show_preview(self) -> None:
        # once the run is over ② is disabled: the preview must not say what ② would do
        said = ("The run is over: ↺ Start begins a new one." if self.agent.finished
                else self.preview_of(self.reply.value))
        self.preview.value = live(f"<div style='{ROW_STYLE}'><b>What the parser and the loop will do</b>"
                                  f"<pre style='{PRE_STYLE}'>{html.escape(redact_text(said))}</pre></div>")

    def _observe(self, event: Any) -> None:
        if isinstance(event, RunStarted):
            self._run_id = event.run_id
        elif isinstance(event, StepFinished) and event.run_id == self._run_id:
            self.history.append(event.record)
        elif isinstance(event, ReplyEdited) and event.run_id == self._run_id:
            self.edits[event.step] = event

    def _refresh(self) -> None:
        self._show_preview()
        result = self.agent.last_result if self.agent.finished else None
        if result is not None:
            style = ROW_STYLE if result.stop_reason == "final_answer" else ERROR_STYLE
            self.status.value = live(f"<div style='{style}'>Run finished: <b>{result.stop_reason}</b> after "
                                 f"{len(result.steps)} steps. Answer: {shown(result.answer, 2000)}</div>")
        else:
            next_step = len(self.history) + 1
            self.status.value = live(f"<div style='{ROW_STYLE}'>Next: step {next_step} of at most "
                                 f"{self.agent.max_steps}.</div>")
        for b in (self.ask_button, self.apply_button, self.end_button):
            b.disabled = result is not None
        self.steps_view.value = live(self._history_html())
        if self._handle is not None:
            self._handle.update(self._repr_mimebundle_(), raw=True)

    def _history_html(self) -> str:
        return history_html(self.history, self.edits)

    # -- display ----------------------------------------------------------------------
    def to_html(self) -> str:
        """Static form: the question, every step taken (edits shown), the status, and the trace."""
        parts = ["<div style='font-family:sans-serif;font-size:13px'><h4 style='margin:4px 0'>Step debugger</h4>",
                 f"<div style='{ROW_STYLE}'><b>Question</b>: {shown(self.question.value, 2000)}</div>",
                 self._history_html(), self.status.value]
        if self.panel is not None:
            parts.append(self.panel.to_html())
        return "\n".join(parts + ["</div>"])

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        bundle = dict(self.widget._repr_mimebundle_(**kwargs) or {})
        bundle["text/html"] = self.to_html()
        bundle["text/plain"] = f"StepDebugger({len(self.history)} steps)"
        return bundle

    def _ipython_display_(self) -> None:
        from IPython.display import display
        self._handle = display(self._repr_mimebundle_(), raw=True, display_id=True)
