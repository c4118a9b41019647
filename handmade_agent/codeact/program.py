"""``run_program``: parse an agent program, screen it, run it, and report what happened. It never raises.

Whatever the text is (broken, hostile, enormous), the caller gets a ``ProgramResult``: what was printed, the
tool calls made, and an error message if the program stopped. ``observation`` is the text to send back to
the model. Python errors the program causes (a division by zero, comparing text with a number) become
messages too, placed on the line that caused them.

Deliberately left out: keeping variables from one program to the next (each step starts fresh, so a model
re-reads what it needs from the previous observation) and running anything in a separate process.

    >>> run_program("x = 6 * 7\\nprint('x is', x)", ToolRegistry([])).observation
    'x is 42'
"""
from __future__ import annotations

import ast
import re
import textwrap
import time
from dataclasses import dataclass, field
from typing import Any

from ..tools import RunContext, ToolRegistry
from .expressions import EXPRESSIONS
from .fences import FENCE, extract_code
from .formatting import shorten
from .limits import Limits, ProgramError
from .machine import Machine, ToolCallRecord
from .screening import screen
from .statements import STATEMENTS

NOTHING_PRINTED = "The program printed nothing. Use print(...) to see values."
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass
class ProgramResult:
    """What one program did. ``error`` is None when it ran to the end."""
    printed: str
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    error: str | None = None
    steps: int = 0
    seconds: float = 0.0
    variables: dict[str, Any] = field(default_factory=dict)  # the names the program left, all plain data

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def observation(self) -> str:
        """The text for the model: the printed output, then the error if there was one."""
        parts = [self.printed.rstrip("\n")] if self.printed.strip() else []
        if self.error:
            parts.append(f"Error: {self.error}")
        return "\n".join(parts) or NOTHING_PRINTED


def run_program(source: str, registry: ToolRegistry, limits: Limits | None = None, *,
                context: RunContext | None = None) -> ProgramResult:
    """Run an agent program against ``registry``'s tools, within ``limits``. Never raises (but KeyboardInterrupt)."""
    t0 = time.perf_counter()
    machine = Machine(STATEMENTS, EXPRESSIONS, registry, limits or Limits(), context)
    error = None
    try:
        tree = parse(source, machine.limits)
        screen(tree, machine.limits.max_depth)
        machine.run(tree)
    except ProgramError as e:
        error = str(e.at(machine.line))
    except Exception as e:  # noqa: BLE001 - every Python error the program causes becomes its message
        error = str(ProgramError(python_error(e), machine.line or None))
    return ProgramResult(_valid_text(machine.output.text()), machine.tool_calls, error and _valid_text(error),
                         machine.budget.steps, time.perf_counter() - t0, machine.variables)


def _valid_text(text: str) -> str:
    # "\ud800" is a legal Python string but not UTF-8: a tokenizer or a terminal would fail on it downstream
    return LONE_SURROGATE.sub("\ufffd", text)


def parse(source: str, limits: Limits) -> ast.Module:
    """The syntax tree of ``source`` (unwrapped from a Markdown fence if it has one), or ProgramError."""
    if not isinstance(source, str):
        raise ProgramError(f"the program must be text, not {type(source).__name__}")
    if len(source) > limits.max_source:
        raise ProgramError(f"the program is {len(source):,} characters long; the limit is {limits.max_source:,}. "
                           "Write a shorter program")
    if source.lstrip().startswith(FENCE):
        source = extract_code(source) or ""
    try:
        return ast.parse(textwrap.dedent(source))
    except SyntaxError as e:
        shown = f": {shorten(e.text.strip(), 80)}" if e.text and e.text.strip() else ""
        raise ProgramError(f"syntax error, {e.msg}{shown}", e.lineno) from None
    except (ValueError, RecursionError, MemoryError) as e:  # null bytes, lone surrogates, absurd nesting
        raise ProgramError(f"the program cannot be read ({type(e).__name__}); write plain, simple Python") from None


def python_error(e: Exception) -> str:
    """A message for a Python error raised while the program ran: what happened, in a line."""
    if isinstance(e, ZeroDivisionError):
        return "division by zero"
    if isinstance(e, (RecursionError, MemoryError)):
        return "a value is too deeply nested or too large to work with; keep values small and flat"
    if isinstance(e, OverflowError):  # its last argument is the reason: (34, 'Numerical result out of range')
        return f"a number is too large ({shorten(str(e.args[-1] if e.args else e), 100)})"
    return f"{type(e).__name__}: {shorten(str(e), 300)}"
