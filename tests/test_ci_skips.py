"""The conftest rule behind a green CI meaning every test ran: under ``CI=1`` a skip fails unless its reason is on
the platform allow-list, and the failure says what to do. Without CI a skip stays a skip.

Run on throwaway tests with this folder's conftest.py, so no real test has to skip for it to be checked.
"""
from __future__ import annotations

from pathlib import Path

import pytest

CASES = '''
import pytest

def test_skipped_in_its_body_for_a_missing_install():
    pytest.skip("playwright is not installed")

@pytest.mark.skipif(True, reason="knowledge base not written yet")
def test_skipped_by_a_mark_for_missing_data():
    pass

@pytest.mark.skipif(True, reason="SIGKILL is POSIX")
def test_skipped_by_a_mark_on_the_platform():
    pass

def test_skipped_in_its_body_on_the_platform():
    pytest.skip("reads /proc/stat")

@pytest.mark.xfail(reason="a known miss", strict=True)
def test_an_xfail_is_not_a_skip():
    assert False

def test_that_runs():
    pass
'''

# a module that skips at import is a skip of the collector, not of a test: the hook differs
MODULE_SKIPS = {
    "test_importorskip.py": ('import pytest\npytest.importorskip("no_such_module_anywhere")\n\n'
                             "def test_x():\n    pass\n"),
    "test_module_skip.py": ('import pytest\npytest.skip("no Chromium here", allow_module_level=True)\n\n'
                            "def test_x():\n    pass\n"),
}
TOLD = "*CI_ALLOWED_SKIPS in tests/conftest.py*"


@pytest.fixture
def cases(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(Path(__file__).with_name("conftest.py").read_text(encoding="utf-8"))
    pytester.makepyfile(test_cases=CASES, **{name.removesuffix(".py"): text for name, text in MODULE_SKIPS.items()})
    return pytester


def test_under_ci_a_skip_fails_and_says_what_to_do(cases, monkeypatch):
    monkeypatch.setenv("CI", "1")
    result = cases.runpytest("test_cases.py")
    # the skipif mark skips at set-up, so its failure is an error; the allowed two stay skipped
    result.assert_outcomes(passed=1, failed=1, errors=1, skipped=2, xfailed=1)
    result.stdout.fnmatch_lines(["*test_skipped_in_its_body_for_a_missing_install was skipped under CI (CI=1): "
                                 "playwright is not installed", TOLD])
    result.stdout.fnmatch_lines(["*test_skipped_by_a_mark_for_missing_data was skipped under CI (CI=1): "
                                 "knowledge base not written yet"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.parametrize("name, reason", [("test_importorskip.py", "could not import 'no_such_module_anywhere'*"),
                                          ("test_module_skip.py", "no Chromium here")])
def test_under_ci_a_module_that_skips_at_import_fails(cases, monkeypatch, name, reason):
    monkeypatch.setenv("CI", "1")
    result = cases.runpytest(name)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*{name} was skipped under CI (CI=1): {reason}", TOLD])


def test_without_ci_every_skip_stays_a_skip(cases, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    result = cases.runpytest("test_cases.py", *MODULE_SKIPS)
    result.assert_outcomes(passed=1, skipped=6, xfailed=1)
    assert result.ret == pytest.ExitCode.OK
