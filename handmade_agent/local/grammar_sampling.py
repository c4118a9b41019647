"""Greedy decoding under a GBNF grammar, fast: try the model's favourite tokens first.

llama-cpp-python applies a grammar to every one of the vocabulary's 151,936 candidates at every
step; measured here that made a constrained ReAct step 3-4 times slower than a free one. For
greedy decoding the answer is the same if we ask the grammar about the best few candidates one
at a time and take the first it allows (the best allowed token *is* the greedy constrained
choice); only when none of them fits is the grammar applied to the whole vocabulary. This is
what llama.cpp's own ``common_sampler`` does. ``GreedyGrammar(llama, gbnf)`` keeps the parsed
grammar (``reset()`` before reuse) and gives a sampler chain for ``Llama._init_sampler``.

Deliberately left out: sampling with a temperature (``LocalLLM`` passes the grammar to
llama-cpp-python's own, slower path then).

    >>> GreedyGrammar.TRIES
    16
"""
from __future__ import annotations

import ctypes
from typing import Any

from ..errors import LLMError


class GreedyGrammar:
    """A parsed grammar plus the custom sampler that applies it lazily (greedy decoding only)."""
    TRIES = 16  # candidates asked one by one before falling back to the whole vocabulary

    def __init__(self, llama: Any, gbnf: str, root: str = "root"):
        import llama_cpp
        self._lib = llama_cpp
        self._grammar = llama_cpp.llama_sampler_init_grammar(llama._model.vocab, gbnf.encode("utf-8"),
                                                             root.encode("utf-8"))
        if not self._grammar:
            raise LLMError("llama.cpp could not parse the grammar (GBNF); see its log for the line.")

    def reset(self) -> None:
        self._lib.llama_sampler_reset(self._grammar)

    def close(self) -> None:
        if self._grammar:
            self._lib.llama_sampler_free(self._grammar)
            self._grammar = None

    def __del__(self) -> None:
        self.close()

    def sampler(self, **_settings: Any) -> Any:
        """A sampler chain (this grammar, then greedy), in the signature of ``Llama._init_sampler``."""
        from llama_cpp import _internals
        chain = _internals.LlamaSampler()
        chain.add_custom(self._apply)
        chain.add_greedy()
        return chain

    def _allows(self, token: int, logit: float) -> bool:
        one = self._lib.llama_token_data(token, logit, 0.0)
        arr = self._lib.llama_token_data_array(ctypes.pointer(one), 1, -1, False)
        self._lib.llama_sampler_apply(self._grammar, ctypes.byref(arr))
        return one.logit != float("-inf")

    def _apply(self, cur_p: Any) -> None:
        import numpy as np
        arr = cur_p.contents
        data = np.ctypeslib.as_array(arr.data, shape=(arr.size,))
        logits = data["logit"]
        top = np.argpartition(-logits, self.TRIES)[:self.TRIES]
        best = next((int(i) for i in top[np.argsort(-logits[top])]
                     if self._allows(int(data["id"][i]), float(logits[i]))), None)
        if best is None:  # none of the favourites fits: ask about every token (the slow, exact way)
            self._lib.llama_sampler_apply(self._grammar, cur_p)
            best = int(np.argmax(logits))
        token = int(data["id"][best])
        logits[:] = float("-inf")
        logits[best] = 0.0
        self._lib.llama_sampler_accept(self._grammar, token)
