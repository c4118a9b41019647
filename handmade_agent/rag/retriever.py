"""The retriever: dense, BM25, hybrid (RRF or blend) and reranked search over chunks.

``Retriever(chunks, embedder)`` embeds the chunks into a ``VectorIndex`` and
builds a ``BM25`` index over their terms. ``search(query, k, method=...)``
returns ``Hit``s; every hit carries the score and rank of each stage it can
have — the dense cosine, the BM25 score, the fused score, the rerank score —
so you can see *why* it is where it is, not just where.

Methods: ``"dense"``, ``"bm25"``, ``"rrf"`` (reciprocal rank fusion of the top
``candidates`` of both), ``"blend"`` (weighted sum of min-max scores),
``"hybrid"`` (whichever of the two ``fusion`` names; blend by default) and
``"rerank"`` (hybrid, then the reranker reorders the top ``rerank_top``).

Fusion trusts the dense side in proportion to the embedder's ``coverage`` of the
query (``adaptive=True``): an English model that sees a Chinese query as mostly
``[UNK]`` tokens gets a small weight, so its noise cannot drown BM25's bigrams.
``code_weight`` < 1 lowers it further for a query naming a code or part number
(E-17, QF-F120): exact tokens are BM25's strength, and to an embedder "E-17" and
"E-71" look nearly the same.

``hubness`` > 0 (the agent's default; see ``crosslingual``) lowers the dense score of a chunk in
another language by how close it sits to many chunks of the query's language, so a fact written
only in that language is not crowded out by translations of what the query's language already
says. A ``Hit``'s ``dense`` score is then the corrected cosine.

A query with no letter or digit (emoji, punctuation, NUL bytes, blanks) finds nothing:
``search`` returns ``[]`` rather than the chunks nearest to noise.

Deliberately left out: query rewriting, multi-vector documents, incremental adds (the
cross-lingual correction is computed once, at the first search that needs it).

    >>> from handmade_agent.rag.chunking import Chunk
    >>> from handmade_agent.rag.embedding import HashingEmbedder
    >>> r = Retriever([Chunk("a:1", "a", "pump pressure"), Chunk("b:1", "b", "fan noise")], HashingEmbedder(64))
    >>> [h.id for h in r.search("fan", k=1, method="bm25")]
    ['b:1']
"""
from __future__ import annotations

import re
import time
from typing import Sequence

import numpy as np

from .bm25 import BM25
from .chunking import Chunk
from .crosslingual import CrossLingual
from .fusion import blend, rrf
from .hits import Hit
from .index import VectorIndex, Where, matches, top_k
from .terms import terms

SEARCHABLE = re.compile(r"[^\W_]")  # a letter or digit in any script
CODE = re.compile(r"\b[A-Z]{1,3}-[A-Z]?\d+\b")  # fault codes and part numbers: E-17, W-05, QF-F120
METHODS = ("dense", "bm25", "rrf", "blend", "hybrid", "rerank")


class Retriever:
    """Search a list of chunks by meaning, by words, or both."""

    def __init__(self, chunks: Sequence[Chunk], embedder=None, *, reranker=None, fusion: str = "blend",
                 alpha: float = 0.5, rrf_k: int = 60, candidates: int = 10, adaptive: bool = True,
                 rerank_top: int = 5, k1: float = 1.5, b: float = 0.75, code_weight: float = 1.0,
                 hubness: float = 0.0, hub_k: int = 10):
        if fusion not in ("rrf", "blend"):
            raise ValueError(f"Unknown fusion {fusion!r}; use 'rrf' or 'blend'.")
        ids = [c.id for c in chunks]
        if len(set(ids)) != len(ids):
            dup = next(i for i in ids if ids.count(i) > 1)
            raise ValueError(f"Chunk id {dup!r} occurs twice; ids must be unique (one language per "
                             "retriever, or give the chunks distinct ids).")
        self.chunks, self.embedder, self.reranker = list(chunks), embedder, reranker
        self.fusion, self.alpha, self.rrf_k, self.adaptive = fusion, alpha, rrf_k, adaptive
        self.candidates, self.rerank_top, self.code_weight = candidates, rerank_top, code_weight
        self.hubness, self.hub_k, self._cross = hubness, hub_k, None
        self.timings: dict[str, float] = {}
        t0 = time.perf_counter()
        self.doc_terms = [terms(c.search_text) for c in self.chunks]
        self.bm25 = BM25(self.doc_terms, k1=k1, b=b)
        self.timings["bm25"] = time.perf_counter() - t0
        self.index = None
        if embedder is not None:
            t0 = time.perf_counter()
            vectors = embedder.embed([c.search_text for c in self.chunks])
            self.index = VectorIndex(vectors.shape[1], embedder.model_id)  # dim from the vectors: no model load
            self.index.add(vectors, [c.meta() for c in self.chunks])
            self.timings["embed"] = time.perf_counter() - t0

    def __len__(self) -> int:
        return len(self.chunks)

    def _mask(self, where: Where) -> np.ndarray:
        return np.array([matches(c.meta(), where) for c in self.chunks], dtype=bool)

    def _dense(self, query: str) -> np.ndarray:
        if self.index is None:
            raise ValueError("This retriever has no embedder, so only method='bm25' works. "
                             "Pass an embedder (e.g. SentenceTransformerEmbedder()) to use dense search.")
        scores = self.index.scores(self.embedder.embed([query])[0])
        return self.crosslingual.adjust(scores, terms(query), self.hubness) if self.hubness else scores

    @property
    def crosslingual(self) -> CrossLingual:
        """Vocabulary and hubness per language of the chunks, built on first use (``hub_k`` neighbours)."""
        if self._cross is None or self._cross.k != self.hub_k:
            self._cross = CrossLingual(self.index.vectors, [c.lang for c in self.chunks], self.doc_terms, self.hub_k)
        return self._cross

    def dense_trust(self, query: str) -> float:
        """Weight of the dense side in fusion: the embedder's coverage of the query (1.0 if not adaptive)."""
        fn = getattr(self.embedder, "coverage", None)
        trust = float(fn(query)) if (self.adaptive and fn is not None) else 1.0
        return trust * self.code_weight if self.adaptive and CODE.search(query) else trust

    def search(self, query: str, k: int = 5, method: str = "hybrid", where: Where = None) -> list[Hit]:
        """The k best chunks for ``query`` by ``method`` (see METHODS), restricted by ``where``."""
        if method not in METHODS:
            raise ValueError(f"Unknown method {method!r}; use one of {', '.join(METHODS)}.")
        if not SEARCHABLE.search(query or ""):
            # emoji, punctuation, NUL or nothing: no term can match, and the nearest vectors to noise are
            # noise a model would take as relevant. The minimum for a hit is one letter or digit to match.
            return []
        name = self.fusion if method in ("hybrid", "rerank") else method
        mask = self._mask(where)
        q_terms = terms(query)
        sparse = np.where(mask, self.bm25.scores(q_terms), 0.0)
        no_dense = name == "bm25" and self.index is None  # BM25 alone needs no embedder
        dense = None if no_dense else np.where(mask, self._dense(query), -np.inf)
        n = max(k, self.candidates, self.rerank_top if method == "rerank" else 0)
        sparse_ids = [int(i) for i in top_k(sparse, min(n, int((sparse > 0).sum())))]
        stage: dict[int, float]
        if name == "bm25":
            stage = {i: float(sparse[i]) for i in sparse_ids}
        else:
            dense_ids = [int(i) for i in top_k(dense, min(n, int(mask.sum())))]
            trust = self.dense_trust(query) if name in ("blend", "rrf") else 1.0
            if name == "dense":
                stage = {i: float(dense[i]) for i in dense_ids}
            elif name == "blend":
                stage = blend({i: float(dense[i]) for i in dense_ids}, {i: float(sparse[i]) for i in sparse_ids},
                              self.alpha * trust)
            else:
                stage = rrf([dense_ids, sparse_ids], self.rrf_k, weights=[trust, 1.0])
        order = sorted(stage, key=lambda i: -stage[i])[: n if method == "rerank" else k]
        hits = []
        for rank, i in enumerate(order, 1):
            h = Hit(self.chunks[i], stage[i], name, matched=self.bm25.matched(q_terms, self.doc_terms[i]))
            if dense is not None:
                h.scores["dense"], h.ranks["dense"] = float(dense[i]), int((dense > dense[i]).sum()) + 1
            h.scores["bm25"] = float(sparse[i])
            h.ranks["bm25"] = int((sparse > sparse[i]).sum()) + 1 if sparse[i] > 0 else None
            if name not in ("dense", "bm25"):
                h.scores[name], h.ranks[name] = stage[i], rank
            hits.append(h)
        if method == "rerank":
            hits = self.rerank(query, hits)
        return hits[:k]

    def rerank(self, query: str, hits: list[Hit]) -> list[Hit]:
        """Let the reranker score the top ``rerank_top`` hits and reorder them; the rest keep their order."""
        if self.reranker is None:
            raise ValueError("method='rerank' needs a reranker: Retriever(..., reranker=LLMJudgeReranker(llm)) "
                             "or CrossEncoderReranker(model).")
        head, tail = hits[: self.rerank_top], hits[self.rerank_top:]
        judged = self.reranker.score(query, [h.chunk.search_text for h in head])
        for h, s in zip(head, judged):
            h.scores["rerank"], h.score, h.method = float(s), float(s), "rerank"
        # ties (a judge gives few distinct grades) keep the hybrid order, so reranking never shuffles randomly
        head = sorted(head, key=lambda h: -h.score)
        for r, h in enumerate(head, 1):
            h.ranks["rerank"] = r
        return head + tail
