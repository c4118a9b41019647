"""Local model speed: prefill vs the disk prefix cache, decode vs the memory bound, decode under load,
first-answer time of ``handmade-agent demo`` in a new process, in-process prefix reuse, and HTTP overhead.

    .venv/bin/python benchmarks/llm.py [--repeats 3] [--threads] [--skip-demo] [--skip-http]
    .venv/bin/python benchmarks/llm.py --models 1.5b,0.5b [--repeats 3]   # the registry's models side by side

Figures are medians over repeats; comparisons are ratios against a baseline
measured in the same run, because these machines are noisy (and shared).
``--threads`` adds the table that chose LocalLLM's thread defaults.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time

from handmade_agent.llm import Message, OpenAIChat
from handmade_agent.local import MODEL_ID, LocalLLM
from handmade_agent.local.files import find_model
from handmade_agent.local.prefix_cache import PrefixCache
from handmade_agent.serve.server import LocalServer

STORY = [Message("user", "Write a short story about a lighthouse keeper, about 150 words.")]
SYSTEM = ("You are a careful assistant that answers with tools. " * 40).strip()
FIXED = [Message("system", SYSTEM + " Tools: " + ", ".join(f"tool_{i}(x: int) -> int" for i in range(60)))]


def median_of(fn, repeats: int) -> float:
    return statistics.median(fn() for _ in range(repeats))


def decode_rate(llm: LocalLLM, tokens: int = 128) -> float:
    llm.complete(STORY, max_tokens=1)  # the prompt is held: what follows is decode only
    c = llm.complete(STORY, max_tokens=tokens)
    return c.usage.completion_tokens / c.latency


def prefill_rate(llm: LocalLLM) -> float:
    llm.forget()
    c = llm.complete(FIXED + [Message("user", "Say OK.")], max_tokens=1)
    return llm.last_prompt_eval_tokens / c.latency


def read_bandwidth(threads: int = 2, mb: int = 256) -> float:
    """Bytes/s that ``threads`` cores read from RAM at once (numpy sums of arrays far larger than the caches)."""
    import threading

    import numpy as np
    arrays = [np.ones(mb * 2**20 // 8, dtype=np.int64) for _ in range(threads)]

    def once() -> float:
        workers = [threading.Thread(target=a.sum) for a in arrays]  # numpy releases the GIL while summing
        t = time.perf_counter()
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        return sum(a.nbytes for a in arrays) / (time.perf_counter() - t)
    return max(once() for _ in range(5))


class BusyCore:
    """A competing process spinning on one core (what a browser tab or a second kernel does)."""

    def __enter__(self) -> "BusyCore":
        self.p = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        time.sleep(0.5)
        return self

    def __exit__(self, *exc: object) -> None:
        self.p.kill()
        self.p.wait()


def prefix_figures(llm: LocalLLM, n: int) -> None:
    """One fixed prefix, a new question each call: cold, prefix held in-process, prefix loaded from disk."""
    questions = iter(f"What is tool_{i}(4)? Answer in one line." for i in range(1000))

    def call(cache: PrefixCache | None, forget: bool) -> float:
        if forget:
            llm.forget()  # what a new process starts with
        llm.prefix_cache = cache
        return llm.complete(FIXED + [Message("user", next(questions))], max_tokens=1).latency
    with tempfile.TemporaryDirectory() as tmp:
        cache = PrefixCache(tmp)
        call(cache, forget=True)  # computes the prefix once and writes it to disk
        cold = median_of(lambda: call(None, forget=True), n)
        memory = median_of(lambda: call(None, forget=False), n)
        disk = median_of(lambda: call(cache, forget=True), n)
        size = sum(st.st_size for _, st in cache.entries())
    llm.prefix_cache = None
    prefix = llm.count_tokens(llm.format_prompt(FIXED))
    print(f"first call after a {prefix}-token fixed prefix: cold {cold:.2f} s, prefix held in-process {memory:.3f} s, "
          f"loaded from disk {disk:.3f} s ({size / 2**20:.0f} MiB file) -> disk is {cold / disk:.0f}x faster than "
          f"cold (goal >= 10x)")


def demo_times(model: str | None = None) -> tuple[list[float], str] | None:
    """``handmade-agent demo`` in two new processes (an empty prefix cache, then filled): seconds and the answer."""
    exe = os.path.join(os.path.dirname(sys.executable), "handmade-agent")
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "HANDMADE_AGENT_GGUF": str(find_model(model)), "HANDMADE_AGENT_CACHE": tmp}
        if model:
            env["HANDMADE_AGENT_LOCAL_MODEL"] = model
        times = []
        for _ in range(2):
            t = time.perf_counter()
            r = subprocess.run([exe, "demo", "--backend", "local"], env=env, capture_output=True, text=True)
            times.append(time.perf_counter() - t)
            if r.returncode:
                print(f"handmade-agent demo failed ({r.returncode}): {r.stderr.strip()[-300:]}")
                return None
    answer = [ln for ln in r.stdout.splitlines() if ln.startswith("answer:")]
    return times, (answer[-1] if answer else r.stdout[-200:])


def demo_figures() -> None:
    """``handmade-agent demo`` in new processes: with an empty prefix cache, then with the cache filled."""
    if (got := demo_times()) is not None:
        (empty, filled), answer = got
        print(f"handmade-agent demo in a new process: {empty:.1f} s with an empty prefix cache, {filled:.1f} s "
              f"with it filled -> {empty / filled:.1f}x (goal <= 5 s); {answer}")


def models_side_by_side(names: list[str], n: int) -> None:
    """Decode (and its share of the memory bound), prefill and the demo's time for each model, as ratios to the
    first: measured one model after the other in this run, so a shared machine disturbs them alike."""
    bandwidth, rows = read_bandwidth(), []
    for name in names:
        llm = LocalLLM(model=name, prefix_cache=False)
        llm.complete(STORY, max_tokens=4)  # warm-up
        decode, prefill = median_of(lambda: decode_rate(llm), n), median_of(lambda: prefill_rate(llm), n)
        bound = bandwidth / llm.path.stat().st_size
        del llm
        demo = demo_times(name)
        rows.append((name, decode, decode / bound, prefill, demo[0][1] if demo else float("nan")))
    base = rows[0]
    print(f"{'model':<20} {'decode tok/s':>13} {'of bound':>9} {'prefill tok/s':>14} {'demo s (cache filled)':>22}")
    for name, decode, share, prefill, demo in rows:
        print(f"{name:<20} {decode:7.1f} ({decode / base[1]:.2f}x) {share:8.0%} {prefill:7.1f} ({prefill / base[3]:.2f}x)"
              f" {demo:14.1f} ({demo / base[4]:.2f}x)")


def thread_table() -> None:
    """Decode and prefill tokens/s for each (n_threads, n_threads_batch), alone and with one core busy."""
    for decode, batch in ((1, 1), (2, 2), (1, 2), (2, 1)):
        llm = LocalLLM(n_threads=decode, n_threads_batch=batch, prefix_cache=False)
        row = []
        for busy in (False, True):
            with BusyCore() if busy else contextlib.nullcontext():
                row += [decode_rate(llm, 64), prefill_rate(llm)]
        print(f"n_threads={decode} n_threads_batch={batch}: decode {row[0]:5.1f} tok/s alone, {row[2]:5.1f} loaded; "
              f"prefill {row[1]:5.1f} tok/s alone, {row[3]:5.1f} loaded")
        del llm


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", action="store_true", help="also print the thread-count table")
    ap.add_argument("--skip-demo", action="store_true")
    ap.add_argument("--skip-http", action="store_true")
    ap.add_argument("--models", default=None, help="comma-separated registry names (e.g. 1.5b,0.5b): only the "
                                                   "side-by-side table, ratios against the first")
    args = ap.parse_args()
    n = args.repeats
    print(f"machine load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores "
          "(above ~0.5, other processes disturb these figures)")
    if args.models:
        models_side_by_side([m.strip() for m in args.models.split(",") if m.strip()], n)
        return
    if args.threads:
        thread_table()
    t0 = time.perf_counter()
    llm = LocalLLM(prefix_cache=False)
    print(f"model load: {time.perf_counter() - t0:.2f} s  ({llm.path.name})")
    print(f"threads: decode {llm.threads[0]}, prefill {llm.threads[1]} (decode's count measured once for this CPU: "
          "local/threads.py)")
    llm.complete(STORY, max_tokens=4)  # warm-up

    rate = median_of(lambda: decode_rate(llm), n)
    bound = read_bandwidth() / llm.path.stat().st_size  # every weight is read once per token
    print(f"decode: {rate:.1f} tokens/s (median of {n}, {llm.threads[0]} threads) = {rate / bound:.0%} of the "
          f"memory-bandwidth bound {bound:.1f} tokens/s measured now (goal >= 60%)")
    with BusyCore():
        loaded = median_of(lambda: decode_rate(llm), n)
    print(f"decode with one core busy elsewhere: {loaded:.1f} tokens/s ({llm.threads[0]} threads) -> "
          f"{loaded / rate:.2f} of alone (goal >= 0.8)")
    print(f"prefill: {median_of(lambda: prefill_rate(llm), n):.1f} tokens/s (compute-bound)")
    prefix_figures(llm, n)

    llm.prefix_cache = None
    first = [Message("system", SYSTEM), Message("user", "Question: what is 17 * 23?")]
    second = first + [Message("assistant", "Thought: multiply."), Message("user", "Observation: 391")]

    def growing(reuse: bool) -> float:
        llm.forget()
        llm.complete(first, max_tokens=1)
        llm.reuse_prefix = reuse
        try:
            return llm.complete(second, max_tokens=8).latency
        finally:
            llm.reuse_prefix = True
    reuse, no_reuse = median_of(lambda: growing(True), n), median_of(lambda: growing(False), n)
    print(f"growing prompt, 2nd call: with in-process prefix reuse {reuse * 1000:.0f} ms, without "
          f"{no_reuse * 1000:.0f} ms -> reuse is {no_reuse / reuse:.1f}x faster")

    if not args.skip_http:
        msgs = [Message("user", "What is 2+3? Answer with the number only.")]
        in_process = median_of(lambda: llm.complete(msgs, max_tokens=8).latency, n)
        with LocalServer() as server:
            client = OpenAIChat(MODEL_ID, base_url=server.base_url)
            client.complete(msgs, max_tokens=8)  # warm-up (and the one-time model-name check)

            def served() -> float:
                t = time.perf_counter()
                client.complete(msgs, max_tokens=8)
                return time.perf_counter() - t
            over_http = median_of(served, n)
        print(f"short request: in-process {in_process * 1000:.0f} ms, served over HTTP {over_http * 1000:.0f} ms "
              f"-> HTTP costs {over_http / in_process:.2f}x")
    del llm
    if not args.skip_demo:
        demo_figures()


if __name__ == "__main__":
    main()
