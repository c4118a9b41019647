"""Expressions: literals, names, operators, subscripts, f-strings and calls, one small function each.

``EXPRESSIONS`` at the bottom is the table the machine dispatches on: a node type the table does not name
cannot be evaluated, whatever the screening missed. Values are plain data only (numbers, text, True,
False, None, lists, tuples, dicts and ranges): no expression here can produce a function, a module or a
class, so there is nothing to reach through. Lists, dicts and strings are sized before they are built.

Deliberately left out: attribute reads (``x.y``; only the methods of ``methods.py`` are called, in
``calls.py``), sets, and f-string format specs, which the screening refuses.

    >>> m = Machine({}, EXPRESSIONS)
    >>> m.variables["w"] = {"high_c": 27}
    >>> m.value(ast.parse('f"high {w[\\'high_c\\'] + 1} °C"', mode="eval").body)
    'high 28 °C'
"""
from __future__ import annotations

import ast
from typing import Any

from .calls import call
from .formatting import shorten, show, text_of
from .limits import Budget, ProgramError
from .machine import Machine
from .operators import binary, compare, unary


def constant(m: Machine, node: ast.Constant) -> Any:
    if type(node.value) is int:
        m.budget.int_bits(node.value.bit_length())
    return node.value


def lookup(m: Machine, name: str) -> Any:
    if name in m.variables:
        return m.variables[name]
    if m.is_function(name):
        raise ProgramError(f"`{name}` is a function: call it, as in {name}(...); functions cannot be stored")
    known = shorten(", ".join(sorted(m.variables)), 200) or "none yet"
    raise ProgramError(f"the name `{name}` is not defined (variables so far: {known})")


def list_display(m: Machine, node: ast.List) -> list:
    m.budget.items(len(node.elts))
    return [m.value(item) for item in node.elts]


def tuple_display(m: Machine, node: ast.Tuple) -> tuple:
    m.budget.items(len(node.elts), "a tuple")
    return tuple(m.value(item) for item in node.elts)


def dict_display(m: Machine, node: ast.Dict) -> dict:
    m.budget.items(len(node.keys), "a dict")
    result = {}
    for key_node, item_node in zip(node.keys, node.values):
        key = m.value(key_node)
        m.budget.key(key)
        result[key] = m.value(item_node)
    return result


def boolean(m: Machine, node: ast.BoolOp) -> Any:
    stop_on = isinstance(node.op, ast.Or)  # `or` stops at the first true value, `and` at the first false one
    for part in node.values:
        value = m.value(part)
        if bool(value) is stop_on:
            return value
    return value


def comparison(m: Machine, node: ast.Compare) -> bool:
    left = m.value(node.left)
    for op, right_node in zip(node.ops, node.comparators):  # 0 < x < 10 is two comparisons
        right = m.value(right_node)
        if not compare(op, left, right, m.budget):
            return False
        left = right
    return True


def subscript(m: Machine, node: ast.Subscript) -> Any:
    container = m.value(node.value)
    if isinstance(node.slice, ast.Slice):
        return _slice(m, container, node.slice)
    return subscript_value(container, m.value(node.slice), m.budget)


def subscript_value(container: Any, key: Any, budget: Budget) -> Any:
    """``container[key]``, with an error that shows what was there instead of a bare KeyError."""
    kind = type(container)
    if kind is dict:
        budget.key(key)
        if key in container:
            return container[key]
        keys = ", ".join(show(k, 40) for k in list(container)[:20])
        raise ProgramError(f"the key {show(key)} is not in the dict; its keys are: {keys or '(none)'}")
    if kind not in (list, tuple, str, range):
        raise ProgramError(f"a {kind.__name__} cannot be read with [...]")
    if type(key) not in (int, bool):
        raise ProgramError(f"positions in a {kind.__name__} are whole numbers, not {type(key).__name__}")
    if not -len(container) <= key < len(container):
        raise ProgramError(f"position {key} is outside a {kind.__name__} of {len(container)} items")
    return container[key]


def _slice(m: Machine, container: Any, node: ast.Slice) -> Any:
    if type(container) not in (list, tuple, str, range):
        raise ProgramError(f"a {type(container).__name__} cannot be sliced with [a:b]")
    bounds = [None if part is None else m.value(part) for part in (node.lower, node.upper, node.step)]
    if any(b is not None and type(b) not in (int, bool) for b in bounds):
        raise ProgramError("slice bounds are whole numbers, or left out as in x[2:]")
    window = slice(*bounds)
    size = len(range(len(container))[window])
    if type(container) is str:
        m.budget.string(size)
    else:
        m.budget.items(size)
    return container[window]


def formatted_string(m: Machine, node: ast.JoinedStr) -> str:
    pieces, size = [], 0
    for part in node.values:  # a Constant for the literal text, a FormattedValue for each {field}
        piece = part.value if isinstance(part, ast.Constant) else \
            text_of(m.value(part.value), m.limits.max_string, m.limits.max_depth)
        size += len(piece)
        if size > m.limits.max_string:
            break
        pieces.append(piece)
    m.budget.string(size, "an f-string")
    return "".join(pieces)


EXPRESSIONS = {
    ast.Constant: constant,
    ast.Name: lambda m, node: lookup(m, node.id),
    ast.List: list_display,
    ast.Tuple: tuple_display,
    ast.Dict: dict_display,
    ast.BinOp: lambda m, node: binary(node.op, m.value(node.left), m.value(node.right), m.budget),
    ast.UnaryOp: lambda m, node: unary(node.op, m.value(node.operand)),
    ast.BoolOp: boolean,
    ast.Compare: comparison,
    ast.IfExp: lambda m, node: m.value(node.body if m.value(node.test) else node.orelse),
    ast.Subscript: subscript,
    ast.JoinedStr: formatted_string,
    ast.Call: call,
}
