"""The running program's state, and the two dispatch tables that walk its syntax tree.

A ``Machine`` holds what a program has: its variables, its budget, what it printed, the tool calls it made.
``value(node)`` evaluates an expression by looking up the node's type in ``expressions``, and ``block(body)``
runs statements through ``statements``; the tables themselves live in ``expressions.py`` and
``statements.py``, so each reads as a table of contents. Every node evaluated costs one step.

``break`` and ``continue`` travel as return values (``BREAK``, ``CONTINUE``) from ``block`` up to the loop
that handles them, not as exceptions.

Deliberately left out: scopes (there are no functions, so one dict of variables is the whole world).

    >>> m = Machine({}, {ast.Constant: lambda m, node: node.value})
    >>> m.value(ast.Constant(42)), m.budget.steps
    (42, 1)
"""
from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any, NamedTuple

from ..tools import RunContext, ToolRegistry, ToolResult
from .formatting import Output
from .functions import FUNCTIONS
from .limits import Budget, Limits, ProgramError

BREAK, CONTINUE = "break", "continue"
Handler = Callable[["Machine", Any], Any]


class ToolCallRecord(NamedTuple):
    """One tool call a program made: the tool's name, the keyword arguments, and what the registry returned."""
    name: str
    arguments: dict
    result: ToolResult


class Machine:
    """One program's run: state, plus the tables that say how each kind of node is evaluated."""

    def __init__(self, statements: dict[type, Handler], expressions: dict[type, Handler],
                 registry: ToolRegistry | None = None, limits: Limits | None = None, context: RunContext | None = None):
        self.statements, self.expressions = statements, expressions
        self.registry, self.limits, self.context = registry, limits or Limits(), context
        self.budget = Budget(self.limits)
        self.output = Output(self.limits.max_output)
        self.variables: dict[str, Any] = {}
        self.tool_calls: list[ToolCallRecord] = []
        self.line = 0  # the statement being run, for error messages

    def run(self, tree: ast.Module) -> None:
        if self.block(tree.body) is not None:
            raise ProgramError("`break` and `continue` belong inside a for loop")

    def block(self, body: list[ast.stmt]) -> str | None:
        """Run statements in order; return BREAK or CONTINUE if one of them asks the enclosing loop to."""
        for node in body:
            self.line = node.lineno
            jump = self._dispatch(self.statements, node)
            if jump is not None:
                return jump
        return None

    def value(self, node: ast.expr) -> Any:
        return self._dispatch(self.expressions, node)

    def _dispatch(self, table: dict[type, Handler], node: ast.AST) -> Any:
        self.budget.step()
        handler = table.get(type(node))
        if handler is None:  # the screening refused it already; this keeps a gap there from becoming a hole here
            raise ProgramError(f"`{type(node).__name__}` is not allowed in an agent program")
        return handler(self, node)

    def is_function(self, name: str) -> bool:
        """Whether ``name`` calls something (print, a listed function or a tool) rather than naming a value."""
        tool = self.registry.get(name) if self.registry is not None else None
        return name == "print" or name in FUNCTIONS or tool is not None
