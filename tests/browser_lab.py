"""A throwaway JupyterLab on loopback and a headless Chromium to drive it, for ``test_browser.py``.

``Lab`` starts ``jupyter lab`` on 127.0.0.1 with a free port and a random token, rooted in a
temporary directory, with its own config, data, settings and workspace folders (so nothing is read
from or written to the user's home: trust signatures and workspaces stay in the temporary
directory). ``launch_chromium`` starts Debian's ``/usr/bin/chromium`` through Playwright with no
network features (no downloads work here). The page helpers wait for what a learner waits for: the
notebook on screen and the kernel idle.

Deliberately left out: other browsers and Notebook 7 (the same widget manager renders there), and
Playwright's bundled browsers (they cannot be downloaded on these machines).
"""
from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

CHROMIUM = Path(os.environ.get("HANDMADE_AGENT_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
IDLE = ".jp-Notebook-ExecutionIndicator[data-status='idle']"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Lab:
    """``jupyter lab`` serving ``root``; ``url(path)`` opens a file, ``env`` is what its tools must share."""

    def __init__(self, root: Path, home: Path):
        self.root, self.port, self.token = root, free_port(), secrets.token_hex(16)
        home.mkdir(parents=True, exist_ok=True)
        self.env = dict(os.environ, JUPYTER_CONFIG_DIR=str(home / "config"), JUPYTER_DATA_DIR=str(home / "data"),
                        JUPYTER_RUNTIME_DIR=str(home / "runtime"), IPYTHONDIR=str(home / "ipython"),
                        JUPYTERLAB_SETTINGS_DIR=str(home / "settings"),
                        JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"))
        self.log = open(home / "lab.log", "w")
        # no "get notified about Jupyter news?" toast over the panels in screenshots (and no fetch of it);
        # no windowing: every cell is in the page, so a check of "the whole notebook" sees every output
        for plugin, settings in (("apputils-extension/notification", '{"fetchNews": "false", "checkForUpdates": false}'),
                                 ("notebook-extension/tracker", '{"windowingMode": "none"}')):
            file = home / "settings" / "@jupyterlab" / f"{plugin}.jupyterlab-settings"
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(settings)
        # expose_app_in_browser: window.jupyterapp, so the test runs JupyterLab's own commands (run all,
        # restart) instead of hunting menus; news and extension-manager lookups would only try the network
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ip=127.0.0.1",
             f"--port={self.port}", f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={root}",
             "--ServerApp.port_retries=0", "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=",
             "--LabApp.extension_manager=readonly", "--ServerApp.terminals_enabled=False"],
            env=self.env, stdout=self.log, stderr=subprocess.STDOUT, cwd=root)
        self._wait()

    def _wait(self, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyter lab exited with {self.proc.returncode}; see {self.log.name}")
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/status?token={self.token}", timeout=5)
                return
            except OSError:
                time.sleep(0.5)
        raise TimeoutError(f"jupyter lab did not answer in {timeout:.0f} s; see {self.log.name}")

    def url(self, path: str = "") -> str:
        """``path`` in a workspace of its own: no tab (and no kernel) restored from an earlier page."""
        return f"http://127.0.0.1:{self.port}/lab/workspaces/{secrets.token_hex(4)}/tree/{path}?token={self.token}"

    def trust(self, path: Path) -> None:
        """``jupyter trust``, signing into this server's database (its JUPYTER_DATA_DIR)."""
        subprocess.run([sys.executable, "-m", "jupyter", "trust", str(path)], env=self.env, check=True,
                       capture_output=True)

    def shutdown_kernels(self) -> None:
        """End every session's kernel (opening a notebook starts one; idle ones would pile up)."""
        api = f"http://127.0.0.1:{self.port}/api/sessions"
        auth = {"Authorization": f"token {self.token}"}
        with urllib.request.urlopen(urllib.request.Request(api, headers=auth), timeout=30) as r:
            sessions = json.load(r)
        for s in sessions:
            urllib.request.urlopen(urllib.request.Request(f"{api}/{s['id']}", headers=auth, method="DELETE"), timeout=30)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


def launch_chromium(playwright):
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)


# In-page lookup of the notebook panel showing ``path`` (JupyterLab's own objects, via window.jupyterapp).
PANEL = "const panel = [...window.jupyterapp.shell.widgets('main')].find(w => w.context && w.context.path === path);"
KERNEL_IDLE = ("(path) => { %s const k = panel && panel.sessionContext.session && panel.sessionContext.session.kernel;"
               " return !!k && k.connectionStatus === 'connected' && k.status === 'idle'; }" % PANEL)
ALL_RUN = ("() => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]"
           ".every(p => /\\[\\d+\\]/.test(p.textContent))")  # every cell has a count: none queued, none unrun


def open_notebook(page, lab: Lab, name: str, *, kernel: bool = True, timeout: float = 120_000) -> None:
    """Open ``name`` in a clean workspace and wait for its cells (and, if ``kernel``, a connected, idle kernel)."""
    page.goto(lab.url(name), timeout=timeout)
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=timeout)
    command(page, "application:toggle-left-area")  # the file browser off: the panels get the width
    if kernel:
        page.wait_for_function(KERNEL_IDLE, arg=name, timeout=timeout)


def command(page, name: str, path: str | None = None) -> None:
    """Start a JupyterLab command (what a menu item or shortcut runs), on notebook ``path`` if given.

    Not awaited: page.evaluate has no timeout, and a command waiting on a kernel that went away would
    hang the test; callers wait for what the command changes on screen."""
    page.evaluate("([name, path]) => { if (path) { %s window.jupyterapp.shell.activateById(panel.id); }"
                  " window.jupyterapp.commands.execute(name).catch(e => console.error(`${name} failed: ${e}`)); }"
                  % PANEL, [name, path])


def run_all(page, path: str, timeout: float = 180_000) -> None:
    """Run every cell of notebook ``path`` and wait until each has run and the kernel is idle again."""
    command(page, "notebook:run-all-cells", path)
    page.wait_for_function(ALL_RUN, timeout=timeout)
    page.wait_for_function(KERNEL_IDLE, arg=path, timeout=timeout)
