"""What a notebook's committed outputs were computed from, as one hash: so stale outputs cannot pass.

A notebook's outputs depend on the package code it runs, the data files it reads and the model.
``fingerprint(path)`` hashes: every package module the notebook imports, followed through the
package's own imports (read from the source, like ``test_architecture``), comments left out; every file under
``data/`` whose name (or top folder) appears in the notebook or in those modules; and the model
file's sha256. ``execute_notebook.py`` stores it in the notebook's metadata; a fast test recomputes
it and names the notebook to re-run when it differs.

Deliberately left out: the versions of installed libraries (pinned in pyproject.toml) and the
machine (volatile figures are what the nbval sanitize file is for).
"""
from __future__ import annotations

import ast
import hashlib
import json
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from test_architecture import exists, imports_of, is_package  # noqa: E402  (one reader of imports)


def module_path(name: str) -> Path:
    base = ROOT / name.replace(".", "/")
    return base / "__init__.py" if is_package(name) else base.with_suffix(".py")


def notebook_imports(nb: dict) -> set[str]:
    found = {"handmade_agent"}
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        src = "\n".join(l for l in "".join(cell["source"]).splitlines() if not l.lstrip().startswith(("%", "!")))
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("handmade_agent"):
                found.add(node.module)
                found |= {f"{node.module}.{a.name}" for a in node.names if exists(f"{node.module}.{a.name}")}
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name.startswith("handmade_agent")}
    return {m for m in found if exists(m)}


def closure(modules: set[str]) -> set[str]:
    """The modules plus everything they import, and the packages that contain them (their __init__ runs)."""
    todo, seen = list(modules), set()
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        parents = [".".join(m.split(".")[:i]) for i in range(1, len(m.split(".")))]
        todo += [p for p in parents if p not in seen] + list(imports_of(module_path(m)) - seen)
    return seen


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def code_sha(path: Path) -> str:
    """A module's hash without its comments: they never change what runs, and rewording one should not ask for
    25 minutes of re-execution. Line numbers stay in (a traceback in an output shows them), docstrings too (a tool's
    description can be one); the source that ``show_source`` prints is compared by its own test."""
    with path.open("rb") as f:
        kept = [(t.type, t.string, t.start[0]) for t in tokenize.tokenize(f.readline)
                if t.type not in (tokenize.COMMENT, tokenize.NL)]
    return hashlib.sha256(repr(kept).encode("utf-8")).hexdigest()[:16]


def inputs(path: Path) -> dict[str, str]:
    """Every input of the notebook's outputs, by path relative to the repository, with a short hash."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    files = sorted(module_path(m) for m in closure(notebook_imports(nb)))
    text = "".join("".join(c["source"]) for c in nb["cells"]) + "".join(f.read_text(encoding="utf-8") for f in files)
    data = [f for f in sorted((ROOT / "data").rglob("*")) if f.is_file()
            and (f.name in text or f.relative_to(ROOT / "data").parts[0] in text)]
    out = {**{str(f.relative_to(ROOT)): code_sha(f) for f in files}, **{str(f.relative_to(ROOT)): sha(f) for f in data}}
    from handmade_agent.local import model_spec
    spec = model_spec()  # the model the outputs came from: the default, or HANDMADE_AGENT_LOCAL_MODEL's
    out["model:" + spec.filename] = spec.sha256[:16]
    return out


def fingerprint(path: Path) -> dict:
    files = inputs(path)
    total = hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()[:16]
    return {"hash": total, "inputs": files}
