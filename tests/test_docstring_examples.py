"""The one-line examples in the package's docstrings run and give what they show."""
from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import handmade_agent

MODULES = sorted(m.name for m in pkgutil.walk_packages(handmade_agent.__path__, "handmade_agent."))


def test_most_modules_carry_an_example():
    finder = doctest.DocTestFinder()
    bare = [name for name in MODULES if not any(t.examples for t in finder.find(importlib.import_module(name)))]
    assert len(bare) <= 5, f"modules without a docstring example: {bare}"


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(importlib.import_module(name), optionflags=flags, report=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples fail in {name}"
