"""The server's waiting line: one model, one request at a time, first come first served, bounded.

A llama.cpp context holds one conversation, so requests take turns on a single worker thread
(``ThreadPoolExecutor(max_workers=1)`` runs its jobs in submission order: FIFO). ``submit`` refuses
a request when ``limit`` are already waiting or running (``QueueFull``: the server answers 503 with
``Retry-After``). Each job carries a ``threading.Event``: set it when the client goes away, and the
job is skipped if it has not started, or its decoding stops at the next token (``stop_on_cancel``
hooks the event into llama.cpp's per-token stopping criteria). The server keeps a second, separate
line for tokenizing: quick jobs that must not wait behind a decode, nor pile up without bound.

Deliberately left out: priorities, per-client fairness (one student sending ten requests gets ten
places in line), and batching several requests into one llama.cpp batch (vLLM's job).

    >>> line = Line(limit=2)                                 # doctest: +SKIP
"""
from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable

from ..errors import HandmadeAgentError


class QueueFull(HandmadeAgentError):
    """Too many requests are waiting for the model."""


class Abandoned(HandmadeAgentError):
    """The client left before its request's turn came (or while it was decoded)."""


class Line:
    """A FIFO of model jobs run one at a time on one thread, at most ``limit`` at once."""

    def __init__(self, limit: int = 16, name: str = "model"):
        self.limit = limit
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"handmade-agent-{name}")
        self._count = threading.Lock()
        self.pending = 0  # waiting + running
        self.current: threading.Event | None = None  # the cancel flag of the job being run
        self._all: set[threading.Event] = set()

    def submit(self, job: Callable[[], Any], cancel: threading.Event) -> Future:
        """Queue ``job``; raises QueueFull when the line is full."""
        with self._count:
            if self.pending >= self.limit:
                raise QueueFull(f"{self.pending} requests are already in line")
            self.pending += 1
            self._all.add(cancel)

        def run() -> Any:
            try:
                if cancel.is_set():
                    raise Abandoned("the client left before its turn")  # never decoded for nobody
                self.current = cancel
                return job()
            finally:
                self.current = None
                with self._count:
                    self.pending -= 1
                    self._all.discard(cancel)
        return self._pool.submit(run)

    def cancel_all(self) -> None:
        """Stop what is running and drop what waits (shutdown: the process must not wait for a long decode)."""
        with self._count:
            for event in self._all:
                event.set()

    def close(self) -> None:
        self.cancel_all()
        self._pool.shutdown(wait=True, cancel_futures=True)


def stop_on_cancel(llm: Any, line: Line) -> None:
    """Make ``llm`` (a ``LocalLLM``) stop decoding at the next token once the running job's flag is set.

    ``LocalLLM.complete`` does not take stopping criteria, so its llama object's ``create_completion``
    is wrapped once (an instance attribute, like LocalLLM's own ``_init_sampler`` hook). llama.cpp calls
    the criterion after every token; the whole cost is one ``Event.is_set()`` per token.
    """
    llama = getattr(llm, "_llama", None)
    if llama is None:
        return
    from llama_cpp import StoppingCriteriaList
    original = llama.create_completion

    def left(_ids: Any, _logits: Any) -> bool:
        flag = line.current
        return flag is not None and flag.is_set()

    def create_completion(*args: Any, **kwargs: Any) -> Any:
        kwargs["stopping_criteria"] = StoppingCriteriaList([left, *(kwargs.get("stopping_criteria") or [])])
        return original(*args, **kwargs)
    llama.create_completion = create_completion
