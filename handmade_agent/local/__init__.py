"""Chapter 00's engine room: a GGUF model run in-process by llama-cpp-python, and everything that makes it fast.

    registry.py          the models known by name (0.5B, 1.5B) and the one setting that picks one
    model.py             LocalLLM: chat template, greedy decoding, KV reuse between calls, native tool calls
    files.py             where the model's bytes come from (path, cache, Hub, PyPI mirror) and their sha256
    prefix_cache.py      llama.cpp KV states of prompt prefixes on disk, shared by processes
    kv_state.py          moving a KV state between a ``Llama`` and the prefix cache
    threads.py           thread counts: other processes' load, and the decode count measured on this CPU
    grammar_sampling.py  greedy decoding under a GBNF grammar, trying the model's favourite tokens first
    recording.py         recorded replies: a notebook replays its model calls (greedy replies are functions of the prompt)

Nothing here loads llama_cpp at import; a ``LocalLLM`` does when it is created.
"""
from .files import cache_dir, cached_model, find_model, how_to_get, verify
from .grammar_sampling import GreedyGrammar
from .model import MODEL_ID, LocalLLM, parse_tool_calls
from .prefix_cache import PrefixCache
from .recording import Recording, RecordingMiss, call_key, engine_identity, live_calls, reusing
from .registry import (DEFAULT_MODEL, ENV_LOCAL_MODEL, MODELS, QWEN_CODER_05B, QWEN_CODER_15B, ModelSpec, model_spec,
                       served_ids)

__all__ = ["LocalLLM", "MODEL_ID", "parse_tool_calls", "ModelSpec", "QWEN_CODER_05B", "QWEN_CODER_15B", "MODELS",
           "DEFAULT_MODEL", "ENV_LOCAL_MODEL", "model_spec", "served_ids", "find_model", "how_to_get", "verify",
           "cache_dir", "cached_model", "PrefixCache", "GreedyGrammar", "Recording", "RecordingMiss", "live_calls",
           "reusing", "call_key", "engine_identity"]
