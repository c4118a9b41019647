"""An on-disk embedding cache, so re-running a notebook embeds nothing it embedded before.

The key of a vector is ``sha256(model_id + NUL + text)``: change the text or the
model and the key changes, so a stale vector can never be served. Vectors are
stored per model in shard files (``<root>/<model>/<digest>.npz``); every call that
computes new vectors writes one new shard, atomically (write a temporary file,
then rename), so an interrupted run leaves no half-written cache behind.

A shard is not trusted: it is opened only as a regular file (no link, no FIFO) of at most
``MAX_SHARD_BYTES``; the shapes in its array headers are checked before any array is loaded
(one vector per key, of the embedder's dimension when it is known without loading the model,
else the dimension the other shards agree on, at most ``MAX_DIM``), and every number must be
finite. A shard that fails is skipped with a warning: its texts are embedded again.

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
import io
import os
import re
import stat
import warnings
import zipfile
from pathlib import Path
from typing import Sequence

import numpy as np

ENV_CACHE = "HANDMADE_AGENT_EMBED_CACHE"
MAX_SHARDS = 32
MAX_SHARD_BYTES = 1 << 30  # a million 256-dim vectors; a bigger shard is not one we wrote
MAX_DIM = 16384             # the widest embedder in use has 1024


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

    def _load(self) -> dict[str, np.ndarray]:
        if self._vectors is None:
            self._vectors = {}
            for shard in sorted(self.dir.glob("*.npz")):
                try:
                    keys, vectors = read_shard(shard, self.dim)
                except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as e:
                    warnings.warn(f"Ignoring embedding-cache shard {shard.name}: {e}. Its texts are embedded "
                                  "again.", stacklevel=3)
                    continue
                self.dim = vectors.shape[1]  # unknown before: the first good shard decides, the rest must agree
                self._vectors.update(zip(keys, vectors))
        return self._vectors

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
        self._write(keys, vectors)
        shards = sorted(self.dir.glob("*.npz"))
        if len(shards) > MAX_SHARDS or dropped:  # many small writes, or shards of another width: one shard
            merged = self._write(list(known), np.stack(list(known.values())))
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


def read_shard(path: Path, dim: int | None) -> tuple[list[str], np.ndarray]:
    """(keys, vectors) of a shard, checked as the module docstring says; ValueError/OSError say why not."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_SHARD_BYTES:
            raise ValueError("not a regular file of a plausible size")
        data = f.read(MAX_SHARD_BYTES + 1)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        shapes = {}
        for name in ("keys", "vectors"):
            with z.open(f"{name}.npy") as member:  # the header only: nothing is allocated from a claimed shape
                version = np.lib.format.read_magic(member)
                read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else \
                    np.lib.format.read_array_header_2_0
                shapes[name] = read_header(member)  # (shape, fortran order, dtype)
    (n,), key_type = shapes["keys"][0], shapes["keys"][2]
    shape, vec_type = shapes["vectors"][0], shapes["vectors"][2]
    if key_type.kind != "U" or vec_type.kind != "f" or len(shape) != 2 or shape[0] != n:
        raise ValueError(f"arrays of unexpected types or shapes ({key_type}, {vec_type}, {shape})")
    if not 0 < shape[1] <= MAX_DIM or (dim is not None and shape[1] != dim):
        raise ValueError(f"{shape[1]}-dimensional vectors, expected {dim or f'at most {MAX_DIM}'}")
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        keys, vectors = z["keys"].tolist(), z["vectors"]
    if not np.isfinite(vectors).all():
        raise ValueError("vectors with NaN or infinite numbers")
    return keys, vectors


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
