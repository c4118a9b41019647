"""The house rules of the package layout, checked by reading the source (no imports run).

Every module imports only from its own chapter or an earlier one, and the import graph has no
cycle — counting imports inside functions too, so a lazy import cannot hide one.
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "handmade_agent"

# The course's table of contents: which chapter each top-level part of the package belongs to.
CHAPTER = {"errors": 0, "llm": 0, "grammar": 0, "redaction": 0, "backends": 0, "local": 0, "serve": 0,
           "tools": 1, "toolbox": 1, "react": 2, "agent": 3, "observers": 4, "memory": 5, "storage": 5,
           "rag": 6, "widgets": 7, "teaching": 7, "evaluation": 8, "cli": 8, "mcp": 8, "planning": 8, "": 9}
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


def imports_of(path: Path) -> set[str]:
    """Every package module that ``path`` imports, anywhere in the file."""
    me = module_name(path)
    here = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found = set()
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
