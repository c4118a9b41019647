"""``Hit``: one retrieved chunk with the score and rank of every stage that placed it.

A hit keeps the dense cosine, the BM25 score, the fused score and the rerank score it has,
each with its rank (1 = best; ``None`` when BM25 found no term), so a panel or a test can
show *why* a chunk is where it is. ``to_dict`` is the JSON form the widgets and logs use.

Deliberately left out: the query (a hit belongs to one search; the caller has the query).

    >>> from handmade_agent.rag.chunking import Chunk
    >>> Hit(Chunk("a:1", "a", "pump pressure"), 0.5, "bm25").to_dict()["id"]
    'a:1'
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .chunking import Chunk


@dataclass
class Hit:
    """One retrieved chunk, its final score, and each stage's score and rank (1 = best)."""
    chunk: Chunk
    score: float
    method: str
    scores: dict[str, float] = field(default_factory=dict)
    ranks: dict[str, int | None] = field(default_factory=dict)
    matched: list[str] = field(default_factory=list)  # query terms found in the chunk

    @property
    def id(self) -> str:
        return self.chunk.id

    @property
    def text(self) -> str:
        return self.chunk.text

    def to_dict(self) -> dict:
        return {"id": self.id, "score": round(self.score, 4), "method": self.method,
                "scores": {k: round(v, 4) for k, v in self.scores.items()}, "ranks": dict(self.ranks),
                "heading_path": self.chunk.heading_path, "text": self.text}
