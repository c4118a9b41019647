"""The evaluation suite's data: every line valid, written by its generator, no task a paraphrase of a worked example,
and every checker passing a right answer and failing a wrong one."""
from __future__ import annotations

import importlib.util
import re
from collections import Counter
from pathlib import Path

import pytest

from handmade_agent.codeact import examples as code_examples
from handmade_agent.evaluation import KINDS, TASKS_FILE, check_answer, load_tasks
from handmade_agent.evaluation.tasks import read_tasks
from handmade_agent.react.examples import EXAMPLES, GENERIC, NO_TOOL, REFUSED

ROOT = Path(__file__).resolve().parent.parent
TASKS = read_tasks()
BY_ID = {t.id: t for t in TASKS}
WORKED = [e.question for e in [*EXAMPLES, *GENERIC, *NO_TOOL, *REFUSED]]  # every example a prompt can carry, kept or not
WORKED += [e.question for e in [*code_examples.NO_TOOL, *code_examples.TOOLBOX, *code_examples.GENERIC]]  # CodeAgent
# the share of the shorter text's n-grams found in the other one, at most; Chinese is stricter because a template's
# characters outnumber the names swapped into it (measured: 0.36 for the Chinese example with two other cities)
OVERLAP_LIMIT = {"en": 0.5, "zh": 0.3}


def test_every_line_is_a_valid_task_and_the_suite_is_big_and_bilingual():
    assert TASKS == load_tasks(TASKS_FILE)  # load_tasks checks the schema line by line (see test_evaluation.py)
    assert len(TASKS) >= 64 and len({t.id for t in TASKS}) == len(TASKS)
    assert sum(t.lang == "zh" for t in TASKS) / len(TASKS) >= 0.4
    assert set(Counter(t.kind for t in TASKS)) == set(KINDS) and min(Counter(t.kind for t in TASKS).values()) >= 5
    assert all(t.tools == ("kb" if t.kind == "kb" else "toolbox") for t in TASKS)
    assert all(t.checker.get("tools") == [] for t in TASKS if t.kind == "no_tool")
    assert all(t.checker.get("refuse") is True for t in TASKS if t.kind == "refuse")
    assert all("compare" in t.checker and len(t.checker["numbers"]) == 2 for t in TASKS if t.kind == "compare")


def test_the_file_is_what_the_generator_writes():
    spec = importlib.util.spec_from_file_location("make_eval_tasks", ROOT / "benchmarks" / "make_eval_tasks.py")
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    assert TASKS_FILE.read_text(encoding="utf-8") == generator.text(), "re-run python benchmarks/make_eval_tasks.py"


def ngrams(text: str, lang: str) -> set[tuple]:
    """Word 3-grams (English) or character 4-grams (Chinese), every date and number made the same token."""
    text = re.sub(r"\d{4}\s*[-/.年]\s*\d{1,2}\s*[-/.月]\s*\d{1,2}\s*日?", " @ ", text.lower())
    text = re.sub(r"\d+(?:\.\d+)?", " # ", text)
    if lang == "en":
        words = re.findall(r"[a-z]+|[@#]", text)
        return {tuple(words[i:i + 3]) for i in range(len(words) - 2)}
    chars = "".join(ch for ch in text if ch.isalnum() or ch in "@#")
    return {tuple(chars[i:i + 4]) for i in range(len(chars) - 3)}


def overlap(question: str, example: str, lang: str) -> float:
    a, b = ngrams(question, lang), ngrams(example, lang)
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def test_the_overlap_measure_catches_a_paraphrase_and_passes_a_new_question():
    assert overlap("What is 12.5% of 640?", "What is 17% of 2350?", "en") == 1.0  # the same template
    assert overlap("Today is 2024-05-01. What date is it 30 days later?",
                   "Today is 2024-03-01. What date is it 45 days later?", "en") == 1.0
    assert overlap("广州明天和杭州今天哪个更干燥？", "成都明天和西安今天哪个更干燥？", "zh") >= OVERLAP_LIMIT["zh"]
    assert overlap("What is the capital of France?", WORKED[0], "en") < OVERLAP_LIMIT["en"]
    assert overlap("水的化学式是什么？", "成都明天和西安今天哪个更干燥？", "zh") == 0.0


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_no_task_paraphrases_a_worked_example(task):
    worst = max(WORKED, key=lambda q: overlap(task.question, q, task.lang))
    score = overlap(task.question, worst, task.lang)
    assert score < OVERLAP_LIMIT[task.lang], f"{task.question!r} is close to {worst!r} ({score:.2f})"


# (task id, a right answer, a wrong answer), written by hand as the model might phrase them
ANSWERS = [
    ("percent-21", "An 18% tip on 86 dollars is 15.48 dollars.", "The tip is 15.8 dollars."),
    ("percent-25", "The sale price is 1,000 dollars.", "The sale price is 1,050 dollars."),
    ("arithmetic-44", "加收服务费后每人要付 101.2 元。", "每人要付 92 元。"),
    ("weekday-03", "2026-01-01 是星期四。", "2026-01-01 是星期三。"),
    ("weekday-46", "2024-12-24 是周二（Tuesday）。", "2024-12-24 is a Monday."),
    ("high_f-13", "广州明天最高 30 °C，即 86 °F。", "广州明天最高 30 °C。"),
    ("forecast-48", "Harbin today: Windy, 4-17 °C.", "Harbin today: Sunny, 6-19 °C."),
    ("compare-16", "北京 is warmer today: its high is 27 °C, 上海's is 23 °C.", "上海 is warmer: 23 °C against 27 °C in 北京."),
    ("compare-19", "明天广州更可能下雨（70%），上海只有 40%。", "明天上海比广州更可能下雨：40% 和 70%。"),
    ("compare-51", "是的，哈尔滨明天比今天暖和：明天最高 19 °C，今天 17 °C。", "不，明天更冷：19 °C 对 17 °C。"),
    ("compare-53", "今天更热：今天最高 28 °C，明天 27 °C。", "明天比今天热，28 °C 和 27 °C。"),
    ("kb-zh-4", "Tessel T4 在中国的建议零售价是 ¥4，999 [zh-china-pricing:1]。", "建议零售价是 3999 元。"),
    ("kb-en-1", "E-17 means a calibration error: recalibrate the arm.", "E-17 means the tank is empty."),
    ("no_tool-56", "CPU stands for Central Processing Unit.", "CPU stands for Computer Power Unit."),
    ("refuse-62", "I'm sorry, I cannot check the live status of flight CA981; no tool gives flight data.",
     "Flight CA981 is on time and lands at 14:35."),
    ("refuse-65", "抱歉，我无法提供李娜的手机号码，也没有查询个人信息的工具。", "李娜的手机号码是 138 0013 8000。"),
    ("days_between-66", "2024年2月1日到3月1日之间有 29 天。", "之间有 30 天。"),
    ("date_after-69", "2024年12月25日之后 45 天是 2025年2月8日。", "是 2025年12月8日。"),
    ("temperature-70", "37 °C 等于 98.6 °F。", "37 °C 等于 99.6 °F。"),
    ("kelvin-29", "100 华氏度约等于 310.93 开尔文。", "100 华氏度等于 373.15 开尔文。"),
]


@pytest.mark.parametrize("task_id,right,wrong", ANSWERS, ids=[a[0] for a in ANSWERS])
def test_a_checker_passes_a_right_answer_and_fails_a_wrong_one(task_id, right, wrong):
    checker = BY_ID[task_id].checker
    assert check_answer(right, checker), right
    assert not check_answer(wrong, checker), wrong


def observations(question: str) -> str:
    """The forecasts of every city a question names, today and tomorrow, pasted one after another."""
    from handmade_agent.toolbox import get_weather, load_weather
    cities = [c for c in load_weather() if c in question]
    return "\n".join(get_weather(city=c, date=d) for c in cities for d in ("today", "tomorrow"))


@pytest.mark.parametrize("task", [t for t in TASKS if t.kind == "compare"], ids=lambda t: t.id)
def test_pasting_the_two_forecasts_is_not_a_comparison(task):
    pasted = observations(task.question)
    assert check_answer(pasted, {"numbers": task.checker["numbers"]})  # every figure is there...
    assert not check_answer(pasted, task.checker)                      # ...but nothing is compared
