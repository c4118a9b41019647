"""``ChunkViewer``: a document with its chunk boundaries drawn on it.

Chunks alternate between two background colours; text inside two chunks at
once (the overlap) is orange; text in no chunk (blank lines, stripped
whitespace) stays plain. A small tag with the chunk id marks where each chunk
starts; a table row's tag says "row" and carries its header row as a tooltip (a
row is a chunk of its own, searched with its header and section title). Switch the document, the chunker (structure-aware or fixed-size) and
the size to see how the cuts move.

The panel is an ipywidgets box in a live notebook; its display data also holds
a static HTML rendering, so a saved notebook shows it on GitHub.

Deliberately left out: editing chunk boundaries by hand.

    >>> from handmade_agent.rag.documents import parse_document
    >>> from handmade_agent.rag.chunking import structure_chunks
    >>> d = parse_document("x", "# X\\n## A {#a}\\nOne.\\n")
    >>> "x#a:1" in chunks_html(d, structure_chunks(d))
    True
"""
from __future__ import annotations

import html
from typing import Sequence

PALETTE = ("#dbe9f6", "#e3f4dc")
OVERLAP = "#fdd8a8"
SCROLL_HEIGHT = "560px"  # about 30 lines of text


def chunks_html(doc, chunks: Sequence, max_chars: int | None = None) -> str:
    """Static HTML of ``doc.text`` with chunk spans coloured and each chunk start tagged with its id."""
    text = doc.text if max_chars is None else doc.text[:max_chars]
    cuts = sorted({0, len(text), *(min(c.start, len(text)) for c in chunks), *(min(c.end, len(text)) for c in chunks)})
    starts = {}
    for i, c in enumerate(chunks):
        starts.setdefault(c.start, []).append((i, c))
    parts = []
    for a, b in zip(cuts, cuts[1:]):
        for i, c in starts.get(a, []):
            header = getattr(c, "table_header", "")
            tip, row = (f' title="{html.escape(header, quote=True)}"', " · row") if header else ("", "")
            parts.append(f'<sup{tip} style="background:#555;color:#fff;padding:0 3px;border-radius:3px;'
                         f'font-size:10px">{html.escape(c.id)} · {len(c.text)}{row}</sup>')
        inside = [i for i, c in enumerate(chunks) if c.start <= a and b <= c.end]
        seg = html.escape(text[a:b])
        if not inside:
            parts.append(seg)
        else:
            color = OVERLAP if len(inside) > 1 else PALETTE[inside[0] % 2]
            parts.append(f'<span style="background:{color}">{seg}</span>')
    title = html.escape(f"{doc.doc_id}: {len(chunks)} chunks")
    # line-height set here: inside a live widget text inherits ipywidgets' 28 px control height; a long
    # document scrolls inside the panel instead of stretching the notebook
    return (f'<div class="handmade-chunks" style="line-height:1.4"><b>{title}</b>'
            f'<div style="white-space:pre-wrap;font-family:monospace;font-size:12px;line-height:1.5;'
            f'max-height:{SCROLL_HEIGHT};overflow-y:auto">'
            f'{"".join(parts)}</div></div>')


class ChunkViewer:
    """Pick a document and a chunker; see where the chunks fall. ``chunks`` holds the current ones."""

    def __init__(self, docs: Sequence, doc_id: str | None = None, *, method: str = "structure",
                 size: int = 600, overlap: int = 80, max_chars: int | None = 3000):
        import ipywidgets as w
        self.docs = {f"{d.lang}/{d.doc_id}": d for d in docs}
        self.max_chars = max_chars
        first = next((key for key, d in self.docs.items() if doc_id in (key, d.doc_id)), next(iter(self.docs)))
        self.doc_box = w.Dropdown(options=list(self.docs), value=first, description="document")
        self.method_box = w.ToggleButtons(options=["structure", "fixed"], value=method)
        self.size_box = w.IntSlider(value=size, min=100, max=1500, step=50, description="size")
        self.overlap_box = w.IntSlider(value=overlap, min=0, max=300, step=10, description="overlap")
        self.out = w.HTML()
        self.widget = w.VBox([w.HBox([self.doc_box, self.method_box]), w.HBox([self.size_box, self.overlap_box]),
                              self.out])
        for box in (self.doc_box, self.method_box, self.size_box, self.overlap_box):
            box.observe(lambda _change: self.refresh(), names="value")
        self.chunks: list = []
        self.refresh()

    @property
    def doc(self):
        return self.docs[self.doc_box.value]

    def refresh(self) -> None:
        from ..rag import fixed_chunks, structure_chunks
        size, overlap = self.size_box.value, min(self.overlap_box.value, self.size_box.value - 10)
        if self.method_box.value == "fixed":
            self.chunks = fixed_chunks(self.doc, size, overlap)
        else:
            self.chunks = structure_chunks(self.doc, size, overlap)
        self.out.value = chunks_html(self.doc, self.chunks, self.max_chars)

    def html(self) -> str:
        return self.out.value

    def _repr_mimebundle_(self, **kwargs):
        data = self.widget._repr_mimebundle_(**kwargs)
        data = dict(data[0] if isinstance(data, tuple) else data)
        data["text/html"] = self.html()
        data["text/plain"] = f"ChunkViewer({self.doc_box.value!r}, {len(self.chunks)} chunks)"
        return data
