"""Offering only the tools that fit: the registry it builds (fast), and the local model's scores (model tier)."""
from __future__ import annotations

import pytest

from handmade_agent.agent import Agent, ToolFit, fitting_tools
from handmade_agent.llm import ScriptedLLM
from handmade_agent.tools import Tool, ToolRegistry

AIR = Tool("air_quality", "Air quality index of a city.",
           {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}, lambda city: "AQI 42")
ISBN = Tool("lookup_isbn", "Look up a book by its ISBN.",
            {"type": "object", "properties": {"isbn": {"type": "string"}}, "required": ["isbn"]}, lambda isbn: "a book")


class FixedFit:
    """Scores by name, and remembers what it was asked."""
    def __init__(self, scores: dict[str, float]):
        self.table, self.asked = scores, []

    def scores(self, question, tools):
        self.asked.append((question, [t.name for t in tools]))
        return {t.name: self.table[t.name] for t in tools}


def test_only_the_tools_scoring_above_the_threshold_are_offered():
    fit = FixedFit({"air_quality": 3.2, "lookup_isbn": -1.0})
    kept = fitting_tools("What's the air quality in Delhi?", [AIR, ISBN], fit)
    assert kept.names() == ["air_quality"] and fit.asked == [("What's the air quality in Delhi?", ["air_quality", "lookup_isbn"])]
    assert fitting_tools("q", [AIR, ISBN], fit, threshold=5.0).names() == []
    assert fitting_tools("q", [AIR, ISBN], fit, threshold=-2.0).names() == ["air_quality", "lookup_isbn"]


def test_a_registry_keeps_its_approval_hook_and_result_cap():
    hook = lambda tool, args: False  # noqa: E731
    registry = ToolRegistry([AIR, ISBN], approve=hook, max_chars=300)
    kept = fitting_tools("q", registry, FixedFit({"air_quality": 1.0, "lookup_isbn": 0.0}))
    assert kept.approve is hook and kept.max_chars == 300 and kept.names() == ["air_quality"]


def test_with_no_tool_kept_the_agent_answers_without_one():
    kept = fitting_tools("Who painted the Mona Lisa?", [AIR, ISBN], FixedFit({"air_quality": -7.1, "lookup_isbn": -3.3}))
    run = Agent(ScriptedLLM(["Thought: No tool fits.\nFinal Answer: Leonardo da Vinci."]), kept).run("Who painted the Mona Lisa?")
    assert run.tools_used == [] and run.answer == "Leonardo da Vinci."


@pytest.mark.model
def test_the_local_model_finds_the_air_quality_tool_fit_for_air_quality_and_not_for_a_capital():
    fit = ToolFit()
    fits = fit.scores("What's the air quality index in Delhi?", [AIR, ISBN])
    capital = fit.scores("What is the capital of Australia?", [AIR, ISBN])
    assert fits["air_quality"] > 0 > max(capital.values()), (fits, capital)
    assert fits["air_quality"] > fits["lookup_isbn"]
