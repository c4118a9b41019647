"""The code-as-action interpreter (chapter 10): the language it runs, what it refuses, its caps, and the hostile
corpus of ``benchmarks/hostile_codeact.py``. No model is loaded; every program here is written out."""
from __future__ import annotations

import ast
import datetime
import importlib.util
import sys
import time
from pathlib import Path

import pytest

from handmade_agent.codeact import (
    NOTHING_PRINTED,
    Limits,
    ProgramError,
    ProgramResult,
    extract_code,
    run_program,
    text_of,
)
from handmade_agent.errors import HandmadeAgentError
from handmade_agent.toolbox import default_registry
from handmade_agent.tools import RunContext, ToolRegistry, tool

ROOT = Path(__file__).resolve().parents[1]
REGISTRY = default_registry(today=datetime.date(2024, 5, 20))
EMPTY = ToolRegistry([])


def printed(source: str, registry: ToolRegistry = EMPTY, limits: Limits | None = None) -> str:
    result = run_program(source, registry, limits)
    assert result.error is None, result.error
    return result.printed


def error(source: str, registry: ToolRegistry = EMPTY, limits: Limits | None = None) -> str:
    result = run_program(source, registry, limits)
    assert result.error is not None, f"ran: {result.printed!r}"
    return result.error


# --- the language ------------------------------------------------------------------------------------------------
def test_the_issues_example_calls_two_tools_and_prints_from_both():
    source = ('a = get_weather(city="北京", date="today"); b = get_weather(city="上海", date="today")\n'
              'print(a.split(",")[0], "|", b.split(",")[0])')
    result = run_program(source, REGISTRY)
    assert result.printed == "北京 (Beijing) | 上海 (Shanghai)\n"
    assert [(c.name, c.arguments, c.result.ok) for c in result.tool_calls] == [
        ("get_weather", {"city": "北京", "date": "today"}, True), ("get_weather", {"city": "上海", "date": "today"}, True)]
    assert result.observation == "北京 (Beijing) | 上海 (Shanghai)" and result.ok


def test_arithmetic_comparisons_and_logic_follow_python():
    assert printed("print(2 + 3 * 4, 7 // 2, 7 % 3, 2 ** 10, 7 / 2, -3, +3, not 0)") == "14 3 1 1024 3.5 -3 3 True\n"
    assert printed("x = 5\nprint(0 < x < 10, 1 < x > 7, x == 5 != 6, x is None, x is not None)") == \
        "True False True False True\n"
    assert printed("print(0 or 'a', 1 and 2, [] or None, 'b' if 0 else 'c', 2 in [1, 2], 'x' not in 'abc')") == \
        "a 2 None c True True\n"


def test_assignment_unpacking_augmented_and_item_assignment():
    source = ("a, (b, c) = 1, [2, 3]\nx = y = 0\nx += a + b\nd = {'k': [1, 2]}\nd['k'][0] += 10\nd['n'] = c\n"
              "print(a, b, c, x, y, d)")
    assert printed(source) == "1 2 3 3 0 {'k': [11, 2], 'n': 3}\n"


def test_if_elif_else_and_for_with_break_continue_and_else():
    source = ("out = []\nfor n in range(10):\n    if n % 2 == 0:\n        continue\n    elif n > 6:\n        break\n"
              "    else:\n        out.append(n)\nfor c in 'ab':\n    pass\nelse:\n    out.append(c)\nprint(out)")
    assert printed(source) == "[1, 3, 5, 'b']\n"


def test_loops_go_through_lists_tuples_strings_ranges_and_dict_keys():
    source = ("t = []\nfor k in {'a': 1, 'b': 2}:\n    t.append(k)\nfor x in (1, 2):\n    t.append(x)\n"
              "for c in 'yz':\n    t.append(c)\nfor n in range(3, 1, -1):\n    t.append(n)\n"
              "for k, v in {'c': 3}.items():\n    t.append(k + str(v))\nprint(t)")
    assert printed(source) == "['a', 'b', 1, 2, 'y', 'z', 3, 2, 'c3']\n"


def test_subscripts_and_slices_on_lists_tuples_strings_and_dicts():
    assert printed("s = 'abcdef'\nl = [1, 2, 3, 4]\nprint(s[1], s[-1], s[1:4], s[::-2], l[:2], (1, 2, 3)[1:], "
                   "{'a': [5]}['a'][0], range(10)[3])") == "b f bcd fdb [1, 2] (2, 3) 5 3\n"


def test_f_strings_evaluate_their_fields_with_the_same_interpreter():
    assert printed("w = {'high_c': 27}\nprint(f\"high {w['high_c'] + 1} °C, {[1, 'a']}, {None}\")") == \
        "high 28 °C, [1, 'a'], None\n"


def test_print_shows_values_as_python_does_with_sep_and_end():
    assert printed("print({'城市': '厦门', 't': (1,), 'f': 2.5, 'b': True}, [None], sep=' | ', end='!')") == \
        "{'城市': '厦门', 't': (1,), 'f': 2.5, 'b': True} | [None]!"
    assert printed("print('a', 'b', sep='')\nprint()") == "ab\n\n"


def test_the_listed_functions():
    source = ("print(len('abc'), round(2.675, 2), round(2.5), min(3, 1), max([1, 9]), sum([1, 2.5]), sum([1], 10),\n"
              "      sorted([3, 1, 2], reverse=True), abs(-3), list(range(2, 8, 3)), str(1.5) + 'x', int('12'),\n"
              "      int(3.9), float('1.5'), list('ab'), dict([('a', 1)], b=2), str())")
    assert printed(source) == "3 2.67 2 1 9 3.5 11 [3, 2, 1] 3 [2, 5] 1.5x 12 3 1.5 ['a', 'b'] {'a': 1, 'b': 2} \n"


def test_the_method_whitelist():
    source = ("d = {'a': 1}\nl = []\nl.append(d.get('a'))\nl.append(d.get('z', 0))\n"
              "print(l, d.keys(), d.values(), d.items(), ' A b '.strip().lower(), 'ab'.upper(), 'a,b'.split(','),\n"
              "      '-'.join(['x', 'y']), 'aXa'.replace('a', 'bb'), 'ab'.startswith('a'), 'ab'.endswith('a'))")
    assert printed(source) == "[1, 0] ['a'] [1] [('a', 1)] a b AB ['a', 'b'] x-y bbXbb True False\n"


def test_a_method_of_another_type_is_refused_naming_who_has_it():
    assert error("x = [1]\nx.upper()") == "line 2: `.upper(...)` works on a str, not on list"
    assert error("d = {'a': 1}\nd.append(2)") == "line 2: `.append(...)` works on a list, not on dict"


def test_variables_hold_only_plain_data():
    result = run_program("a = [1, {'b': (2.5, None)}]\nr = range(3)\nt = 'x'", EMPTY)
    assert result.variables == {"a": [1, {"b": (2.5, None)}], "r": range(3), "t": "x"}


# --- tools -------------------------------------------------------------------------------------------------------
@tool
def forecast(city: str) -> dict:
    """A JSON forecast.

    Args:
        city: The city.
    """
    return {"city": city, "high_c": 27}


@tool(side_effects=True)
def send(to: str) -> str:
    """Send a message.

    Args:
        to: Who gets it.
    """
    return "sent"


@tool(timeout=2)
def slow(seconds: float) -> str:
    """Sleep, then answer.

    Args:
        seconds: How long.
    """
    time.sleep(seconds)
    return "done"


def test_a_json_tool_result_is_data_and_a_text_result_is_text():
    source = "f = forecast(city='厦门')\nw = get_weather(city='北京')\nprint(f['high_c'] + 1, w[:2])"
    assert printed(source, ToolRegistry([forecast, *REGISTRY])) == "28 北京\n"


def test_a_tool_called_by_position_fills_its_parameters_in_order_and_too_many_are_refused():
    result = run_program("print(get_weather('北京', 'tomorrow'))", REGISTRY)
    assert result.error is None and result.tool_calls[0].arguments == {"city": "北京", "date": "tomorrow"}
    assert error("get_weather('北京', 'today', 3)", REGISTRY) == (
        'line 1: get_weather takes at most 2 arguments, 3 were given: '
        'get_weather(city: string, date: "today" | "tomorrow" = "today")')
    assert error("get_weather('北京', city='上海')", REGISTRY) == "line 1: the argument `city` is given twice"


def test_a_failing_tool_stops_the_program_with_the_tools_own_message():
    result = run_program("print('before')\nw = get_weather(city='nowhere')\nprint('after')", REGISTRY)
    assert result.printed == "before\n"
    assert result.error.startswith("line 2: get_weather: unknown city 'nowhere'. Known cities: 北京 (Beijing)")
    assert result.observation.startswith("before\nError: line 2: get_weather: unknown city 'nowhere'.")
    assert result.tool_calls[0].result.status == "error"


def test_tool_arguments_go_through_the_registrys_validation_and_approval():
    assert error("get_weather(city='北京', day='today')", REGISTRY).startswith(
        "line 1: invalid arguments for get_weather:\n- unknown parameter 'day' (did you mean 'date'?)")
    assert error("send(to='bob')", ToolRegistry([send])).startswith(
        "line 1: send has side effects and this registry has no approval hook, so it was not run.")
    assert printed("print(send(to='bob'))", ToolRegistry([send], approve=lambda t, a: True)) == "sent\n"


def test_tool_calls_are_capped():
    result = run_program("for i in range(20):\n    current_date()", REGISTRY, Limits(max_tool_calls=3))
    assert result.error == ("line 2: the program made more than 3 tool calls; make fewer calls per program and print "
                            "what you need from them")
    assert len(result.tool_calls) == 3


@tool
def asked(ctx: RunContext) -> str:
    """The user's own question."""
    return ctx.question


def test_the_run_context_reaches_a_tool_that_asks_for_it():
    result = run_program("print(asked())", ToolRegistry([asked]), context=RunContext("what is 2+2?"))
    assert result.printed == "what is 2+2?\n" and result.tool_calls[0].arguments == {}


def test_time_inside_a_tool_is_not_the_interpreters_time():
    result = run_program("print(slow(seconds=0.3))", ToolRegistry([slow]), Limits(max_seconds=0.2))
    assert result.printed == "done\n" and result.seconds >= 0.3


# --- refusals ----------------------------------------------------------------------------------------------------
IMPORT = "`import` is not allowed in an agent program; call the tools listed instead"
SPECS = ("f-string conversions and format specs ({x!r}, {x:.2f}) are not allowed; write {x}, and round(x, 2) "
         "for rounding")
WHILE = "`while` loops are not allowed; use `for x in ...` over a list or range(n) instead"
UNDERSCORE = "names starting with _ are not allowed; agent programs work with data, not Python's insides"
METHODS = "append, endswith, get, items, join, keys, lower, replace, split, startswith, strip, upper, values"
TRY = "`try` is not allowed; a failing step stops the program and you see its error"


@pytest.mark.parametrize("source, message", [
    ("import os", "line 1: " + IMPORT),
    ("x = 1\nfrom os import path", "line 2: " + IMPORT),
    ("while True:\n    pass", "line 1: " + WHILE),
    ("def f():\n    pass", "line 1: `def` is not allowed; write the steps out one after another"),
    ("f = lambda: 1", "line 1: `lambda` is not allowed; write the steps out one after another"),
    ("class A:\n    pass", "line 1: `class` is not allowed; use dicts and lists for data"),
    ("with x:\n    pass", "line 1: `with` is not allowed; call the tools listed instead"),
    ("try:\n    pass\nexcept:\n    pass", "line 1: " + TRY),
    ("raise x", "line 1: `raise` is not allowed; print the problem instead"),
    ("global x", "line 1: `global` is not allowed; every name is already shared by the whole program"),
    ("x = 1\ndel x", "line 2: `del` is not allowed; assign a new value instead"),
    ("[x for x in y]", "line 1: comprehensions are not allowed; use a for loop and .append"),
    ("list(x for x in y)", "line 1: generator expressions are not allowed; use a for loop"),
    ("print(*x)", "line 1: starred expressions (*x) are not allowed; pass or unpack the items one by one"),
    ("(y := 1)", "line 1: `:=` is not allowed; assign on a line of its own"),
    ("@d\ndef f():\n    pass", "line 2: `def` is not allowed; write the steps out one after another"),
    ("print(1 << 2)", "line 1: bit operators (& | ^ ~ << >>) are not allowed; use + - * / // % ** and comparisons"),
    ("'%s' % 1", "line 1: `%` formatting of text is not allowed; use an f-string: f\"{x}\""),
    ("'{}'.format(1)", "line 1: `.format` is not allowed; use an f-string: f\"{x}\""),
    ("f'{x:>10}'", "line 1: " + SPECS),
    ("f'{x!r}'", "line 1: " + SPECS),
    ("_x = 1", "line 1: `_x`: " + UNDERSCORE),
    ("x = 1\nx()", "line 2: `x` is a value, not a function; only tools and the listed functions can be called"),
    ("len = 3", "line 1: `len` is the name of a function or tool; choose another variable name"),
    ("y = len", "line 1: `len` is a function: call it, as in len(...); functions cannot be stored"),
    ("x = 1\nprint(x.real)", "line 2: `.real` is not allowed: agent programs read values with [key] and call only "
                             "these methods: " + METHODS),
    ("d = {}\nf = d.get", "line 2: `.get` can only be called at once, as in x.get(...)"),
    ("break", "line 1: `break` and `continue` belong inside a for loop"),
])
def test_each_refused_construct_is_named_with_what_to_do_instead(source, message):
    assert error(source) == message


@pytest.mark.parametrize("source, message", [
    ('"".__class__', "line 1: `__class__`: " + UNDERSCORE), ("x = 1\nx.__dict__", "line 2: `__dict__`: " + UNDERSCORE),
    ("f = 1\nf.__globals__", "line 2: `__globals__`: " + UNDERSCORE),
    ("d = {}\nd.get.__self__", "line 2: `__self__`: " + UNDERSCORE),
    ("print.__self__", "line 1: `__self__`: " + UNDERSCORE),
    ("x.__class__ = 1", "line 1: `__class__`: " + UNDERSCORE),
    ("[].__class__.__mro__[-1].__subclasses__()", "line 1: `__subclasses__`: " + UNDERSCORE),
    ("print(f'{x.__class__}')", "line 1: `__class__`: " + UNDERSCORE),
    ("__import__('os')", "line 1: `__import__`: " + UNDERSCORE),
    ("__𝒊𝒎𝒑𝒐𝒓𝒕__('os')", "line 1: `__import__`: " + UNDERSCORE),
    ("'{0.__class__}'.format(1)", "line 1: `.format` is not allowed; use an f-string: f\"{x}\""),
    ("x = 'a'\nx.𝒇𝒐𝒓𝒎𝒂𝒕(1)", "line 2: `.format` is not allowed; use an f-string: f\"{x}\""),
])
def test_no_way_to_python_objects(source, message):
    assert error(source) == message


def test_unknown_functions_are_refused_listing_what_exists():
    assert error("eval('1')", REGISTRY) == (
        "line 1: there is no tool or function named `eval`. Tools: calculator, current_date, add_days, days_between, "
        "weekday, get_weather, convert_temperature. Functions: print, len, round, min, max, sum, sorted, abs, range, "
        "str, int, float, list, dict")


def test_nfkc_lookalike_names_are_checked_after_normalisation():
    assert error("ｅｖａｌ('1')").startswith("line 1: there is no tool or function named `eval`.")
    assert printed("ｘ = 1\nprint(x)") == "1\n"


def test_a_program_that_breaks_the_rules_late_runs_nothing():
    result = run_program("print('early')\ncurrent_date()\nimport os", REGISTRY)
    assert (result.printed, result.tool_calls, result.steps) == ("", [], 0)


# --- caps --------------------------------------------------------------------------------------------------------
BITS = "bits, over the limit of 4,096; no answer needs a number that large"
TEXT = "characters is over the limit of 20,000; work on shorter text"


@pytest.mark.parametrize("source, message", [
    ("print(10**10**10)", f"line 1: that number would have about 10,000,000,000 {BITS}"),
    ("print(9**9**9)", f"line 1: that number would have about 387,420,489 {BITS}"),
    ("x = 2**4000\nprint(x * x)", f"line 2: that number would have about 8,002 {BITS}"),
    ("x = [0] * 10**9", "line 1: a list of 1,000,000,000 items is over the limit of 10,000; work on fewer items"),
    ("x = 'a' * 10**9", f"line 1: a string of 1,000,000,000 {TEXT}"),
    ("print('%s' * 10**9)", f"line 1: a string of 2,000,000,000 {TEXT}"),
    ("s = 'ab'\nfor i in range(20):\n    s = s + s", f"line 3: a string of 32,768 {TEXT}"),
    ("for i in range(10**12):\n    pass",
     "line 1: range(...) of 1,000,000,000,000 numbers is over the limit of 10,000"),
    ("x = 0\nfor i in range(5000):\n    x += 1", "line 2: a loop ran more than 1,000 times; loop over fewer items"),
    ("x = 'a' * 19999\nfor i in range(100):\n    y = x + 'b'",
     "line 3: the program created more than 1,000,000 characters and items in all; build fewer or smaller values"),
])
def test_runaway_values_are_refused_before_they_are_built(source, message):
    t0 = time.perf_counter()
    assert error(source) == message
    assert time.perf_counter() - t0 < 0.5


def test_the_step_and_loop_caps_and_custom_limits():
    assert error("for i in range(100):\n    x = i", limits=Limits(max_steps=50)) == (
        "line 2: the program took more than 50 steps; do less in one program (fewer loop iterations), or print what "
        "you have so far")
    assert error("for i in range(3):\n    for j in range(3):\n        pass", limits=Limits(max_iterations=5)) == (
        "line 2: the loops ran more than 5 times in all; loop over fewer items")
    assert error("x = 1", limits=Limits(max_seconds=0)) == "line 1: the program ran for more than 0 s; do less in one " \
                                                           "program"


def test_a_structure_that_holds_one_big_list_many_times_costs_what_going_through_it_costs():
    source = "x = [0] * 10000\nX = [x] * 10000\nprint(X == [x] * 10000)"
    assert error(source) == ("line 3: going through these values would take more than the 10,000 steps a program has; "
                             "compare, sort or send smaller values")
    assert error("t = (0,) * 10000\nT = (t,) * 10000\nd = {T: 1}").startswith("line 3: going through these values")


def test_printed_output_is_cut_with_a_note_and_does_not_grow():
    result = run_program("for i in range(1000):\n    print('x' * 1000)", EMPTY)
    assert result.ok and len(result.printed) == 4000 + len("\n[output cut: the program printed more than 4,000 "
                                                           "characters]")
    assert result.printed.endswith("x\n[output cut: the program printed more than 4,000 characters]")


def test_text_of_never_builds_more_than_it_shows():
    assert text_of([["a" * 10000] * 10000], 12) == "[['aaaaaaaaaa"
    assert text_of({"a": (1,)}, 100, quote=True) == "{'a': (1,)}"


@pytest.mark.parametrize("source", ["x = " + "(" * 500 + "1" + ")" * 500, "x = " + "-" * 3000 + "1",
                                    "x = " + "not " * 900 + "1", "x = [1]\ny = x" + "[0]" * 1000,
                                    "x = []\nx.append(x)\nprint(x)", "a = []\nb = [a]\na.append(b)\nprint(a == b)"])
def test_deep_nesting_is_a_program_error_never_a_recursion_error(source):
    assert run_program(source, EMPTY).error.startswith(("line ", "the program cannot be read"))


def test_deep_nesting_far_past_the_source_cap_is_still_converted():
    result = run_program("x = " + "-" * 200_000 + "1", EMPTY, Limits(max_source=1_000_000))
    assert result.error.startswith("the program cannot be read (")  # RecursionError or MemoryError, by Python version


# --- never raises ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("source", [None, b"print(1)", 5, "\x00", "\ud800", "x" * 5000, ")))", "print(", "\\"])
def test_run_program_never_raises(source):
    result = run_program(source, EMPTY)
    assert isinstance(result, ProgramResult) and result.error and result.observation.startswith("Error: ")


def test_a_syntax_error_names_its_line():
    assert error("x = 1\ny = = 2") == "line 2: syntax error, invalid syntax: y = = 2"


def test_python_errors_become_messages_on_their_line():
    assert error("x = 0\nprint(1 / x)") == "line 2: division by zero"
    assert error("d = {'high_c': 1}\nprint(d['high'])") == "line 2: the key 'high' is not in the dict; its keys are: " \
                                                           "'high_c'"
    assert error("print([1][3])") == "line 1: position 3 is outside a list of 1 items"
    assert error("print(1 < 'a')") == "line 1: TypeError: '<' not supported between instances of 'int' and 'str'"


def test_program_error_is_the_packages_error():
    assert issubclass(ProgramError, HandmadeAgentError)
    assert str(ProgramError("x", 3)) == "line 3: x" and str(ProgramError("x", 3).at(5)) == "line 3: x"


def test_lone_surrogates_never_leave_as_text():
    assert run_program("print('a\\ud800b')", EMPTY).printed == "a\ufffdb\n"


# --- observation and fences --------------------------------------------------------------------------------------
def test_the_observation_is_the_output_then_the_error_or_a_reminder_to_print():
    assert run_program("x = 1", EMPTY).observation == NOTHING_PRINTED == \
        "The program printed nothing. Use print(...) to see values."
    assert run_program("print(1)\nprint(1 / 0)", EMPTY).observation == "1\nError: line 2: division by zero"


def test_extract_code_takes_the_first_python_or_bare_fence():
    assert extract_code("Sure.\n```python\nprint(1)\n```\n```python\nprint(2)\n```") == "print(1)"
    assert extract_code("```py\nx = 1\n```") == "x = 1"
    assert extract_code("```\nx = 2\n```") == "x = 2"
    assert extract_code('```json\n{"a": 1}\n```\n```Python\nx = 3\n```') == "x = 3"
    assert extract_code("```python\nx = 4\nprint(x)") == "x = 4\nprint(x)"
    assert extract_code("no code") is None and extract_code("```json\n{}\n```") is None and extract_code(None) is None


def test_run_program_accepts_a_fenced_program():
    assert printed("```python\nprint(6 * 7)\n```") == "42\n"


def test_the_interpreter_never_calls_exec_eval_compile_getattr_or_imports_by_name():
    banned = {"exec", "eval", "compile", "getattr", "setattr", "__import__", "import_module", "globals", "vars"}
    found = []
    for path in (ROOT / "handmade_agent" / "codeact").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            name = _called_name(node) if isinstance(node, ast.Call) else None
            if name in banned and not (name == "getattr" and _reads_an_ast_field(node)):
                found.append(f"{path.name}:{node.lineno} {name}")
    assert not found, found


def _called_name(node: ast.Call) -> str | None:
    """The name a call uses: ``eval(...)`` gives eval, ``x.getattr(...)`` getattr; ``re.compile`` builds a regex."""
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and not (isinstance(func.value, ast.Name) and func.value.id == "re"):
        return func.attr
    return None


def _reads_an_ast_field(node: ast.Call) -> bool:
    """``getattr(node, "lineno", ...)`` on a syntax-tree node, with a literal name: not a user-chosen one."""
    return len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)


# --- the hostile corpus ------------------------------------------------------------------------------------------
def hostile():
    spec = importlib.util.spec_from_file_location("hostile_codeact", ROOT / "benchmarks" / "hostile_codeact.py")
    module = sys.modules.setdefault("hostile_codeact", importlib.util.module_from_spec(spec))
    if not hasattr(module, "corpus"):  # its dataclass needs the module registered while it loads
        spec.loader.exec_module(module)
    return module


def test_the_hostile_corpus_has_no_escape_crash_or_hang():
    bench = hostile()
    cases = bench.corpus()
    assert len(cases) >= 200 and len({(c.source, c.limits) for c in cases}) == len(cases)
    results = bench.run_corpus(cases)
    bad = [(c.category, c.source[:60], verdict) for c, verdict, seconds in results
           if verdict.split(":")[0] in ("escape", "crash") or seconds > 5]
    assert not bad, bad
    assert sum(1 for _, verdict, _ in results if verdict == "refused") > 400


def test_the_hostile_oracle_catches_an_escape():
    bench, modules = hostile(), set(sys.modules)
    case = bench.Case("test", "x = 1")
    assert bench.judge(case, run_program("x = 1", EMPTY), modules) == "ran"
    assert bench.judge(case, ProgramResult(f"here: {bench.SECRET}"), modules) == "escape: the secret was printed"
    assert bench.judge(case, ProgramResult("", variables={"f": print}), modules) == \
        "escape: a value that is not plain data"
    assert bench.judge(case, ProgramResult("<class 'str'>"), modules) == "escape: a Python object's text was shown"
    assert bench.judge(case, ProgramResult(""), modules - {"json"}) == "escape: imported ['json']"
