"""``RetrievalPanel``: type a query, see the top-k hits with one score bar per stage.

Each hit shows its chunk id, heading path, a bar per stage (dense cosine,
BM25, fused, rerank — each scaled to the best value in the list, with the raw
number beside it) and the text with the query terms it matched highlighted.
Switching the method shows how the same query ranks under dense, BM25, hybrid…
``check(answer)`` shows an answer above the hits with each sentence whose cited
passage lacks one of its facts flagged ⚠ (``rag.support.check_support``).

The panel is an ipywidgets box in a live notebook; its display data also holds
a static HTML rendering of the current results, so a saved notebook shows them
on GitHub. ipywidgets is imported only when a panel is built.

Deliberately left out: editing the corpus from the panel, plots of score distributions.

    >>> highlight("Refill the tank", ["tank"])
    'Refill the <mark>tank</mark>'
"""
from __future__ import annotations

import html
import re
from typing import Sequence

STAGES = ("dense", "bm25", "rrf", "blend", "rerank")
SCROLL_HEIGHT = "600px"  # about seven hits
COLORS = {"dense": "#4c78a8", "bm25": "#f58518", "rrf": "#54a24b", "blend": "#54a24b", "rerank": "#b279a2"}


def highlight(text: str, terms: Sequence[str]) -> str:
    """HTML-escaped ``text`` with every occurrence of the terms wrapped in ``<mark>``.

    Latin terms match whole words, case-insensitively; Chinese bigrams match anywhere.
    Compound terms (``e-07``) are tried before their parts.
    """
    pats = []
    for t in sorted(set(terms), key=len, reverse=True):
        esc = re.escape(t)
        pats.append(esc if not t.isascii() else rf"(?<![A-Za-z0-9]){esc}(?![A-Za-z0-9])")
    if not pats:
        return html.escape(text)
    rx = re.compile("|".join(pats), re.IGNORECASE)
    out, last = [], 0
    for m in rx.finditer(text):
        out += [html.escape(text[last:m.start()]), f"<mark>{html.escape(m.group())}</mark>"]
        last = m.end()
    out.append(html.escape(text[last:]))
    return "".join(out)


def _bar(stage: str, value: float | None, best: float) -> str:
    if value is None:
        return ""
    width = 0 if best <= 0 or value <= 0 else max(2, int(100 * value / best))
    return (f'<div style="display:flex;align-items:center;gap:6px;font-size:11px">'
            f'<span style="width:48px">{stage}</span>'
            f'<span style="display:inline-block;width:120px;background:#eee;height:8px">'
            f'<span style="display:block;width:{width}%;height:8px;background:{COLORS.get(stage, "#888")}"></span>'
            f'</span><span>{value:.3f}</span></div>')


def answer_html(answer: str, hits: Sequence) -> str:
    """The answer, one line per checked sentence; an unsupported one in red with what its passages lack."""
    from ..rag import check_support
    lines = []
    for s in check_support(answer, hits):
        flag = (f' <b style="color:#b00">⚠ unsupported: {html.escape(", ".join(s.missing))} not in '
                f'{html.escape(", ".join(s.cited) or "the passages")}</b>') if s.status == "unsupported" else ""
        lines.append(f'<div style="color:{"#b00" if flag else "inherit"}">{html.escape(s.sentence)}{flag}</div>')
    return f'<div class="handmade-answer" style="margin-bottom:6px"><b>answer</b>{"".join(lines)}</div>'


def hits_html(hits: Sequence, query: str = "", method: str = "", max_chars: int = 400, note: str = "",
              answer: str = "") -> str:
    """Static HTML for a list of hits: id, heading path, score bars per stage, highlighted text."""
    stages = [s for s in STAGES if any(s in h.scores for h in hits)]
    best = {s: max((h.scores.get(s, 0.0) for h in hits), default=0.0) for s in stages}
    head = f"<b>{html.escape(method)}</b> · {html.escape(query)}" if query else ""
    head += f' <span style="color:#666">({html.escape(note)})</span>' if note and query else ""
    rows = []
    for rank, h in enumerate(hits, 1):
        c = h.chunk
        full = getattr(c, "display_text", c.text)  # a table row shows its header row
        text = full if len(full) <= max_chars else full[:max_chars] + " …"
        bars = "".join(_bar(s, h.scores.get(s), best[s]) for s in stages)
        rows.append(
            f'<div style="border-top:1px solid #ddd;padding:4px 0">'
            f'<div><b>{rank}.</b> <code>{html.escape(c.id)}</code> '
            f'<span style="color:#666">{html.escape(" > ".join(c.heading_path))}</span></div>'
            f'<div style="display:flex;gap:12px"><div style="min-width:230px">{bars}</div>'
            f'<div style="font-size:12px;white-space:pre-wrap">{highlight(text, h.matched)}</div></div></div>')
    if not hits:
        rows.append("<div><i>no hits</i></div>")
    checked = answer_html(answer, hits) if answer else ""
    # line-height: inside a live widget each line would inherit ipywidgets' 28 px control height;
    # the scroll box keeps k=10 long passages from pushing the rest of the notebook far down
    return (f'<div class="handmade-retrieval" style="line-height:1.4">{head}{checked}'
            f'<div style="max-height:{SCROLL_HEIGHT};overflow-y:auto">{"".join(rows)}</div></div>')


class RetrievalPanel:
    """A query box, a method switch and k, over a ``Retriever``; ``hits`` holds the current results."""

    def __init__(self, retriever, query: str = "", *, k: int = 5, method: str = "hybrid",
                 methods: Sequence[str] | None = None, where=None):
        import ipywidgets as w
        self.retriever, self.where = retriever, where
        usable = [m for m in (methods or ("dense", "bm25", "rrf", "blend", "rerank"))
                  if (m != "rerank" or retriever.reranker is not None) and (m == "bm25" or retriever.index is not None)]
        method = retriever.fusion if method == "hybrid" else method
        self.query_box = w.Text(value=query, placeholder="ask something…", description="query",
                                continuous_update=False, layout=w.Layout(width="60%"))
        self.method_box = w.Dropdown(options=usable, value=method if method in usable else usable[0],
                                     description="method")
        self.k_box = w.IntSlider(value=k, min=1, max=10, description="k")
        self.out = w.HTML()
        self.widget = w.VBox([w.HBox([self.query_box, self.method_box, self.k_box]), self.out])
        self._quiet = False  # set while search() moves several controls, so it searches once
        for box in (self.query_box, self.method_box, self.k_box):
            box.observe(lambda _change: None if self._quiet else self.refresh(), names="value")
        self.hits: list = []
        self.answer = ""
        self.refresh()

    def search(self, query: str, method: str | None = None, k: int | None = None) -> list:
        """Set the controls as a user would and return the new hits."""
        self._quiet = True
        try:
            if method is not None:
                self.method_box.value = method
            if k is not None:
                self.k_box.value = k
            self.query_box.value = query
        finally:
            self._quiet = False
        self.refresh()
        return self.hits

    def refresh(self) -> None:
        q, m = self.query_box.value.strip(), self.method_box.value
        self.hits = self.retriever.search(q, k=self.k_box.value, method=m, where=self.where) if q else []
        note = f"dense weight {self.retriever.dense_trust(q):.2f}" if q and m in ("rrf", "blend", "rerank") else ""
        self.out.value = hits_html(self.hits, q, m, note=note, answer=self.answer)

    def check(self, answer: str) -> None:
        """Show ``answer`` above the hits, its unsupported sentences flagged."""
        self.answer = answer or ""
        self.refresh()

    def html(self) -> str:
        return self.out.value

    def _repr_mimebundle_(self, **kwargs):
        data = self.widget._repr_mimebundle_(**kwargs)
        data = dict(data[0] if isinstance(data, tuple) else data)
        data["text/html"] = self.html()  # what GitHub and other static viewers show
        data["text/plain"] = f"RetrievalPanel({len(self.hits)} hits for {self.query_box.value!r})"
        return data
