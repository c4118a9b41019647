"""How many cores other processes are using, so the local model can pick a thread count that holds up.

llama.cpp splits every matrix product evenly over its threads and waits for the
slowest: when another process holds one of two cores, a 2-thread call runs at
the speed of the thread that shares a core, which measured slower than 1 thread
(see ``local.py``). ``CpuWatch`` reads ``/proc/stat`` (all CPU time spent on the
machine) and subtracts this process's own CPU time, over the window since its
last mark, which spans the previous model call; ``threads_for`` turns that into
a thread count.

Deliberately left out: non-Linux systems (no ``/proc/stat``: the watch reports
nothing and the caller keeps every core), per-core affinity, and cgroup quotas.

    >>> threads_for(others=1.0, cores=2), threads_for(others=0.2, cores=2), threads_for(None, cores=2)
    (1, 2, 2)
"""
from __future__ import annotations

import os
import time


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
