"""Execute notebooks top to bottom in a fresh kernel and save them commit-ready.

    python tests/execute_notebook.py notebooks/00_setup.ipynb [more.ipynb ...]

Runs in the current environment's kernel, then strips what must not be
committed (personal metadata, widget state) so the file records a clean run
with execution counts 1..n. A cell that raises stops the run and nothing is saved.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

KEEP_NB_METADATA = ("kernelspec", "language_info")


def clean(nb) -> None:
    nb.metadata = {k: v for k, v in nb.metadata.items() if k in KEEP_NB_METADATA}
    nb.metadata.get("language_info", {}).pop("version", None)
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        cell.metadata = {"tags": tags} if tags else {}
        cell.pop("id", None)


def execute(path: Path) -> None:
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    t0 = time.perf_counter()
    client = NotebookClient(nb, timeout=1800, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    clean(nb)
    nb.nbformat_minor = 4  # minor 4 has no cell ids, so diffs stay stable
    nbformat.write(nb, path)
    print(f"{path}: executed in {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        execute(Path(arg))
