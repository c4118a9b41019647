"""Shared fixtures, and the rule that keeps `make unit` fast: only tests marked ``model`` may load llama.cpp.

The local model is loaded once per test session, and only by tests that ask for it (``local_llm``).
A test without ``@pytest.mark.model`` that imports ``llama_cpp`` (directly, through ``LocalLLM`` or
``course_llm()`` without a server URL) or asks for ``local_llm`` fails with a message saying to mark it,
even if it caught the import error or skipped: `make unit` runs without llama-cpp-python and the model,
and a model load hidden in a fast test costs every run of the fast suite seconds to minutes.

Left out: a model loaded in a child process (a subprocess imports afresh); the unit venv, which has no
llama-cpp-python at all, catches those.

Under CI (``CI=1``, set by ``.ci/run``) a skipped test fails, unless its reason is in ``CI_ALLOWED_SKIPS``:
CI installs everything, so a skip there is a test that did not run in a run that still says green.
"""
from __future__ import annotations

import importlib.abc
import os
import sys

import pytest

GUARDED = "llama_cpp"  # llama-cpp-python: importing any part of it loads the compiled library
pytest_plugins = ["pytester"]  # tests/test_ci_skips.py runs this file's rules on throwaway tests

# The only skip reasons CI accepts: each depends on the machine itself, or on something CI leaves out on
# purpose (it installs every other extra, the model, Chromium and a CJK font). Matched exactly, so a
# reworded reason fails until it is looked at again here.
CI_ALLOWED_SKIPS = frozenset({
    "reads /proc/stat",  # tests/test_cpu_load.py: Linux only; a CI runner on macOS or Windows has no /proc
    "SIGKILL is POSIX",  # tests/test_storage_state.py: Windows cannot kill a writer mid-write that way
    # tests/test_model_files.py on the 0.5B model: `.[all]` installs only the default model's mirror
    # (model-mirror-1.5b); the 0.5B's (491 MB) is opt-in, and CI needs no second copy of a model it never runs
    "the model-mirror extra is not installed",
})


@pytest.fixture(scope="session")
def local_llm():
    """The real local model (the default model, Qwen2.5-Coder-1.5B-Instruct, through llama-cpp-python), greedy, seed 0."""
    from handmade_agent.local import LocalLLM
    return LocalLLM()


class ModelLoadGuard(importlib.abc.MetaPathFinder):
    """While active, refuses ``llama_cpp`` to the running test and remembers what asked for it."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.reported = False
        self._hidden: dict[str, object] = {}

    def find_spec(self, name, path=None, target=None):
        if name == GUARDED or name.startswith(GUARDED + "."):
            self.asked.append(f"import {name}")
            raise ModuleNotFoundError(f"{name} is refused to tests not marked @pytest.mark.model", name=name)
        return None

    def __enter__(self) -> "ModelLoadGuard":
        # an earlier model test may have imported it already: hide it, so this test's import is seen too
        self._hidden = {k: sys.modules.pop(k) for k in list(sys.modules) if k == GUARDED or k.startswith(GUARDED + ".")}
        sys.meta_path.insert(0, self)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.meta_path.remove(self)
        sys.modules.update(self._hidden)


_GUARD = pytest.StashKey[ModelLoadGuard]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if item.get_closest_marker("model"):
        yield
        return
    guard = item.stash[_GUARD] = ModelLoadGuard()
    if "local_llm" in getattr(item, "fixturenames", ()):  # the session's model may already be loaded
        guard.asked.append("the local_llm fixture")
    with guard:
        yield


def under_ci() -> bool:
    # read at each report, not at import, so tests/test_ci_skips.py can switch it per test
    return os.environ.get("CI", "").strip().lower() in ("1", "true")  # "true": what most CI services set


def fail_a_skip_under_ci(report: pytest.TestReport | pytest.CollectReport) -> None:
    """Under CI, turn a skip whose reason is not in ``CI_ALLOWED_SKIPS`` into a failure that says what to do."""
    if not report.skipped or hasattr(report, "wasxfail") or not under_ci():  # an xfail is reported as a skip too
        return
    longrepr = report.longrepr  # (path, line, "Skipped: <reason>") for every kind of skip
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    reason = reason.removeprefix("Skipped: ")
    if reason in CI_ALLOWED_SKIPS:
        return
    report.outcome = "failed"
    report.longrepr = (f"{report.nodeid} was skipped under CI (CI={os.environ['CI']}): {reason}\n"
                       "CI installs everything (`make setup`: every extra and the model; .ci/run: Chromium, a CJK "
                       "font), so nothing may skip there for want of something: fix the install, or make a test that "
                       "skips over missing project data fail instead. Only a skip that depends on the platform itself "
                       "may stay: its exact reason, and why, go in CI_ALLOWED_SKIPS in tests/conftest.py.")


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    # a module-level pytest.skip(..., allow_module_level=True) or importorskip skips at collection
    outcome = yield
    fail_a_skip_under_ci(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    guard = item.stash.get(_GUARD, None)
    report = outcome.get_result()
    fail_a_skip_under_ci(report)  # first, so the guard's message below wins: it says more about its case
    if guard is None or not guard.asked or guard.reported or call.when == "teardown":
        return
    guard.reported = True  # once per test, in the phase that first saw it (a failed setup skips the call)
    report.outcome = "failed"
    report.longrepr = (f"{item.nodeid} loads llama.cpp ({', '.join(dict.fromkeys(guard.asked))}) but is not marked "
                       "@pytest.mark.model. Mark it, so `make unit` (no llama-cpp-python, no model) leaves it out; "
                       "or, if it needs no model, take the llama_cpp use out of it.")
