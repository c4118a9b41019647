"""Conversation memory: turns, windows by turns and tokens, pinned messages, policies, summaries."""
from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from handmade_agent.errors import LLMError, StateError
from handmade_agent.llm import Message, ScriptedLLM, ToolCall, estimate_tokens
from handmade_agent.memory.conversation import (MESSAGE_OVERHEAD, ConversationMemory, memory_from_dict, message_tokens,
                                   split_turns, token_counter, window)
from handmade_agent.agent import RunResult, Step, ToolUse
from handmade_agent.memory.summary import SUMMARY_HEADER, SummaryMemory


def words(text: str) -> int:
    """A transparent test tokenizer: one token per word."""
    return len(text.split())


def chat(memory, pairs):
    for q, a in pairs:
        memory.add(Message("user", q))
        memory.add(Message("assistant", a))


PAIRS = [(f"question {i}", f"answer number {i}") for i in range(6)]


def test_split_turns_starts_a_turn_at_each_user_message():
    msgs = [Message("assistant", "welcome"), Message("user", "a"), Message("assistant", "b"),
            Message("tool", "c"), {"role": "user", "content": "d"}]
    assert [[m.content for m in t] for t in split_turns(msgs)] == [["welcome"], ["a", "b", "c"], ["d"]]


def test_message_tokens_counts_text_tool_calls_and_overhead():
    m = Message("assistant", "two words", [ToolCall("calc", '{"x": 1}')])
    assert message_tokens(m, words) == 2 + 1 + 2 + MESSAGE_OVERHEAD


def test_window_by_turns_keeps_the_newest_whole_turns():
    turns = split_turns(Message(r, f"{r} {i}") for i in range(5) for r in ("user", "assistant"))
    w = window(turns, max_turns=2)
    assert [m.content for m in w.messages] == ["user 3", "assistant 3", "user 4", "assistant 4"]
    assert len(w.evicted) == 3 and w.evicted[0][0].content == "user 0"


def test_window_by_tokens_is_maximal_and_within_budget():
    turns = split_turns(Message(r, "w " * (i + 1)) for i in range(8) for r in ("user", "assistant"))
    cost = [sum(message_tokens(m, words) for m in t) for t in turns]
    for budget in range(0, sum(cost) + 2):
        w = window(turns, max_tokens=budget, count=words)
        k = len(w.kept)
        assert w.tokens == sum(cost[len(turns) - k:]) <= budget
        if k < len(turns):  # the next older turn really would not have fit
            assert w.tokens + cost[len(turns) - k - 1] > budget


def test_window_keeps_a_contiguous_suffix_even_if_an_older_small_turn_would_fit():
    turns = [[Message("user", "tiny")], [Message("user", "huge " * 50)], [Message("user", "new")]]
    w = window(turns, max_tokens=20, count=words)
    assert [t[0].content for t in w.kept] == ["new"]
    assert len(w.evicted) == 2


def test_both_limits_apply_together():
    m = ConversationMemory(max_turns=4, max_tokens=3 * (2 + 3 + 2 * MESSAGE_OVERHEAD), count_tokens=words)
    chat(m, PAIRS)
    assert [x.content for x in m.messages()][0] == "question 3"  # tokens bind before turns do
    m.max_tokens = None
    assert [x.content for x in m.messages()][0] == "question 2"


def test_system_prompt_is_pinned_and_counted():
    m = ConversationMemory(max_tokens=30, system="You are terse.", count_tokens=words)
    chat(m, PAIRS)
    out = m.messages()
    assert out[0] == Message("system", "You are terse.")
    assert m.tokens() <= 30 and m.tokens() == sum(message_tokens(x, words) for x in out)
    m.max_tokens = 1  # smaller than the pinned message itself: no turns, pinned still sent
    assert m.messages() == [Message("system", "You are terse.")]
    m.add(Message("system", "Answer in Chinese."))
    assert [x.role for x in m.messages()] == ["system", "system"]
    m.clear()
    assert len(m) == 0 and len(m.pinned) == 2


def test_no_limits_keeps_everything():
    m = ConversationMemory()
    chat(m, PAIRS)
    assert len(m.messages()) == 12 and len(m) == 12 and not m.view().evicted


def test_token_counter_prefers_the_models_tokenizer():
    llm = SimpleNamespace(model="fake", count_tokens=lambda text: 7)
    assert token_counter(llm)("anything") == 7 and token_counter(None) is estimate_tokens
    assert ConversationMemory(llm=llm).tokenizer == "model"
    assert ConversationMemory(llm=ScriptedLLM([])).tokenizer == "estimate"


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="policy"):
        ConversationMemory(policy="everything")
    with pytest.raises(ValueError, match="max_turns"):
        ConversationMemory(max_turns=-1)
    with pytest.raises(ValueError, match="summary_max_tokens"):
        SummaryMemory(ScriptedLLM([]), max_tokens=100, summary_max_tokens=100)
    with pytest.raises(ValueError, match="llm"):
        SummaryMemory(None)


def six_times_seven() -> RunResult:
    steps = [Step(1, "action", thought="Use the calculator.",
                  tool_uses=[ToolUse("calculator", {"expression": "6*7"}, True, "42")]),
             Step(2, "final_answer", thought="I know it.", answer="42")]
    return RunResult("42", steps, "final_answer", question="6*7?")


def test_policy_answers_keeps_question_and_answer_only():
    m = ConversationMemory()
    m.record_run("6*7?", six_times_seven())
    assert [x.content for x in m.messages()] == ["6*7?", "42"]


def test_policy_transcript_keeps_every_step_in_one_turn():
    m = ConversationMemory(policy="transcript", max_turns=1)
    m.record_run("6*7?", six_times_seven())
    # A text-ReAct scratchpad stays one assistant message, exactly as the model wrote and saw it.
    assert len(m.turns) == 1
    assert [x.content for x in m.messages()] == [
        "6*7?", 'Thought: Use the calculator.\nAction: calculator\nAction Input: {"expression": "6*7"}\n'
                "Observation: 42\nThought: I know it.\nFinal Answer: 42"]
    m.record_run("again?", RunResult(None, [], "max_steps"))  # no answer: only the question
    assert [x.content for x in m.messages()] == ["again?"]


def test_policy_transcript_keeps_native_tool_calls_as_separate_messages():
    steps = [Step(1, "action", native=True, tool_uses=[ToolUse("calculator", {"expression": "6*7"}, True, "42",
                                                              call_id="c1")]),
             Step(2, "final_answer", answer="42", native=True)]
    m = ConversationMemory(policy="transcript")
    m.record_run("6*7?", RunResult("42", steps, "final_answer"))
    assert [(x.role, x.content) for x in m.messages()] == [
        ("user", "6*7?"), ("assistant", ""), ("tool", "42"), ("assistant", "42")]
    assert m.messages()[1].tool_calls[0].name == "calculator" and m.messages()[2].tool_call_id == "c1"


def test_to_dict_is_json_and_round_trips():
    m = ConversationMemory(max_turns=3, system="pinned 置顶", policy="transcript")
    chat(m, [("今天几号？", "2024-03-10"), ("tool?", "")])
    m.add(Message("assistant", "", [ToolCall("calc", '{"e": "1+1"}', "c1")]))
    m.add(Message("tool", "2", tool_call_id="c1"))
    d = json.loads(json.dumps(m.to_dict()))
    back = ConversationMemory.from_dict(d)
    assert back.to_dict() == m.to_dict() and back.messages() == m.messages()
    assert type(memory_from_dict(d)) is ConversationMemory


def test_unknown_memory_kind_is_a_state_error():
    with pytest.raises(StateError, match="Unknown memory kind"):
        memory_from_dict({"kind": "vector"})


def test_summary_memory_folds_evicted_turns_into_running_notes():
    llm = ScriptedLLM(["- S1: user asked q0.", "- S2: user asked q1."])
    m = SummaryMemory(llm, max_turns=2, count_tokens=words)
    chat(m, PAIRS[:4])
    assert m.summarized == 2 and len(llm.calls) == 2
    assert m.summary == "- S1: user asked q0.\n- S2: user asked q1."
    sent = llm.calls[1]["messages"][1].content  # each call sees only the newly evicted lines
    assert "User: question 1\nAssistant: answer number 1" in sent and "question 0" not in sent
    out = m.messages()
    assert out[0] == Message("system", SUMMARY_HEADER + m.summary)
    assert [x.content for x in out[1:]] == ["question 2", "answer number 2", "question 3", "answer number 3"]
    assert [e["turns"] for e in m.log] == [[0, 1], [1, 2]] and not any(e["condensed"] for e in m.log)
    assert len(m.turns) == 4  # old turns are kept for inspection, just not sent


def test_a_summary_over_its_budget_is_condensed_by_the_model():
    llm = ScriptedLLM(["- a b c d e", "- f g h i j", "- condensed a f"])
    m = SummaryMemory(llm, max_turns=1, summary_max_tokens=8, count_tokens=words)
    chat(m, PAIRS[:3])
    assert m.summary == "- condensed a f" and m.log[-1]["condensed"] and m.log[-1]["dropped_lines"] == 0
    assert "- a b c d e\n- f g h i j" in llm.calls[2]["messages"][1].content  # condense sees all notes


def test_a_condensation_that_does_not_shrink_drops_the_oldest_lines():
    llm = ScriptedLLM(["- a b c d e", "- f g h i j", "- a b c d e\n- f g h i j"])
    m = SummaryMemory(llm, max_turns=1, summary_max_tokens=8, count_tokens=words)
    chat(m, PAIRS[:3])
    assert m.summary == "- f g h i j" and m.log[-1]["dropped_lines"] == 1
    assert words(m.summary) <= 8


def test_summary_counts_against_the_token_budget():
    llm = ScriptedLLM(["a b c d e f g h"] * 20)
    m = SummaryMemory(llm, max_tokens=40, summary_max_tokens=12, count_tokens=words)
    chat(m, PAIRS)
    assert m.tokens() <= 40 and m.summarized >= 1 and words(m.summary) <= 12
    assert not m.view().evicted  # everything that fell out was summarized


def test_summary_calls_are_retried_and_observed_like_the_agents():
    seen: list = []
    m = SummaryMemory(ScriptedLLM([LLMError("blip"), "the notes"]), max_turns=1, count_tokens=words,
                      observers=[seen.append])
    chat(m, PAIRS[:2])  # one failed attempt, then the retry writes the summary: no warning, nothing lost
    assert m.summary == "the notes" and m.summarized == 1
    finished = [e for e in seen if e.kind == "llm_call_finished"]
    assert [e.purpose for e in finished] == ["summary", "summary"] and finished[0].error and not finished[1].error


def test_failed_summary_loses_no_turn_and_retries_later():
    llm = ScriptedLLM([LLMError("server down"), LLMError("still down"), "recovered summary"])
    m = SummaryMemory(llm, max_turns=1, count_tokens=words)
    with pytest.warns(RuntimeWarning, match="summary failed"):
        chat(m, PAIRS[:2])
    assert m.summarized == 0 and m.summary == "" and m.log[0]["error"].startswith("LLMError")
    chat(m, PAIRS[2:3])
    assert m.summarized == 2 and m.summary == "recovered summary"


def test_summary_memory_round_trips_and_needs_a_model_to_load():
    m = SummaryMemory(ScriptedLLM(["the summary"]), max_turns=1, summary_max_tokens=50)
    chat(m, PAIRS[:2])
    d = json.loads(json.dumps(m.to_dict()))
    with pytest.raises(StateError, match="llm"):
        memory_from_dict(d)
    back = ConversationMemory.from_dict(d, llm=ScriptedLLM([]))
    assert isinstance(back, SummaryMemory) and back.to_dict() == m.to_dict()
    assert back.messages() == m.messages()


@pytest.mark.model
def test_local_tokenizer_counts_chinese_differently_from_the_estimate(local_llm):
    m = ConversationMemory(llm=local_llm)
    assert m.tokenizer == "model"
    zh = "请把我刚才算出的日期再加三十天。"
    assert local_llm.count_tokens(zh) != estimate_tokens(zh)
    assert local_llm.count_tokens("hello world") == 2


@pytest.mark.model
def test_summary_on_the_local_model_keeps_a_fact(local_llm):
    m = SummaryMemory(local_llm, max_turns=1, summary_max_tokens=80)
    chat(m, [("我叫王小明，订单号是 58213。", "好的，王小明，我记下了订单号 58213。"), ("What is 2+2?", "4")])
    assert m.summarized == 1 and "58213" in m.summary and "王小明" in m.summary
