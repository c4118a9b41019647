"""Shared fixtures. The local model is loaded once per test session, and only by tests that ask for it."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def local_llm():
    """The real local model (Qwen2.5-Coder-0.5B-Instruct through llama-cpp-python), greedy, seed 0."""
    from handmade_agent.local import LocalLLM
    return LocalLLM()
