"""Thread counts for the local model: how many cores others are using now, and how many threads decode fastest.

Two questions, one answer (the ``n_threads`` of the next call).

**Load.** llama.cpp splits every matrix product evenly over its threads and waits for the
slowest: when another process holds one of two cores, a 2-thread call runs at
the speed of the thread that shares a core, which measured slower than 1 thread
(see ``model.py``). ``CpuWatch`` reads ``/proc/stat`` (all CPU time spent on the
machine) and subtracts this process's own CPU time, over the window since its
last mark, which spans the previous model call; ``threads_for`` turns that into
a thread count.

Deliberately left out: non-Linux systems (no ``/proc/stat``: the watch reports
nothing and the caller keeps every core), per-core affinity, and cgroup quotas.

    >>> threads_for(others=1.0, cores=2), threads_for(others=0.2, cores=2), threads_for(None, cores=2)
    (1, 2, 2)

**Decode threads.** Decoding one token is a chain of small matrix-vector products; with more threads each product waits for the
slowest thread and for the sleeping OpenMP workers to wake (``OMP_WAIT_POLICY=PASSIVE``, see ``model.py``).
Whether two threads beat one depends on the CPU: measured on two kinds of 2-core machine, an Intel one decoded
16.9 tokens/s on 1 thread and 28.5 on 2, an AMD EPYC 42.7 on 1 and 30.0 on 2, while both prefilled fastest on
2. So the local model prefills on every free core and decodes on the count this module measured: 24 decoded
tokens per count, twice each, interleaved, on a quiet machine only, saved as JSON in the package's cache folder
and keyed by CPU model, core count, llama.cpp version and model (another machine or model measures again).

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

from .cache_files import read_regular, write_atomic
from .kv_state import clear


def _machine_busy_seconds() -> float | None:
    """CPU seconds all processes have used since boot (user+nice+system+irq+softirq+steal), or None."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


class CpuWatch:
    """Cores' worth of CPU used by *other* processes between ``mark()`` and ``others()``."""

    def __init__(self, min_window: float = 0.3):
        self.min_window = min_window  # /proc/stat counts in 10 ms ticks: shorter windows are noise
        self.mark()

    def mark(self) -> None:
        self._at = (time.monotonic(), _machine_busy_seconds(), time.process_time())

    def others(self) -> float | None:
        """Average number of cores other processes kept busy since the mark (None if unknown).

        A window too short to measure falls back to a snapshot: the runnable tasks besides this one.
        """
        wall0, busy0, own0 = self._at
        busy = _machine_busy_seconds()
        window = time.monotonic() - wall0
        if busy is None or busy0 is None:
            return None
        if window < self.min_window:
            return _runnable_elsewhere()
        return max(0.0, (busy - busy0) - (time.process_time() - own0)) / window


def _runnable_elsewhere() -> float | None:
    try:
        with open("/proc/loadavg") as f:
            running = int(f.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return None
    return float(max(0, running - 1))  # the one reading the file is us


def threads_for(others: float | None, cores: int | None = None) -> int:
    """Threads for the next call: the cores left free by other processes (at least 1; all when unknown)."""
    cores = cores or os.cpu_count() or 1
    if others is None:
        return cores
    return max(1, min(cores, int(cores - others + 0.5)))


# --- the decode-thread measurement

FORMAT = 1
FILE = "decode-threads.json"
MAX_FILE = 1 << 16  # a few hundred bytes are written; anything far bigger is not ours
TOKENS = 24


def machine_key(cores: int, version: str, model: str = "") -> str:
    """CPU model name, core count, llama.cpp version and model (its sha256): what the measured rates depend on."""
    name = "unknown cpu"
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            name = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), name)
    except OSError:
        pass
    return f"{name} | {cores} cores | llama_cpp {version}" + (f" | model {model[:16]}" if model else "")


def choose(rates: dict[int, float]) -> int | None:
    """The thread count with the highest decode rate (fewer threads on a tie); None if nothing was measured."""
    return min(rates, key=lambda n: (-rates[n], n)) if rates else None


def remembered(folder: Path, key: str) -> int | None:
    """The stored choice for this machine, or None (no file, another machine, or a file that cannot be read).

    The file is read as ``cache_files.read_regular`` reads (no link, no FIFO, at most ``MAX_FILE`` bytes) and its
    JSON is refused when it holds Infinity/NaN, nests deeply, or names a count that is not a small whole number.
    """
    try:
        d = json.loads(read_regular(Path(folder) / FILE, MAX_FILE), parse_constant=_no_constant)
        n = d.get("threads") if isinstance(d, dict) else None
        if d.get("format") == FORMAT and d.get("machine") == key and type(n) is int and 1 <= n <= 1024:
            return n
    except (OSError, ValueError, RecursionError, AttributeError):
        pass  # a corrupt, planted or foreign file only means measuring again
    return None


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a measurement")


def remember(folder: Path, key: str, rates: dict[int, float]) -> None:
    """Write the measurement atomically (a random, exclusively created temporary file, then os.replace)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    write_atomic(folder / FILE, json.dumps({"format": FORMAT, "machine": key, "threads": choose(rates),
                                            "rates": {str(n): round(r, 1) for n, r in rates.items()}}).encode())


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
