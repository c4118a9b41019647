"""Statements: assignment, ``if``, ``for`` with ``break``/``continue``, and an expression on its own line.

``bind`` stores a value into a target: a name, a tuple of targets (``a, b = 1, 2``), or an item of a list or
dict (``d["k"] = 1``). A name that calls something (``print``, ``len``, a tool) cannot be reassigned, so a
program never shadows its own tools. Every loop pass is counted against the loop and run-wide caps.

Deliberately left out: ``while`` (a loop with no end written into it; ``for`` over a ``range`` has one),
``del``, and every statement that defines something (``def``, ``class``); the screening refuses them.

    >>> from handmade_agent.codeact.expressions import EXPRESSIONS
    >>> m = Machine(STATEMENTS, EXPRESSIONS)
    >>> m.run(ast.parse("total = 0\\nfor n in [1, 2, 3]:\\n    total += n"))
    >>> m.variables["total"]
    6
"""
from __future__ import annotations

import ast
from typing import Any

from .arguments import iterable
from .expressions import lookup, subscript_value
from .limits import ProgramError
from .machine import BREAK, CONTINUE, Machine
from .operators import binary


def assign(m: Machine, node: ast.Assign) -> None:
    value = m.value(node.value)
    for target in node.targets:  # a = b = 0 binds both
        bind(m, target, value)


def augmented_assign(m: Machine, node: ast.AugAssign) -> None:
    target = node.target
    if isinstance(target, ast.Name):
        bind(m, target, binary(node.op, lookup(m, target.id), m.value(node.value), m.budget))
        return
    # d["k"] += 1: the container and key are evaluated once, as in Python
    container, key = m.value(target.value), m.value(target.slice)
    old = subscript_value(container, key, m.budget)
    _store_item(m, container, key, binary(node.op, old, m.value(node.value), m.budget))


def bind(m: Machine, target: ast.expr, value: Any) -> None:
    if isinstance(target, ast.Name):
        if m.is_function(target.id):
            raise ProgramError(f"`{target.id}` is the name of a function or tool; choose another variable name")
        m.variables[target.id] = value
    elif isinstance(target, (ast.Tuple, ast.List)):
        if type(value) not in (list, tuple, str):
            raise ProgramError(f"cannot unpack {type(value).__name__} into {len(target.elts)} names; "
                               "unpack a list or tuple")
        if len(value) != len(target.elts):
            raise ProgramError(f"cannot unpack {len(value)} values into {len(target.elts)} names")
        for part, item in zip(target.elts, value):
            bind(m, part, item)
    elif isinstance(target, ast.Subscript):
        _store_item(m, m.value(target.value), m.value(target.slice), value)
    else:
        raise ProgramError(f"cannot assign to `{type(target).__name__}`; assign to a name or an item x[key]")


def _store_item(m: Machine, container: Any, key: Any, value: Any) -> None:
    if type(container) is dict:
        m.budget.key(key)
        if key not in container:
            m.budget.items(len(container) + 1, "a dict")
        container[key] = value
    elif type(container) is list:
        if type(key) not in (int, bool):
            raise ProgramError(f"list positions are whole numbers, not {type(key).__name__}")
        if not -len(container) <= key < len(container):
            raise ProgramError(f"position {key} is outside a list of {len(container)} items; use .append to add")
        container[key] = value
    else:
        raise ProgramError(f"cannot change an item of a {type(container).__name__}; build a new value instead")


def if_statement(m: Machine, node: ast.If) -> str | None:
    return m.block(node.body if m.value(node.test) else node.orelse)


def for_loop(m: Machine, node: ast.For) -> str | None:
    items = iterable(m.value(node.iter), "a for loop")
    for count, item in enumerate(items, 1):
        m.line = node.lineno  # a loop that runs too long is reported on its own line, not its body's last one
        m.budget.iteration(count)
        bind(m, node.target, item)
        if m.block(node.body) == BREAK:
            return None
    return m.block(node.orelse)  # `for ... else` runs when no break ended the loop


def expression_statement(m: Machine, node: ast.Expr) -> None:
    m.value(node.value)  # a call like print(x); a bare value is computed and dropped, as in a Python script


STATEMENTS = {
    ast.Assign: assign,
    ast.AugAssign: augmented_assign,
    ast.Expr: expression_statement,
    ast.If: if_statement,
    ast.For: for_loop,
    ast.Break: lambda m, node: BREAK,
    ast.Continue: lambda m, node: CONTINUE,
    ast.Pass: lambda m, node: None,
}
