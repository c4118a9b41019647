"""While an agent calls its memory, a memory that calls the model (summaries) reports those calls into the agent's run.

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
