"""Chapter 00's engine room: a GGUF model run in-process by llama-cpp-python, and everything that makes it fast.

    model.py             LocalLLM: chat template, greedy decoding, KV reuse between calls, native tool calls
    files.py             where the model's bytes come from (path, cache, Hub, PyPI mirror) and their sha256
    prefix_cache.py      llama.cpp KV states of prompt prefixes on disk, shared by processes
    kv_state.py          moving a KV state between a ``Llama`` and the prefix cache
    threads.py           thread counts: other processes' load, and the decode count measured on this CPU
    grammar_sampling.py  greedy decoding under a GBNF grammar, trying the model's favourite tokens first

Nothing here loads llama_cpp at import; a ``LocalLLM`` does when it is created.
"""
from .files import QWEN_CODER_05B, ModelSpec, cache_dir, find_model, how_to_get, verify
from .grammar_sampling import GreedyGrammar
from .model import MODEL_ID, LocalLLM, parse_tool_calls
from .prefix_cache import PrefixCache

__all__ = ["LocalLLM", "MODEL_ID", "parse_tool_calls", "ModelSpec", "QWEN_CODER_05B", "find_model", "how_to_get", "verify",
           "cache_dir", "PrefixCache", "GreedyGrammar"]
