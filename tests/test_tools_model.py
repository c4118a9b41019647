"""The real local model with the package's tools: it chooses a tool from the schemas, and the registry runs the call."""
from __future__ import annotations

import pytest

from handmade_agent.toolbox import calculator, get_weather
from handmade_agent.tools import ToolRegistry

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def registry() -> ToolRegistry:
    return ToolRegistry([calculator, get_weather])


def _only_call(local_llm, registry, question):
    c = local_llm.complete([{"role": "user", "content": question}], tools=registry.schemas(), max_tokens=80)
    assert c.tool_calls, f"no tool call in {c.text!r}"
    return c.tool_calls[0]


def test_model_chooses_get_weather_and_the_call_runs(local_llm, registry):
    call = _only_call(local_llm, registry, "北京明天天气怎么样？")
    assert registry.get(call.name) is get_weather
    result = registry.call(call.name, call.arguments)  # the raw JSON text from the model, as an agent passes it
    assert result.ok, result.content
    assert result.content.startswith("北京 (Beijing), tomorrow:")


def test_model_chooses_calculator_and_the_result_is_exact(local_llm, registry):
    call = _only_call(local_llm, registry, "What is 1234 * 5678?")
    assert registry.get(call.name) is calculator
    assert registry.call(call.name, call.arguments).content == str(1234 * 5678)
