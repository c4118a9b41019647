"""Shared fixtures, and the rule that keeps `make unit` fast: only tests marked ``model`` may load llama.cpp.

The local model is loaded once per test session, and only by tests that ask for it (``local_llm``).
A test without ``@pytest.mark.model`` that imports ``llama_cpp`` (directly, through ``LocalLLM`` or
``course_llm()`` without a server URL) or asks for ``local_llm`` fails with a message saying to mark it,
even if it caught the import error or skipped: `make unit` runs without llama-cpp-python and the model,
and a model load hidden in a fast test costs every run of the fast suite seconds to minutes.

Left out: a model loaded in a child process (a subprocess imports afresh); the unit venv, which has no
llama-cpp-python at all, catches those.
"""
from __future__ import annotations

import importlib.abc
import sys

import pytest

GUARDED = "llama_cpp"  # llama-cpp-python: importing any part of it loads the compiled library


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


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    guard = item.stash.get(_GUARD, None)
    report = outcome.get_result()
    if guard is None or not guard.asked or guard.reported or call.when == "teardown":
        return
    guard.reported = True  # once per test, in the phase that first saw it (a failed setup skips the call)
    report.outcome = "failed"
    report.longrepr = (f"{item.nodeid} loads llama.cpp ({', '.join(dict.fromkeys(guard.asked))}) but is not marked "
                       "@pytest.mark.model. Mark it, so `make unit` (no llama-cpp-python, no model) leaves it out; "
                       "or, if it needs no model, take the llama_cpp use out of it.")
