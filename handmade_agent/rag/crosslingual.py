"""Cross-lingual hubness correction: let a chunk of another language through when it says something new.

In a knowledge base written in two languages many facts are in both (the specification table in
English and in Chinese). A multilingual embedder puts a chunk next to its translation, so such a
chunk sits close to many chunks of the other language: a cross-lingual *hub*. A Chinese question
over the whole base then finds English hubs, whose content it also has in Chinese, ahead of the
English chunk holding a fact that is written only in English.

The correction is the one CSLS (cross-domain similarity local scaling) makes for word translation.
``hub(d, L)`` is the mean cosine of chunk ``d`` to its ``k`` nearest chunks in language ``L``,
centred over the chunks of ``d``'s language, so the average chunk gets 0 and no language as a
whole moves up or down. A query in language ``L`` scores a chunk of another language by
``cosine - beta * hub(d, L)`` and a chunk in ``L`` by its plain cosine: a search within one
language, and every search of a one-language knowledge base, is unchanged.

The query's language is the one whose chunks' vocabulary holds most of the query's terms; a tie
(a bare code such as "E-17", found in both) means no correction.

Measured (benchmarks/rag.py, USE, table rows as chunks, beta 0.2, k 10): cross-lingual recall@5
0.769 → 0.827 over 26 questions, with the whole-base searches of same-language questions no worse.
It helps where translations are tight pairs, as parallel table rows are: with tables kept as
prose, or fixed-size chunks, it gained nothing (one question fewer), so it is no general cure.

Deliberately left out: a language detector (the vocabulary is the one the knowledge base uses),
approximate neighbours (``k``-NN is exact, one matrix block at a time), hubness within a language.

    >>> import numpy as np
    >>> v = np.array([[1, 0, 0], [0, 1, 0], [0.98, 0.2, 0], [0.5, 0, 0.87]])  # en, en, zh copy of en 0, zh only
    >>> cl = CrossLingual(v, ["en", "en", "zh", "zh"], [["pump"], ["fan"], ["水泵"], ["保修"]], k=1)
    >>> q = np.array([0.9, 0.1, 0.42])
    >>> cl.language(["pump"]), (v @ q).round(2).tolist(), cl.adjust(v @ q, ["pump"], 0.5).round(2).tolist()
    ('en', [0.9, 0.1, 0.9, 0.82], [0.9, 0.1, 0.78, 0.94])
"""
from __future__ import annotations

from typing import Sequence

import numpy as np


def hubness(vectors: np.ndarray, langs: Sequence[str], k: int = 10, block: int = 1024) -> dict[str, np.ndarray]:
    """Language L → per chunk, its centred mean cosine to its k nearest chunks in L (0 for chunks in L)."""
    v, langs = np.asarray(vectors, dtype=np.float32), np.asarray(langs)
    out = {}
    for lang in dict.fromkeys(langs.tolist()):
        target = v[langs == lang]
        kk = min(k, len(target))
        h = np.zeros(len(v))
        others = np.flatnonzero(langs != lang)
        for start in range(0, len(others), block):
            rows = others[start:start + block]
            sims = v[rows] @ target.T
            h[rows] = np.partition(sims, -kk, axis=1)[:, -kk:].mean(axis=1)  # mean of the k largest
        for other in set(langs.tolist()) - {lang}:
            mine = langs == other
            h[mine] -= h[mine].mean()
        out[lang] = h
    return out


def query_language(query_terms: Sequence[str], vocab: dict[str, set]) -> str | None:
    """The language whose vocabulary holds most of the distinct query terms; None on a tie or no match."""
    q = set(query_terms)
    counts = {lang: len(q & words) for lang, words in vocab.items()}
    best = max(counts.values(), default=0)
    winners = [lang for lang, n in counts.items() if n == best]
    return winners[0] if best > 0 and len(winners) == 1 else None


class CrossLingual:
    """Per-language vocabularies and hubness of a set of chunk vectors; ``adjust`` corrects dense scores."""

    def __init__(self, vectors: np.ndarray, langs: Sequence[str], doc_terms: Sequence[Sequence[str]], k: int = 10):
        self.k = k
        self.vocab: dict[str, set] = {}
        for lang, words in zip(langs, doc_terms):
            self.vocab.setdefault(lang, set()).update(words)
        self.hub = hubness(vectors, langs, k) if len(self.vocab) > 1 else {}

    def language(self, query_terms: Sequence[str]) -> str | None:
        return query_language(query_terms, self.vocab) if self.hub else None

    def adjust(self, scores: np.ndarray, query_terms: Sequence[str], beta: float) -> np.ndarray:
        """``scores - beta * hub(d, L)`` for chunks not in the query's language L; the rest unchanged."""
        lang = self.language(query_terms)
        if lang is None or not beta:
            return scores
        return scores - beta * self.hub[lang]
