"""Constrained decoding on the real local model: a tool it never saw, called in a readable, valid step."""
from __future__ import annotations

import datetime
import json

import pytest

from handmade_agent.agent import Agent, scorer_for
from handmade_agent.react import Action, parse, react_grammar
from handmade_agent.toolbox import default_registry
from handmade_agent.tools import Tool, ToolRegistry

pytestmark = pytest.mark.model


def book_court() -> Tool:
    return Tool("book_court", "Book a tennis court at a club for a number of hours.", {"type": "object", "properties": {
        "club": {"type": "string"}, "hours": {"type": "integer"},
        "surface": {"type": "string", "enum": ["clay", "grass", "hard"]}}, "required": ["club", "hours"]},
        lambda club, hours, surface="hard": f"Booked {surface} court at {club} for {hours} h.")


def running_pace(distance_km: float, minutes: int, seconds: int = 0, unit: str = "per_km") -> str:
    per = (minutes * 60 + seconds) / distance_km * (1.609344 if unit == "per_mile" else 1)
    return f"{int(per // 60)}:{round(per % 60):02d} {unit.replace('_', ' ')}"


def pace_calculator() -> Tool:
    """In no worked example: for a registry without toolbox tools the prompt shows the tool-agnostic ones."""
    return Tool("pace_calculator", "Running pace from a distance and a finishing time.", {
        "type": "object", "properties": {
            "distance_km": {"type": "number"}, "minutes": {"type": "integer"}, "seconds": {"type": "integer"},
            "unit": {"type": "string", "enum": ["per_km", "per_mile"]}}, "required": ["distance_km", "minutes"]},
        running_pace)


def valid_as_written(schema: dict, args: dict) -> bool:
    """Do ``args`` fit ``schema`` without the registry's lenient conversions ("52" for 52, "Per_km" for "per_km")?
    Required keys present, no others, JSON types and enum values exact."""
    kinds = {"string": str, "integer": int, "number": (int, float)}
    props = schema["properties"]
    return set(schema.get("required", [])) <= set(args) <= set(props) and all(
        isinstance(v, kinds[props[k]["type"]]) and not isinstance(v, bool) and v in props[k].get("enum", [v])
        for k, v in args.items())


def test_the_default_prompt_stays_below_1000_tokens(local_llm):
    """968 tokens (1,494 before). The issue's 800 is NOT reached: with fewer toolbox examples the 0.5B
    model copied the one it had into every answer (the old benchmarks/agent_tasks.py --suite)."""
    agent = Agent(local_llm, default_registry(today=datetime.date(2024, 5, 20)))
    messages = agent.prompt_messages() + [{"role": "user", "content": "?"}]
    assert local_llm.count_tokens(local_llm.format_prompt(messages)) <= 1000


def test_a_constrained_react_step_for_a_new_tool_is_readable_and_valid(local_llm, monkeypatch):
    """The tool is in no worked example, and the request shares no wording with the refused one ('Book me a seat
    on the next train…'). Measured 2026-12-06 on the 1.5B, cold (lines joined by ' | '): 'Thought: Use
    pace_calculator with the given input. | Action: pace_calculator | Action Input: {"distance_km": 10.5,
    "minutes": 52, "seconds": 30, "unit": "per_km"}'. Unconstrained (``constrained=False``) the same call came
    with an answer written before the tool ran: '… "unit": "per_km"} | Final Answer: Your pace per kilometre
    was 1.07 km/min.'; the grammar ends the step at the call."""
    tools = ToolRegistry([pace_calculator()])
    grammars, complete = [], local_llm.complete
    monkeypatch.setattr(local_llm, "complete", lambda messages, **kw: grammars.append(kw.get("grammar")) or
                        complete(messages, **kw))
    local_llm.forget()  # decoded cold: a prefix reused from an earlier test can change a token
    # tool_fit=False: the fit gate (tests/test_tool_fit.py) would make this first reply's grammar one without an answer
    step = Agent(local_llm, tools, max_steps=1, tool_fit=False).run(
        "I ran 10.5 km in 52 minutes 30 seconds. What was my pace per kilometre?").steps[0]
    assert grammars == [react_grammar(tools)]  # one model call, under the ReAct grammar of exactly this tool
    action = parse(step.reply)
    assert isinstance(action, Action) and action.tool == "pace_calculator", step.reply
    written = json.loads(step.reply.split("\nAction Input: ", 1)[1])  # strict JSON, nothing after it
    assert written == action.input and valid_as_written(tools.get("pace_calculator").parameters, written), written
    assert (written["distance_km"], written["minutes"], written.get("seconds"), written.get("unit", "per_km")) == (
        10.5, 52, 30, "per_km")
    assert step.tool_uses[0].observation == "5:00 per km"  # the registry ran the tool with exactly these


# measured 2026-12-06 on the 1.5B, cold and warm alike (this test was a strict xfail then): the model copied the refused
# tool-agnostic example ('Book me a seat on the next train…' -> 'No tool fits: … I cannot do this…') with an invented
# cause: 'Thought: No tool fits: book_court requires a surface, which is not specified.' (the request names grass;
# surface is optional). No example fixed it without costing right calls. The agent's fit gate (agent/tool_fit.py), on
# by default for narrow tools, scores book_court above 2 here, so the first reply must call a tool: it passes.
def test_a_booking_tool_is_called_not_refused_like_the_booking_example(local_llm):
    tools = ToolRegistry([book_court()])
    agent = Agent(local_llm, tools, max_steps=1)
    assert agent.constrained  # on by default for the local model
    # "Book a clay court at the Elm Park club for 2 hours." is refused the same way ("my tool requires a surface")
    local_llm.forget()  # decoded cold: a prefix reused from an earlier test can change a token
    step = agent.run("Please reserve a grass court at Riverside for 3 hours.").steps[0]
    assert scorer_for(local_llm).last["book_court"] > 2, scorer_for(local_llm).last  # the gate made it act first
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
