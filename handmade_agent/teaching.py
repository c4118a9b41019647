"""Course helpers: show a package object's source, check exercises, make a student edition.

The notebooks build a small version of each component by hand and then use
the finished one from the package; ``show_source`` displays the finished code
instead of copying it into the notebook, so the package stays the single copy.

Exercise cells are tagged ``solution``. ``student_edition`` replaces their
code with a stub, keeps the checker cell after them, and clears outputs.

    >>> check_exercise("double", lambda x: 2 * x, [((2,), 4), ((0,), 0)])
    ✓ double: all 2 cases pass
    True
"""
from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any, Callable, Iterable

STUB = "# YOUR CODE HERE\nraise NotImplementedError('write your solution, then run the checker below')\n"


def show_source(obj: Any) -> None:
    """Display the source of a package function or class (highlighted in Jupyter, plain elsewhere)."""
    src = inspect.getsource(obj)
    try:
        from IPython import get_ipython
        from IPython.display import Code, display
        if get_ipython() is not None:
            display(Code(src, language="python"))
            return
    except ImportError:
        pass
    print(src)


def check_exercise(name: str, candidate: Callable, cases: Iterable[tuple[tuple, Any]],
                   compare: Callable[[Any, Any], bool] | None = None) -> bool:
    """Call ``candidate(*args)`` for each case and compare with the expected value.

    Prints one line on success; raises AssertionError naming the first failing
    case, so a notebook cell (and nbval) fails loudly on a wrong solution.
    """
    same = compare or (lambda got, want: got == want)
    n = 0
    for args, want in cases:
        n += 1
        try:
            got = candidate(*args)
        except Exception as e:  # report, don't hide, what the solution raised
            raise AssertionError(f"✗ {name}: case {n} {args!r} raised {type(e).__name__}: {e}") from e
        if not same(got, want):
            raise AssertionError(f"✗ {name}: case {n} {args!r} gave {got!r}, expected {want!r}")
    print(f"✓ {name}: all {n} cases pass")
    return True


def student_edition(notebook: str | Path, out: str | Path) -> int:
    """Write a copy of ``notebook`` with ``solution``-tagged cells stubbed out. Returns how many."""
    nb = json.loads(Path(notebook).read_text(encoding="utf-8"))
    stubbed = 0
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        cell["outputs"], cell["execution_count"] = [], None
        if "solution" in cell.get("metadata", {}).get("tags", []):
            cell["source"], stubbed = STUB, stubbed + 1
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return stubbed
