"""An on-disk embedding cache, so re-running a notebook embeds nothing it embedded before.

The key of a vector is ``sha256(model_id + NUL + text)``: change the text or the
model and the key changes, so a stale vector can never be served. Vectors are
stored per model in shard files (``<root>/<model>/<digest>.npz``); every call that
computes new vectors writes one new shard, atomically (write a temporary file,
then rename), so an interrupted run leaves no half-written cache behind.

Deliberately left out: eviction and size limits (delete the directory to reset),
locking between processes (two writers just write two shards).

    >>> from handmade_agent.rag.embedding import HashingEmbedder
    >>> import tempfile; e = CachedEmbedder(HashingEmbedder(8), tempfile.mkdtemp())
    >>> _ = e.embed(["a", "b"]); _ = e.embed(["a"]); (e.misses, e.hits)
    (2, 1)
"""
from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Sequence

import numpy as np

ENV_CACHE = "HANDMADE_AGENT_EMBED_CACHE"
MAX_SHARDS = 32


def default_cache_dir() -> Path:
    """``$HANDMADE_AGENT_EMBED_CACHE``, else ``~/.cache/handmade-agent/embeddings``."""
    env = os.environ.get(ENV_CACHE)
    return Path(env) if env else Path.home() / ".cache" / "handmade-agent" / "embeddings"


def text_key(model_id: str, text: str) -> str:
    # surrogatepass: a lone surrogate in a text must give a key, not a UnicodeEncodeError
    return hashlib.sha256(f"{model_id}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()


class EmbeddingCache:
    """Vectors of one model, keyed by content hash, persisted as shard files."""

    def __init__(self, model_id: str, root: str | os.PathLike | None = None):
        self.model_id = model_id
        slug = re.sub(r"[^A-Za-z0-9._-]+", "_", model_id).strip("_")[:80] or "model"
        self.dir = Path(root) if root is not None else default_cache_dir()
        self.dir = self.dir / f"{slug}-{hashlib.sha256(model_id.encode()).hexdigest()[:8]}"
        self._vectors: dict[str, np.ndarray] | None = None

    def _load(self) -> dict[str, np.ndarray]:
        if self._vectors is None:
            self._vectors = {}
            for shard in sorted(self.dir.glob("*.npz")):
                try:
                    with np.load(shard) as z:
                        self._vectors.update(zip(z["keys"].tolist(), z["vectors"]))
                except (OSError, ValueError, KeyError):
                    continue  # a damaged shard only costs a re-embed
        return self._vectors

    def __len__(self) -> int:
        return len(self._load())

    def get(self, key: str) -> np.ndarray | None:
        return self._load().get(key)

    def put_many(self, keys: list[str], vectors: np.ndarray) -> None:
        if not keys:
            return
        self._load().update(zip(keys, vectors))
        self._write(keys, vectors)
        shards = sorted(self.dir.glob("*.npz"))
        if len(shards) > MAX_SHARDS:  # many small writes (one query each): merge them into one shard
            everything = self._load()
            merged = self._write(list(everything), np.stack(list(everything.values())))
            for s in shards:
                if s != merged:
                    s.unlink(missing_ok=True)

    def _write(self, keys: list[str], vectors) -> Path:
        self.dir.mkdir(parents=True, exist_ok=True)
        name = hashlib.sha256("".join(keys).encode()).hexdigest()[:16]
        tmp = self.dir / f".{name}.{os.getpid()}.tmp.npz"
        np.savez(tmp, keys=np.array(keys), vectors=np.asarray(vectors, dtype=np.float32))
        os.replace(tmp, self.dir / f"{name}.npz")
        return self.dir / f"{name}.npz"


class CachedEmbedder:
    """Wraps an embedder; only texts never seen by this model (on this disk) reach it.

    ``hits`` and ``misses`` count texts since creation (``reset_stats()`` zeroes them).
    """

    def __init__(self, embedder, cache_dir: str | os.PathLike | None = None):
        self.inner = embedder
        self.model_id = embedder.model_id
        self.cache = EmbeddingCache(self.model_id, cache_dir)
        self.hits = self.misses = 0

    @property
    def dim(self) -> int:
        cached = next(iter(self.cache._load().values()), None)  # answer without loading the model if we can
        return int(cached.shape[0]) if cached is not None else self.inner.dim

    def coverage(self, text: str) -> float:
        fn = getattr(self.inner, "coverage", None)
        return 1.0 if fn is None else fn(text)

    def reset_stats(self) -> None:
        self.hits = self.misses = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [text_key(self.model_id, t) for t in texts]
        found = [self.cache.get(k) for k in keys]
        first: dict[str, int] = {}
        for i, (k, v) in enumerate(zip(keys, found)):
            if v is None:
                first.setdefault(k, i)  # a text repeated in one call is embedded once
        todo = list(first.values())
        if todo:
            new = self.inner.embed([texts[i] for i in todo])
            self.cache.put_many([keys[i] for i in todo], new)
            for i, v in zip(todo, new):
                found[i] = v
        for i, k in enumerate(keys):  # duplicates of a freshly embedded text
            if found[i] is None:
                found[i] = self.cache.get(k)
        self.misses += len(todo)
        self.hits += len(texts) - len(todo)
        return np.vstack(found).astype(np.float32) if found else np.zeros((0, self.dim), np.float32)

    def __repr__(self) -> str:
        return f"CachedEmbedder({self.inner!r})"
