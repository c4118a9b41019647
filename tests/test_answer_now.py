"""After a repeated call a constrained agent allows only an answer; unconstrained, it warns as before."""
from __future__ import annotations

import datetime

from handmade_agent import Agent, ScriptedLLM, default_registry
from handmade_agent.grammar import answer_grammar, tool_call_grammar
from handmade_agent.react import react_grammar

TOOLS = default_registry(today=datetime.date(2024, 5, 20))
CALL = 'Thought: look it up\nAction: weekday\nAction Input: {"date": "2025-12-25"}'


class GrammarScript(ScriptedLLM):
    supports_grammar = True

    def tool_call_grammar(self, tools):
        return tool_call_grammar(tools)


def test_react_reply_after_a_repeat_is_held_to_a_final_answer():
    llm = GrammarScript([CALL, CALL, "Thought: done\nFinal Answer: Thursday"])
    result = Agent(llm, TOOLS).run("What day of the week is 2025-12-25?")
    grammars = [c["grammar"] for c in llm.calls]
    assert grammars[0] == grammars[1] == react_grammar(TOOLS) and grammars[2] == react_grammar([])
    assert "Action" not in grammars[2] and "Final Answer" in grammars[2]
    repeat = result.steps[1].tool_uses[0]
    assert repeat.error == "repeated_action" and "You already called" not in repeat.observation
    assert "Thursday" in repeat.observation and result.answer == "Thursday"
    # the result alone: a note beside it was copied as the final answer by the 0.5B model
    assert repeat.observation == result.steps[0].tool_uses[0].observation


def test_native_reply_after_a_repeat_may_only_be_text_and_the_question_is_restated():
    call = '<tool_call>\n{"name": "weekday", "arguments": {"date": "2025-12-25"}}\n</tool_call>'
    llm = GrammarScript([call, call, "It is a Thursday."])
    result = Agent(llm, TOOLS, strategy="native").run("What day of the week is 2025-12-25?")
    assert llm.calls[2]["grammar"] == answer_grammar() != llm.calls[1]["grammar"]
    assert "Answer it now" in llm.calls[2]["messages"][-1].content
    assert result.stop_reason == "final_answer" and result.answer == "It is a Thursday."


def test_unconstrained_agent_still_warns_and_stops_at_the_second_repeat():
    llm = ScriptedLLM([CALL, CALL, CALL])
    result = Agent(llm, TOOLS).run("What day of the week is 2025-12-25?")
    assert "You already called weekday" in result.steps[1].tool_uses[0].observation
    assert result.stop_reason == "repeated_action" and all(c["grammar"] is None for c in llm.calls)
