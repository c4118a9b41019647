"""Execute notebooks top to bottom in a fresh kernel and save them commit-ready.

    python tests/execute_notebook.py notebooks/00_setup.ipynb [more.ipynb ...]
    python tests/execute_notebook.py --normalize notebooks/*.ipynb   (rewrite in normal form, no run)

A committed notebook records one clean run (execution counts 1..n) and is stored in the exact form
JupyterLab writes, so opening it changes nothing: nbformat 4.5 with a stable id per cell, the
kernel's own kernelspec and language_info, consecutive stream outputs merged (as the front end
does), a newline at the end of the file. It keeps the widget state of its run (so a trusted, unrun
notebook shows every panel), the fingerprint of what produced its outputs
(``notebook_fingerprint.py``) and the clean run's wall time in whole seconds (``run_seconds``, which
``tools/workshop_plan.py`` puts on the instructor's page). Personal metadata is dropped. A cell that raises
stops the run and nothing is saved.
"""
from __future__ import annotations

import hashlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
KEEP_NB_METADATA = ("kernelspec", "language_info", "widgets")
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def merge_streams(outputs: list) -> list:
    """Consecutive stream outputs of one name become one (JupyterLab saves them that way)."""
    merged: list = []
    for o in outputs:
        prev = merged[-1] if merged else None
        if o.get("output_type") == "stream" and prev is not None and prev.get("output_type") == "stream" \
                and prev.get("name") == o.get("name"):
            prev["text"] = "".join(prev["text"]) + "".join(o["text"])
        else:
            merged.append(o)
    return merged


def kernel_metadata(name: str = "python3") -> dict:
    """``kernelspec`` and ``language_info`` as JupyterLab rewrites them once kernel ``name`` has connected.

    JupyterLab takes the display name from the installed kernelspec (``Python 3 (ipykernel)``, not an
    older notebook's ``Python 3``) and language_info from the kernel's reply, version included; ipykernel
    answers with ``IPythonKernel.language_info`` of the interpreter it runs on (this one).
    """
    from ipykernel.ipkernel import IPythonKernel
    from jupyter_client.kernelspec import KernelSpecManager
    spec = KernelSpecManager().get_kernel_spec(name)
    return {"kernelspec": {"display_name": spec.display_name, "language": spec.language, "name": name},
            "language_info": dict(IPythonKernel.language_info)}


def normalize(nb, fingerprint: dict | None = None, run_seconds: int | None = None) -> None:
    """Put ``nb`` (an nbformat node) in the committed normal form, in place.

    A pass without a fresh ``fingerprint`` / ``run_seconds`` (``--normalize``) keeps the recorded ones.
    """
    old = nb.metadata.get("handmade_agent") or {}
    nb.metadata = {k: v for k, v in nb.metadata.items() if k in KEEP_NB_METADATA}
    nb.metadata.update(kernel_metadata(nb.metadata.get("kernelspec", {}).get("name", "python3")))
    if fingerprint or old.get("fingerprint"):
        nb.metadata["handmade_agent"] = {"fingerprint": fingerprint or old["fingerprint"]}
        seconds = run_seconds if run_seconds is not None else old.get("run_seconds")
        if seconds is not None:
            nb.metadata["handmade_agent"]["run_seconds"] = int(seconds)
    widgets = nb.metadata.get("widgets", {}).get(WIDGET_STATE)
    if widgets is not None and not widgets.get("state"):
        nb.metadata.pop("widgets")  # no panel in this notebook: no empty state block
    seen: set[str] = set()
    for i, cell in enumerate(nb.cells):
        tags = cell.metadata.get("tags", [])
        cell.metadata = {"tags": tags} if tags else {}
        cid = cell.get("id") or hashlib.sha1(f"{i}:{''.join(cell.source)}".encode()).hexdigest()[:8]
        while cid in seen:  # ids must be unique; a copied cell may share one
            cid = hashlib.sha1(cid.encode()).hexdigest()[:8]
        cell["id"] = cid
        seen.add(cid)
        if cell.cell_type == "code":
            cell.outputs = merge_streams(cell.outputs)
    nb.nbformat, nb.nbformat_minor = 4, 5


def dumps(nb) -> str:
    """The file's text as jupyter_server saves it for JupyterLab: ``nbformat.write`` ends it with a newline."""
    import nbformat
    return nbformat.writes(nb) + "\n"


def write(nb, path: Path) -> None:
    import nbformat
    nbformat.validate(nb)
    path.write_text(dumps(nb), encoding="utf-8")


def execute(path: Path) -> None:
    import nbformat
    from nbclient import NotebookClient
    from notebook_fingerprint import fingerprint

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nb.metadata.pop("widgets", None)
    inputs = fingerprint(path)  # before the run: the outputs come from the code as it was when it started
    t0 = time.perf_counter()
    client = NotebookClient(nb, timeout=1800, kernel_name="python3", store_widget_state=True,
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    seconds = round(time.perf_counter() - t0)
    normalize(nb, inputs, seconds)
    write(nb, path)
    print(f"{path}: executed in {seconds} s")
    sync_chinese_edition(path)


def sync_chinese_edition(path: Path) -> None:
    """Copy the fresh code outputs into ``zh/<name>`` (its prose stays; stale prose is reported, not lost)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))  # maintainer tooling, outside the package
    from translation import problems, read, sync, write as write_edition
    twin = path.parent / "zh" / path.name
    if twin.exists():
        write_edition(sync(read(path), read(twin)), twin)
        left = problems(read(path), read(twin))
        print(f"{twin}: synced" + (f"; {len(left)} cells need translating: {left[:3]}" if left else ""))


def main(args: list[str]) -> None:
    import nbformat
    if args and args[0] == "--normalize":
        for arg in args[1:]:
            nb = nbformat.read(arg, as_version=4)
            normalize(nb)
            write(nb, Path(arg))
            sync_chinese_edition(Path(arg))
        return
    for arg in args:
        execute(Path(arg))


if __name__ == "__main__":
    main(sys.argv[1:])
