"""BM25: score documents by the query terms they contain, weighted by rarity and tamed by length.

For each query term t in document d (tf = count of t in d, |d| = its length):

    idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * |d| / avgdl))

``k1`` makes repeated terms saturate; ``b`` discounts long documents. Two idf
variants: ``"lucene"`` (default) ``ln(1 + (N - n + 0.5) / (n + 0.5))``, never
negative; ``"okapi"`` ``ln((N - n + 0.5) / (n + 0.5))`` with negative values
raised to ``epsilon`` times the mean idf — the formula of ``rank_bm25.BM25Okapi``,
kept so the tests can check this implementation against it number for number.
Postings (term → documents, counts) make a query cost only its terms' lists.

Deliberately left out: field weights, phrase queries, incremental updates.

    >>> bm = BM25([["red", "pump"], ["blue", "valve"], ["green", "fan"]])
    >>> [i for i, _ in bm.search(["pump"], k=1)]
    [0]
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Sequence

import numpy as np

from .index import top_k


class BM25:
    """A BM25 index over pre-tokenized documents (see ``terms.terms`` for the tokenizer we use)."""

    def __init__(self, docs: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75,
                 idf: str = "lucene", epsilon: float = 0.25):
        if idf not in ("lucene", "okapi"):
            raise ValueError(f"Unknown idf variant {idf!r}; use 'lucene' or 'okapi'.")
        self.k1, self.b, self.variant, self.epsilon = k1, b, idf, epsilon
        self.n_docs = len(docs)
        self.doc_len = np.array([len(d) for d in docs], dtype=np.float64)
        self.avgdl = float(self.doc_len.mean()) if self.n_docs and self.doc_len.sum() else 1.0
        postings: dict[str, tuple[list[int], list[int]]] = {}
        for i, d in enumerate(docs):
            for t, tf in Counter(d).items():
                ids, tfs = postings.setdefault(t, ([], []))
                ids.append(i)
                tfs.append(tf)
        self.postings = {t: (np.array(ids), np.array(tfs, dtype=np.float64)) for t, (ids, tfs) in postings.items()}
        self.idf = self._idf({t: len(ids) for t, (ids, _) in self.postings.items()})
        # the length part of the denominator is per document, so compute it once
        self._norm = k1 * (1 - b + b * self.doc_len / self.avgdl)

    def _idf(self, df: dict[str, int]) -> dict[str, float]:
        N = self.n_docs
        if self.variant == "lucene":
            return {t: math.log(1 + (N - n + 0.5) / (n + 0.5)) for t, n in df.items()}
        raw = {t: math.log(N - n + 0.5) - math.log(n + 0.5) for t, n in df.items()}
        floor = self.epsilon * (sum(raw.values()) / len(raw)) if raw else 0.0
        return {t: (floor if v < 0 else v) for t, v in raw.items()}

    def scores(self, query: Sequence[str]) -> np.ndarray:
        """Score of every document; a term repeated in the query counts each time."""
        out = np.zeros(self.n_docs)
        for t in query:
            if t not in self.postings:
                continue
            ids, tf = self.postings[t]
            out[ids] += self.idf[t] * tf * (self.k1 + 1) / (tf + self._norm[ids])
        return out

    def search(self, query: Sequence[str], k: int = 5, mask: np.ndarray | None = None) -> list[tuple[int, float]]:
        """The k best documents with a positive score (that pass ``mask``), as (index, score)."""
        s = self.scores(query)
        if mask is not None:
            s = np.where(mask, s, 0.0)
        k = min(k, int((s > 0).sum()))
        return [(int(i), float(s[i])) for i in top_k(s, k)]

    def matched(self, query: Sequence[str], doc: Sequence[str]) -> list[str]:
        """Query terms that occur in ``doc`` (what a panel highlights)."""
        have = set(doc)
        return [t for t in dict.fromkeys(query) if t in have]
