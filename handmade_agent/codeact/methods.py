"""The few methods an agent program may call, looked up by the value's exact type and the method's name.

``d.get("high_c")``, ``", ".join(names)`` and ``rows.append(x)`` are how people (and coder models) write
Python, so a short list of methods is allowed. The table is keyed by ``(type, name)``: the method runs only
when the value is exactly a dict, list or str, and the code that runs is ours (no attribute is ever looked
up on the value, so ``x.__class__`` has nothing to reach). A method may only be called at once: ``d.get``
alone is refused by the screening. Results that grow are sized before they are built (``upper`` and ``split``
right after, from a string already capped).

Deliberately left out: methods that mutate in bulk (``extend``, ``update``, ``sort``) and ``str.format``
(a format string can read attributes: ``"{0.__class__}"``); ``sorted`` and f-strings do those jobs.

    >>> call_method(Budget(), "a-b", "split", ["-"], {})
    ['a', 'b']
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .arguments import expect, strings
from .limits import Budget, ProgramError

Method = Callable[[Budget, Any, list, dict], Any]


def _get(budget: Budget, d: dict, args: list, kwargs: dict) -> Any:
    expect("get", args, kwargs, 1, 2)
    budget.key(args[0])
    return d.get(*args)


def _keys(budget: Budget, d: dict, args: list, kwargs: dict) -> list:
    expect("keys", args, kwargs, 0, 0)
    budget.items(len(d))
    return list(d)


def _values(budget: Budget, d: dict, args: list, kwargs: dict) -> list:
    expect("values", args, kwargs, 0, 0)
    budget.items(len(d))
    return list(d.values())


def _items(budget: Budget, d: dict, args: list, kwargs: dict) -> list:
    expect("items", args, kwargs, 0, 0)
    budget.items(2 * len(d))  # the list, and a pair for each key
    return list(d.items())


def _append(budget: Budget, items: list, args: list, kwargs: dict) -> None:
    expect("append", args, kwargs, 1, 1)
    budget.items(len(items) + 1)
    items.append(args[0])


def _changed_case(name: str) -> Method:
    def change(budget: Budget, s: str, args: list, kwargs: dict) -> str:
        expect(name, args, kwargs, 0, 0)
        # A few characters grow ('ß'.upper() is 'SS'), at most threefold: sized after, from a capped string.
        result = str.upper(s) if name == "upper" else str.lower(s)
        budget.string(len(result))
        return result
    return change


def _strip(budget: Budget, s: str, args: list, kwargs: dict) -> str:
    expect("strip", args, kwargs, 0, 1)
    result = str.strip(s, *strings("strip", args))
    budget.string(len(result))
    return result


def _split(budget: Budget, s: str, args: list, kwargs: dict) -> list:
    expect("split", args, kwargs, 0, 1)
    # At most len(s) + 1 pieces of a capped string: sized after building, like upper().
    parts = str.split(s, *strings("split", args))
    budget.items(len(parts))
    budget.string(len(s), "the pieces")
    return parts


def _join(budget: Budget, sep: str, args: list, kwargs: dict) -> str:
    expect("join", args, kwargs, 1, 1)
    parts = args[0]
    if type(parts) not in (list, tuple) or any(type(p) is not str for p in parts):
        raise ProgramError('join needs a list of strings, e.g. ", ".join(["a", "b"]); convert numbers with str(x)')
    budget.walk(parts)
    budget.string(sum(len(p) for p in parts) + len(sep) * max(0, len(parts) - 1))
    return str.join(sep, parts)


def _replace(budget: Budget, s: str, args: list, kwargs: dict) -> str:
    expect("replace", args, kwargs, 2, 2)
    old, new = strings("replace", args)
    budget.string(len(s) + str.count(s, old) * (len(new) - len(old)))  # exact, so "a".replace("", big) is caught
    return str.replace(s, old, new)


def _affix(name: str) -> Method:
    def test(budget: Budget, s: str, args: list, kwargs: dict) -> bool:
        expect(name, args, kwargs, 1, 1)
        (affix,) = strings(name, args)
        return str.startswith(s, affix) if name == "startswith" else str.endswith(s, affix)
    return test


METHODS: dict[tuple[type, str], Method] = {
    (dict, "get"): _get, (dict, "keys"): _keys, (dict, "values"): _values, (dict, "items"): _items,
    (list, "append"): _append,
    (str, "upper"): _changed_case("upper"), (str, "lower"): _changed_case("lower"), (str, "strip"): _strip,
    (str, "split"): _split, (str, "join"): _join, (str, "replace"): _replace,
    (str, "startswith"): _affix("startswith"), (str, "endswith"): _affix("endswith"),
}
METHOD_NAMES = frozenset(name for _, name in METHODS)


def call_method(budget: Budget, value: Any, name: str, args: list, kwargs: dict) -> Any:
    """Run the method ``name`` of ``value`` from the table, or say which kinds of value have it."""
    method = METHODS.get((type(value), name))
    if method is None:
        owners = " or ".join(t.__name__ for t, n in METHODS if n == name)
        raise ProgramError(f"`.{name}(...)` works on a {owners}, not on {type(value).__name__}")
    return method(budget, value, args, kwargs)
