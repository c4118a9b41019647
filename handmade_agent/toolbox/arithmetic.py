"""A safe arithmetic evaluator: walks the expression's syntax tree instead of calling ``eval``.

``eval(text)`` runs *any* Python a model (or a prompt injection) writes:
``__import__('os').system(...)``. Here the text is parsed with ``ast`` and only
a whitelist is evaluated: numbers, ``+ - * / // % **``, unary signs,
parentheses, a few ``math`` functions and constants. Everything else is
refused with a ``CalculatorError`` saying what is not allowed. Runaway
arithmetic is refused *before* it runs: a power whose result would exceed
``MAX_INT_BITS`` bits (``9**9**9``), factorials above ``MAX_FACTORIAL``, input
longer than ``MAX_LENGTH`` characters, nesting deeper than ``MAX_DEPTH``.

Deliberately left out: variables, comparisons, bit operations, complex numbers.

    >>> evaluate("2 * (3 + 4) ** 2")
    98
"""
from __future__ import annotations

import ast
import math
import operator
import unicodedata
from typing import Callable

from ..errors import ToolError

MAX_LENGTH = 300
MAX_DEPTH = 30
MAX_INT_BITS = 4000      # about 1200 decimal digits
MAX_FACTORIAL = 170      # 170! is the largest factorial that still fits in a float

Number = int | float


class CalculatorError(ToolError):
    """An expression the calculator refuses or cannot compute; the message says why."""


def _factorial(n: Number) -> int:
    if isinstance(n, float):
        if not n.is_integer():
            raise CalculatorError(f"factorial needs a whole number, got {n}")
        n = int(n)
    if n > MAX_FACTORIAL:
        raise CalculatorError(f"factorial({n}) is too large; the limit is factorial({MAX_FACTORIAL})")
    return math.factorial(n)


def _show(n: Number) -> str:
    text = str(n) if len(str(n)) <= 30 else f"<a {n.bit_length() if isinstance(n, int) else 0}-bit number>"
    return f"({text})" if n < 0 else text


def _power(base: Number, exponent: Number) -> Number:
    # Estimate the size first: computing 9**387420489 would hang the process for minutes.
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0 and abs(base) > 1:
        if exponent * math.log2(abs(base)) > MAX_INT_BITS:
            raise CalculatorError(f"the power {_show(base)}**{exponent} is too large to compute "
                                  f"(more than {MAX_INT_BITS} bits)")
    result = base ** exponent
    if isinstance(result, complex):
        raise CalculatorError(f"{_show(base)}**{exponent} is a complex number; only real results are supported")
    return result


def _round(value: Number, digits: int = 0) -> Number:
    if not isinstance(digits, int) or abs(digits) > 100:  # round(5, -10**9) would compute 10**(10**9)
        raise CalculatorError("round(x, digits) needs whole-number digits between -100 and 100")
    return round(value, digits) if digits else round(value)


BINARY: dict[type, Callable[[Number, Number], Number]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: _power}
UNARY: dict[type, Callable[[Number], Number]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}
FUNCTIONS: dict[str, Callable[..., Number]] = {
    "sqrt": math.sqrt, "abs": abs, "round": _round, "min": min, "max": max, "pow": _power,
    "exp": math.exp, "log": math.log, "log10": math.log10, "log2": math.log2,
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": math.asin, "acos": math.acos, "atan": math.atan,
    "degrees": math.degrees, "radians": math.radians, "floor": math.floor, "ceil": math.ceil,
    "factorial": _factorial, "gcd": math.gcd, "hypot": math.hypot}
CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e, "tau": math.tau}

# What people (and models) type that Python spells differently. NFKC also folds full-width ＋（）１ to ASCII.
_SPELLINGS = {"^": "**", "×": "*", "·": "*", "÷": "/", "−": "-"}


def _prepare(expression: str) -> str:
    if not isinstance(expression, str):
        raise CalculatorError(f"expected the expression as text, got {type(expression).__name__}")
    if len(expression) > MAX_LENGTH:
        raise CalculatorError(f"the expression is {len(expression)} characters long; the limit is {MAX_LENGTH}")
    text = unicodedata.normalize("NFKC", expression)
    for typed, python in _SPELLINGS.items():
        text = text.replace(typed, python)
    text = text.strip().strip("=").strip()
    if not text:
        raise CalculatorError("the expression is empty; write something like 2 * (3 + 4)")
    return text


def evaluate(expression: str) -> Number:
    """The value of an arithmetic expression, or CalculatorError explaining the refusal."""
    text = _prepare(expression)
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as e:
        reason = e.msg if isinstance(e, SyntaxError) else type(e).__name__
        raise CalculatorError(f"not a valid arithmetic expression ({reason}): {text!r}") from None
    try:
        return _eval(tree.body, 0)
    except CalculatorError:
        raise
    except ZeroDivisionError:
        raise CalculatorError("division by zero") from None
    except OverflowError:
        raise CalculatorError("the result is too large for a floating-point number") from None
    except (ValueError, TypeError) as e:
        raise CalculatorError(f"cannot compute {text!r}: {e}") from None


def _eval(node: ast.AST, depth: int) -> Number:
    if depth > MAX_DEPTH:
        raise CalculatorError(f"the expression is nested more than {MAX_DEPTH} levels deep")
    if isinstance(node, ast.Constant):
        if type(node.value) not in (int, float):
            raise CalculatorError(f"only numbers are allowed, not {type(node.value).__name__} {node.value!r}")
        return _checked(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
        left, right = _eval(node.left, depth + 1), _eval(node.right, depth + 1)
        return _checked(BINARY[type(node.op)](left, right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in UNARY:
        return _checked(UNARY[type(node.op)](_eval(node.operand, depth + 1)))
    if isinstance(node, ast.Name):
        if node.id in CONSTANTS:
            return CONSTANTS[node.id]
        raise CalculatorError(f"unknown name {node.id!r}; allowed constants: {', '.join(CONSTANTS)}")
    if isinstance(node, ast.Call):
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name not in FUNCTIONS:
            shown = name or ast.unparse(node.func)[:40]
            raise CalculatorError(f"function {shown!r} is not allowed; allowed functions: {', '.join(FUNCTIONS)}")
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise CalculatorError(f"call {name}(...) with plain numbers only, e.g. {name}(2)")
        args = [_eval(a, depth + 1) for a in node.args]
        return _checked(FUNCTIONS[name](*args))
    raise CalculatorError(f"{_what(node)} is not allowed; use numbers, + - * / // % **, parentheses "
                          "and the math functions")


def _checked(value: Number) -> Number:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CalculatorError(f"the result {value!r} is not a number")
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise CalculatorError(f"an intermediate result has more than {MAX_INT_BITS} bits; the limit stops runaway "
                              "arithmetic")
    if isinstance(value, float) and not math.isfinite(value):
        raise CalculatorError("the result is not a finite number (infinity or NaN)")
    return value


def _what(node: ast.AST) -> str:
    names = {ast.Attribute: "attribute access (a.b)", ast.Subscript: "indexing (a[b])", ast.Lambda: "lambda",
             ast.Compare: "comparison", ast.BoolOp: "and/or", ast.IfExp: "if/else", ast.List: "a list",
             ast.Tuple: "a tuple", ast.Dict: "a dict", ast.Set: "a set", ast.JoinedStr: "an f-string",
             ast.ListComp: "a comprehension", ast.GeneratorExp: "a generator", ast.NamedExpr: "assignment (:=)"}
    if isinstance(node, ast.BinOp):
        return f"the operator {type(node.op).__name__}"
    if isinstance(node, ast.UnaryOp):
        return f"the operator {type(node.op).__name__}"
    return names.get(type(node), type(node).__name__)


def format_number(value: Number) -> str:
    """Text for a result: whole floats without '.0', others to 12 significant digits (hides 0.1+0.2 noise)."""
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.12g}"
    return str(value)
