"""Combine two rankings into one: reciprocal rank fusion and a weighted blend of scores.

Dense cosines (about -1..1) and BM25 scores (0..20 or more) live on different
scales, so adding them raw lets BM25 decide alone. Two fixes:

- **RRF** ignores scores and uses ranks: ``sum w / (k + rank)`` over the lists
  an item appears in (weight ``w`` = 1 unless given). ``k = 60`` is the usual
  constant; it keeps one list's #1 from outweighing agreement between lists.
- **Blend** min-max normalizes each list's scores to 0..1 over the candidates,
  then ``alpha * dense + (1 - alpha) * sparse``.

Deliberately left out: learned fusion weights, more than two lists with weights.

    >>> {i: round(s, 4) for i, s in rrf([["a", "b"], ["b", "c"]]).items()}
    {'b': 0.0325, 'a': 0.0164, 'c': 0.0161}
"""
from __future__ import annotations

from typing import Hashable, Mapping, Sequence


def rrf(rankings: Sequence[Sequence[Hashable]], k: int = 60, weights: Sequence[float] | None = None) -> dict:
    """(Weighted) reciprocal rank fusion of ranked lists, best first (ties keep first-seen order)."""
    fused: dict = {}
    for ranking, w in zip(rankings, weights or [1.0] * len(rankings)):
        for rank, item in enumerate(ranking, 1):
            fused[item] = fused.get(item, 0.0) + w / (k + rank)
    return dict(sorted(fused.items(), key=lambda kv: -kv[1]))


def minmax(scores: Mapping[Hashable, float]) -> dict:
    """Rescale to 0..1; all-equal scores all become 1.0 (they are equally good)."""
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    return {i: (1.0 if hi == lo else (s - lo) / (hi - lo)) for i, s in scores.items()}


def blend(dense: Mapping[Hashable, float], sparse: Mapping[Hashable, float], alpha: float = 0.5) -> dict:
    """``alpha * minmax(dense) + (1 - alpha) * minmax(sparse)`` over the union; missing counts as 0."""
    d, s = minmax(dense), minmax(sparse)
    fused = {i: alpha * d.get(i, 0.0) + (1 - alpha) * s.get(i, 0.0) for i in {**d, **s}}
    return dict(sorted(fused.items(), key=lambda kv: -kv[1]))
