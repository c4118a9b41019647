"""The house rules of the package layout, checked by reading the source (no imports run).

Every module imports only from its own chapter or an earlier one, and the import graph has no
cycle — counting imports inside functions too, so a lazy import cannot hide one. The one import the graph
could not read, ``importlib.import_module`` with a computed name, is allowed in one place: the top-level
``__getattr__``, whose targets are a literal table (``_EXPORTS``) that the graph reads instead.
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "handmade_agent"

# The course's table of contents: which chapter each top-level part of the package belongs to.
CHAPTER = {"errors": 0, "llm": 0, "grammar": 0, "redaction": 0, "backends": 0, "local": 0, "serve": 0,
           "tools": 1, "toolbox": 1, "react": 2, "agent": 3, "observers": 4, "memory": 5, "storage": 5,
           "rag": 6, "widgets": 7, "teaching": 7, "evaluation": 8, "cli": 8, "mcp": 8, "planning": 8, "codeact": 8, "team": 8, "": 9}
# The ground floor: the only modules (files) at the top of the package; everything else lives in a chapter package.
TOP_LEVEL = {"__init__", "errors", "llm", "grammar", "redaction", "backends", "teaching", "cli"}
# Submodules another package may import directly; everything else is reached through the package's face.
PUBLIC_SUBMODULES = {"handmade_agent.agent.events"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_package(name: str) -> bool:
    return (PACKAGE.parent / name.replace(".", "/") / "__init__.py").exists()


def exists(name: str) -> bool:
    return is_package(name) or (PACKAGE.parent / (name.replace(".", "/") + ".py")).exists()


def top_level_exports() -> dict[str, str]:
    """The top-level ``_EXPORTS`` table, read with ast: each public name and the module that defines it."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    table = next(n.value for n in tree.body if isinstance(n, ast.AnnAssign | ast.Assign)
                 and "_EXPORTS" in [t.id for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                                    if isinstance(t, ast.Name)])
    modules = ast.literal_eval(table)
    return {name: "handmade_agent" + module for module, names in modules.items() for name in names}


def imports_of(path: Path, table: bool = True) -> set[str]:
    """Every package module that ``path`` imports, anywhere in the file; for the top level, with ``table``, also
    the modules of its ``_EXPORTS`` table (``notebook_fingerprint`` asks without: a name loads only its own)."""
    found = set()
    if table and path == PACKAGE / "__init__.py":
        # The top level's __getattr__ imports a name's module on its first use: edges like any lazy import, so the
        # cycle check counts them. They hide no cycle: nothing in the package imports the top level
        # (test_nothing_in_the_package_imports_the_top_level), so no path through them leads back.
        found = set(top_level_exports().values())
    me = module_name(path)
    here = me if path.name == "__init__.py" else me.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("handmade_agent")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")[: len(here.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            elif (node.module or "").startswith("handmade_agent"):
                target = node.module
            else:
                continue
            submodules = {f"{target}.{a.name}" for a in node.names if exists(f"{target}.{a.name}")}
            # `from . import events` needs only the submodule: the package is the importer's own parent
            found |= submodules if len(submodules) == len(node.names) else submodules | {target}
    return {t for t in found if exists(t) and t != me}


def graph() -> dict[str, set[str]]:
    return {module_name(p): imports_of(p) for p in PACKAGE.rglob("*.py")}


def chapter(name: str) -> int:
    part = name.split(".")[1] if "." in name else ""
    return CHAPTER[part]


def test_every_part_of_the_package_has_a_chapter():
    parts = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir()
             if (p.suffix == ".py" or (p / "__init__.py").exists()) and p.name != "__init__.py"}
    assert parts <= set(CHAPTER), f"add {sorted(parts - set(CHAPTER))} to CHAPTER (and to DESIGN.md)"


def test_the_top_level_holds_only_the_pinned_modules():
    files = {p.stem for p in PACKAGE.glob("*.py")}
    assert files <= TOP_LEVEL and len(TOP_LEVEL) <= 8, (
        f"top-level modules beyond the pinned list: {sorted(files - TOP_LEVEL)}; move them into a chapter package")


def private_imports(g: dict[str, set[str]]) -> list[tuple[str, str]]:
    """(importer, target) where a module reaches into another package's submodule instead of its face."""
    found = []
    for m, targets in g.items():
        mine = m.split(".")[1] if "." in m else ""
        for t in targets:
            parts = t.split(".")
            if len(parts) > 2 and parts[1] != mine and t not in PUBLIC_SUBMODULES:
                found.append((m, t))
    return sorted(found)


def test_no_module_imports_another_packages_private_module():
    found = private_imports(graph())
    assert not found, f"import these through the package's __init__ instead: {found}"


def test_the_private_import_check_catches_one():
    assert private_imports({"handmade_agent.rag.tool": {"handmade_agent.react.examples"}}) == [
        ("handmade_agent.rag.tool", "handmade_agent.react.examples")]
    assert private_imports({"handmade_agent.rag.tool": {"handmade_agent.rag.index", "handmade_agent.react"}}) == []


def test_no_module_imports_a_later_chapter():
    later = [(m, t) for m, targets in graph().items() for t in targets if chapter(t) > chapter(m)]
    assert not later, f"imports of a later chapter: {later}"


def find_cycle(g: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        path.append(n)
        for t in sorted(g.get(n, ())):
            if state.get(t) == 1:
                return path[path.index(t):] + [t]
            if t not in state and (c := visit(t)):
                return c
        state[n] = 2
        path.pop()
        return None

    for n in sorted(g):
        if n not in state and (c := visit(n)):
            return c
    return None


def test_the_import_graph_has_no_cycle():
    cycle = find_cycle(graph())
    assert cycle is None, " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_cycle_and_a_later_import():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    assert chapter("handmade_agent.widgets.trace") > chapter("handmade_agent.observers.trace")


def test_notebooks_import_only_public_chapter_packages():
    import json
    root = PACKAGE.parent / "notebooks"
    private = []
    for nb in sorted(root.glob("*.ipynb")):
        for cell in json.loads(nb.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "code":
                continue
            src = "".join(cell["source"])
            for node in ast.walk(ast.parse("\n".join(l for l in src.splitlines() if not l.lstrip().startswith(("%", "!"))))):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("handmade_agent."):
                    parts = node.module.split(".")
                    if len(parts) > 2 and node.module != "handmade_agent.agent.events":
                        private.append(f"{nb.name}: from {node.module} import ...")
    assert not private, private


def dynamic_imports(text: str, module: str) -> list[str]:
    """Calls of ``import_module`` / ``__import__`` that may load a package module: a name the graph cannot read."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call) and (getattr(node.func, "attr", None) == "import_module"
                                           or getattr(node.func, "id", None) in ("import_module", "__import__")):
            arg = node.args[0] if node.args else None
            literal = isinstance(arg, ast.Constant) and isinstance(arg.value, str)
            if not literal or arg.value.startswith((".", "handmade_agent")):
                found.append(node.lineno)
    return [f"{module}:{n}" for n in sorted(found)]


def test_no_module_imports_by_a_computed_name():
    # A lazy `from .x import y` inside a function is fine: the graph reads it. `import_module(name)` is not
    # readable, so it could hide a cycle or a later chapter. The one allowed is the top level's __getattr__: its
    # names come from the literal _EXPORTS table, which imports_of reads as the top level's imports.
    found = [w for p in sorted(PACKAGE.rglob("*.py")) for w in dynamic_imports(p.read_text(encoding="utf-8"),
                                                                                module_name(p))]
    assert [w.split(":")[0] for w in found] == ["handmade_agent"], (
        f"imports by a computed name (the import graph cannot see them): {found}")


def test_the_dynamic_import_check_catches_one():
    text = ("import importlib\ndef f(n):\n    return importlib.import_module(n)\nimportlib.import_module('json')\n"
            "__import__('handmade_agent.rag')\n")
    assert dynamic_imports(text, "handmade_agent.toolbox") == ["handmade_agent.toolbox:3", "handmade_agent.toolbox:5"]


def test_nothing_in_the_package_imports_the_top_level():
    importers = sorted(m for m, targets in graph().items() if "handmade_agent" in targets)
    assert not importers, f"{importers} import the top level; import the chapter package that defines the name"


def bound_names(path: Path) -> set[str]:
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            names |= {t.id for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                      if isinstance(t, ast.Name)}
    return names


def test_the_top_level_names_each_public_name_where_it_is_defined_and_imports_nothing_eagerly():
    top = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    eager = [ast.unparse(n) for n in top.body if isinstance(n, ast.ImportFrom) and (n.level or
             (n.module or "").startswith("handmade_agent")) or isinstance(n, ast.Import)
             and any(a.name.startswith("handmade_agent") for a in n.names)]
    assert not eager, f"the top level imports eagerly: {eager}; add the names to _EXPORTS instead"
    exports = top_level_exports()
    assert exports, "the top level's _EXPORTS table is empty or missing"
    for name, module in exports.items():
        path = PACKAGE.parent / module.replace(".", "/")
        path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        assert name in bound_names(path), f"_EXPORTS says {name} is in {module}, which does not define or import it"
