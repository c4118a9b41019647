"""The fit gate: every tool or none (fast, with fixed scores), and the local model's scores (model tier)."""
from __future__ import annotations

import pytest

from handmade_agent.agent import Agent, ToolFit, fit_gate
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


def test_one_tool_above_the_threshold_lets_every_tool_through_in_order():
    fit = FixedFit({"air_quality": -1.0, "lookup_isbn": 3.2})
    gate = fit_gate("Which book has ISBN 9780140449136?", [AIR, ISBN], fit)
    assert gate["tools"].names() == ["air_quality", "lookup_isbn"] and gate["act_first"] is True
    assert fit.asked == [("Which book has ISBN 9780140449136?", ["air_quality", "lookup_isbn"])]
    assert fit_gate("q", [AIR, ISBN], fit, none_below=5.0)["tools"].names() == []
    assert fit_gate("q", [ISBN, AIR], fit, none_below=-2.0)["tools"].names() == ["lookup_isbn", "air_quality"]


def test_a_weak_fit_offers_the_tools_without_making_the_first_reply_call_one():
    gate = fit_gate("Who wrote Pride and Prejudice?", [AIR, ISBN], FixedFit({"air_quality": -4.0, "lookup_isbn": 1.77}))
    assert gate["tools"].names() == ["air_quality", "lookup_isbn"] and gate["act_first"] is False


def test_none_above_it_offers_none_and_no_tools_asks_nothing():
    fit = FixedFit({"air_quality": -7.1, "lookup_isbn": 0.0})
    gate = fit_gate("What is the capital of Australia?", [AIR, ISBN], fit)  # 0 is not above 0
    assert gate["tools"].names() == [] and gate["act_first"] is False
    assert fit_gate("q", [], fit)["tools"].names() == [] and len(fit.asked) == 1


def test_a_registry_keeps_its_approval_hook_and_result_cap():
    hook = lambda tool, args: False  # noqa: E731
    registry = ToolRegistry([AIR, ISBN], approve=hook, max_chars=300)
    kept = fit_gate("q", registry, FixedFit({"air_quality": 1.0, "lookup_isbn": 0.0}))["tools"]
    assert kept.approve is hook and kept.max_chars == 300 and kept.names() == ["air_quality", "lookup_isbn"]


def test_with_no_tool_offered_the_agent_answers_without_one():
    gate = fit_gate("Who painted the Mona Lisa?", [AIR, ISBN], FixedFit({"air_quality": -7.1, "lookup_isbn": -3.3}))
    llm = ScriptedLLM(["Thought: No tool fits.\nFinal Answer: Leonardo da Vinci."])
    run = Agent(llm, **gate).run("Who painted the Mona Lisa?")
    assert run.tools_used == [] and run.answer == "Leonardo da Vinci."


@pytest.mark.model
def test_the_local_model_finds_the_air_quality_tool_fit_for_air_quality_and_not_for_a_capital():
    fit = ToolFit()
    fits = fit.scores("What's the air quality index in Delhi?", [AIR, ISBN])
    capital = fit.scores("What is the capital of Australia?", [AIR, ISBN])
    assert fits["air_quality"] > 0 > max(capital.values()), (fits, capital)
    assert fits["air_quality"] > fits["lookup_isbn"]


@pytest.mark.model
def test_with_act_first_the_local_model_calls_the_tool_it_answered_without(local_llm):
    # traced on the 1.5B (docs/results/tool_fit_gate.jsonl): offered set_thermostat, it answered "The bedroom heating
    # has been set to 19 degrees." without calling it; the gate scored the tool 16.4, so the first reply must act
    heat = Tool("set_thermostat", "Set the target temperature of a room's heating.",
                {"type": "object", "properties": {"room": {"type": "string"}, "celsius": {"type": "number"}},
                 "required": ["room", "celsius"]}, lambda room, celsius: "set")
    agent = Agent(local_llm, [AIR, heat, ISBN], act_first=True, max_steps=1)
    step = agent.run("Set the bedroom heating to 19 degrees.").steps[0]
    assert step.kind == "action" and step.tool == "set_thermostat", step
    assert step.input.get("room") == "bedroom" and float(step.input.get("celsius")) == 19.0, step.input


# --- the gate inside Agent: on by default where every tool is narrow and the weights are here ---------------------

def gated_agent(monkeypatch, scores: dict[str, float], tools, replies, **settings):
    """An Agent whose model 'has weights here': scorer_for gives FixedFit(scores)."""
    fit = FixedFit(scores)
    monkeypatch.setattr("handmade_agent.agent.tool_fit.scorer_for", lambda llm: fit)
    return Agent(ScriptedLLM(replies), tools, **settings), fit


def test_by_default_a_question_no_narrow_tool_fits_is_offered_none(monkeypatch):
    events = []
    agent, fit = gated_agent(monkeypatch, {"air_quality": -7.1, "lookup_isbn": -3.3}, [AIR, ISBN],
                             ['Thought: t\nAction: air_quality\nAction Input: {"city": "Australia"}',
                              "Thought: No tool fits.\nFinal Answer: Canberra."], observers=[events.append])
    run = agent.run("What is the capital of Australia?")
    assert fit.asked == [("What is the capital of Australia?", ["air_quality", "lookup_isbn"])]
    refused = run.steps[0].tool_uses[0]  # a call the script makes anyway meets an empty registry: not run
    assert refused.ok is False and refused.observation.endswith("Available tools: (none)."), refused.observation
    assert run.answer == "Canberra."
    assert events[0].kind == "run_started" and events[0].offered == []
    assert agent.offered().names() == ["air_quality", "lookup_isbn"]  # between runs: every tool again
    sent = " ".join(m.content for m in agent.llm.calls[0]["messages"])
    assert "air_quality(" not in sent and "lookup_isbn(" not in sent  # the prompt described neither tool


def test_a_fitting_tool_is_offered_with_the_rest_and_a_strong_fit_makes_the_first_reply_act(monkeypatch):
    agent, _ = gated_agent(monkeypatch, {"air_quality": 9.5, "lookup_isbn": -3.0}, [AIR, ISBN],
                           ['Thought: t\nAction: air_quality\nAction Input: {"city": "Delhi"}',
                            "Thought: done\nFinal Answer: AQI 42."])
    agent.start("How clean is the air in Delhi?")
    assert agent.offered().names() == ["air_quality", "lookup_isbn"] and agent._run.act_first is True
    while agent.step() is not None:
        pass
    assert agent.last_result.tools_used == ["air_quality"] and agent.last_result.answer == "AQI 42."


def test_a_broad_tool_in_the_toolset_or_tool_fit_false_leaves_the_gate_out(monkeypatch):
    from handmade_agent.toolbox import default_registry
    toolbox = default_registry()
    assert [t.name for t in toolbox if t.broad] == ["calculator"]  # a word problem does not read like its description
    for tools, settings in ((toolbox, {}), ([AIR, ISBN], {"tool_fit": False})):
        agent, fit = gated_agent(monkeypatch, {}, tools, ["Thought: t\nFinal Answer: 4"], **settings)
        assert agent.run("What is 2 + 2?").answer == "4" and fit.asked == []


def test_tool_fit_true_without_the_weights_says_what_to_do():
    from handmade_agent.errors import ConfigError
    with pytest.raises(ConfigError, match="LocalLLM"):
        Agent(ScriptedLLM(["Thought: t\nFinal Answer: 4"]), [AIR], tool_fit=True).run("2+2?")
    # the default with a model that has no weights here (a script, a server): no gate, no error
    assert Agent(ScriptedLLM(["Thought: t\nFinal Answer: 4"]), [AIR]).run("2+2?").answer == "4"


def test_the_broad_tools_of_later_chapters_say_so():
    from handmade_agent.rag import knowledge_search_tool
    from handmade_agent.team.subagents import subagent_tool
    assert knowledge_search_tool(object()).broad is True
    assert subagent_tool(Agent(ScriptedLLM([]), []), "ask_dates", "Ask the date specialist.").broad is True


def test_fit_scores_go_through_a_notebook_recording_and_replay_without_the_model(tmp_path, monkeypatch):
    from handmade_agent.local import Recording
    monkeypatch.setattr("handmade_agent.local.engine_identity", lambda sha, n_ctx: f"{sha[:4]}-{n_ctx}")

    class Counted(ToolFit):
        def logprob(self, prefix, text):
            self.calls = getattr(self, "calls", 0) + 1
            return -1.0 if prefix == "A question:" else (2.5 if "air" in prefix else -4.0)
    path = tmp_path / "nb.jsonl"
    first = Counted(recording=Recording(path, "record"), model_sha256="0" * 64)
    scores = first.scores("How clean is the air in Delhi?", [AIR, ISBN])
    assert scores == {"air_quality": 3.5, "lookup_isbn": -3.0} and first.calls == 3 and first.last == scores
    again = Counted(recording=Recording(path, "replay"), model_sha256="0" * 64)
    assert again.scores("How clean is the air in Delhi?", [AIR, ISBN]) == scores and not hasattr(again, "calls")
    from handmade_agent.local import RecordingMiss
    with pytest.raises(RecordingMiss):
        again.scores("What is the capital of Australia?", [AIR, ISBN])
