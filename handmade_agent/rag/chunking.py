"""Cut documents into chunks: structure-aware (the one we use) and fixed-size (the baseline).

Structure-aware: every heading starts a new chunk; inside a section whole
paragraphs are packed up to ``max_chars``; a paragraph that is too long is cut
into sentences (English ``.!?`` and Chinese ``。！？；``), and a sentence that is
still too long is cut by characters. Consecutive chunks of one section share
``overlap`` characters of whole sentences, so a fact on a boundary is whole in
at least one chunk. Each chunk keeps its heading path and passage id.

A markdown table is a unit of its own: each body row becomes one chunk whose
``table_header`` is the table's header row, and ``search_text`` puts the section
title and the header before the row — so "arm load" finds ``| Arm payload | 350 g |``
with the words that say what 350 g is. The prose of the section is chunked as above.

Fixed-size: windows of ``size`` characters every ``size - overlap``, blind to
structure. Every chunk's ``text`` is ``doc.text[start:end]``, so a viewer can
draw the boundaries on the document.

Deliberately left out: token-based sizes (characters are model-independent),
semantic chunking, tables in fixed-size chunks (the baseline stays blind),
tables without a header separator line.

    >>> from handmade_agent.rag.documents import parse_document
    >>> [c.id for c in structure_chunks(parse_document("x1", "# X1\\n## Power {#power}\\n220 V.\\n"))]
    ['x1#power:1']
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .documents import Document, Section
from .tables import table_rows

SENTENCE_END = re.compile(r"(?<=[。！？；!?;])|(?<=[.])(?=\s)|\n")
PARAGRAPH_BREAK = re.compile(r"\n\s*\n")


@dataclass
class Chunk:
    """A piece of a document, the unit we embed, index and cite."""
    id: str                    # "<passage_id>:<n>", unique across a knowledge base of one language
    doc_id: str
    text: str                  # exactly doc.text[start:end]
    start: int = 0
    end: int = -1              # -1: start + len(text) (a chunk made by hand)
    lang: str = "en"
    heading_path: list[str] = field(default_factory=list)
    passage_ids: list[str] = field(default_factory=list)  # passages this chunk holds (for evaluation)
    table_header: str = ""     # a table row's header row ("" for prose)

    def __post_init__(self) -> None:
        if self.end < 0:
            self.end = self.start + len(self.text)

    @property
    def passage_id(self) -> str:
        return self.passage_ids[0] if self.passage_ids else self.doc_id

    @property
    def search_text(self) -> str:
        """What we embed and count: the heading path gives a short chunk its topic, a header its columns."""
        body = f"{self.table_header}\n{self.text}" if self.table_header else self.text
        return " > ".join(self.heading_path) + "\n" + body if self.heading_path else body

    @property
    def display_text(self) -> str:
        """What a reader (or the model) is shown: the text, after the header for a table row."""
        return f"{self.table_header}\n{self.text}" if self.table_header else self.text

    def meta(self) -> dict:
        return {"id": self.id, "doc_id": self.doc_id, "lang": self.lang, "passage_id": self.passage_id}


def split_sentences(text: str) -> list[str]:
    """Split after sentence punctuation (and at line ends); pieces concatenate back to ``text``."""
    parts, last = [], 0
    for m in SENTENCE_END.finditer(text):
        cut = m.end() if m.group() == "\n" else m.start()
        if cut > last:
            parts.append(text[last:cut])
            last = cut
    if last < len(text):
        parts.append(text[last:])
    return parts


def _paragraphs(text: str):
    """(start, end) of each paragraph, i.e. of the text between blank lines."""
    last = 0
    for m in PARAGRAPH_BREAK.finditer(text):
        yield last, m.start()
        last = m.end()
    yield last, len(text)


def _pieces(doc: Document, sec: Section, max_chars: int, rows: list | None = None) -> list[tuple[int, int]]:
    """(start, end) spans of units no longer than max_chars: paragraphs, else sentences, else slices.

    Table paragraphs are left out of the spans; their rows go to ``rows`` as (start, end, header).
    """
    body, base, spans = doc.text[sec.body_start:sec.end], sec.body_start, []
    for i, j in _paragraphs(body):
        para = body[i:j]
        if not para.strip():
            continue
        table = table_rows(para) if rows is not None else None
        if table is not None:
            rows.extend((base + i + a, base + i + b, table[0]) for a, b in table[1])
            continue
        for u in [para] if len(para) <= max_chars else split_sentences(para):
            for k in range(0, len(u), max_chars):  # a sentence longer than the limit: cut it by characters
                spans.append((base + i + k, base + i + min(k + max_chars, len(u))))
            i += len(u)
    return spans


def _trim(doc: Document, start: int, end: int) -> tuple[int, int]:
    text = doc.text[start:end]
    return start + len(text) - len(text.lstrip()), end - (len(text) - len(text.rstrip()))


def structure_chunks(doc: Document, max_chars: int = 600, overlap: int = 80, tables: bool = True) -> list[Chunk]:
    """Chunks that follow headings, paragraphs and sentences, at most ``max_chars`` each.

    ``tables=True``: one chunk per table row (with its header); ``False``: tables are plain paragraphs.
    """
    if overlap >= max_chars:
        raise ValueError(f"overlap ({overlap}) must be smaller than max_chars ({max_chars}).")
    chunks: list[Chunk] = []
    for sec in doc.sections:
        rows: list | None = [] if tables else None
        spans = [_trim(doc, a, b) for a, b in _pieces(doc, sec, max_chars, rows)]
        spans = [(a, b) for a, b in spans if b > a]
        groups: list[list[tuple[int, int]]] = []
        cur: list[tuple[int, int]] = []
        for span in spans:
            if cur and span[1] - cur[0][0] > max_chars:
                groups.append(cur)
                # carry whole trailing units into the next chunk while they fit in the overlap
                tail = []
                for u in reversed(cur):
                    if span[0] - u[0] > overlap or span[1] - u[0] > max_chars:
                        break
                    tail.insert(0, u)
                cur = tail
            cur.append(span)
        if cur:
            groups.append(cur)
        for n, g in enumerate(groups, 1):
            start, end = g[0][0], g[-1][1]
            chunks.append(Chunk(f"{sec.passage_id}:{n}", doc.doc_id, doc.text[start:end], start, end,
                                doc.lang, list(sec.heading_path), [sec.passage_id]))
        for n, (start, end, header) in enumerate(rows or [], len(groups) + 1):
            chunks.append(Chunk(f"{sec.passage_id}:{n}", doc.doc_id, doc.text[start:end], start, end,
                                doc.lang, list(sec.heading_path), [sec.passage_id], header))
    return chunks


def fixed_chunks(doc: Document, size: int = 600, overlap: int = 80) -> list[Chunk]:
    """Windows of ``size`` characters, ``overlap`` shared; the baseline that ignores structure."""
    if overlap >= size:
        raise ValueError(f"overlap ({overlap}) must be smaller than size ({size}).")
    chunks, step = [], size - overlap
    for n, start in enumerate(range(0, max(1, len(doc.text) - overlap), step), 1):
        end = min(start + size, len(doc.text))
        sec = doc.section_at(start)
        chunks.append(Chunk(f"{doc.doc_id}@{n}", doc.doc_id, doc.text[start:end], start, end, doc.lang,
                            list(sec.heading_path), covered_passages(doc, start, end)))
    return chunks


def covered_passages(doc: Document, start: int, end: int) -> list[str]:
    """Passages of which this span holds at least half, or which make up at least half of the span."""
    out = []
    for s in doc.sections:
        body = s.end - s.body_start
        shared = min(end, s.end) - max(start, s.body_start)
        if body > 0 and shared > 0 and (shared * 2 >= body or shared * 2 >= end - start):
            out.append(s.passage_id)
    return out


def chunk_documents(docs: list[Document], method: str = "structure", **kw) -> list[Chunk]:
    """Chunk every document with ``method`` = "structure" or "fixed"."""
    fn = {"structure": structure_chunks, "fixed": fixed_chunks}.get(method)
    if fn is None:
        raise ValueError(f"Unknown chunking method {method!r}; use 'structure' or 'fixed'.")
    return [c for d in docs for c in fn(d, **kw)]
