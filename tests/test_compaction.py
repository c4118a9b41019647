"""Compaction (memory/compaction.py) and chapter 11's data: the two-domain tasks and the long conversations.
Scripted models only; the real model's figures are in docs/results/long_conversations.json and notebook 11."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from handmade_agent.agent import Agent
from handmade_agent.errors import LLMError
from handmade_agent.evaluation import check_answer
from handmade_agent.llm import Message, ScriptedLLM
from handmade_agent.memory import CompactingMemory, memory_from_dict

ROOT = Path(__file__).resolve().parents[1]
NOTE = "Facts:\n- Order QF-51873.\nDecisions:\n- Send a drip tray.\nOpen tasks:\n- none"
TURNS = [("My order number is QF-51873.", "Noted."), ("How do I rename a plant?", "Tap its name in the app."),
         ("Does it work in the dark?", "Yes, it uses LiDAR."), ("Can I pause rounds?", "Yes, tap Pause."),
         ("How loud is the pump?", "About as loud as a fridge.")]


def script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fed(memory, turns=TURNS):
    for q, a in turns:
        memory.add(Message("user", q))
        memory.add(Message("assistant", a))
    return memory


def test_nothing_is_compacted_below_the_trigger():
    llm = ScriptedLLM([])
    m = fed(CompactingMemory(llm, max_tokens=1000, note_max_tokens=100))
    assert m.summarized == 0 and not m.summary and llm.calls == [] and len(m.messages()) == 2 * len(TURNS)


def test_at_the_trigger_one_call_rewrites_all_but_the_last_turns_as_a_note():
    llm = ScriptedLLM([NOTE] * 5)
    m = CompactingMemory(llm, max_tokens=80, trigger=0.75, keep_turns=2, note_max_tokens=60)
    fed(m, TURNS[:3])
    assert m.summarized == 1 and len(llm.calls) == 1 and m.summary == NOTE
    request = llm.calls[0]["messages"][-1].content
    assert "(none yet)" in request and "User: My order number is QF-51873." in request and "Pause" not in request
    sent = m.messages()
    assert sent[0].content.startswith("Notes on the earlier conversation:\n") and len(sent) == 1 + 2 * 2
    assert m.log[0]["turns"] == [0, 1] and (m.log[0]["tokens_before"], m.log[0]["tokens_after"]) == (63, m.live_tokens())


def test_the_next_compaction_rewrites_the_old_note_with_the_new_turns():
    llm = ScriptedLLM([NOTE, NOTE + "\n- more"] * 3)
    m = fed(CompactingMemory(llm, max_tokens=80, trigger=0.8, keep_turns=2, note_max_tokens=60))
    assert len(m.log) >= 2 and f"Your notes so far:\n{NOTE}" in llm.calls[1]["messages"][-1].content


def test_a_failed_compaction_loses_no_turn_and_is_logged():
    class Broken(ScriptedLLM):
        def complete(self, messages, **kw):
            raise LLMError("the server is down")

    m = fed(CompactingMemory(Broken([]), max_tokens=80, trigger=0.75, note_max_tokens=60, retries=0), TURNS[:3])
    assert m.summarized == 0 and len(m.turns) == 3 and "the server is down" in m.log[0]["error"]


def test_recall_brings_back_the_dropped_turn_most_like_the_question():
    m = fed(CompactingMemory(ScriptedLLM(["Facts:\n- (lost the order)"] * 5), max_tokens=80, note_max_tokens=60,
                             recall_turns=1))
    recalled = m.messages_for("What is my order number?")
    assert recalled[1].content == "Earlier turns that may matter now:\nUser: My order number is QF-51873.\nAssistant: Noted."
    assert not any("QF-51873" in x.content for x in m.messages())  # without the question, the note is all there is


def test_an_agent_reads_a_memory_with_recall_by_its_question():
    memory = fed(CompactingMemory(ScriptedLLM(["Facts:\n- none"] * 5), max_tokens=80, note_max_tokens=60))
    llm = ScriptedLLM(["Thought: t\nFinal Answer: QF-51873"])
    Agent(llm, [], memory=memory).run("What is my order number?")
    assert any("User: My order number is QF-51873." in x.content for x in llm.calls[0]["messages"])


def test_a_compacting_memory_saved_and_loaded_goes_on_where_it_was():
    m = fed(CompactingMemory(ScriptedLLM([NOTE] * 5), max_tokens=80, trigger=0.7, note_max_tokens=60))
    back = memory_from_dict(json.loads(json.dumps(m.to_dict())), ScriptedLLM([]))
    assert type(back) is CompactingMemory and (back.summary, back.summarized, back.trigger) == (
        m.summary, m.summarized, 0.7)
    assert [x.content for x in back.messages_for("order?")] == [x.content for x in m.messages_for("order?")]


@pytest.mark.parametrize("trigger", [0, 1.5, -0.2])
def test_a_trigger_outside_zero_to_one_is_refused_with_an_example(trigger):
    with pytest.raises(ValueError, match=r"between 0 and 1 \(e.g. 0.8\)"):
        CompactingMemory(ScriptedLLM([]), max_tokens=400, trigger=trigger)


def test_the_long_conversations_file_is_what_its_script_writes_and_each_fact_is_said_only_at_the_start():
    make = script("make_long_conversations")
    rows = [json.loads(line) for line in (ROOT / "data" / "long_conversations.jsonl").read_text().splitlines()]
    assert rows == make.conversations() and {r["lang"] for r in rows} == {"en", "zh"}
    for row in rows:
        assert len(row["turns"]) >= 30
        opening = " ".join(" ".join(t) for t in row["turns"][:4])
        later = " ".join(" ".join(t) for t in row["turns"][4:])
        for probe in row["probes"]:  # the opening answers every probe; nothing after it does
            assert check_answer(opening, probe["checker"]) and not check_answer(later, probe["checker"])


def test_the_two_domain_tasks_are_what_their_script_writes_and_each_fact_is_in_the_manual():
    make = script("make_two_domain_tasks")
    rows = [json.loads(line) for line in (ROOT / "data" / "eval_tasks_two_domain.jsonl").read_text().splitlines()]
    assert rows == make.tasks() and len(rows) >= 12
    for file, words, figure in make.FACTS.values():
        text = (ROOT / "data" / "kb" / file).read_text(encoding="utf-8")
        assert words in text and str(figure) in words


def test_rescore_checks_the_stored_answers_again_and_keeps_the_earlier_count(tmp_path):
    bench = script("long_conversations")
    conversations = script("make_long_conversations").conversations()[:1]
    conv = conversations[0]
    answers = [{"conversation": conv["id"], "question": p["question"], "answer": a, "ok": False}
               for p, a in zip(conv["probes"][2:4], ["It was delivered on March 14, 2024.", "No idea."])]
    saved = tmp_path / "figures.json"
    saved.write_text(json.dumps({"memories": {"summary": {"right": 0, "probes": 2, "answers": answers}}}))
    out = bench.rescore(saved, conversations)["memories"]["summary"]
    assert [a["ok"] for a in out["answers"]] == [True, False] and out["right"] == 1
    assert out["rescored"] == [{"right_before": 0, "right_after": 1}] == json.loads(saved.read_text())[
        "memories"]["summary"]["rescored"]
