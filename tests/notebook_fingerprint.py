"""What a notebook's committed outputs were computed from, as one hash: so stale outputs cannot pass.

A notebook's outputs follow from what it runs and reads, so ``fingerprint(path)`` hashes:

- every package module the notebook imports, followed through the package's own imports (read from the
  source, like ``test_architecture``). ``from handmade_agent import Agent`` counts the module that defines
  ``Agent`` (the top level's ``_EXPORTS`` table, read with ast): the top level imports nothing itself. A module
  counts by its code: ``code_hash`` (an AST dump) leaves out comments, blank lines, line breaks and line
  numbers, and keeps docstrings (a tool's description can be one and reach a prompt);
- the notebook's own code cells, their source exactly (markdown does not run);
- the files under ``data/`` the notebook's kernel opened (and folders it listed) when it was last executed:
  ``execute_notebook.py`` records them (``opened``, kept in the fingerprint), so this recomputes exactly those;
- its recorded model calls, ``notebooks/recordings/<stem>.jsonl``, when there are any (a changed reply can
  change an output);
- the model file's sha256.

``execute_notebook.py`` stores the result in the notebook's metadata; a fast test recomputes it and names the
notebook to re-run when it differs.

Deliberately left out: the versions of installed libraries (pinned in pyproject.toml), the machine (volatile
figures are what the nbval sanitize file is for), and files opened by child processes a notebook starts
(the audit hook that records opens lives in the kernel only).
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]  # the test helpers, and the package of this checkout
from execute_notebook import recording_path  # noqa: E402  (one place says where a notebook's recording lives)
from test_architecture import exists, imports_of, is_package, top_level_exports  # noqa: E402  (one reader)
from handmade_agent.local.recording import code_hash  # noqa: E402  (stdlib only: no model loads)

MISSING = "missing"


def module_path(name: str) -> Path:
    base = ROOT / name.replace(".", "/")
    return base / "__init__.py" if is_package(name) else base.with_suffix(".py")


def code_sources(nb: dict) -> list[str]:
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def notebook_imports(nb: dict) -> set[str]:
    """The package modules a notebook's code imports; a top-level name counts as the module that defines it."""
    exports = top_level_exports()
    found = {"handmade_agent"}
    trees = [ast.parse("\n".join(l for l in source.splitlines() if not l.lstrip().startswith(("%", "!"))))
             for source in code_sources(nb)]
    nodes = [node for tree in trees for node in ast.walk(tree)]
    top = {a.asname or a.name for n in nodes if isinstance(n, ast.Import) for a in n.names
           if a.name == "handmade_agent"}  # the names the top level goes by: `import handmade_agent as ha`
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("handmade_agent"):
            found.add(node.module)
            for a in node.names:
                if exists(f"{node.module}.{a.name}"):
                    found.add(f"{node.module}.{a.name}")
                elif node.module == "handmade_agent":
                    found |= set(exports.values()) if a.name == "*" else {exports.get(a.name, node.module)}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("handmade_agent")}
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in top \
                and node.attr in exports:
            found.add(exports[node.attr])  # `import handmade_agent` ... `handmade_agent.Agent(...)`
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
        # table=False: the top level imports a name's module only when the name is used (counted above)
        todo += [p for p in parents if p not in seen] + list(imports_of(module_path(m), table=False) - seen)
    return seen


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def key(path: Path) -> str:
    """An input's name: its path in the repository (a folder's ends with /)."""
    path = Path(os.path.abspath(path))
    name = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
    return name + "/" if path.is_dir() else name


def data_hash(name: str) -> str:
    """A data file's sha256; a folder's is that of its sorted listing (a file added to a listed folder counts)."""
    path = ROOT / name
    if name.endswith("/"):
        return hashlib.sha256("\n".join(sorted(os.listdir(path))).encode()).hexdigest()[:16] if path.is_dir() \
            else MISSING
    return sha(path) if path.is_file() else MISSING


def all_data() -> dict[str, str]:
    """Every file and folder under data/ with its hash: ``execute_notebook`` takes this before a run."""
    found = [DATA, *DATA.rglob("*")]
    return {key(p): data_hash(key(p)) for p in sorted(found)}


def code_inputs(path: Path) -> dict[str, str]:
    """What the notebook runs: package modules, its own code cells, the model. Known before a run."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    files = sorted(module_path(m) for m in closure(notebook_imports(nb)))
    out = {key(f): code_hash(f) for f in files}
    cells = json.dumps(code_sources(nb), ensure_ascii=False)
    out[key(path) + ":code-cells"] = hashlib.sha256(cells.encode("utf-8")).hexdigest()[:16]
    from handmade_agent.local import model_spec
    spec = model_spec()  # the model the outputs came from: the default, or HANDMADE_AGENT_LOCAL_MODEL's
    out["model:" + spec.filename] = spec.sha256[:16]
    return out


def recording_input(path: Path) -> dict[str, str]:
    recording = recording_path(path)
    return {key(recording): sha(recording)} if recording.is_file() else {}


def named_data(path: Path, modules: list[Path]) -> list[str]:
    """The old choice of data files: those whose name (or top folder) appears in the notebook or its modules.

    Only for a notebook executed before runs recorded what they opened (no ``opened`` in its fingerprint). Once
    every notebook has been re-executed with ``execute_notebook.py``, this fallback can go.
    """
    nb = json.loads(path.read_text(encoding="utf-8"))
    text = "".join("".join(c["source"]) for c in nb["cells"]) + "".join(f.read_text(encoding="utf-8") for f in modules)
    return [key(f) for f in sorted(DATA.rglob("*")) if f.is_file()
            and (f.name in text or f.relative_to(DATA).parts[0] in text)]


def assemble(code: dict[str, str], data: dict[str, str], recording: dict[str, str],
             opened: list[str] | None) -> dict:
    files = {**code, **data, **recording}
    total = hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()[:16]
    return {"hash": total, "inputs": files, **({"opened": opened} if opened is not None else {})}


def recorded_opened(path: Path) -> list[str] | None:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return nb["metadata"].get("handmade_agent", {}).get("fingerprint", {}).get("opened")


def fingerprint(path: Path, opened: list[str] | None = None) -> dict:
    """The notebook's fingerprint now, for the data list ``opened`` (default: the one its last run recorded)."""
    opened = recorded_opened(path) if opened is None else opened
    code = code_inputs(path)
    names = opened if opened is not None else named_data(path, [ROOT / k for k in code if k.endswith(".py")])
    return assemble(code, {n: data_hash(n) for n in names}, recording_input(path), opened)


if __name__ == "__main__":
    for arg in sys.argv[1:] or sorted(str(p) for p in (ROOT / "notebooks").glob("*.ipynb")):
        found = fingerprint(Path(arg))
        print(f"{arg}: {found['hash']} ({len(found['inputs'])} inputs)")
