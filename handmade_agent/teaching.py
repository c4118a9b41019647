"""Course helpers: show a package object's source, check a claim (about code, or about a model) or an exercise,
make a student edition.

The notebooks build a small version of each component by hand and then use
the finished one from the package; ``show_source`` displays the finished code
instead of copying it into the notebook, so the package stays the single copy.

Exercise cells are tagged ``solution``. ``student_edition`` replaces their
code with a stub, keeps the checker cell after them and every other output, and
folds interview answers away.

    >>> check("2 + 2 is 4", 2 + 2 == 4)
    ✓ 2 + 2 is 4
    >>> check_model("the model called the calculator", True)  # on any model: it held
    ✓ the model called the calculator...
    >>> check_exercise("double", lambda x: 2 * x, [((2,), 4), ((0,), 0)])
    ✓ double: all 2 cases pass
    True
"""
from __future__ import annotations

import inspect
import json
import re
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


def check(claim: str, holds: bool, detail: Any = None) -> None:
    """Print ``✓ claim`` when it holds; raise AssertionError saying what failed when it does not.

    A notebook's assertions are its tests, and they are also part of the lesson: the claim is
    written as a sentence so the reader sees what was verified, not a bare ``assert``.
    ``detail`` (the measured value, say) is shown only when the claim fails.
    """
    if not holds:
        raise AssertionError(f"✗ {claim}" + ("" if detail is None else f" (got {detail!r})"))
    print(f"✓ {claim}")


def course_root(start: str | Path | None = None) -> Path:
    """The checkout the notebooks read ``data/`` from: ``start`` (default: the working directory) or a folder above it.

    A notebook runs from ``notebooks/``, ``notebooks/zh/``, ``student/``, ``student/zh/`` or the checkout itself.
    """
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "data").is_dir() and (folder / "handmade_agent").is_dir():
            return folder
    from .errors import ConfigError
    raise ConfigError(f"No handmade-agent checkout (a folder with data/ and handmade_agent/) at or above {here}: "
                      "open the notebooks from the cloned repository.")


def on_course_model() -> bool:
    """Do the cells run on the model the committed outputs come from: the in-process default model (the 1.5B)?"""
    from .backends import using_server
    from .local import DEFAULT_MODEL, model_spec
    return not using_server() and model_spec().name == DEFAULT_MODEL


def check_model(claim: str, holds: bool, detail: Any = None) -> None:
    """A claim about what the model did: asserted on the course's model, compared on any other.

    On the course's model this is ``check``: a reply that changed fails the notebook, so CI pins every number.
    On another model (the 0.5B, a server, an API) a model may well behave otherwise, which is no bug: the cell
    prints the course's run against yours and Run All goes on. A claim that holds prints the same line everywhere
    (so a server of the course's model, compared cell by cell, matches the committed output). A claim about *code*
    uses ``check`` everywhere.
    """
    if on_course_model():
        check(claim, holds, detail)
    elif holds:
        print(f"✓ {claim}")
    else:
        print(f"≠ the course's run: {claim}; yours: " + ("not so" if detail is None else repr(detail)))


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


INTERVIEW_HEADINGS = ("## Interview questions", "## 面试题")


def hide_answers(markdown: str, label: str = "Answer") -> str:
    """Interview questions stay; each answer folds into a ``<details>`` block (collapsed in JupyterLab and on GitHub)."""
    out, answer = [], []

    def fold() -> None:
        if answer and any(line.strip() for line in answer):
            body = "\n".join(answer).strip("\n")
            out.extend(["", f"<details><summary>{label}</summary>", "", body, "", "</details>", ""])
        elif answer:
            out.extend(answer)
        answer.clear()

    in_question = False
    for line in markdown.split("\n"):
        # a question is a line opening in bold ("**Q1. ...**", "**1. ...**", "**Why ...?** answer on the same line")
        bold = re.match(r"(\*\*[^*]+\*\*)\s*(.*)$", line)
        if bold or line.startswith("## "):
            fold()
            out.append(bold.group(1) if bold else line)
            in_question = bool(bold)
            if bold and bold.group(2):
                answer.append(bold.group(2))
        elif in_question:
            answer.append(line)
        else:
            out.append(line)
    fold()
    return "\n".join(out)


def student_edition(notebook: str | Path, out: str | Path) -> int:
    """Write a copy of ``notebook`` for students; returns how many solutions were taken out.

    ``solution``-tagged cells become a stub (their outputs go, and so do the outputs of the checker
    right after them); every other output stays, so the edition reads well unrun; interview answers
    fold away behind "Answer". Pure JSON: no model, no kernel, no install needed.
    """
    nb = json.loads(Path(notebook).read_text(encoding="utf-8"))
    stubbed, clear_next = 0, False
    for cell in nb["cells"]:
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "markdown" and any(h in source for h in INTERVIEW_HEADINGS):
            cell["source"] = hide_answers(source, "答案" if INTERVIEW_HEADINGS[1] in source else "Answer")
        if cell["cell_type"] != "code":
            continue
        if "solution" in cell.get("metadata", {}).get("tags", []):
            cell["source"], stubbed, clear_next = STUB, stubbed + 1, True
            cell["outputs"], cell["execution_count"] = [], None
        elif clear_next:  # the checker's verdict was on the solution, not on the student's code
            cell["outputs"], cell["execution_count"], clear_next = [], None, False
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps(nb, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return stubbed


def main(argv: list[str] | None = None) -> None:
    """``python -m handmade_agent.teaching OUT_DIR NOTEBOOK...``: write the student edition of each notebook."""
    import sys
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 2:
        raise SystemExit("usage: python -m handmade_agent.teaching OUT_DIR NOTEBOOK.ipynb [...]")
    for nb in args[1:]:
        target = Path(args[0]) / Path(nb).name
        print(f"{target}: {student_edition(nb, target)} solutions taken out")


if __name__ == "__main__":
    main()
