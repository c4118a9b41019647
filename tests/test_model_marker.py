"""The conftest rule behind `make unit`: a test not marked ``model`` that loads llama.cpp fails, and says why.

Run on a throwaway test folder with a stand-in ``llama_cpp`` package, so it behaves the same with or
without llama-cpp-python installed, and loads no model.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

CASES = '''
import pytest

@pytest.fixture
def local_llm():  # stands in for the session's real model: only its name matters to the rule
    return object()

@pytest.mark.model
def test_a_model_test_may_import_it():
    import llama_cpp
    assert llama_cpp.STAND_IN

def test_unmarked_import_fails():
    import llama_cpp  # noqa: F401  (already imported by the test above: must still be seen)

def test_unmarked_import_that_is_caught_fails_too():
    try:
        import llama_cpp.llama  # noqa: F401
    except ImportError:
        pass

def test_unmarked_importorskip_fails_rather_than_skips():
    pytest.importorskip("llama_cpp")

def test_unmarked_local_llm_fixture_fails(local_llm):
    assert local_llm

def test_unmarked_test_without_llama_cpp_passes():
    import json
    assert json.loads("1") == 1

@pytest.mark.model
def test_a_later_model_test_gets_the_same_module_back():
    import llama_cpp
    assert llama_cpp.STAND_IN and "llama_cpp" in __import__("sys").modules
'''


def test_only_model_tests_may_load_llama_cpp(tmp_path: Path):
    shutil.copy(Path(__file__).with_name("conftest.py"), tmp_path / "conftest.py")
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    model: loads llama.cpp\n")
    (tmp_path / "llama_cpp").mkdir()
    (tmp_path / "llama_cpp" / "__init__.py").write_text("STAND_IN = True\n")
    (tmp_path / "llama_cpp" / "llama.py").write_text("")
    (tmp_path / "test_cases.py").write_text(CASES)
    out = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rA", "test_cases.py"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120).stdout
    outcomes = {name: kind for kind, name in re.findall(r"^(PASSED|FAILED|ERROR|SKIPPED) test_cases\.py::(\w+)",
                                                        out, re.M)}
    assert outcomes == {
        "test_a_model_test_may_import_it": "PASSED",
        "test_unmarked_import_fails": "FAILED",
        "test_unmarked_import_that_is_caught_fails_too": "FAILED",
        "test_unmarked_importorskip_fails_rather_than_skips": "FAILED",
        "test_unmarked_local_llm_fixture_fails": "ERROR",  # reported at set-up: the body never runs
        "test_unmarked_test_without_llama_cpp_passes": "PASSED",
        "test_a_later_model_test_gets_the_same_module_back": "PASSED",
    }, out
    # Count in the failure reports only: the short summary repeats the message when the terminal is wide enough.
    reports = out.split("short test summary info")[0]
    assert reports.count("is not marked @pytest.mark.model. Mark it") == 4, out
    assert "(import llama_cpp)" in out and "(the local_llm fixture)" in out
