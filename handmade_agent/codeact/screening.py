"""What an agent program may not contain, found in its syntax tree before any of it runs.

``screen`` walks the whole tree once, so a program with an ``import`` on its last line makes no tool call on
its first. Each refused construct gets a message naming it and saying what to write instead. The walk keeps
its own stack (no recursion), so it also measures nesting depth safely: a tree deeper than ``max_depth`` is
refused here, and the interpreter, which does recurse, never meets one.

Names are checked as Python stores them, after NFKC normalisation: ``ｅｖａｌ`` arrives here as ``eval``.

Deliberately left out: checking types (``len(5)``); that waits until the value is known.

    >>> try:
    ...     screen(ast.parse("x = 1\\nimport os"), 100)
    ... except ProgramError as e:
    ...     print(e.line, e.message[:23])
    2 `import` is not allowed
"""
from __future__ import annotations

import ast

from .limits import ProgramError
from .methods import METHOD_NAMES

_LOOP = "use `for x in ...` over a list or range(n) instead"
REFUSED: dict[type, str] = {
    ast.Import: "`import` is not allowed in an agent program; call the tools listed instead",
    ast.ImportFrom: "`import` is not allowed in an agent program; call the tools listed instead",
    ast.FunctionDef: "`def` is not allowed; write the steps out one after another",
    ast.AsyncFunctionDef: "`async def` is not allowed; write the steps out one after another",
    ast.Lambda: "`lambda` is not allowed; write the steps out one after another",
    ast.ClassDef: "`class` is not allowed; use dicts and lists for data",
    ast.While: f"`while` loops are not allowed; {_LOOP}",
    ast.With: "`with` is not allowed; call the tools listed instead",
    ast.AsyncWith: "`async with` is not allowed; call the tools listed instead",
    ast.AsyncFor: f"`async for` is not allowed; {_LOOP}",
    ast.Try: "`try` is not allowed; a failing step stops the program and you see its error",
    ast.TryStar: "`try` is not allowed; a failing step stops the program and you see its error",
    ast.Raise: "`raise` is not allowed; print the problem instead",
    ast.Assert: "`assert` is not allowed; use `if` and print",
    ast.Global: "`global` is not allowed; every name is already shared by the whole program",
    ast.Nonlocal: "`nonlocal` is not allowed; every name is already shared by the whole program",
    ast.Delete: "`del` is not allowed; assign a new value instead",
    ast.Return: "`return` is not allowed; print the result instead",
    ast.Yield: "`yield` is not allowed", ast.YieldFrom: "`yield` is not allowed", ast.Await: "`await` is not allowed",
    ast.ListComp: "comprehensions are not allowed; use a for loop and .append",
    ast.SetComp: "comprehensions are not allowed; use a for loop and .append",
    ast.DictComp: "comprehensions are not allowed; use a for loop and d[key] = value",
    ast.GeneratorExp: "generator expressions are not allowed; use a for loop",
    ast.Starred: "starred expressions (*x) are not allowed; pass or unpack the items one by one",
    ast.NamedExpr: "`:=` is not allowed; assign on a line of its own",
    ast.Set: "sets ({1, 2}) are not allowed; use a list",
    ast.AnnAssign: "annotations (x: int = 1) are not allowed; write x = 1",
    ast.Match: "`match` is not allowed; use if/elif/else",
}
ALLOWED = {ast.Module, ast.Expr, ast.Assign, ast.AugAssign, ast.If, ast.For, ast.Break, ast.Continue, ast.Pass,
           ast.Constant, ast.Name, ast.List, ast.Tuple, ast.Dict, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare,
           ast.IfExp, ast.Subscript, ast.Slice, ast.JoinedStr, ast.FormattedValue, ast.Call, ast.keyword,
           ast.Attribute, ast.Load, ast.Store, ast.And, ast.Or, ast.Not, ast.UAdd, ast.USub, ast.Add, ast.Sub,
           ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE,
           ast.In, ast.NotIn, ast.Is, ast.IsNot}
_BITS = "bit operators (& | ^ ~ << >>) are not allowed; use + - * / // % ** and comparisons"
OPERATORS = {ast.BitAnd: _BITS, ast.BitOr: _BITS, ast.BitXor: _BITS, ast.Invert: _BITS, ast.LShift: _BITS,
             ast.RShift: _BITS, ast.MatMult: "the operator @ is not allowed"}


def screen(tree: ast.AST, max_depth: int) -> None:
    """Raise ProgramError at the first construct an agent program may not use; otherwise return None."""
    stack: list[tuple[ast.AST, int, int, bool]] = [(tree, 0, 0, False)]  # node, depth, line, called as a method
    while stack:
        node, depth, line, called = stack.pop()
        line = getattr(node, "lineno", line)
        if depth > max_depth:
            raise ProgramError(f"the program is nested more than {max_depth} levels deep; split it into "
                               "simpler lines with names for the parts", line)
        problem = _problem(node, called)
        if problem:
            raise ProgramError(problem, line)
        for child in reversed(list(ast.iter_child_nodes(node))):
            method = isinstance(node, ast.Call) and child is node.func and isinstance(child, ast.Attribute)
            stack.append((child, depth + 1, line, method))


def _problem(node: ast.AST, called: bool) -> str | None:
    kind = type(node)
    if kind in REFUSED or kind in OPERATORS:
        return REFUSED.get(kind) or OPERATORS[kind]
    if kind not in ALLOWED:
        return f"`{kind.__name__}` is not allowed in an agent program"
    name = node.id if kind is ast.Name else node.attr if kind is ast.Attribute else getattr(node, "arg", None)
    if name and name.startswith("_"):
        return f"`{name}`: names starting with _ are not allowed; agent programs work with data, not Python's insides"
    if kind is ast.Attribute:
        return _attribute_problem(node, called)
    if kind is ast.Constant and type(node.value) not in (int, float, str, bool, type(None)):
        return f"{type(node.value).__name__} values are not allowed; use numbers, text, True, False and None"
    if kind is ast.keyword and node.arg is None:
        return "`**` unpacking is not allowed; pass each argument by name"
    if kind is ast.Dict and None in node.keys:
        return "`**` in a dict is not allowed; write each key: value"
    if kind is ast.FormattedValue and (node.conversion != -1 or node.format_spec is not None):
        return ("f-string conversions and format specs ({x!r}, {x:.2f}) are not allowed; write {x}, "
                "and round(x, 2) for rounding")
    if kind is ast.Subscript and isinstance(node.ctx, ast.Store) and isinstance(node.slice, ast.Slice):
        return "assigning to a slice (x[1:3] = ...) is not allowed; assign one item at a time"
    return None


def _attribute_problem(node: ast.Attribute, called: bool) -> str | None:
    if node.attr == "format":
        return "`.format` is not allowed; use an f-string: f\"{x}\""
    if node.attr not in METHOD_NAMES:
        return (f"`.{node.attr}` is not allowed: agent programs read values with [key] and call only these "
                f"methods: {', '.join(sorted(METHOD_NAMES))}")
    if not called:
        return f"`.{node.attr}` can only be called at once, as in x.{node.attr}(...)"
    return None
