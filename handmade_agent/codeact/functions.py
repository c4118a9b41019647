"""The built-in functions an agent program may call, each ours: arguments checked, results sized first.

The list is short on purpose: ``len round min max sum sorted abs range str int float list dict`` (and
``print``, which the interpreter handles because it writes output). Each is a small function of ours rather
than Python's own, so ``sum([[1]] * 9999, [])`` or ``range(10**12)`` are refused instead of run, and a wrong
call says what fits (``round(x, digits)``) instead of a Python traceback.

Deliberately left out: ``key=`` functions (a program cannot define one), ``enumerate``, ``zip``, ``open``,
``getattr``, ``eval`` and everything else in Python's builtins; unknown names are refused by the interpreter.

    >>> call_function(Budget(), "round", [2.675, 1], {})
    2.7
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .arguments import NUMBER, expect, iterable, number
from .formatting import text_of
from .limits import Budget, ProgramError


def _len(budget: Budget, args: list, kwargs: dict) -> int:
    expect("len", args, kwargs, 1, 1)
    return len(iterable(args[0], "len"))


def _round(budget: Budget, args: list, kwargs: dict) -> int | float:
    expect("round", args, kwargs, 1, 2, ("ndigits",))
    digits = args[1] if len(args) > 1 else kwargs.get("ndigits")
    if digits is not None and (type(digits) is not int or abs(digits) > 100):  # round(5, -10**9) builds 10**10**9
        raise ProgramError("round(x, digits) needs whole-number digits between -100 and 100")
    return round(number("round", args[0]), digits)


def _abs(budget: Budget, args: list, kwargs: dict) -> int | float:
    expect("abs", args, kwargs, 1, 1)
    return abs(number("abs", args[0]))


def _extreme(name: str) -> Callable[[Budget, list, dict], Any]:
    def pick(budget: Budget, args: list, kwargs: dict) -> Any:
        expect(name, args, kwargs, 1, budget.limits.max_items)
        items = iterable(args[0], name) if len(args) == 1 else args
        if not items:
            raise ProgramError(f"{name}(...) of nothing: the list is empty")
        budget.walk(items)
        return min(items) if name == "min" else max(items)
    return pick


def _sum(budget: Budget, args: list, kwargs: dict) -> int | float:
    expect("sum", args, kwargs, 1, 2)
    items = [*iterable(args[0], "sum"), *args[1:]]
    if any(not isinstance(x, NUMBER) for x in items):  # sum(lists, []) would copy quadratically
        raise ProgramError("sum(...) adds numbers only; join text with \"\".join(...)")
    budget.walk(items)
    total = sum(items)
    budget.int_bits(total.bit_length() if isinstance(total, int) else 0)  # at most 14 bits past its largest item
    return total


def _sorted(budget: Budget, args: list, kwargs: dict) -> list:
    expect("sorted", args, kwargs, 1, 1, ("reverse",))
    items = iterable(args[0], "sorted")
    budget.items(len(items))
    budget.walk(items)
    return sorted(items, reverse=bool(kwargs.get("reverse", False)))


def _range(budget: Budget, args: list, kwargs: dict) -> range:
    expect("range", args, kwargs, 1, 3)
    if any(type(a) not in (int, bool) for a in args):
        raise ProgramError("range(...) needs whole numbers; convert with int(x)")
    numbers = range(*args)
    try:
        size = len(numbers)
    except OverflowError:  # more than sys.maxsize numbers
        size = budget.limits.max_items + 1
    if size > budget.limits.max_items:
        raise ProgramError(f"range(...) of {size:,} numbers is over the limit of {budget.limits.max_items:,}")
    return numbers


def _str(budget: Budget, args: list, kwargs: dict) -> str:
    expect("str", args, kwargs, 0, 1)
    text = text_of(args[0], budget.limits.max_string, budget.limits.max_depth) if args else ""
    budget.string(len(text), "str(...) of a value")
    return text


def _number(kind: type) -> Any:
    """``int`` or ``float`` as a program calls it: one number or text in, the integer's size charged."""
    def convert(budget: Budget, args: list, kwargs: dict) -> int | float:
        expect(kind.__name__, args, kwargs, 0, 1)
        value = args[0] if args else kind()
        if type(value) not in (int, float, bool, str):
            raise ProgramError(f"{kind.__name__}(...) needs a number or text, not {type(value).__name__}")
        number = kind(value)  # text is capped, and Python refuses more than 4,300 digits itself
        if kind is int:
            budget.int_bits(number.bit_length())
        return number
    return convert


def _list(budget: Budget, args: list, kwargs: dict) -> list:
    expect("list", args, kwargs, 0, 1)
    items = iterable(args[0], "list") if args else ()
    budget.items(len(items))
    return list(items)


def _dict(budget: Budget, args: list, kwargs: dict) -> dict:
    expect("dict", args, kwargs, 0, 1, tuple(kwargs))
    pairs = args[0] if args else {}
    if type(pairs) is not dict and (type(pairs) not in (list, tuple)
                                    or any(type(p) not in (list, tuple) or len(p) != 2 for p in pairs)):
        raise ProgramError("dict(...) needs a dict or a list of (key, value) pairs")
    budget.items(len(pairs) + len(kwargs), "a dict")
    if type(pairs) is not dict:  # a dict's keys were hashed when it was built
        for pair in pairs:
            budget.key(pair[0])
    return {**dict(pairs), **kwargs}


FUNCTIONS: dict[str, Callable[[Budget, list, dict], Any]] = {
    "len": _len, "round": _round, "min": _extreme("min"), "max": _extreme("max"), "sum": _sum, "sorted": _sorted,
    "abs": _abs, "range": _range, "str": _str, "int": _number(int), "float": _number(float), "list": _list, "dict": _dict}


def call_function(budget: Budget, name: str, args: list, kwargs: dict) -> Any:
    """Run the listed function ``name``; the interpreter has checked that it is in ``FUNCTIONS``."""
    return FUNCTIONS[name](budget, args, kwargs)
