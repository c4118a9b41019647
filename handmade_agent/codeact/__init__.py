"""Chapter 10: code as action — the model writes a small program that calls the tools, and we run it safely.

Instead of one JSON tool call per step, a coder model can write::

    a = get_weather(city="北京"); b = get_weather(city="上海")
    print(a, b)

and see what it printed. Running that text with ``exec`` would hand the model (and anyone who injects text
into its context) the whole Python process, so this package is an interpreter of its own. It parses with
``ast`` and walks the tree (``machine.py``, ``statements.py``, ``expressions.py``, ``calls.py``); nothing is
ever passed to ``exec``, ``eval`` or ``compile``, no name is looked up with ``getattr``, and nothing is imported.
``screening.py`` refuses what an agent program may not contain before any of it runs; ``limits.py`` caps
what it may spend, each cap checked before the work (``operators.py`` sizes every result first, and comparing
or sorting nested values is charged for every item it will go through, shared ones counted each time).

The language is a small Python: assignment (also ``a, b = ...``, ``x += 1``, ``d[k] = v``); numbers, text,
True/False/None, lists, tuples and dicts; ``+ - * / // % **``, comparisons, ``and or not in``, ``x if c else y``;
``if/elif/else``; ``for`` with ``break``/``continue``; f-strings without format specs; ``print``; the functions
``len round min max sum sorted abs range str int float list dict`` (``functions.py``); and the registry's tools,
called by keyword (``calls.py`` sends them through the registry). A short list of methods is allowed, keyed by
the value's exact type and only called at once (``methods.py``: dict ``get keys values items``, list
``append``, str ``upper lower strip split join replace startswith endswith``); attribute *reads* (``x.y``) are
never allowed, nor any name starting with ``_``. ``arguments.py`` checks what each function and method is given.
``run_program`` (``program.py``) never raises; ``extract_code`` (``fences.py``) takes the program out of a
reply's Markdown fence.

``CodeAgent`` (``agent.py``) is the chapter-03 loop with a program as its step: its prompt (``prompt.py``: the
tools as signatures; worked examples chosen per question in ``examples.py``), how a reply is read and a step shown
back, and the step's grammar (``replies.py``). The evaluation runs it as ``code`` and ``code+c``.

Deliberately left out: functions, classes, ``while``, ``try``, imports, comprehensions, and keeping variables
from one program to the next. The caps bound time and memory; they do not isolate the process, so the tools
themselves must be safe to call (the registry's approval hook still guards those with side effects).

    >>> from handmade_agent.tools import ToolRegistry
    >>> run_program("for w in ['a', 'b']:\\n    print(w.upper(), end=' ')", ToolRegistry([])).printed
    'A B '
    >>> print(run_program("import os", ToolRegistry([])).observation)
    Error: line 1: `import` is not allowed in an agent program; call the tools listed instead
"""
from .agent import CodeAgent
from .fences import extract_code
from .formatting import text_of
from .functions import FUNCTIONS
from .limits import Budget, Limits, ProgramError
from .machine import Machine, ToolCallRecord
from .methods import METHODS
from .operators import binary
from .program import NOTHING_PRINTED, ProgramResult, run_program
from .prompt import code_prompt_messages
from .replies import ProgramStep, code_grammar, read_code_reply
from .screening import screen

__all__ = ["FUNCTIONS", "METHODS", "NOTHING_PRINTED", "Budget", "CodeAgent", "Limits", "Machine", "ProgramError", "ProgramResult",
           "ProgramStep", "ToolCallRecord", "binary", "code_grammar", "code_prompt_messages", "extract_code", "read_code_reply",
           "run_program", "screen", "text_of"]
