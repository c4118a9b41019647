"""Moving the KV state of a prompt prefix between a ``llama_cpp.Llama`` and the disk ``PrefixCache``.

``bring_prefix`` makes the model's context hold the fixed start of a prompt
(everything before a user turn, e.g. system prompt + tools + worked examples)
by the cheapest way available: it is already there (in-process reuse), it is
on disk (``restore``), or it is evaluated now and saved for the next process.
llama.cpp's sequence-state API does the (de)serialising; the bytes are opaque
here. After a restore the Llama's own token record is set to the prefix, so
``create_completion`` sees a matching prefix and evaluates only the new tokens,
just as it does for a growing transcript.

Deliberately left out: saving partial prefixes mid-transcript (only prefixes
worth ``min_tokens`` of prefill are looked up or written), several sequences,
and logits (the next evaluation recomputes them).
"""
from __future__ import annotations

import ctypes
import warnings
from typing import Any, Sequence

from .prefix_cache import PrefixCache

SEQ = 0  # llama-cpp-python's Llama keeps its one conversation in sequence 0


def held_tokens(llama: Any, tokens: Sequence[int]) -> int:
    """How many leading ``tokens`` the context already holds (evaluated, with KV entries)."""
    import numpy as np
    n = min(llama.n_tokens, len(tokens))
    differ = np.flatnonzero(llama.input_ids[:n] != np.asarray(tokens[:n], dtype=llama.input_ids.dtype))
    return int(differ[0]) if len(differ) else n


def turn_starts(tokens: Sequence[int], marker: Sequence[int]) -> list[int]:
    """Indexes where ``marker`` (the tokens of ``<|im_start|>user``) begins: the places a prefix may end."""
    m, first = list(marker), marker[0]
    return [i for i, t in enumerate(tokens) if t == first and list(tokens[i:i + len(m)]) == m]


def clear(llama: Any) -> None:
    """Empty the context: no tokens recorded, no KV cells (the next call evaluates its prompt from the start)."""
    import llama_cpp
    llama.reset()
    llama_cpp.llama_memory_clear(llama_cpp.llama_get_memory(llama.ctx), True)


def evaluate(llama: Any, tokens: Sequence[int], held: int) -> None:
    """Evaluate ``tokens[held:]`` on top of the ``held`` tokens already in the context."""
    llama.n_tokens = held  # Llama.eval first drops every KV entry from n_tokens on
    llama.eval(list(tokens[held:]))


def state_bytes(llama: Any) -> bytes:
    """llama.cpp's own serialisation of sequence 0 (its KV cells), as bytes."""
    import llama_cpp
    size = llama_cpp.llama_state_seq_get_size(llama.ctx, SEQ)
    buf = (ctypes.c_uint8 * size)()
    got = llama_cpp.llama_state_seq_get_data(llama.ctx, buf, size, SEQ)
    return ctypes.string_at(buf, got)


def restore(llama: Any, tokens: Sequence[int], blob: bytes) -> bool:
    """Replace the context with ``blob`` (the state of exactly ``tokens``); False, context empty, if refused."""
    import llama_cpp
    mem = llama_cpp.llama_get_memory(llama.ctx)
    llama_cpp.llama_memory_clear(mem, True)
    llama.n_tokens = 0
    buf = (ctypes.c_uint8 * len(blob)).from_buffer_copy(blob)
    ok = llama_cpp.llama_state_seq_set_data(llama.ctx, buf, len(blob), SEQ) == len(blob)
    if not ok or llama_cpp.llama_memory_seq_pos_max(mem, SEQ) != len(tokens) - 1:
        warnings.warn("llama.cpp refused a prefix-cache state; computing the prefix instead.", stacklevel=3)
        llama_cpp.llama_memory_clear(mem, True)
        return False
    llama.input_ids[:len(tokens)] = tokens
    llama.n_tokens = len(tokens)
    llama._requires_eval = True  # no logits came with the state: the next tokens must be evaluated
    return True


def bring_prefix(llama: Any, tokens: Sequence[int], ends: Sequence[int], cache: PrefixCache,
                 model_sha256: str, settings: dict[str, Any], min_tokens: int = 200) -> str | None:
    """Make the context hold ``tokens[:end]`` for the best ``end`` in ``ends``; say how.

    Returns "memory" (already held), "disk" (restored), "computed" (evaluated and saved), or None when no
    prefix is worth it. Only prefixes that would save at least ``min_tokens`` of prefill are looked up, so
    a growing transcript (whose new part is short) never touches the disk.
    """
    held = held_tokens(llama, tokens)
    worth = sorted((e for e in ends if e - held >= min_tokens), reverse=True)
    if not worth:
        return "memory" if held >= min_tokens else None
    for end in worth:  # the longest stored prefix wins
        blob = cache.get(model_sha256, tokens[:end], settings)
        if blob is not None and restore(llama, tokens[:end], blob):
            return "disk"
    end = worth[0]
    evaluate(llama, tokens[:end], held_tokens(llama, tokens))  # a refused restore emptied the context
    cache.put(model_sha256, tokens[:end], settings, state_bytes(llama))
    return "computed"
