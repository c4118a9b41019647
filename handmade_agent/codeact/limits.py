"""The caps on one agent program, and the error that stops it.

A model writes the program, so everything it can spend has a cap, and the cap is checked *before* the work
is done: a string of a billion characters is refused, never built and then measured. ``Limits`` holds the
caps (each field says what it bounds); ``Budget`` is one run's account of what it has spent so far.

Deliberately left out: memory as the operating system counts it. Charging every string and container the
program creates to ``max_allocated`` stands in for it, and is exact where a memory probe would be noisy.

    >>> budget = Budget(Limits(max_string=10))
    >>> budget.string(11, "a string")
    Traceback (most recent call last):
    ...
    handmade_agent.codeact.limits.ProgramError: a string of 11 characters is over the limit of 10; work on shorter text
"""
from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..errors import HandmadeAgentError


class ProgramError(HandmadeAgentError):
    """An agent program refused or stopped. The message goes back to the model, so it says what to do instead."""

    def __init__(self, message: str, line: int | None = None):
        self.message, self.line = message, line
        super().__init__(f"line {line}: {message}" if line else message)

    def at(self, line: int | None) -> ProgramError:
        """This error placed on ``line``, unless it already names one."""
        return self if self.line or not line else ProgramError(self.message, line)


@dataclass(frozen=True)
class Limits:
    """What one program may spend. The defaults fit a few tool calls and a little arithmetic on their results."""
    max_source: int = 4_000          # characters of program text
    max_depth: int = 100             # nesting of the syntax tree, and of values shown as text
    max_steps: int = 10_000          # syntax-tree nodes evaluated
    items_per_step: int = 100        # items a comparison or a function goes through for the price of one step
    max_seconds: float = 2.0         # the interpreter's own time; time inside a tool is bounded by its time-out
    max_output: int = 4_000          # characters print may write; the rest is cut, with a note
    max_int_bits: int = 4_096        # bits in one integer (about 1,200 digits)
    max_string: int = 20_000         # characters in one string
    max_items: int = 10_000          # items in one list, tuple, dict or range
    max_allocated: int = 1_000_000   # characters and items created over the whole run
    max_loop: int = 1_000            # iterations of one loop
    max_iterations: int = 5_000      # iterations of all loops together
    max_tool_calls: int = 10         # tool calls in one program


class Budget:
    """One run's spending against its ``Limits``; every method raises ProgramError once a cap is passed."""

    def __init__(self, limits: Limits | None = None):
        self.limits = limits or Limits()
        self.steps = self.allocated = self.iterations = self.tool_calls = 0
        self.started = time.perf_counter()
        self.in_tools = 0.0  # seconds spent inside tools: theirs, not the interpreter's

    def step(self) -> None:
        self.steps += 1
        if self.steps > self.limits.max_steps:
            raise ProgramError(f"the program took more than {self.limits.max_steps:,} steps; do less in one "
                               "program (fewer loop iterations), or print what you have so far")
        if time.perf_counter() - self.started - self.in_tools > self.limits.max_seconds:
            raise ProgramError(f"the program ran for more than {self.limits.max_seconds:g} s; do less in one program")

    def walk(self, *values: Any) -> None:
        """Charge for going through ``values`` to the bottom, before an operation does (``==``, ``in``,
        ``sorted``, a tuple as a dict key, a tool's arguments): a step per ``items_per_step`` items."""
        # Counted as reached, not as stored: [big] * 10000 is one small list holding one big list 10,000 times,
        # and comparing two of them goes through the big one 10,000 times. So the walk stops at what is left.
        room = (self.limits.max_steps - self.steps) * self.limits.items_per_step
        stack, seen = list(values), 0
        while stack:
            value = stack.pop()
            kind = type(value)
            seen += len(value) if kind is range else 1  # `"a" in range(n)` goes through n numbers
            if seen > room:
                raise ProgramError(f"going through these values would take more than the {self.limits.max_steps:,} "
                                   "steps a program has; compare, sort or send smaller values")
            if kind in (list, tuple):
                stack.extend(value)
            elif kind is dict:
                stack.extend(value.keys())
                stack.extend(value.values())
        self.steps += seen // self.limits.items_per_step

    def key(self, value: Any) -> None:
        """Charge for hashing ``value`` as a dict key: a tuple is hashed item by item, every time."""
        if type(value) is tuple:
            self.walk(value)

    def int_bits(self, bits: int) -> None:
        if bits > self.limits.max_int_bits:
            raise ProgramError(f"that number would have about {bits:,} bits, over the limit of "
                               f"{self.limits.max_int_bits:,}; no answer needs a number that large")

    def string(self, length: int, what: str = "a string") -> None:
        if length > self.limits.max_string:
            raise ProgramError(f"{what} of {length:,} characters is over the limit of {self.limits.max_string:,}; "
                               "work on shorter text")
        self._allocate(length)

    def items(self, count: int, what: str = "a list") -> None:
        if count > self.limits.max_items:
            raise ProgramError(f"{what} of {count:,} items is over the limit of {self.limits.max_items:,}; "
                               "work on fewer items")
        self._allocate(count)

    def _allocate(self, size: int) -> None:
        # Each object is capped above, but a loop could keep thousands of them: the run's total is capped too.
        self.allocated += size
        if self.allocated > self.limits.max_allocated:
            raise ProgramError(f"the program created more than {self.limits.max_allocated:,} characters and items "
                               "in all; build fewer or smaller values")

    def iteration(self, count: int) -> None:
        """One more pass of a loop that has now run ``count`` times."""
        self.iterations += 1
        if count > self.limits.max_loop:
            raise ProgramError(f"a loop ran more than {self.limits.max_loop:,} times; loop over fewer items")
        if self.iterations > self.limits.max_iterations:
            raise ProgramError(f"the loops ran more than {self.limits.max_iterations:,} times in all; "
                               "loop over fewer items")

    @contextmanager
    def tool_call(self) -> Iterator[None]:
        """Count a tool call, and keep its seconds off the interpreter's clock."""
        self.tool_calls += 1
        if self.tool_calls > self.limits.max_tool_calls:
            raise ProgramError(f"the program made more than {self.limits.max_tool_calls} tool calls; "
                               "make fewer calls per program and print what you need from them")
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.in_tools += time.perf_counter() - t0
