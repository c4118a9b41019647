"""What the agent reads from its memory, and how a memory's own model calls reach the agent's observers.

``remembered(memory, question)`` is the history for a run: ``memory.messages_for(question)`` when the memory can
use the question (chapter 11's compaction recalls old turns by it), else ``memory.messages()``.

While an agent calls its memory, a memory that calls the model (summaries) reports those calls into the agent's run.

The agent's listener is lent to the memory's ``observers`` list for the call only: the memory is not changed, and two
agents sharing one memory each see only the calls they caused. A memory without an ``observers`` list is called as is.

Deliberately left out: memories that report through anything but a plain list of observers.

    >>> class Memory: observers = []
    >>> with relayed(Memory, print): len(Memory.observers)
    1
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable, Iterator


def remembered(memory: Any, question: str) -> list[Any]:
    """The messages ``memory`` gives a run about ``question`` (none without a memory)."""
    if memory is None:
        return []
    recall = getattr(memory, "messages_for", None)
    return list(recall(question) if callable(recall) else memory.messages())


@contextmanager
def relayed(memory: Any, listener: Callable[[Any], None]) -> Iterator[None]:
    """``listener`` hears the memory's events inside the ``with`` block, and only there."""
    listeners = getattr(memory, "observers", None)
    if not isinstance(listeners, list):
        yield
        return
    listeners.append(listener)
    try:
        yield
    finally:
        listeners.remove(listener)
