"""The machine a learner needs: peak memory and disk of the default path (set-up, JupyterLab, the notebooks).

    .venv/bin/python benchmarks/learner_machine.py            # prints the figures the README's "Start here" states

Peak memory is measured, not estimated, in a fresh child process that holds at once what the heaviest notebook
(06) holds: the in-process 1.5B after an agent run of the two-tool question 00 opens with, and the two embedders of
chapter 06 (all-MiniLM-L6-v2 and the multilingual USE) after embedding every chunk of the manual. Its peak resident
set (``ru_maxrss``) is added to that of a JupyterLab server started and stopped on 127.0.0.1. Disk is what the set-up
writes (the virtual environment, the model file) and what the runs may add (the prompt-prefix cache, up to its cap).

Left out: the browser tab's memory (it is the learner's own browser), the notebook 08 suite runs (they reuse the same
model in the same process), and other operating systems (only Linux is measured here).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import json, resource
from handmade_agent import Agent, default_registry
from handmade_agent.backends import course_llm
from handmade_agent.rag import CachedEmbedder, SentenceTransformerEmbedder, USEEmbedder, chunk_documents, load_documents
run = Agent(course_llm(), default_registry()).run("明天杭州的最高气温是多少华氏度？")
chunks = [c.search_text for c in chunk_documents(load_documents("data/kb"))]
for embedder in (SentenceTransformerEmbedder(), USEEmbedder()):
    embedder.embed(chunks)  # not cached: the first run of a notebook computes them
print(json.dumps({"peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "chunks": len(chunks),
                  "answer": run.answer}))
"""


def size_of(path: Path) -> int:
    """Bytes under ``path`` (files counted once, symlinks not followed)."""
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def lab_peak_kib(python: str) -> int:
    """Resident memory of an idle JupyterLab server, read from /proc after it answers."""
    proc = subprocess.Popen([python, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1", "--port=0",
                             "--allow-root", "--ServerApp.token=", f"--notebook-dir={ROOT / 'notebooks'}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        for line in proc.stderr:  # the server logs its URL once it serves
            if "http://127.0.0.1" in line:
                break
        time.sleep(3)
        status = Path(f"/proc/{proc.pid}/status").read_text()
        return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:")))
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


def main() -> None:
    python = sys.executable
    env = {**os.environ, "HANDMADE_AGENT_RECORDING": "off"}
    env.pop("HANDMADE_AGENT_BASE_URL", None)
    out = subprocess.run([python, "-c", CHILD], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    child = json.loads(out.stdout.strip().splitlines()[-1])
    lab = lab_peak_kib(python)
    from handmade_agent.local import find_model
    from handmade_agent.local.prefix_cache import cap_from_env
    venv, model = size_of(Path(sys.prefix)), size_of(find_model())  # sys.prefix: this virtual environment
    cache = cap_from_env()  # the prompt-prefix cache grows up to its cap, then evicts
    peak = (child["peak_kib"] + lab) * 1024
    print(f"kernel with the 1.5B and both embedders ({child['chunks']} chunks): {child['peak_kib'] / 2**20:.2f} GiB peak")
    print(f"JupyterLab server, idle:                         {lab / 2**20:.2f} GiB peak")
    print(f"peak memory of the default path:                 {peak / 2**30:.2f} GiB")
    print(f"disk: .venv {venv / 1e9:.2f} GB + model {model / 1e9:.2f} GB + prefix cache at most {cache / 1e9:.2f} GB"
          f" = {(venv + model + cache) / 1e9:.2f} GB")
    print("agent answer (a sanity check of the run):", child["answer"])


if __name__ == "__main__":
    main()
