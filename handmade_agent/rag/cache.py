"""An on-disk embedding cache, so re-running a notebook embeds nothing it embedded before.

The key of a vector is ``sha256(model_id + NUL + text)``: change the text or the
model and the key changes, so a stale vector can never be served. Vectors are
stored per model in shard files (``<root>/<model>/<digest>.npz``); every call that
computes new vectors writes one new shard, atomically, so an interrupted run leaves no
half-written cache behind. Shards are not trusted (``shards.py`` says how they are read and
written): a shard that fails the checks is skipped with a warning, and its texts are embedded
again. A folder that cannot be written is one warning: the vectors are kept in memory instead.

Deliberately left out: eviction and size limits (delete the directory to reset),
locking between processes (two writers just write two shards).

    >>> from handmade_agent.rag.embedding import HashingEmbedder
    >>> import tempfile; e = CachedEmbedder(HashingEmbedder(8), tempfile.mkdtemp())
    >>> _ = e.embed(["a", "b"]); _ = e.embed(["a"]); (e.misses, e.hits)
    (2, 1)
"""
from __future__ import annotations

import hashlib
import inspect
import os
import re
import warnings
import zipfile
from pathlib import Path
from typing import Sequence

import numpy as np

from .shards import read_shard, write_shard

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
    """Vectors of one model, keyed by content hash, persisted as shard files (``dim``: the model's, if known)."""

    def __init__(self, model_id: str, root: str | os.PathLike | None = None, dim: int | None = None):
        self.model_id, self.dim = model_id, dim
        slug = re.sub(r"[^A-Za-z0-9._-]+", "_", model_id).strip("_")[:80] or "model"
        self.dir = Path(root) if root is not None else default_cache_dir()
        self.dir = self.dir / f"{slug}-{hashlib.sha256(model_id.encode()).hexdigest()[:8]}"
        self._vectors: dict[str, np.ndarray] | None = None
        self._unwritable = False  # warned once that the folder cannot be written

    def _load(self) -> dict[str, np.ndarray]:
        if self._vectors is None:
            self._vectors = {}
            for shard in self.shards():
                try:
                    keys, vectors = read_shard(shard, self.dim)
                except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as e:
                    warnings.warn(f"Ignoring embedding-cache shard {shard.name}: {e}. Its texts are embedded "
                                  "again.", stacklevel=3)
                    continue
                self.dim = vectors.shape[1]  # unknown before: the first good shard decides, the rest must agree
                self._vectors.update(zip(keys, vectors))
        return self._vectors

    def shards(self) -> list[Path]:
        """The shard files, sorted; not the hidden temporary files of a write in progress (or of a killed one)."""
        return sorted(p for p in self.dir.glob("*.npz") if not p.name.startswith("."))

    def __len__(self) -> int:
        return len(self._load())

    def get(self, key: str) -> np.ndarray | None:
        return self._load().get(key)

    def put_many(self, keys: list[str], vectors: np.ndarray) -> None:
        if not keys:
            return
        known = self._load()
        width, dropped = np.asarray(vectors).shape[-1], False
        if self.dim is not None and width != self.dim:  # the cached vectors were not this embedder's
            warnings.warn(f"Embedding cache {self.dir.name} held {self.dim}-dim vectors, the embedder gives "
                          f"{width}; the cached ones are dropped.", stacklevel=3)
            known.clear()
            dropped = True
        self.dim = width
        known.update(zip(keys, vectors))
        try:
            write_shard(self.dir, keys, vectors)
            shards = self.shards()
            if len(shards) > MAX_SHARDS or dropped:  # many small writes, or shards of another width: one shard
                merged = write_shard(self.dir, list(known), np.stack(list(known.values())))
                for s in shards:
                    if s != merged:
                        s.unlink(missing_ok=True)
        except OSError as e:  # the cache only saves time: the vectors stay in memory for this process
            if not self._unwritable:
                warnings.warn(f"Embedding cache {self.dir} cannot be written ({e.strerror or e}); vectors are kept "
                              f"in memory only. Set {ENV_CACHE} to a folder you can write to.", stacklevel=3)
            self._unwritable = True


def _known_dim(embedder) -> int | None:
    """The embedder's dimension if it is a plain number (a property may load the model: not asked)."""
    d = inspect.getattr_static(embedder, "dim", None)
    return d if isinstance(d, int) and not isinstance(d, bool) else None


class CachedEmbedder:
    """Wraps an embedder; only texts never seen by this model (on this disk) reach it.

    ``hits`` and ``misses`` count texts since creation (``reset_stats()`` zeroes them).
    """

    def __init__(self, embedder, cache_dir: str | os.PathLike | None = None):
        self.inner = embedder
        self.model_id = embedder.model_id
        self.cache = EmbeddingCache(self.model_id, cache_dir, _known_dim(embedder))
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
