"""The agent notebooks once more, as a classroom runs them: a client-only install talking to one server.

    python tests/served_notebooks.py CLIENT_PYTHON [notebooks ...]   (``make served-notebooks`` does this)

Starts ``handmade-agent serve`` from the full install on a free loopback port, checks that the client
environment really has no in-process model (``llama_cpp`` must not import there), then runs the notebooks
under strict nbval in the client environment with ``HANDMADE_AGENT_BASE_URL`` pointing at the server.
Cells tagged ``local-only`` run but their outputs are not compared (notebooks/conftest.py). The server
is stopped whatever happens; its log is printed when the run fails.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ["notebooks/01_tools.ipynb", "notebooks/02_react_parser.ipynb", "notebooks/03_agent_loop.ipynb",
             "notebooks/04_observer.ipynb", "notebooks/05_memory.ipynb", "notebooks/06_rag.ipynb"]
NBVAL = ["--nbval", "--nbval-current-env", "--nbval-sanitize-with", "tests/nbval_sanitize.cfg",
         "--nbval-cell-timeout=900"]


def wait_healthy(url: str, server: subprocess.Popen, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server exited with code {server.returncode} before answering")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise SystemExit(f"the server did not answer {url} within {seconds:.0f} s")


def main(client_python: str, notebooks: list[str]) -> int:
    probe = subprocess.run([client_python, "-c", "import llama_cpp"], capture_output=True)
    if probe.returncode == 0:
        raise SystemExit(f"{client_python} can import llama_cpp: not a client-only install, so this run "
                         f"would not show that students need no compiler")
    from handmade_agent.serve.server import free_port  # the full install's package, run by the caller's python
    port = free_port()
    log = tempfile.NamedTemporaryFile("w+", prefix="served-notebooks-", suffix=".log", delete=False)
    server = subprocess.Popen([str(Path(sys.executable).parent / "handmade-agent"), "serve", "--port", str(port)],
                              stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    try:
        wait_healthy(f"http://127.0.0.1:{port}/health", server)
        env = {**os.environ, "HANDMADE_AGENT_BASE_URL": f"http://127.0.0.1:{port}/v1"}
        env.pop("HANDMADE_AGENT_MODEL", None)
        t0 = time.perf_counter()
        rc = subprocess.run([client_python, "-m", "pytest", "-p", "no:cacheprovider", *notebooks, *NBVAL],
                            cwd=ROOT, env=env).returncode
        print(f"served notebooks: {len(notebooks)} in {time.perf_counter() - t0:.0f} s, pytest exit code {rc}")
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
    if rc != 0:
        log.seek(0)
        print("server log (last 3000 characters):\n" + log.read()[-3000:])
    return rc


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2:] or NOTEBOOKS))
