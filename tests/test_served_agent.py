"""The agent loop through the course's own server, as a classroom runs it: ``handmade-agent serve`` as a real
process with the default model, and the model built by ``course_llm()`` from ``HANDMADE_AGENT_BASE_URL``,
exactly as a student's notebook builds it.

``make test`` reruns only notebook 01 on a server (its ``local-only`` cells in a client-only install);
rerunning notebook 03 as well cost about 150 s of a CI near its budget. What that rerun checked of the loop
is checked here, on notebook 03's own two-tool chain: the client built for the course server sends grammars
(so the agent is constrained), the forecast is looked up and then converted, in that order, and the answer
gives the converted figure, which is computed here by the tools themselves, not written down.
"""
from __future__ import annotations

import re

import pytest

from handmade_agent import Agent, default_registry
from handmade_agent.backends import course_llm
from handmade_agent.llm import OpenAIChat
from handmade_agent.serve import LocalServer

pytestmark = pytest.mark.model
CHAIN_TASK = "What is today's low in 北京 in Fahrenheit?"  # notebook 03, section 4 (CHAIN_TASK)


@pytest.fixture(scope="module")
def server():
    with LocalServer() as running:
        yield running


def test_a_constrained_agent_on_the_course_server_chains_a_forecast_into_a_conversion(server, monkeypatch):
    monkeypatch.setenv("HANDMADE_AGENT_BASE_URL", server.base_url)
    monkeypatch.delenv("HANDMADE_AGENT_MODEL", raising=False)
    llm = course_llm()
    assert isinstance(llm, OpenAIChat) and llm.supports_grammar, "the course server takes grammars"
    tools = default_registry()
    agent = Agent(llm, tools, max_steps=6)
    assert agent.constrained
    result = agent.run(CHAIN_TASK)

    forecast = tools.call("get_weather", {"city": "北京", "date": "today"}).content
    low_c = float(re.search(r"low (-?[\d.]+) °C", forecast).group(1))
    converted = tools.call("convert_temperature", {"value": low_c, "from_unit": "C", "to_unit": "F"}).content
    low_f = re.search(r"= (-?[\d.]+) °F", converted).group(1)
    assert result.stop_reason == "final_answer", [(s.kind, s.tool, s.input) for s in result.steps]
    assert result.tools_used[:2] == ["get_weather", "convert_temperature"], result.tools_used
    assert low_f in result.answer, (result.answer, converted)
