"""The answer in the question's language: script detection, when to translate, the translation policy."""
from __future__ import annotations

import pytest
from gbnf_match import matches, parse_gbnf

from handmade_agent.agent import Agent as BareAgent
from handmade_agent.rag import answer_script, keeps_facts, needs_translation, translate_answer
from handmade_agent.rag.answer_language import GRAMMARS
from handmade_agent.errors import LLMError
from handmade_agent.llm import ScriptedLLM


@pytest.mark.parametrize("question, script", [
    ("Tessel T4 的水箱容量是多少？", "han"), ("T4 显示 E-63 是什么意思？", "han"),
    ("What does fault code M-08 mean on the Mini M1?", "no-han"), ("Wie groß ist der Tank?", "no-han"),
    ("2+2?", None), ("", None), ("タンクの容量は？", None),        # no letters; Japanese (kana) is not guessed
    ("How do you write 'water tank' in Chinese?", None),          # asks for Chinese: its answer may hold it
    ("Is 水箱 the word the Tessel manual uses for its water tank?", None)])  # mixed: left alone
def test_the_answer_script_follows_the_question(question, script):
    assert answer_script(question) == script


@pytest.mark.parametrize("answer, script, needed", [
    ("2 years", "han", True), ("保修期为 2 年", "han", False), ("549", "han", False),
    ("两年 [t4-specifications#warranty:1]", "han", False),            # an id is not English
    ("M-08 means 喷嘴无法旋转", "no-han", True), ("It means the nozzle is blocked.", "no-han", False),
    ("Tessel T4 Pro 的水箱容量是 4.1 L", "han", False),
    ("Tessel T4 Pro：4.1 L", "han", True), ("2 years", None, False),
    ("Tomorrow in 北京 (Beijing) it is sunny, 14-27 °C.", "no-han", False),  # a Chinese name in English text
    ("careers-cn@quillfern.example.", "han", False), ("QF-F120 [a:1]", "han", False),  # an address, a code: no words
    ("Write to careers-cn@quillfern.example.", "han", True)])
def test_translation_is_needed_only_for_an_answer_in_the_other_script(answer, script, needed):
    assert needs_translation(answer, script) is needed


def test_the_translation_grammars_hold_the_script():
    han, latin = parse_gbnf(GRAMMARS["han"]), parse_gbnf(GRAMMARS["no-han"])
    assert matches(han, "保修期为 2 年。") and matches(han, "保修两年\n[t4-specifications#warranty:1]")
    assert not matches(han, "2 years") and not matches(han, "")
    assert matches(han, "E-63 表示接水盘漏水 [a:1]。")  # a code or a name may open the translation
    assert matches(latin, "The nozzle cannot rotate.") and not matches(latin, "The nozzle (喷嘴) cannot rotate.")


class Constrainable(ScriptedLLM):
    supports_grammar = True


def Agent(llm, tools, **kw):  # noqa: N802 - the agent as the bilingual lesson builds it: with the policy
    return BareAgent(llm, tools, answer_policies=[translate_answer], **kw)


def test_an_english_answer_to_a_chinese_question_is_translated_by_one_more_call():
    llm = Constrainable(["Thought: found it\nFinal Answer: 2 years", "保修期为 2 年。"])
    seen = []
    result = Agent(llm, [], observers=[seen.append]).run("激光雷达模组保修几年？")
    assert result.answer == "保修期为 2 年。" and result.stop_reason == "final_answer"
    assert result.steps[-1].reply.endswith("Final Answer: 2 years")  # what the model wrote is kept
    call = llm.calls[1]
    assert call["grammar"] == GRAMMARS["han"] and call["messages"][-1].content == "2 years"
    assert "Chinese" in call["messages"][0].content and len(call["messages"]) == 4  # one worked pair, no passages
    assert "激光雷达" not in "".join(m.content for m in call["messages"])  # nor the question
    purposes = [e.purpose for e in seen if type(e).__name__ == "LLMCallFinished"]
    assert purposes == ["step", "translate"]


def test_an_answer_already_in_the_right_script_costs_no_call_and_an_agent_without_the_policy_makes_none():
    llm = Constrainable(["Thought: t\nFinal Answer: 保修期为 2 年"])
    assert Agent(llm, []).run("激光雷达模组保修几年？").answer == "保修期为 2 年" and len(llm.calls) == 1
    off = Constrainable(["Thought: t\nFinal Answer: 2 years"])
    assert BareAgent(off, []).run("激光雷达模组保修几年？").answer == "2 years"  # the default: no policy
    assert len(off.calls) == 1


def test_a_failed_translation_keeps_the_answer_and_an_unconstrained_backend_gets_no_grammar():
    failing = ScriptedLLM(["Thought: t\nFinal Answer: M-08 means 喷嘴无法旋转", LLMError("down"), LLMError("down")])
    result = Agent(failing, []).run("What does fault code M-08 mean?")
    assert result.answer == "M-08 means 喷嘴无法旋转" and result.stop_reason == "final_answer"
    assert failing.calls[1]["grammar"] is None


def test_citations_the_translation_dropped_are_put_back():
    llm = Constrainable(["Thought: t\nFinal Answer: 2 years [t4-specifications#warranty:1]", "保修两年。"])
    assert Agent(llm, []).run("激光雷达模组保修几年？").answer == "保修两年。 [t4-specifications#warranty:1]"
    kept = Constrainable(["Thought: t\nFinal Answer: 2 years [a:1]", "保修两年 [a:1]。"])
    assert Agent(kept, []).run("激光雷达模组保修几年？").answer == "保修两年 [a:1]。"


def test_a_translation_that_says_more_than_the_answer_is_thrown_away():
    llm = ScriptedLLM(["Thought: t\nFinal Answer: 86 °F", "86 °F。在翻译过程中，我注意到“B2”通常表示“Brookline B2”。"])
    assert Agent(llm, []).run("广州明天最高气温是多少华氏度？").answer == "86 °F"
    short = ScriptedLLM(["Thought: t\nFinal Answer: 86 °F", "最高 86 °F。"])
    assert Agent(short, []).run("广州明天最高气温是多少华氏度？").answer == "最高 86 °F。"


def test_a_translation_still_in_the_other_script_is_thrown_away():
    llm = ScriptedLLM(["Thought: t\nFinal Answer: The warranty is 2 years.", "The warranty is two years."])
    assert Agent(llm, []).run("激光雷达模组保修几年？").answer == "The warranty is 2 years."


def test_a_translation_that_changes_a_number_a_code_or_a_named_model_is_thrown_away():
    llm = Constrainable(["Thought: t\nFinal Answer: The mainboard costs 1150 元 (E-63).", "主板 115 元（E-36）。"])
    assert Agent(llm, []).run("保外更换主板多少钱？").answer == "The mainboard costs 1150 元 (E-63)."
    assert keeps_facts("AF-10 costs €15", "配件AF-10售价€15")  # a code after Chinese text
    assert not keeps_facts("E-11 means no flow", "E-17 表示无水流")
    named = Constrainable(["Thought: t\nFinal Answer: Tessel T4: 2.6 L", "四面体 T4：2.6 升"])  # a name by its meaning
    assert Agent(named, []).run("Tessel T4 的水箱容量是多少？").answer == "Tessel T4: 2.6 L"
    assert keeps_facts("Dana Whitlock leads North America.", "达娜·惠特洛克负责北美。")  # a person's name may be transliterated
    two = Constrainable(["Thought: t\nFinal Answer: 2 years", "两年"])  # a one-digit number may become 两
    assert Agent(two, []).run("激光雷达模组保修几年？").answer == "两年"


@pytest.mark.parametrize("answer, translation, kept", [
    ("Reset it with code ZX-4400.", "用代码 ZX-4400 重置。", True), ("Reset it with code ZX-4400.", "用代码重置。", False),
    ("The Vexo R7 holds 3 L.", "Vexo R7 能装 3 升。", True), ("The Vexo R7 holds 3 L.", "R7 能装 3 升。", False),
    ("It fits the Q9.", "它适用于 Q9。", True), ("It fits the Q9.", "它适用于它。", False)])
def test_facts_a_translation_must_keep_are_found_by_shape_not_by_name(answer, translation, kept):
    # names no rule of the package knows: any code of capitals and digits, any capitalised word before a model number
    assert keeps_facts(answer, translation) is kept

