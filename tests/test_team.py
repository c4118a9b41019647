"""Chapter 11's many agents (handmade_agent/team): subagents as tools, the orchestrator over specialists, handoffs,
and the one record that holds a tree of runs. Scripted models only; the real model's figures are in
docs/results/two_domain.jsonl and notebook 11."""
from __future__ import annotations

import json
import time

import pytest

from handmade_agent.agent import Agent, RunResult
from handmade_agent.agent import events as ev
from handmade_agent.errors import ConfigError
from handmade_agent.evaluation import EvalConfig, TaskTools, load_tasks, run_task, tools_called
from handmade_agent.llm import ScriptedLLM
from handmade_agent.team import COURSE_DOMAINS, Handoff, orchestrator, split_tools, subagent_tool, tree_lines, walk
from handmade_agent.toolbox import default_registry
from handmade_agent.tools import RunContext, ToolRegistry, tool

ASK_MANUAL = ('Thought: Plan: 1. ask the manual. 2. ask the calendar.\nAction: ask_manual\n'
              'Action Input: {"request": "How many days after delivery can a web-shop T4 be returned?"}')
SEARCH = 'Thought: search\nAction: knowledge_search\nAction Input: {"query": "return days delivery"}'
ASK_CALENDAR = ('Thought: 2. ask the calendar.\nAction: ask_calendar\n'
                'Action Input: {"request": "What date is 30 days after 2024-04-25?"}')
ADD = 'Thought: add\nAction: add_days\nAction Input: {"date": "2024-04-25", "days": 30}'


@tool
def knowledge_search(query: str) -> str:
    """Search the manual."""
    return "[returns:1] Robots bought in the web shop can be returned within 30 days of delivery."


def team_run(replies: list[str], **kw) -> tuple[RunResult, ScriptedLLM, list[ev.Event]]:
    llm, events = ScriptedLLM(replies), []
    tools = ToolRegistry([*default_registry(), knowledge_search])
    result = orchestrator(llm, tools, observers=[events.append], **kw).run("Last day to return my T4 (2024-04-25)?")
    return result, llm, events


TWO_SPECIALISTS = [ASK_MANUAL, SEARCH, "Thought: found\nFinal Answer: Within 30 days of delivery.", ASK_CALENDAR,
                   ADD, "Thought: done\nFinal Answer: 2024-05-25.", "Thought: done\nFinal Answer: It is 2024-05-25.",
                   "It is 2024-05-25."]


def test_the_orchestrator_asks_each_specialist_and_one_record_holds_the_tree():
    result, llm, events = team_run(TWO_SPECIALISTS)
    assert result.answer == "It is 2024-05-25." and result.tools_used == ["ask_manual", "ask_calendar"]
    children = [c for s in result.steps for u in s.tool_uses for c in u.children]
    assert [c.question for c in children] == ["How many days after delivery can a web-shop T4 be returned?",
                                              "What date is 30 days after 2024-04-25?"]
    assert [c.tools_used for c in children] == [["knowledge_search"], ["add_days"]]
    assert [d for d, _ in walk(result)] == [0, 1, 1] and len(llm.calls) == 8  # the 8th: the answer from results
    # the orchestrator's observers hear its own run only (a trace panel follows one run); the specialists' runs
    # are in the record, and the run's cost counts every call of the tree once
    calls = [e for e in events if isinstance(e, ev.LLMCallFinished)]
    assert {e.run_id for e in calls} == {result.run_id}
    own = sum(e.usage.prompt_tokens for e in calls)
    assert result.usage.prompt_tokens == own + sum(c.usage.prompt_tokens for c in children) > own


def test_specialist_observers_hear_the_specialists_runs():
    heard: list[ev.Event] = []
    llm = ScriptedLLM(TWO_SPECIALISTS)
    result = orchestrator(llm, ToolRegistry([*default_registry(), knowledge_search]),
                          specialist_observers=[heard.append]).run("Last day to return my T4 (2024-04-25)?")
    started = [e.run_id for e in heard if isinstance(e, ev.RunStarted)]
    assert started == [r.run_id for d, r in walk(result) if d == 1] and len(started) == 2


def test_a_subagent_starts_from_a_clean_message_list_with_only_its_tools():
    _, llm, _ = team_run(TWO_SPECIALISTS)
    manual_prompt = llm.calls[1]["messages"]
    assert manual_prompt[-1].content == "How many days after delivery can a web-shop T4 be returned?"
    assert not any("Last day to return" in m.content for m in manual_prompt)  # the orchestrator's question stays out
    manual_text = "\n".join(m.content for m in manual_prompt)
    assert "knowledge_search" in manual_text and "add_days" not in manual_text and "ask_manual" not in manual_text
    calendar_text = "\n".join(m.content for m in llm.calls[4]["messages"])
    assert "add_days" in calendar_text and "knowledge_search" not in calendar_text


def test_the_tree_survives_a_save_and_the_evaluation_sees_the_subagents_tools():
    result, _, _ = team_run(TWO_SPECIALISTS)
    back = RunResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert tree_lines(back) == tree_lines(result) and back.steps[0].tool_uses[0].children[0].tools_used == [
        "knowledge_search"]
    assert tools_called(back) == ["ask_manual", "knowledge_search", "ask_calendar", "add_days"]
    assert "    ▶ What date is 30 days after 2024-04-25?" in "\n".join(tree_lines(result))


def test_a_specialist_without_an_answer_is_a_tool_error_for_the_orchestrator():
    stuck = [ASK_MANUAL, *[SEARCH] * 2, "Thought: done\nFinal Answer: I cannot say."]
    result, _, _ = team_run(stuck, max_steps=2)
    use = result.steps[0].tool_uses[0]
    assert not use.ok and "stopped without an answer (max_steps)" in use.observation
    assert use.children[0].stop_reason == "max_steps" and result.answer == "I cannot say."


def test_an_empty_request_is_refused_before_any_model_call():
    t = subagent_tool(Agent(ScriptedLLM([]), []), "ask_x", "Ask x.")
    result = ToolRegistry([t]).call("ask_x", {"request": "  "})
    assert not result.ok and "the request is empty" in result.content


def test_a_subagent_gets_what_is_left_of_the_caller_s_budget_and_nothing_when_it_is_over():
    seen = []

    class Clock(ScriptedLLM):
        def complete(self, messages, **kw):
            seen.append(child.time_budget)
            return super().complete(messages, **kw)

    child = Agent(Clock(["Thought: t\nFinal Answer: ok"]), [], time_budget=100.0)
    t = subagent_tool(child, "ask_x", "Ask x.")
    context = RunContext("q", "run-1", 1, time.perf_counter() + 5.0)
    assert t.fn(request="hi", run=context) == "ok" and context.children[0].answer == "ok"
    assert child.time_budget == 100.0  # the caller's budget went to a copy: the specialist itself is unchanged
    with pytest.raises(Exception, match="time budget is over"):
        t.fn(request="hi", run=RunContext("q", "run-1", 1, time.perf_counter() - 1))


def test_split_tools_gives_each_domain_its_tools_and_drops_empty_ones():
    tools = ToolRegistry([*default_registry(), knowledge_search])
    split = {d.name: r.names() for d, r in split_tools(tools, COURSE_DOMAINS)}
    assert split["ask_manual"] == ["knowledge_search"] and "add_days" in split["ask_calendar"]
    assert [d.name for d, _ in split_tools(default_registry(), COURSE_DOMAINS)] == ["ask_calendar"]


def test_each_specialist_brings_a_worked_example_that_calls_only_the_team_s_tools():
    agent = orchestrator(ScriptedLLM([]), ToolRegistry([*default_registry(), knowledge_search]))
    text = "\n".join(m.content for m in agent.prompt_messages("My T4 came on 2024-04-02; CareShield until when?"))
    assert "ask_manual" in text and "Brookline B2" in text and "Kunming" not in text


def test_a_handoff_routes_under_a_grammar_and_the_chosen_agent_reads_the_shared_conversation():
    from handmade_agent.memory import ConversationMemory

    class GrammarLLM(ScriptedLLM):
        supports_grammar = True

    memory = ConversationMemory()
    manual = Agent(ScriptedLLM(["Thought: t\nFinal Answer: 24 months.", "Thought: t\nFinal Answer: Also 24."]), [])
    calendar = Agent(ScriptedLLM(["Thought: t\nFinal Answer: 2024-06-01."]), [])
    router = GrammarLLM(["manual", "calendar", "manual"])
    h = Handoff(router, {"manual": (manual, "the product manual"), "calendar": (calendar, "dates")}, memory=memory)
    first, second = h.run("How long is the warranty?"), h.run("What date is 60 days after 2024-04-02?")
    third = h.run("And for the Pro?")
    assert [r.steps[0].tool_uses[0].input["to"] for r in (first, second, third)] == ["manual", "calendar", "manual"]
    assert router.calls[0]["grammar"] == 'root ::= "manual" | "calendar"\n'
    assert "user: How long is the warranty?" in router.calls[2]["messages"][-1].content
    shown = [m.content for m in manual.llm.calls[1]["messages"][-5:-1]]  # answers as the agent writes them back
    assert [shown[0], shown[2]] == ["How long is the warranty?", "What date is 60 days after 2024-04-02?"]
    assert shown[1].endswith("24 months.") and shown[3].endswith("2024-06-01.")  # the calendar's answer too
    assert third.answer == "Also 24." and [d for d, _ in walk(third)] == [0, 1]


def test_a_handoff_whose_router_names_no_agent_goes_to_the_first_and_says_so():
    a = Agent(ScriptedLLM(["Thought: t\nFinal Answer: ok"]), [])
    r = Handoff(ScriptedLLM(["I am not sure."]), {"manual": (a, "x"), "calendar": (a, "y")}).run("hm?")
    assert r.answer == "ok" and r.steps[0].tool_uses[0].input == {"to": "manual"}
    assert "named no agent" in r.steps[0].error
    with pytest.raises(ConfigError, match="at least one agent"):
        Handoff(ScriptedLLM([]), {})


def test_the_team_configuration_runs_the_orchestrator_and_scores_the_subagents_tools():
    task = load_tasks(split="two_domain")[0]
    llm = ScriptedLLM(TWO_SPECIALISTS)
    tools = ToolRegistry([*default_registry(), knowledge_search])
    outcome = run_task(llm, task, EvalConfig.parse("team+react+c"), lambda _: tools)
    assert outcome.config == "team+react+c" and outcome.success and outcome.trajectory_ok
    assert outcome.tools_called == ["ask_manual", "knowledge_search", "ask_calendar", "add_days"]


def test_the_two_domain_split_has_both_toolsets_in_one_registry():
    tasks = load_tasks(split="two_domain")
    assert len(tasks) >= 12 and {t.lang for t in tasks} == {"en", "zh"} and {t.tools for t in tasks} == {"both"}
    assert {"knowledge_search", "add_days", "calculator"} <= set(TaskTools()("both").names())


def test_the_trace_panel_shows_each_subagent_run_under_the_call_that_made_it():
    pytest.importorskip("ipywidgets")
    from handmade_agent.widgets import TracePanel
    panel = TracePanel(chart=False)
    llm = ScriptedLLM(TWO_SPECIALISTS)
    orchestrator(llm, ToolRegistry([*default_registry(), knowledge_search]), observers=[panel]).run("Last day?")
    page = panel.to_html()
    assert page.count("subagent run · ") == 2 and len(panel.steps) == 3  # the panel follows the orchestrator's run
    manual = page.split("subagent run · How many days after delivery")[1].split("</details>")[0]
    assert "knowledge_search" in manual and "returned within 30 days" in manual and "add_days" not in manual
