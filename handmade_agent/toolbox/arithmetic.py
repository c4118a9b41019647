"""A safe arithmetic evaluator: walks the expression's syntax tree instead of calling ``eval``.

``eval(text)`` runs *any* Python a model (or a prompt injection) writes:
``__import__('os').system(...)``. Here the text is parsed with ``ast`` and only
a whitelist is evaluated: numbers, ``+ - * / // % **``, unary signs,
parentheses, a few ``math`` functions and constants. Everything else is
refused with a ``CalculatorError`` saying what is not allowed. Runaway
arithmetic is refused *before* it runs: a power whose result would exceed
``MAX_INT_BITS`` bits (``9**9**9``), factorials above ``MAX_FACTORIAL``, input
longer than ``MAX_LENGTH`` characters, nesting deeper than ``MAX_DEPTH`` (a flat
chain ``1+2+...+40`` is one level). Superscripts are exact: ``3²+4²`` is 25 and
``2⁻¹`` is 0.5; a superscript with nothing to raise is refused, never guessed.

Deliberately left out: variables, comparisons, bit operations, complex numbers.

    >>> evaluate("2 * (3 + 4) ** 2")
    98
"""
from __future__ import annotations

import ast
import math
import operator
import re
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


_SUPERSCRIPT = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁽⁾⁼ⁿⁱ]+")
_SUPER_SIGNS = str.maketrans({"−": "-", "⁻": "-", "⁺": "+"})  # NFKC gives U+2212 for ⁻, Python wants "-"
_SUBSCRIPT = re.compile(r"[₀-ₜ]")
_SUPER_BASE = re.compile(r"[\w.)）\]]")  # a number, a name or a closing bracket can carry an exponent


def _superscripts(text: str) -> str:
    """``x²`` → ``x**(2)``, ``2⁻¹`` → ``2**(-1)``; a superscript with nothing to raise is refused."""
    if _SUBSCRIPT.search(text):
        raise CalculatorError("subscript digits (x₂) have no arithmetic meaning here; write plain digits")

    def power(m: re.Match) -> str:
        before = text[:m.start()].rstrip()
        exponent = unicodedata.normalize("NFKC", m.group()).translate(_SUPER_SIGNS)
        if not before or not _SUPER_BASE.match(before[-1]) or _SUPERSCRIPT.match(before[-1]):
            raise CalculatorError(f"the superscript {m.group()!r} does not follow a number or a bracket; "
                                  "write powers as 2**3 or 2^3")
        if not re.fullmatch(r"[-+()0-9]+", exponent):
            raise CalculatorError(f"the superscript {m.group()!r} is not a number; write powers as 2**3")
        return f"**({exponent})"
    return _SUPERSCRIPT.sub(power, text)


def _prepare(expression: str) -> str:
    if not isinstance(expression, str):
        raise CalculatorError(f"expected the expression as text, got {type(expression).__name__}")
    if len(expression) > MAX_LENGTH:
        raise CalculatorError(f"the expression is {len(expression)} characters long; the limit is {MAX_LENGTH}")
    # Superscripts first: NFKC alone would fold 3² into 32 and 2⁻¹ into 2-1, a silently wrong answer.
    text = unicodedata.normalize("NFKC", _superscripts(expression))
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
        # 1+2+...+40 parses as a left-deep chain; walked iteratively it is one level, not forty
        chain = [node]
        while isinstance(chain[-1].left, ast.BinOp) and type(chain[-1].left.op) in BINARY:
            chain.append(chain[-1].left)
        value = _eval(chain[-1].left, depth + 1)
        for link in reversed(chain):
            value = _checked(BINARY[type(link.op)](value, _eval(link.right, depth + 1)))
        return value
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
