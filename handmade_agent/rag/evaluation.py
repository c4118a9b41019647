"""Retrieval metrics over a labelled eval set: recall@k, MRR and nDCG@k.

A question is labelled with the passages (``doc_id#anchor``) that answer it.
A retrieved chunk *covers* a passage if the passage is among its
``passage_ids``; each relevant passage counts once, at the rank of the first
chunk that covers it, so five chunks of one passage do not score five times.

- recall@k: share of the relevant passages covered by the top k chunks;
- reciprocal rank: 1 / rank of the first chunk covering a relevant passage
  within the top k (0 if none); its mean over questions is MRR;
- nDCG@k: rank-discounted gain (1 / log2(rank + 1)) of newly covered relevant
  passages, divided by the gain of the ideal ranking.

Deliberately left out: graded relevance, answer-level (generation) metrics.

    >>> recall_at_k([["x"], ["a#b"]], {"a#b"}, k=1), reciprocal_rank([["x"], ["a#b"]], {"a#b"})
    (0.0, 0.5)
"""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from .documents import EvalItem

Ranked = Sequence[Sequence[str]]  # per retrieved chunk, the passage ids it covers


def _first_ranks(ranked: Ranked, relevant: set[str], k: int | None = None) -> dict[str, int]:
    """Relevant passage → 1-based rank of the first chunk covering it (within the top k)."""
    seen: dict[str, int] = {}
    for rank, pids in enumerate(ranked[:k] if k else ranked, 1):
        for p in pids:
            if p in relevant and p not in seen:
                seen[p] = rank
    return seen


def recall_at_k(ranked: Ranked, relevant: set[str], k: int) -> float:
    return len(_first_ranks(ranked, relevant, k)) / len(relevant) if relevant else 0.0


def reciprocal_rank(ranked: Ranked, relevant: set[str]) -> float:
    ranks = _first_ranks(ranked, relevant)
    return 1.0 / min(ranks.values()) if ranks else 0.0


def ndcg_at_k(ranked: Ranked, relevant: set[str], k: int) -> float:
    gain = defaultdict(float)
    for rank in _first_ranks(ranked, relevant, k).values():
        gain[rank] += 1.0  # two relevant passages in one chunk both count at that rank
    dcg = sum(g / math.log2(r + 1) for r, g in gain.items())
    ideal = sum(1.0 / math.log2(r + 1) for r in range(1, min(len(relevant), k) + 1))
    return dcg / ideal if ideal else 0.0


@dataclass
class EvalRow:
    qid: str
    lang: str
    kind: str
    recall: float
    rr: float
    ndcg: float
    retrieved: list[str] = field(default_factory=list)  # chunk ids, best first


@dataclass
class EvalReport:
    """Per-question rows plus means by any grouping."""
    k: int
    rows: list[EvalRow]

    def mean(self, lang: str | None = None, kind: str | None = None) -> dict[str, float]:
        rows = [r for r in self.rows if (lang is None or r.lang == lang) and (kind is None or r.kind == kind)]
        n = len(rows) or 1
        return {"n": len(rows), f"recall@{self.k}": sum(r.recall for r in rows) / n,
                "mrr": sum(r.rr for r in rows) / n, f"ndcg@{self.k}": sum(r.ndcg for r in rows) / n}

    def misses(self) -> list[EvalRow]:
        """Questions where no relevant passage made the top k."""
        return [r for r in self.rows if r.recall == 0]


def evaluate(search: Callable[[str], list], items: Iterable[EvalItem], k: int = 5) -> EvalReport:
    """Run ``search(question) -> hits`` (best first) for each item and score the top k.

    A hit is anything with ``.chunk.passage_ids`` and ``.id`` (a ``Hit``) or a ``Chunk``.
    """
    rows = []
    for it in items:
        hits = list(search(it.question))
        chunks = [getattr(h, "chunk", h) for h in hits]
        ranked = [list(c.passage_ids) for c in chunks]
        rel = set(it.relevant)
        rows.append(EvalRow(it.qid, it.lang, it.kind, recall_at_k(ranked, rel, k), reciprocal_rank(ranked[:k], rel),
                            ndcg_at_k(ranked, rel, k), [c.id for c in chunks[:k]]))
    return EvalReport(k, rows)


def evaluate_retriever(retriever, items: Iterable[EvalItem], method: str = "hybrid", k: int = 5,
                       same_language: bool = True) -> EvalReport:
    """``evaluate`` a ``Retriever`` method; ``same_language`` searches only chunks in the question's language.

    A cross-lingual item (its answer is in the other language's documents) always searches everything,
    as a user's question would: restricting it to the answer's language would hand it the answer.
    """
    items = list(items)
    by_question = {it.question: it for it in items}

    def search(q: str) -> list:
        it = by_question[q]
        where = {"lang": it.lang} if same_language and not getattr(it, "cross_lingual", False) else None
        return retriever.search(q, k=k, method=method, where=where)
    return evaluate(search, items, k)


def table(reports: dict[str, EvalReport], langs: Sequence[str] = ("en", "zh"), digits: int = 3,
          kind: str | None = None) -> str:
    """A markdown table: one row per report, recall@k and MRR per language (of one ``kind`` if given)."""
    k = next(iter(reports.values())).k if reports else 5
    head = "| method | " + " | ".join(f"{l} recall@{k} | {l} MRR" for l in langs) + " |"
    rows = [head, "|---" * (1 + 2 * len(langs)) + "|"]
    for name, rep in reports.items():
        cells = []
        for l in langs:
            m = rep.mean(l, kind)
            cells += [f"{m[f'recall@{k}']:.{digits}f}", f"{m['mrr']:.{digits}f}"]
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(rows)
