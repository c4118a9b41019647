"""Course helpers: show a package object's source, check a claim (about code, or about a model) or an exercise,
catch a later part of a notebook up in a new kernel, make a student edition.

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
import time
from pathlib import Path
from typing import Any, Callable, Iterable

from .errors import HandmadeAgentError

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


def cells_above(notebook: str | Path, until: str) -> list[str]:
    """The code of every code cell above the first markdown cell with a line starting ``until``, in order."""
    path = Path(notebook)
    if not path.is_file():
        raise HandmadeAgentError(f"No notebook {path} here ({Path.cwd()}): pass its file name from the folder it "
                                 "is in (Jupyter runs a notebook there).")
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    line = re.compile("^" + re.escape(until), re.M)
    stop = next((i for i, c in enumerate(cells) if c["cell_type"] == "markdown" and line.search("".join(c["source"]))),
                None)
    if stop is None:
        raise HandmadeAgentError(f"{path.name} has no heading starting {until!r}: pass the heading of the part "
                                 "this cell begins (e.g. '## 7.').")
    return ["".join(c["source"]) for c in cells[:stop] if c["cell_type"] == "code"]


def catch_up(notebook: str | Path, until: str, shell: Any = None) -> None:
    """Run the code cells of ``notebook`` above the heading ``until`` in this kernel, unless they have run here.

    A workshop's second slot, or a learner back the next day, needs the state part 1 built; *Run All Above* gives it
    but re-asks the model every question (08: about 18 minutes). Here a call the course recorded
    (``notebooks/recordings/``) is replayed and any other (another model, a server, an edited cell) runs live, so
    the state is the learner's either way; after it, models run live again. The saved cells run, all of them (a
    notebook is no dependency graph), their outputs hidden. A failing cell stops it, named, to be run by hand.
    """
    from IPython import get_ipython
    from IPython.utils.capture import capture_output

    from .local import reusing

    shell = shell or get_ipython()
    if shell is None:
        raise HandmadeAgentError("catch_up runs cells in a notebook's kernel: call it from a notebook cell.")
    sources = cells_above(notebook, until)
    # by the names they leave, not the input history: nbval and other runners execute cells without storing it
    if _top_level_names([shell.transform_cell(src) for src in sources]) <= shell.user_ns.keys():
        print(f"The {len(sources)} code cells above {until!r} have run in this kernel: nothing to catch up.")
        return
    recorded = course_root(Path(notebook).resolve().parent) / "notebooks" / "recordings" / f"{Path(notebook).stem}.jsonl"
    t0 = time.perf_counter()
    with reusing(recorded) as rec:
        for n, src in enumerate(sources, 1):
            with capture_output(display=True):
                result = shell.run_cell(src, store_history=True)
            if not result.success:
                first = next((line for line in src.splitlines() if line.strip()), "")
                raise HandmadeAgentError(f"Catching up stopped at code cell {n} of {len(sources)} ({first[:70]!r}): "
                                         f"{result.error_in_exec or result.error_before_exec!r}. Run that cell by "
                                         "hand to read its whole error.")
    print(f"Ran the {len(sources)} code cells above {until!r} in {time.perf_counter() - t0:.0f} s: {rec.hits} model "
          f"calls replayed from the course's recording, {rec.misses} run on your model.")


def _top_level_names(codes: list[str]) -> set[str]:
    """Names these cells surely define: assigned, imported or defined at the top level, outside any branch or loop
    (a name set only under an ``if``, e.g. on the in-process model, proves nothing), and never deleted."""
    import ast
    found, deleted = set(), set()
    for code in codes:
        try:
            tree = ast.parse(code)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                found |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                found |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"}
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.add(node.name)
        deleted |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Del)}
    return found - deleted


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
