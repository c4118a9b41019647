"""``MemoryPanel``: what a memory sends, what it evicted, what it summarized, and what each part costs.

Every message is one row with its turn, role, text, token count and status:
``pinned`` (always sent), ``summary`` (the running summary), ``window`` (sent),
``evicted`` (out of the window, not summarized: forgotten) or ``summarized``
(out of the window, covered by the summary). Two sliders *preview* other
limits (turns, token budget) without changing the memory. The panel is also
an observer: in ``Agent(observers=[panel])`` it refreshes after each run.
``to_html()`` is the static form, also carried by the displayed panel for
places where widgets cannot run (GitHub). Texts are shown redacted (``redaction``), since that HTML is
saved into notebooks; ``rows`` keep the memory's own text.

Deliberately left out: editing the memory from the panel.

    >>> from handmade_agent.memory import ConversationMemory
    >>> memory_rows(ConversationMemory())[1]
    []
"""
from __future__ import annotations

import html
from typing import Any

from ..memory import message_tokens, window
from ..redaction import redact_text

KEEP: Any = object()  # "use the memory's own limit"
SCROLL_HEIGHT = "420px"  # about 15 rows; longer memories scroll inside the panel
TD = "<td style='padding:2px 6px'>"
TH = "<th style='position:sticky;top:0;background:#fff'>"  # the header stays in view while the rows scroll
COLORS = {"pinned": "#e8f0fe", "summary": "#fff4e5", "window": "#e6f4ea", "evicted": "#fce8e6",
          "summarized": "#eeeeee"}


def memory_rows(memory: Any, max_turns: Any = KEEP, max_tokens: Any = KEEP) -> tuple[dict, list[dict]]:
    """(totals, rows) for a memory, optionally previewing other limits. Plain data, for tests and HTML."""
    mt = memory.max_turns if max_turns is KEEP else max_turns
    mk = memory.max_tokens if max_tokens is KEEP else max_tokens
    start = getattr(memory, "summarized", 0)
    fixed = memory.fixed()
    w = window(memory.turns[start:], max_turns=mt, max_tokens=mk, count=memory.count, fixed=fixed)
    rows = [{"turn": None, "role": m.role, "text": m.content, "status": "pinned" if i < len(memory.pinned)
             else "summary", "tokens": message_tokens(m, memory.count)} for i, m in enumerate(fixed)]
    for t, turn in enumerate(memory.turns):
        status = "summarized" if t < start else "evicted" if t - start < len(w.evicted) else "window"
        rows += [{"turn": t + 1, "role": m.role, "text": m.content or _calls(m), "status": status,
                  "tokens": message_tokens(m, memory.count)} for m in turn]
    by = lambda s: sum(r["tokens"] for r in rows if r["status"] == s)  # noqa: E731
    totals = {"kind": memory.kind, "policy": memory.policy, "tokenizer": memory.tokenizer,
              "max_turns": mt, "max_tokens": mk, "sent_tokens": w.tokens, "turns": len(memory.turns),
              "window_turns": len(w.kept), "evicted_turns": len(w.evicted), "summarized_turns": start,
              "evicted_tokens": by("evicted"), "summarized_tokens": by("summarized"),
              "summary_tokens": by("summary"), "all_tokens": sum(r["tokens"] for r in rows if r["status"] != "summary")}
    return totals, rows


def _calls(m: Any) -> str:
    return "; ".join(f"{c.name}({c.arguments})" for c in m.tool_calls)


def totals_line(t: dict) -> str:
    """One line of plain text: what is sent against the budget, and what fell out."""
    budget = f" of {t['max_tokens']}" if t["max_tokens"] is not None else ""
    turns = f" (limit {t['max_turns']})" if t["max_turns"] is not None else ""
    return (f"{t['kind']} memory, policy {t['policy']}, {t['tokenizer']} tokenizer: sends {t['sent_tokens']}"
            f"{budget} tokens, {t['window_turns']}/{t['turns']} turns in the window{turns}; "
            f"evicted {t['evicted_turns']} turns ({t['evicted_tokens']} tokens); summarized "
            f"{t['summarized_turns']} turns ({t['summarized_tokens']} tokens) into {t['summary_tokens']} tokens; "
            f"everything unwindowed would cost {t['all_tokens']} tokens")


def memory_html(totals: dict, rows: list[dict], title: str = "Memory", limit: int = 160) -> str:
    """The static HTML table."""
    def cell(r: dict) -> str:
        text = redact_text(r["text"])  # before cutting, so no half key survives; this HTML is saved in notebooks
        text = text if len(text) <= limit else text[:limit] + "…"
        strike = "text-decoration:line-through;" if r["status"] == "evicted" else ""
        return (f"<tr style='background:{COLORS[r['status']]}'>{TD}{r['turn'] or ''}</td>{TD}{r['role']}</td>"
                f"<td style='{strike}white-space:pre-wrap;text-align:left;padding:2px 6px'>{html.escape(text)}</td>"
                f"{TD}{r['tokens']}</td>{TD}{r['status']}</td></tr>")
    legend = " ".join(f"<span style='background:{c};padding:0 6px'>{s}</span>" for s, c in COLORS.items())
    # line-height: inside a live widget the text would inherit ipywidgets' 28 px control height per line;
    # the scroll box keeps a long conversation from making the notebook thousands of pixels tall
    return (f"<div style='line-height:1.4'><h4 style='margin:4px 0'>{html.escape(title)}</h4>"
            f"<div>{html.escape(totals_line(totals))}</div><div style='margin:4px 0'>{legend}</div>"
            f"<div style='max-height:{SCROLL_HEIGHT};overflow:auto'><table style='border-collapse:collapse;font-size:90%'>"
            + "<tr>" + "".join(f"{TH}{h}</th>" for h in ("turn", "role", "text", "tokens", "status")) + "</tr>"
            + "".join(cell(r) for r in rows) + "</table></div></div>")


class MemoryPanel:
    """Interactive view of a memory; ``totals`` and ``rows`` expose what it shows."""

    def __init__(self, memory: Any, *, title: str = "Memory", limit: int = 160):
        import ipywidgets as w  # heavy: only when a panel is built
        self.memory, self.title, self.limit = memory, title, limit
        self.turns_slider = w.IntSlider(description="max turns", continuous_update=False)
        self.tokens_slider = w.IntSlider(description="max tokens", continuous_update=False)
        self.table = w.HTML()
        for s in (self.turns_slider, self.tokens_slider):
            s.observe(lambda _change: self._draw(), names="value")
        reset = w.Button(description="memory's own limits", layout=w.Layout(width="auto"))  # not cut to 148 px
        reset.on_click(lambda _b: self.refresh())
        self.widget = w.VBox([w.HBox([self.turns_slider, self.tokens_slider, reset]), self.table])
        self._handle: Any = None
        self.preview: dict = {}
        self.refresh()

    def refresh(self) -> None:
        """Re-read the memory and set the sliders to its own limits (the maximum means no limit)."""
        totals, _ = memory_rows(self.memory, max_turns=None, max_tokens=None)
        self._syncing = True
        self.turns_slider.max, self.tokens_slider.max = max(totals["turns"], 1), max(totals["all_tokens"], 1)
        self.turns_slider.value = min(_or(self.memory.max_turns, totals["turns"]), self.turns_slider.max)
        self.tokens_slider.value = min(_or(self.memory.max_tokens, totals["all_tokens"]), self.tokens_slider.max)
        self._syncing, self.preview = False, {}
        self._draw()
        if self._handle is not None:
            self._handle.update(self._repr_mimebundle_(), raw=True)

    def _draw(self) -> None:
        if getattr(self, "_syncing", False):
            return
        if self.turns_slider.value != _or(self.memory.max_turns, self.turns_slider.max) or \
                self.tokens_slider.value != _or(self.memory.max_tokens, self.tokens_slider.max):
            self.preview = {"max_turns": self.turns_slider.value, "max_tokens": self.tokens_slider.value}
        else:
            self.preview = {}
        title = self.title + (" (preview of other limits)" if self.preview else "")
        self.table.value = memory_html(self.totals, self.rows, title, self.limit)

    @property
    def totals(self) -> dict:
        return memory_rows(self.memory, **self.preview)[0]

    @property
    def rows(self) -> list[dict]:
        return memory_rows(self.memory, **self.preview)[1]

    def __call__(self, event: Any) -> None:
        """Observer: refresh once a run has finished (the agent has updated its memory by then)."""
        if getattr(event, "kind", "") == "run_finished":
            self.refresh()

    def to_html(self) -> str:
        return memory_html(*memory_rows(self.memory), title=self.title, limit=self.limit)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        bundle = dict(self.widget._repr_mimebundle_(**kwargs) or {})
        bundle["text/html"] = self.to_html()  # shown where the widget cannot be (GitHub, nbconvert)
        bundle["text/plain"] = f"MemoryPanel({totals_line(memory_rows(self.memory)[0])})"
        return bundle

    def _ipython_display_(self) -> None:
        from IPython.display import display
        self._handle = display(self._repr_mimebundle_(), raw=True, display_id=True)


def _or(value: int | None, default: int) -> int:
    return default if value is None else value
