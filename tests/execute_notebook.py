"""Execute notebooks top to bottom in a fresh kernel and save them commit-ready.

    python tests/execute_notebook.py notebooks/00_setup.ipynb [more.ipynb ...]
    python tests/execute_notebook.py --normalize notebooks/*.ipynb   (rewrite in normal form, no run)

A committed notebook records one clean run (execution counts 1..n) and is stored in the exact form
JupyterLab writes, so opening it changes nothing: nbformat 4.5 with a stable id per cell, the
kernel's own kernelspec and language_info, consecutive stream outputs merged (as the front end
does), a newline at the end of the file. It keeps the widget state of its run (so a trusted, unrun
notebook shows every panel), the fingerprint of what produced its outputs
(``notebook_fingerprint.py``) and the clean run's time in whole seconds (``run_seconds``: the wall time, with each
replayed model call counted at the seconds it took when it was recorded, so it is what a live run takes; which
``tools/workshop_plan.py`` puts on the instructor's page). Personal metadata is dropped. A cell that raises
stops the run and nothing is saved; so does an output carrying a warning about what the machine lacks
(``MACHINE_WARNINGS``: no CJK font), which CI's machine does not print.

The kernel runs with a temporary ``IPYTHONDIR`` whose startup file installs an audit hook (``sys.addaudithook``)
that notes every file under ``data/`` the kernel opens for reading and every folder there it lists; the
fingerprint keeps that list (``opened``) and hashes exactly those.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the package, when run from a checkout
from handmade_agent.local.recording import ENV_MODE  # noqa: E402  (no heavy import: the module is stdlib only)
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


def recording_path(notebook: Path) -> Path:
    """Where a notebook's model calls are recorded: beside it, one JSONL file per notebook (zh shares the English)."""
    return notebook.resolve().parent / "recordings" / f"{notebook.stem}.jsonl"


def recorded_seconds(recording: Path) -> dict[str, float]:
    """Each recorded call's seconds when it was recorded (by key), before a run adds to the file."""
    if not recording.is_file():
        return {}
    from handmade_agent.local.recording import Recording
    return {k: float(e.get("seconds", 0.0)) for k, e in Recording(recording, "replay").entries.items()}


def used_keys(recording: Path) -> list[str]:
    """The keys the run asked for, in order, a key asked twice twice (a live run computes it twice)."""
    used = recording.with_name(recording.name + ".used")
    return used.read_text(encoding="utf-8").split() if used.is_file() else []


def use_recording(path: Path) -> Path:
    """Point the kernel about to start at this notebook's recording (record mode unless the caller chose one)."""
    from handmade_agent.local.recording import ENV_FILE
    recording = recording_path(path)
    recording.parent.mkdir(exist_ok=True)
    os.environ[ENV_MODE] = os.environ.get(ENV_MODE, "").strip().lower() or "record"
    os.environ[ENV_FILE] = str(recording)
    for leftover in (".used", ".misses"):  # a failed run's lists: start afresh
        recording.with_name(recording.name + leftover).unlink(missing_ok=True)
    return recording


# The kernel's startup file (IPython runs it before the first cell). It defines one function and deletes it, so
# the notebook's namespace stays as it was; the hook never raises (an audit hook's error would fail the open).
OPEN_RECORDER = '''\
def _handmade_agent_note_data(root, log_path):
    """Note in log_path each file under root/data this process opens for reading, and each folder it lists."""
    import os, sys
    roots = sorted({root, os.path.realpath(root)})
    log = open(log_path, "a", encoding="utf-8", buffering=1)
    seen = set()
    writing = os.O_WRONLY | os.O_RDWR

    def hook(event, args):
        if event not in ("open", "os.listdir", "os.scandir"):
            return
        try:
            target = "." if args[0] is None else args[0]
            if isinstance(target, int):
                return
            if event == "open" and ((isinstance(args[1], str) and any(c in args[1] for c in "wax+"))
                                    or (args[1] is None and isinstance(args[2], int) and args[2] & writing)):
                return  # written, not read: an output of the run
            name = os.path.abspath(os.fsdecode(target))
            for r in roots:
                data = os.path.join(r, "data")
                if name == data or name.startswith(data + os.sep):
                    rel = os.path.relpath(name, r).replace(os.sep, "/")
                    if event != "open" or os.path.isdir(name):
                        rel += "/"
                    if rel not in seen:
                        seen.add(rel)
                        log.write(rel + "\\n")
                    return
        except Exception:
            pass

    sys.addaudithook(hook)
'''


def recorder_source(root: Path, log: Path) -> str:
    """The startup file that notes what under ``root/data`` a kernel reads, into ``log``."""
    return (OPEN_RECORDER + f"\n\n_handmade_agent_note_data({str(root)!r}, {str(log)!r})\n"
            "del _handmade_agent_note_data\n")


@contextlib.contextmanager
def data_opens(root: Path = Path(__file__).resolve().parents[1]) -> Iterator[list[str]]:
    """Kernels started inside note what they read under ``root/data``; the list is filled when the block ends.

    nbclient's kernel inherits ``os.environ``, so a temporary ``IPYTHONDIR`` holding the startup file reaches it
    (and the learner's own IPython profile stays out of the run).
    """
    opened: list[str] = []
    before = os.environ.get("IPYTHONDIR")
    with tempfile.TemporaryDirectory(prefix="handmade-agent-ipython-") as tmp:
        log = Path(tmp) / "data-opened.txt"
        startup = Path(tmp) / "profile_default" / "startup"
        startup.mkdir(parents=True)
        (startup / "00-handmade-agent-data.py").write_text(recorder_source(root, log), encoding="utf-8")
        os.environ["IPYTHONDIR"] = tmp
        try:
            yield opened
        finally:
            if before is None:
                os.environ.pop("IPYTHONDIR", None)
            else:
                os.environ["IPYTHONDIR"] = before
            if log.exists():
                opened += sorted(set(log.read_text(encoding="utf-8").splitlines()))


# warnings that come from this machine, not from the notebook: committed, they fail strict nbval on a machine
# that has what was missing (CI installs fonts-noto-cjk), and the outputs would not be a clean run's
MACHINE_WARNINGS = {"CJKFontMissing": "install a CJK font first: sudo apt-get install fonts-noto-cjk, "
                                      "then rm -rf ~/.cache/matplotlib"}


def refuse_machine_warnings(nb, path: Path) -> None:
    """Stop before saving when an output carries a warning that says what this machine lacks."""
    for n, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            text = "".join(out.get("text", "")) if out.get("output_type") == "stream" else ""
            for name, fix in MACHINE_WARNINGS.items():
                if name in text:
                    raise SystemExit(f"{path}: not saved: cell {n} printed {name}; {fix}, and run it again.")


def execute(path: Path) -> None:
    import nbformat
    from nbclient import NotebookClient
    from notebook_fingerprint import all_data, assemble, code_inputs, recording_input

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nb.metadata.pop("widgets", None)
    recording = use_recording(path)
    # before the run: the outputs come from the code and data as they were when it started
    code, data = code_inputs(path), all_data()
    recorded = recorded_seconds(recording)
    t0 = time.perf_counter()
    with data_opens() as opened:
        client = NotebookClient(nb, timeout=1800, kernel_name="python3", store_widget_state=True,
                                resources={"metadata": {"path": str(path.parent)}})
        client.execute()
    wall = time.perf_counter() - t0
    replayed = [recorded[k] for k in used_keys(recording) if k in recorded]
    # what a live run takes: this run's wall time, with each replayed call costing what it cost when recorded
    seconds = round(wall + sum(replayed))
    misses = recording.with_name(recording.name + ".misses")
    if misses.exists():  # replay mode: a miss may have ended an agent's run quietly (model_error); never save that
        raise SystemExit(f"{path}: not saved: calls missing from {recording} (record them: unset "
                         f"{ENV_MODE} or set it to record):\n{misses.read_text(encoding='utf-8')[:3000]}")
    refuse_machine_warnings(nb, path)
    if os.environ[ENV_MODE] == "record":
        from handmade_agent.local.recording import prune
        kept, dropped = prune(recording)
        print(f"{recording}: {kept} recorded calls kept, {dropped} no longer used dropped")
    opened = [name for name in opened if name in data]  # a file the run itself created is an output, not an input
    # the recording as it is committed (after prune): a changed reply is a changed input
    inputs = assemble(code, {name: data[name] for name in opened}, recording_input(path), opened)
    normalize(nb, inputs, seconds)
    write(nb, path)
    print(f"{path}: executed in {wall:.0f} s, {len(replayed)} model calls replayed ({sum(replayed):.0f} s when "
          f"recorded: {seconds} s live); read {len(opened)} data files and folders")
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
