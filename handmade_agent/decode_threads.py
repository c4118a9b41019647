"""How many threads decode fastest on this machine: measured once, remembered per CPU.

Decoding one token is a chain of small matrix-vector products; with more threads each product waits for the
slowest thread and for the sleeping OpenMP workers to wake (``OMP_WAIT_POLICY=PASSIVE``, see ``local.py``).
Whether two threads beat one depends on the CPU: measured on two kinds of 2-core machine, an Intel one decoded
16.9 tokens/s on 1 thread and 28.5 on 2, an AMD EPYC 42.7 on 1 and 30.0 on 2, while both prefilled fastest on
2. So the local model prefills on every free core and decodes on the count this module measured: 24 decoded
tokens per count, twice each, interleaved, on a quiet machine only, saved as JSON in the package's cache folder
and keyed by CPU model, core count and llama.cpp version (another machine measures again).

Deliberately left out: counts other than 1 and all cores (these machines have 2), re-measuring as the machine
ages, and measuring on a busy machine (the figures would describe the load, not the CPU).

    >>> choose({1: 42.7, 2: 30.0}), choose({1: 16.9, 2: 28.5}), choose({})
    (1, 2, None)
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

from .kv_state import clear

FORMAT = 1
FILE = "decode-threads.json"
TOKENS = 24


def machine_key(cores: int, version: str) -> str:
    """CPU model name, core count and llama.cpp version: what the measured rates depend on."""
    name = "unknown cpu"
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            name = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), name)
    except OSError:
        pass
    return f"{name} | {cores} cores | llama_cpp {version}"


def choose(rates: dict[int, float]) -> int | None:
    """The thread count with the highest decode rate (fewer threads on a tie); None if nothing was measured."""
    return min(rates, key=lambda n: (-rates[n], n)) if rates else None


def remembered(folder: Path, key: str) -> int | None:
    """The stored choice for this machine, or None (no file, another machine, or a file that cannot be read)."""
    try:
        d = json.loads((Path(folder) / FILE).read_text(encoding="utf-8"))
        if d.get("format") == FORMAT and d.get("machine") == key and int(d["threads"]) >= 1:
            return int(d["threads"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass  # a corrupt or foreign file only means measuring again
    return None


def remember(folder: Path, key: str, rates: dict[int, float]) -> None:
    """Write the measurement atomically (two processes measuring at once each write a whole file)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{FILE}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps({"format": FORMAT, "machine": key, "threads": choose(rates),
                               "rates": {str(n): round(r, 1) for n, r in rates.items()}}), encoding="utf-8")
    os.replace(tmp, folder / FILE)


def measure(llama, cores: int, tokens: int = TOKENS) -> dict[int, float]:
    """Decode tokens/s of ``llama`` with 1 and with ``cores`` threads (best of two rounds); leaves the KV cache empty."""
    import llama_cpp
    rates: dict[int, float] = {}
    prompt = llama.tokenize(b"1, 2, 3, 4,", add_bos=False)
    for n in [1, cores] * 2:  # interleaved, so a passing disturbance hits both counts
        llama_cpp.llama_set_n_threads(llama.ctx, n, cores)
        clear(llama)
        llama.eval(prompt)
        t0 = time.perf_counter()
        for _ in range(tokens):
            llama.eval([prompt[-1]])
        rates[n] = max(rates.get(n, 0.0), tokens / (time.perf_counter() - t0))
    clear(llama)
    return rates
