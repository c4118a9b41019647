"""The thread choice of the local model: measuring other processes' CPU use, and that threads never change answers."""
from __future__ import annotations

import itertools
import subprocess
import sys
import time

import pytest

from handmade_agent.local import threads
from handmade_agent.local.threads import CpuWatch, threads_for


def test_threads_follow_the_cores_left_free():
    assert [threads_for(x, cores=2) for x in (None, 0.0, 0.4, 0.6, 1.0, 2.0)] == [2, 2, 2, 1, 1, 1]
    assert threads_for(1.0, cores=8) == 7


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/stat")
def test_a_spinning_process_is_seen():
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.3)
        watch = CpuWatch()
        time.sleep(0.8)
        theirs = watch.others()
    finally:
        spinner.kill()
        spinner.wait()
    assert theirs is not None and theirs > 0.7  # a busy machine only adds to it


def test_our_own_cpu_time_is_not_counted_as_others(monkeypatch):
    machine, own, wall = (itertools.chain(v, itertools.repeat(v[-1]))
                          for v in ([100.0, 103.0], [10.0, 12.5], [0.0, 2.0]))
    monkeypatch.setattr(threads, "_machine_busy_seconds", lambda: next(machine))
    monkeypatch.setattr(threads.time, "process_time", lambda: next(own))
    monkeypatch.setattr(threads.time, "monotonic", lambda: next(wall))
    assert CpuWatch().others() == pytest.approx((3.0 - 2.5) / 2.0)  # 3 s of CPU in 2 s, 2.5 of it ours


@pytest.mark.model
def test_greedy_output_does_not_depend_on_the_thread_count(local_llm, monkeypatch):
    """The model picks its thread count per call, so this must hold for greedy runs to repeat themselves."""
    import llama_cpp
    msgs = [{"role": "user", "content": "Name three rivers in China, comma-separated."}]
    monkeypatch.setattr(local_llm, "_watch", None)  # hold the count we set
    monkeypatch.setattr(local_llm, "threads", (0, 0))  # afterwards the next call sets its own choice again
    texts = []
    for decode, batch in ((1, 1), (2, 2), (1, 2)):  # (1, 2): decode on one thread, prefill on two
        llama_cpp.llama_set_n_threads(local_llm._llama.ctx, decode, batch)
        local_llm.forget()
        texts.append(local_llm.complete(msgs, max_tokens=20).text)
    assert texts[0] == texts[1] == texts[2] and texts[0].strip()
