"""Arithmetic and comparisons, with the size of every result checked before it is computed.

``9**9**9`` would keep Python busy for minutes and ``"a" * 10**9`` would take a gigabyte, so each operator
first predicts how big its result will be: bits for integers (``a * b`` has at most the bits of ``a`` plus
those of ``b``), characters for strings, items for lists and tuples. Only then does Python compute it.

``%`` on a string (``"%s" % x``) is refused: f-strings do the same job, and one way to format is enough.
Bit operators never reach here; the screening refuses them.

Deliberately left out: operator overloading (values are plain data), complex numbers, in-place ``+=`` on a
list (``a += b`` builds a new list and rebinds ``a``, so another name for the old list does not see it).

    >>> binary(ast.Mult(), "ab", 3, Budget())
    'ababab'
"""
from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from typing import Any

from .limits import Budget, ProgramError

ARITHMETIC: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
UNARY: dict[type, Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg, ast.Not: operator.not_}
COMPARE: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
    ast.GtE: operator.ge, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
    ast.Is: operator.is_, ast.IsNot: operator.is_not}
SEQUENCES = (str, list, tuple)
CONTAINERS = (list, tuple, dict, range)


def binary(op: ast.operator, left: Any, right: Any, budget: Budget) -> Any:
    """``left <op> right``, once its size is known to fit the budget."""
    kind = type(op)
    if kind is ast.Mod and isinstance(left, str):
        raise ProgramError("`%` formatting of text is not allowed; use an f-string: f\"{x}\"")
    for value in (left, right):  # no '+' between a dict and a range means nothing to size
        if type(value) not in (int, float, bool, str, list, tuple):
            raise ProgramError(f"{type(value).__name__} values do not take arithmetic operators")
    _check_size(kind, left, right, budget)
    result = ARITHMETIC[kind](left, right)
    if type(result) is complex:  # (-8) ** 0.5
        raise ProgramError("that power has no real-number result (a negative number to a fractional power)")
    if isinstance(result, int):  # the estimates above are close, not exact: hold the result to the cap too
        budget.int_bits(result.bit_length())
    return result


def _check_size(kind: type, left: Any, right: Any, budget: Budget) -> None:
    ints = isinstance(left, int) and isinstance(right, int)
    if kind in (ast.Add, ast.Sub) and ints:
        budget.int_bits(max(left.bit_length(), right.bit_length()) + 1)
    elif kind is ast.Add and isinstance(left, SEQUENCES) and type(left) is type(right):
        _sequence(budget, left, len(left) + len(right))
    elif kind is ast.Mult and ints:
        budget.int_bits(left.bit_length() + right.bit_length())
    elif kind is ast.Mult and isinstance(left, SEQUENCES) and isinstance(right, int):
        _sequence(budget, left, len(left) * max(0, right))
    elif kind is ast.Mult and isinstance(right, SEQUENCES) and isinstance(left, int):
        _sequence(budget, right, len(right) * max(0, left))
    elif kind is ast.Pow and ints and right > 0 and abs(left) > 1:
        # the result has about right * log2(left) bits: estimated from the inputs, never from the result
        # (an exponent with more bits than the cap would overflow the float estimate, and is too large anyway)
        huge = right > budget.limits.max_int_bits
        budget.int_bits(right if huge else math.floor(right * math.log2(abs(left))) + 1)


def _sequence(budget: Budget, like: Any, length: int) -> None:
    if isinstance(like, str):
        budget.string(length)
    else:
        budget.items(length, f"a {type(like).__name__}")


def unary(op: ast.unaryop, operand: Any) -> Any:
    if type(op) is not ast.Not and not isinstance(operand, (int, float)):
        raise ProgramError(f"a sign (+ or -) needs a number, not {type(operand).__name__}")
    return UNARY[type(op)](operand)


def compare(op: ast.cmpop, left: Any, right: Any, budget: Budget) -> bool:
    kind = type(op)
    if kind in (ast.In, ast.NotIn):
        if type(right) not in (str, list, tuple, dict, range):
            raise ProgramError(f"`in` needs a string, list, tuple, dict or range on its right, "
                               f"not {type(right).__name__}")
        if type(right) is dict:
            budget.key(left)
        elif type(right) is not str:
            budget.walk(left, right)
    elif kind not in (ast.Is, ast.IsNot) and (type(left) in CONTAINERS or type(right) in CONTAINERS):
        budget.walk(left, right)  # comparing two lists compares their items, and theirs, to the bottom
    return COMPARE[kind](left, right)
