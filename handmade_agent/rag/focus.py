"""Focus retrieved passages on the lines that answer the question: context compression by code.

The search tool shows a small model a few passages of up to 600 characters each, and the 0.5B model
copies what it reads first (a heading, an overview sentence, the wrong table row) more often than the
line that answers. ``best_lines`` keeps, from each passage, only its best ``keep`` lines, in their own
order; the passages keep the retriever's order (putting the passage with the best line first put the
answer first less often on the KB tasks: the retriever ranks better than one line). A line is a sentence of prose or a
whole table-row chunk, written as ``column: value`` pairs (``tables.row_record``), so "4.1 L" sits next
to "Tessel T4 Pro" and "350 g" next to "Arm payload". When the question names one of several value
columns better than the others ("T4 Pro" against the columns "Tessel T4" and "Tessel T4 Pro"), the row
shows only that column (``named_columns``): with both, the 0.5B model copied the first.

A line's score is its best cosine to any of the queries (the retriever's own embedder, multilingual,
so a Chinese question scores an English line) plus the share of a query's terms it holds (codes such
as "E-11" and numbers count there, where embeddings blur them). Without an embedder the term share
decides alone.

Deliberately left out: a model that extracts the answer span (one more model call per passage, ~15 s
each here), cutting inside a sentence, and any change to what the answer may cite: ``retrieved``
keeps the whole chunks, so citations and support checks see the full passage.

    >>> from handmade_agent.rag.chunking import Chunk
    >>> c = Chunk("m:1", "m", "The M1 is a desk waterer. Its hoses are 450 mm long. It ships in a box.")
    >>> best_lines([c], ["How long are the hoses?"], keep=1)[0][1]
    'Its hoses are 450 mm long.'
"""
from __future__ import annotations

from collections import Counter
from typing import Sequence

import numpy as np

from .chunking import split_sentences
from .tables import cells, row_record
from .terms import terms

TERM_WEIGHT = 0.5  # a line with every query term gains as much as a cosine of 0.5


def named_columns(names: Sequence[str], queries: Sequence[str]) -> list[int] | None:
    """The columns a row should show when its value columns are variants of one thing (their headers share
    a word: "Tessel T4", "Tessel T4 Pro") and the first query that names any names only some: the label
    column and those. A header is named by its own words ("T4 Pro"); a shorter one only where it stands
    alone ("T4 or T4 Pro" names both). None: show every column.

    >>> named_columns(["Item", "Tessel T4", "Tessel T4 Pro"], ["tank of the T4 Pro"])
    [0, 2]
    """
    own = [set(terms(n)) for n in names[1:]]
    shared = set.intersection(*own) if len(own) >= 2 else set()
    if not shared:  # different attributes ("What it is", "Price"): naming one is what is asked, not a choice
        return None
    for query in queries:
        count = Counter(terms(query))
        # times each header is named: a word every header has ("Tessel") may be left out, the others not
        full = [min((count[t] for t in o if count[t] or t not in shared), default=0) for o in own]
        alone = [f - sum(g for j, g in enumerate(full) if j != i and own[i] < own[j]) for i, f in enumerate(full)]
        keep = [i for i, a in enumerate(alone, 1) if a > 0]
        if keep:
            return None if len(keep) == len(own) else [0, *keep]
    return None


def lines_of(chunk, queries: Sequence[str] = ()) -> list[str]:
    """The units ``best_lines`` chooses among: a table-row chunk as one line of column: value pairs (only the
    columns the queries pick, see ``named_columns``), prose by sentence."""
    if getattr(chunk, "table_header", ""):
        rows = [r for r in chunk.text.split("\n") if r.strip()]
        return [" / ".join(row_record(chunk.table_header, r, named_columns(cells(chunk.table_header), queries))
                           for r in rows)]
    return [s.strip() for s in split_sentences(chunk.text) if s.strip()]


def _term_share(query_terms: list[set[str]], line: str) -> float:
    have = set(terms(line))
    return max((len(q & have) / len(q) for q in query_terms if q), default=0.0)


def best_lines(hits: Sequence, queries: Sequence[str], embedder=None, keep: int = 2) -> list[tuple[object, str]]:
    """``(hit, text)`` per hit, in the hits' order: ``text`` is the hit's ``keep`` best lines, in order."""
    queries = [q for q in queries if q and q.strip()]
    chunks = [getattr(h, "chunk", h) for h in hits]
    units = [lines_of(c, queries) for c in chunks]
    flat = [line for lines in units for line in lines]
    if not flat or not queries:
        return [(h, c.display_text) for h, c in zip(hits, chunks)]
    query_terms = [set(terms(q)) for q in queries]
    scores = np.array([TERM_WEIGHT * _term_share(query_terms, line) for line in flat])
    if embedder is not None:
        vectors = embedder.embed([*queries, *flat])
        vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        scores += (vectors[len(queries):] @ vectors[:len(queries)].T).max(axis=1)
    out, start = [], 0
    for h, c, lines in zip(hits, chunks, units):
        own = scores[start:start + len(lines)]
        start += len(lines)
        best = sorted(np.argsort(-own, kind="stable")[:keep])
        out.append((h, " ".join(lines[i] for i in best) if best else c.display_text))
    return out
