"""Hostile agent programs against the code-as-action interpreter (issue 50): escapes, exhaustion, junk.

Every program in ``corpus()`` runs through ``run_program`` with the course's ``default_registry`` (on a fixed
date). A program may be refused (a ProgramError message) or may run; either is fine. What is counted:

- **escape** — the oracle saw the program reach past plain data. It checks that (1) no secret appears in the
  printed text or the error: ``SECRET`` is a global of this module and the value of the environment variable
  ``HANDMADE_CODEACT_SECRET``, so reading either (``globals()``, ``os.environ``, a frame's ``f_globals``) would
  show it; (2) ``ESCAPED``, a global of this module, is still False and the canary file ``CANARY`` was not
  created (programs try both); (3) no module was imported while the program ran; (4) every value the program
  left in its variables or passed to a tool is plain data (numbers, text, bool, None, list, tuple, dict,
  range), walked to the bottom; (5) no text of a Python object (``<class ...>``, ``<built-in ...>``,
  ``object at 0x...``) appears in what it printed or in its error, unless the program's own text holds it.
- **crash** — any exception escaping ``run_program`` (RecursionError and MemoryError included).
- **hang** — more than ``HANG_SECONDS`` of wall time (the program is left in a daemon thread after 10 s).

    .venv/bin/python benchmarks/hostile_codeact.py

Deliberately left out: tools that are slow or hostile themselves (the registry's own hostile cases cover
them) and attacks on the process from outside the program text.
"""
from __future__ import annotations

import datetime
import os
import re
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from handmade_agent.codeact import Limits, run_program
from handmade_agent.toolbox import default_registry

HANG_SECONDS = 1.0
SECRET = "c0deact-S3CRET-" + "7f1c9e"  # never written whole in a program below
ESCAPED = False
CANARY = Path(tempfile.gettempdir()) / "handmade_codeact_canary"
PLAIN = (int, float, str, bool, type(None), list, tuple, dict, range)
OBJECT_TEXT = re.compile(r"<(class|function|built-in|module|bound method|method-wrapper|slot wrapper|frame|code|"
                         r"generator|cell) |object at 0x|mappingproxy\(")


@dataclass(frozen=True)
class Case:
    category: str
    source: str
    limits: Limits | None = None  # None: the defaults; the nesting ladder also runs with a 100 kB source cap


def corpus() -> list[Case]:
    """The hostile programs: hand-written ones by category, then generated nesting and size ladders."""
    cases = [Case(category, source) for category, sources in HAND_WRITTEN.items() for source in sources]
    cases += [Case("deep nesting", source) for source in nested_programs()]
    cases += [Case("deep nesting, 100 kB source cap", source, LONG) for source in nested_programs(10)]
    cases += [Case("giant values", source) for source in size_ladders()]
    return cases


ATTRIBUTES = [
    '"".__class__', '().__class__.__bases__[0].__subclasses__()', '[].__class__.__mro__[-1].__subclasses__()',
    'print.__self__', 'len.__self__.__dict__', 'get_weather.__globals__', 'calculator.__wrapped__',
    'd = {}\nd.get.__self__', 'x = 1\nx.__dict__', 'x = 1\nprint(x.real)', '"a".upper.__self__', '(1).__class__',
    'x = 1\nprint(f"{x.__class__}")', '[].append.__func__', 'r = range(3)\nprint(r.start)', 'r = range(3)\nr.count(0)',
    '"".join.__call__("a")', '"".__class__.__base__.__subclasses__()[100].__init__.__globals__["sys"]',
    '{}.get.__globals__', 'print.__module__', 'get_weather.fn.__globals__', 'calculator.fn("1")',
    'print(calculator.schema())', 'd = {}\nprint(d.keys().mapping)', '"a".format_map({})',
    'print("".maketrans("a", "b"))',
    'x = 1\nx.__class__ = dict', 'x = [1]\nx.append = 5', 'd = {}\nf = d.get\nprint(f("a"))', 'print([].append)',
    'd = {}\nprint(d.get)', 'x = "a"\nprint(x.encode())', 'x = [3, 1]\nx.sort()\nprint(x)',
    'd = {}\nd.update({"a": 1})',
    'print((1).bit_length())', 'x = "abc"\nprint(x.__len__())', 'x = {}\nx.__setitem__("a", 1)', 'a = [1]\na.pop()',
    'print("a".upper().__class__)', 'print(get_weather(city="北京").__class__)', 'print(range(3).__reduce__())',
]
FORBIDDEN_CALLS = [
    'getattr("", "__class__")', 'setattr(print, "x", 1)', 'delattr(print, "x")', 'print(vars())', 'print(globals())',
    'print(locals())', 'print(dir())', 'eval("1+1")', 'exec("import os")', 'open("/etc/passwd")',
    f'open("{CANARY}", "w")', '__import__("os").system("true")', 'compile("1", "", "eval")', 'breakpoint()', 'input()',
    'help()', 'print(type(""))', 'print(object())', 'super()', 'memoryview(b"")', 'print(id(1))', 'print(hash("a"))',
    'print(next(iter([1])))', 'exit()', 'quit()', 'print(repr(1))', 'print(chr(65))', 'print(isinstance(1, int))',
    'x = getattr', 'f = eval\nf("1")', 'print(eval)', 'x = [print]\nx[0]("hi")', 'd = {"f": print}\nd["f"]("x")',
    'print.__call__("x")', '(print)("ok")', 'x = print\nx("a")', 'len = 5', 'get_weather = 1', 'print = 2',
    'for print in [1]:\n    pass', 'x = 1\nx()', '"abc"()', '(1)(2)', 'get_weather(city="北京")(1)',
    'print(format(1, "x"))',
    'print(format)', 'print(os)', 'print(sys)', 'print(builtins)', 'print(SECRET)', f'print({"SEC" + "RET"!r})',
    'print(environ)', 'ESCAPED = True\nprint(ESCAPED)', 'print(hostile_codeact.SECRET)', 'print(sys.modules)',
    'get_weather(city=SECRET)', 'open(file="x")', 'print(classmethod)', 'print(property(1))', 'print(bytearray(10**9))',
]
STATEMENTS = [
    'import os', 'from os import system', 'import sys as s', 'def f():\n    pass', 'class A:\n    pass',
    'while True:\n    pass', 'with open("x") as f:\n    pass', 'try:\n    x\nexcept:\n    pass', 'raise SystemExit',
    'global x', 'x = 1\ndel x', 'async def f():\n    pass', 'yield 1', 'await x', 'f = lambda: 0',
    'print([x for x in range(10)])', 'print(list(x for x in [1]))', 'print({x: 1 for x in [1]})', 'print({1, 2})',
    'print(*[1])', 'print(**{"sep": "x"})', 'print((y := 1))', '@dec\ndef f():\n    pass',
    'x = 1\nmatch x:\n    case 1:\n        pass', 'assert False', 'x: int = 1', 'nonlocal x', 'a, *b = [1, 2, 3]',
    'x = [1, 2]\nx[0:1] = [9] * 9', 'print({**{"a": 1}})', 'x = b"bytes"', 'x = 1j', 'x = ...', 'print(1 << 100000)',
    'print(1 & 2)', 'print(~1)', 'print(1 ^ 2)', 'print(1 | 2)', 'print(8 >> 1)', 'break', 'continue',
    'for i in range(3):\n    pass\nelse:\n    break', 'try:\n    pass\nexcept* ValueError:\n    pass',
]
FORMAT_TRICKS = [
    '"{0.__class__}".format(1)', '"{.__class__}".format("")', '"{}".format_map({})', 'x = 1\nprint(f"{x!r}")',
    'x = 1\nprint(f"{x!s}")', 'x = 1\nprint(f"{x:>10}")', "print(f\"{1:{'>'}{10**9}}\")", 'print(f"{1:,}")',
    'print("%s" % "a")', 'print("%s" * 10**9)', 'print("%(a)s" % {"a": 1})', 'print("%999999999d" % 1)',
    'print(f"{\'a\' * 10**9}")', "print(f\"{ {'__class__': 1} }\")", 'x = "{}"\nprint(x.format(x))',
    'print(f"{print}")', 'print(f"{ (lambda: 1)() }")', 'print(f"{[c for c in \'ab\']}")',
]
HUGE_NUMBERS = [
    'print(10**10**10)', 'print(2**100000)', 'print(9**9**9)', 'print((-9)**9**9)', 'print(2**4097)',
    'x = 2**4000\nprint(x * x)', 'x = 10**1000\nprint(x**5)', 'x = 2\nfor i in range(100):\n    x = x * x',
    'x = 3\nfor i in range(30):\n    x = x ** 2', 'print(int("9" * 4000))', 'print(float("1e999") * 0)',
    'print(2.0 ** 10000)', 'print(10 ** -10**10)', 'print(round(1.5, 10**9))', 'print(round(1, -10**9))',
    'print(sum(range(10**9)))', 'print(abs(-10**10**10))', 'x = 10**1200\nprint(str(x)[:10])', 'print(int(1e308)**20)',
    'print(999999999999999999**999999)', 'print(pow(2, 10**9))', 'x = 2**4095\nprint(x + x + x)',
    'x = 10**1000\nfor i in range(1000):\n    x = x * 10', 'print((-8) ** 0.5)', 'print(10**400 / 3)',
    'print(int(float("inf")))', 'print(float("nan") == float("nan"))', 'print(10**4000 // 7)',
    'print(range(0, 10**1000, 10**999))', 'x = int("1" * 1300)\nprint(x * x)', 'print(2 ** 2 ** 2 ** 2 ** 2)',
]
GIANT_VALUES = [
    'x = [0] * 10**9', 'x = "a" * 10**9', 'x = [[0] * 10000] * 10000\nprint(len(x))',
    's = "ab"\nfor i in range(100):\n    s = s + s', 'x = [1]\nfor i in range(100):\n    x = x + x',
    'x = [1]\nfor i in range(100):\n    x = x * 2', 'd = {}\nfor i in range(100000):\n    d[i] = i',
    'l = []\nfor i in range(1000):\n    for j in range(1000):\n        l.append(i)',
    'print("a".replace("", "b" * 20000))',
    'print(" ".join(["a" * 20000] * 100))', 'print(len(list(range(10**6))))', 'print(sorted(range(10**7)))',
    'x = (1,) * 10**9', 'print(str([["a" * 10000] * 10000]))', 'print(["a" * 10000] * 10000)',
    'x = "a" * 20000\ny = [x] * 10000\nprint(f"{y}")', 'x = "a" * 19999\nfor i in range(1000):\n    y = x + "b"',
    'x = "ß" * 20000\nprint(len(x.upper()))', 'x = "a " * 10000\nprint(len(x.split()))',
    'x = ["a"] * 10000\nprint(len("-".join(x)))', 'x = [1] * 10000\nx.append(2)', 'x = list("a" * 20000)',
    'x = dict([[1, 2]] * 20000)', 'x = "abc" * 6000\nfor i in range(10):\n    x = x.replace("a", "aa")',
    'x = "a" * 20000\nprint(x[::-1] == x)', 'x = []\nfor i in range(1000):\n    x = x + [i]\nprint(len(x))',
    'x = "a" * 20000\nfor i in range(300):\n    y = x[1:]', 'print(min("a" * 20000))',
    'x = [[]] * 10000\nprint(x == x[:])',
    'a = []\nb = []\nfor i in range(2000):\n    a.append(i * 2305843009213693951)\nprint(len(dict(zip(a, a))))',
    'd = {}\nfor i in range(1000):\n    d[i * 2305843009213693951] = i\nprint(len(d))',
]
LOOPS = [
    'for i in range(10000):\n    pass', 'for i in range(1000):\n    for j in range(1000):\n        pass',
    'for c in "a" * 20000:\n    pass', 'for i in range(1000):\n    for j in range(1000):\n        x = i * j',
    'for i in range(1000):\n    for j in range(1000):\n        for k in range(1000):\n            pass',
    'for i in range(1000):\n    print(i)', 'for i in range(1000):\n    print("x" * 20000)',
    'x = [1]\nfor i in x:\n    x.append(i)', 'd = {"a": 1}\nfor k in d:\n    d[k + "x"] = 1',
    'for i in range(5):\n    for j in range(1000):\n        for k in range(1000):\n            continue',
    'n = 0\nfor i in range(1000):\n    for j in range(5):\n        n += 1\nprint(n)', 'for i in 10**9:\n    pass',
    'for i in range(10**12):\n    break', 'for x in get_weather(city="北京"):\n    pass\nprint(x)',
]
TOOL_FLOODS = [
    'for i in range(1000):\n    calculator(expression="1+1")', "\n".join(['current_date()'] * 11),
    'for i in range(100):\n    get_weather(city="北京")', 'for i in range(100):\n    get_weather(city="nowhere")',
    'for i in range(20):\n    print(add_days(date="today", days=i))', 'for i in range(11):\n    weekday(date="today")',
]
TOOL_ARGUMENTS = [
    'calculator(expression="9" * 19999)', 'calculator(expression=[1, 2])', 'calculator(expression={"a": 1})',
    'calculator(expression=None)', 'calculator(expression=10**4000)', 'get_weather(city="x" * 20000)',
    'get_weather(city=1.5)', 'get_weather(city="北京", date="yesterday")', 'get_weather(city="北京", extra=1)',
    'print(add_days(date="today", days=10**4000))', 'print(add_days(date="today", days=10**18))',
    'print(days_between(start="0001-01-01", end="9999-12-31"))',
    'print(convert_temperature(value=1e308, from_unit="C", to_unit="F"))',
    'print(convert_temperature(value=float("nan"), from_unit="C", to_unit="K"))',
    'print(calculator(expression="__import__(\'os\').system(\'true\')"))', 'print(calculator(expression="9**9**9"))',
    'x = []\nfor i in range(99):\n    x = [x]\ncalculator(expression=x)',
    'x = []\nx.append(x)\ncalculator(expression=x)',
    'x = {}\nx["a"] = x\nprint(get_weather(city=x))', 'weekday(date=range(10))', 'calculator()', 'calculator("1+1")',
    'nonexistent_tool(x=1)', 'print(Calculator(expression="1+1"))',
    'print(calculator(expression="1+1", expression2=1))',
    'calculator(expression="1", expression="2")', 'print(current_date(today="1999-01-01"))',
    'print(weekday(date="2024-02-30"))', 'print(get_weather(city="北京", date=True))',
    'print(calculator(expression="(" * 1000 + ")" * 1000))', 'print(calculator(expression="1" * 299))',
    'print(get_weather(city="\\x00"))', 'print(get_weather(city="\\ud800"))',
]
TOOL_RECURSION = [
    'print(calculator(expression="calculator(expression=\'1\')"))',
    'x = calculator(expression="1+1")\nprint(calculator(expression=str(x) + "+" + str(x)))',
    'print(get_weather(city=get_weather(city="北京")))',
    'x = "1"\nfor i in range(12):\n    x = calculator(expression=str(x) + "*2")\nprint(x)',
    'print(calculator(expression="eval(\'1\')"))', 'print(calculator(expression="exec"))',
]
LOOKALIKES = [
    'ｅｖａｌ("1")', 'ｅｘｅｃ("x")', 'ｐｒｉｎｔ(ｇｅｔａｔｔｒ)', '__𝒊𝒎𝒑𝒐𝒓𝒕__("os")', 'x = "a"\nx.𝒇𝒐𝒓𝒎𝒂𝒕(1)',
    'ℯval("1")', 'x = 1\nx.﹍﹍class﹍﹍', 'ｉｍｐｏｒｔ os', '𝚐𝚎𝚝𝚊𝚝𝚝𝚛("", "x")', 'еval("1")', 'Ｔｒｕｅ = 0\nprint(Ｔｒｕｅ)',
    'print("a\u202eb")', 'x\u200d = 1', 'ｘ = 1\nprint(x)', 'x = 1\nx.ｃｌａｓｓ', '＿＿ｉｍｐｏｒｔ＿＿("os")',
    '\ufeffprint(1)', 'print(ｇｌｏｂａｌｓ())', '𝘷𝘢𝘳𝘴()', 'x = 1\nx.ʳᵉᵃˡ',
]
UNDERSCORES = [
    '_ = 1', 'print(__builtins__)', 'print(__import__)', '_x = 5', 'print(__name__)', 'print(__class__)',
    'x = {}\nprint(x._secret)', 'print(__file__)', 'for _ in range(3):\n    pass', 'get_weather(city="北京", _private=1)',
    'print(__loader__)', 'print(__spec__)', 'print(_)', '__debug__',
]
SYNTAX_JUNK = [
    ')))', 'print(', 'if', 'x = = 1', '\x00', 'print(1)\x00', '\ud800', '\t\tprint(1)',
    'if 1:\n\tprint(1)\n        print(2)',
    'print 1', '', '   ', '# only a comment', ';;;', 'x = 1 +', '"""unterminated', '```json\n{}\n```', '```python\n',
    'return 1', '\n' * 3000, '\\', '@', 'print("\\N{NO SUCH NAME}")', 'x = "\\x"', '0x', 'else:', '    ', '1 if else 2',
]
LONG_SOURCE = [
    'x = 1\n' * 2000, 'print(1)' + ' ' * 10000, 'x=1;' * 999, 'print("' + 'a' * 3990 + '")', 'print(1)\n' * 440,
    'x = 0\n' + 'x += 1\n' * 560, '#' * 1_000_000,
]
PYTHON_ERRORS = [
    'print(1 / 0)', 'print([][0])', 'print({}["x"])', 'print(int("x"))', 'print(None + 1)', 'print("a" < 1)',
    'print(x)',
    'print(len(5))', 'print(sorted([1, "a"]))', 'print(min([]))', 'print(dict([1, 2]))', 'print(range(0, 10, 0))',
    'print("abc"[::0])', 'x = [1, 2]\nx[10] = 1', 'a, b = [1, 2, 3]', 'a, b = 5', 'x = {}\nx[[1]] = 2', 'print(1 % 0)',
    'print({"a": 1} + {"b": 2})', 'print(-"a")', 'print(1 in 5)', 'print("a" * 1.5)', 'print(round("a"))',
    'x = [1]\nx["a"] = 1', 't = (1, 2)\nt[0] = 5', 'print(1 < 2 < "a")', 'print(float("x"))',
]
SHARED_REFERENCES = [  # small to build, huge to go through: one list held 10,000 times, inside one held 10,000 times
    'x = [0] * 10000\ny = [0] * 10000\nX = [x] * 10000\nY = [y] * 10000\nprint(X == Y)',
    'x = [0] * 10000\nX = [x] * 10000\nZ = [X] * 10000\nprint(Z == [X] * 10000)',
    'x = [0] * 10000\nX = [x] * 10000\nprint(sorted([X, X]))', 'x = [0] * 10000\nX = [x] * 10000\nprint(max(X))',
    'x = [0] * 10000\nX = [x] * 10000\nprint(X in [X])', 'x = [0] * 10000\nX = [x] * 10000\nprint([] in X)',
    't = (0,) * 10000\nT = (t,) * 10000\nd = {}\nd[T] = 1', 't = (0,) * 10000\nT = (t,) * 10000\nd = {T: 1}',
    't = (0,) * 10000\nT = (t,) * 10000\nd = dict([[T, 1]])', 't = (0,) * 10000\nT = (t,) * 10000\nprint({}.get(T))',
    't = (0,) * 10000\nT = (t,) * 10000\nprint(T in {})', 'x = [0] * 1000\nX = [x] * 10000\ncalculator(expression=X)',
    'x = [0] * 10000\nX = [x] * 10000\nprint(X)', 'x = [0] * 10000\nX = [x] * 10000\nprint(len(str(X)))',
    'x = [0] * 10000\nX = [x] * 10000\nprint(f"{X}"[:10])', 'x = [0] * 10000\nX = [x] * 10000\nprint(X < X)',
    'x = [[0] * 10000] * 10000\nfor row in x:\n    print(sum(row))',
    'x = [{"a": [0] * 10000}] * 10000\nprint(x == x[:])',
    'x = list(range(10000))\nfor i in range(1000):\n    a = min(x)\n    b = max(x)\n    c = sum(x)\n    d = 9999 in x',
    'x = list(range(10000))\nfor i in range(1000):\n    for j in range(5):\n        d = -1 in x',
    'print("a" in range(10000))', 'x = list(range(10000))\nfor i in range(1000):\n    y = sorted(x, reverse=True)',
    'x = [[1]] * 10000\nfor i in range(1000):\n    for j in range(5):\n        d = min(x)',
    'x = ["a" * 20000] * 10000\nprint(len(",".join(x)))', 'x = "a" * 20000\nfor i in range(1000):\n    d = x == x + ""',
]
HAND_WRITTEN = {"attribute chains": ATTRIBUTES, "forbidden calls": FORBIDDEN_CALLS, "statements": STATEMENTS,
                "format tricks": FORMAT_TRICKS, "huge numbers": HUGE_NUMBERS, "giant values": GIANT_VALUES,
                "long loops": LOOPS, "tool floods": TOOL_FLOODS, "tool arguments": TOOL_ARGUMENTS,
                "recursion through tools": TOOL_RECURSION, "lookalike names": LOOKALIKES,
                "underscore names": UNDERSCORES, "syntax junk": SYNTAX_JUNK, "long source": LONG_SOURCE,
                "python errors": PYTHON_ERRORS, "shared references": SHARED_REFERENCES}


LONG = Limits(max_source=100_000)


def nested_programs(scale: int = 1) -> list[str]:
    """Eight kinds of nesting at depths 100, 200, ..., 1000 times ``scale`` (some past the source cap on purpose)."""
    kinds = [lambda n: "x = " + "(" * n + "1" + ")" * n, lambda n: "x = " + "-" * n + "1",
             lambda n: "x = " + "not " * n + "1", lambda n: "x = " + "[" * n + "]" * n,
             lambda n: "x = " + '{"a": ' * n + "1" + "}" * n, lambda n: "x = [1]\ny = x" + "[0]" * n,
             lambda n: "x = " + "1 + " * n + "1", lambda n: "x = " + "len(" * n + "'a'" + ")" * n]
    deep = [kind(n * scale) for kind in kinds for n in range(100, 1001, 100)]
    deep += ["".join(" " * i + "if 1:\n" for i in range(n)) + " " * n + "x = 1" for n in (50, 99, 120)]
    if scale > 1:  # the cases below do not grow with the source cap
        return deep
    deep += ["x = []\nfor i in range(1000):\n    x = [x]\nprint(x)", "x = []\nx.append(x)\nprint(x)",
             "a = []\nb = []\na.append(b)\nb.append(a)\nprint(a == b)",
             "x = []\nfor i in range(999):\n    x = [x]\nprint(sorted([x, x]))",
             "d = {}\nfor i in range(500):\n    d = {'k': d}\nprint(str(d)[:20])"]
    return deep


def size_ladders() -> list[str]:
    """Sizes just under and over each cap, and far over it."""
    return [f'x = "a" * {n}\nprint(len(x))' for n in (19_999, 20_000, 20_001, 10**6, 10**12)] + \
           [f'x = [0] * {n}\nprint(len(x))' for n in (9_999, 10_000, 10_001, 10**7, 10**15)] + \
           [f'print(len(str(2 ** {n})))' for n in (4_095, 4_096, 4_097, 10**5)]


# --- the runner --------------------------------------------------------------------------------------------------
def plain_data(values: object) -> bool:
    """Whether everything reachable from ``values`` is plain data (walked with a stack: values may nest deep)."""
    stack, seen = [values], set()
    while stack:
        v = stack.pop()
        if type(v) not in PLAIN:
            return False
        if isinstance(v, (list, tuple, dict)) and id(v) not in seen:
            seen.add(id(v))
            stack.extend(v.items() if isinstance(v, dict) else v)
    return True


def judge(case: Case, result: object, modules_before: set[str]) -> str:
    """The oracle: 'escape: why' if the program reached past its data, else 'refused' or 'ran'."""
    text = f"{result.printed}\n{result.error or ''}"
    if SECRET in text:
        return "escape: the secret was printed"
    if ESCAPED or CANARY.exists():
        return "escape: ESCAPED was set or the canary file written"
    if set(sys.modules) - modules_before:
        return f"escape: imported {sorted(set(sys.modules) - modules_before)[:3]}"
    if not plain_data(result.variables) or not plain_data([c.arguments for c in result.tool_calls]):
        return "escape: a value that is not plain data"
    if OBJECT_TEXT.search(text) and not OBJECT_TEXT.search(case.source):
        return "escape: a Python object's text was shown"
    return "refused" if result.error else "ran"


def run_case(case: Case, registry: object) -> tuple[str, float]:
    """(verdict, seconds) for one program: 'ran', 'refused', 'escape: ...', 'crash: ...' or 'hang'."""
    box: dict[str, object] = {}
    modules_before = set(sys.modules)

    def target() -> None:
        t0 = time.perf_counter()
        try:
            box["result"] = run_program(case.source, registry, case.limits)
        except BaseException as e:  # noqa: BLE001 - anything escaping run_program is what this counts
            box["error"] = e
        box["seconds"] = time.perf_counter() - t0
    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(10 * HANG_SECONDS)
    if worker.is_alive():
        return "hang", 10 * HANG_SECONDS
    seconds = box["seconds"]
    if "error" in box:
        return f"crash: {type(box['error']).__name__}", seconds
    verdict = judge(case, box["result"], modules_before)
    return ("hang" if seconds > HANG_SECONDS and not verdict.startswith("escape") else verdict), seconds


def run_corpus(cases: list[Case]) -> list[tuple[Case, str, float]]:
    os.environ["HANDMADE_CODEACT_SECRET"] = SECRET
    CANARY.unlink(missing_ok=True)
    registry = default_registry(today=datetime.date(2024, 5, 20))
    run_case(Case("warm-up", 'print(get_weather(city="北京"), current_date(), calculator(expression="1"))'), registry)
    return [(case, *run_case(case, registry)) for case in cases]


def main() -> int:
    results = run_corpus(corpus())
    kinds = ("refused", "ran", "escape", "hang", "crash")
    count = {k: sum(1 for _, verdict, _ in results if verdict.split(":")[0] == k) for k in kinds}
    slowest = max(results, key=lambda r: r[2])
    print(f"programs:                  {len(results)}")
    print(f"refused with ProgramError: {count['refused']}")
    print(f"ran fine:                  {count['ran']}")
    print(f"escapes:                   {count['escape']}")
    print(f"hangs (> {HANG_SECONDS:g} s):            {count['hang']}")
    print(f"crashes:                   {count['crash']}")
    print(f"slowest:                   {slowest[2]:.3f} s  ({slowest[0].category}: {slowest[0].source[:50]!r})")
    for case, verdict, seconds in results:
        if verdict.split(":")[0] in ("escape", "hang", "crash"):
            print(f"  {verdict} ({seconds:.2f} s): {case.category}: {case.source[:80]!r}")
    return 1 if count["escape"] + count["hang"] + count["crash"] else 0


if __name__ == "__main__":
    sys.exit(main())
