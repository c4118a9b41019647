"""The held-out test split (data/eval_tasks_test.jsonl): big and bilingual, nothing shared with the suite or close to
its wording, written by its generator, its expected values right by a second computation, its checkers honest,
and reached through ``load_tasks(split=...)`` and ``handmade-agent eval --split``. No model runs here."""
from __future__ import annotations

import datetime
import importlib.util
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from handmade_agent import cli
from handmade_agent.errors import ConfigError
from handmade_agent.evaluation import KINDS, SPLITS, TEST_TASKS_FILE, check_answer, load_tasks
from handmade_agent.evaluation.checks import normalized
from handmade_agent.llm import ScriptedLLM
from test_eval_tasks import OVERLAP_LIMIT, WORKED, overlap

ROOT = Path(__file__).resolve().parent.parent
TEST = load_tasks(split="test")
SUITE = load_tasks()
BY_ID = {t.id: t for t in TEST}


def test_the_split_is_big_bilingual_and_covers_every_kind():
    kinds = Counter(t.kind for t in TEST)
    assert len(TEST) >= 44 and set(kinds) == set(KINDS) and min(kinds.values()) >= 4
    assert kinds["compare"] >= 6 and kinds["refuse"] >= 6
    assert 0.4 <= sum(t.lang == "zh" for t in TEST) / len(TEST) <= 0.6
    assert all(t.id.startswith("test-") for t in TEST)  # how an outcome record says which split it came from
    assert all(t.tools == ("kb" if t.kind == "kb" else "toolbox") for t in TEST)
    assert all(t.checker.get("refuse") is True for t in TEST if t.kind == "refuse")
    assert all("compare" in t.checker and len(t.checker["numbers"]) >= 2 for t in TEST if t.kind == "compare")


def test_nothing_is_shared_with_the_suite():
    def key(question: str) -> str:
        return "".join(normalized(question).lower().split())
    assert not {t.id for t in TEST} & {t.id for t in SUITE}
    assert not {key(t.question) for t in TEST} & {key(t.question) for t in SUITE}


@pytest.mark.parametrize("task", TEST, ids=lambda t: t.id)
def test_no_question_is_worded_like_the_suite_or_a_worked_example(task):
    others = WORKED + [t.question for t in SUITE]
    closest = max(others, key=lambda q: overlap(task.question, q, task.lang))
    score = overlap(task.question, closest, task.lang)
    assert score < OVERLAP_LIMIT[task.lang], f"{task.question!r} is close to {closest!r} ({score:.2f})"


def generator():
    spec = importlib.util.spec_from_file_location("make_test_split", ROOT / "benchmarks" / "make_test_split.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_check_mode_passes_on_the_file_and_fails_on_a_changed_copy(tmp_path):
    run = subprocess.run([sys.executable, "benchmarks/make_test_split.py", "--check"], cwd=ROOT, check=False,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    make = generator()
    changed = tmp_path / "eval_tasks_test.jsonl"
    changed.write_text(TEST_TASKS_FILE.read_text(encoding="utf-8").replace("17400", "17500"), encoding="utf-8")
    assert make.suite.write_or_check(changed, make.text(), check=True) == 1


# expected values worked out again here with datetime, formulas and the raw weather file, not the course's tools
WEATHER = json.loads((ROOT / "data" / "weather.json").read_text(encoding="utf-8"))["cities"]
DAY = datetime.date(2024, 5, 20)  # the suite's clock, written out
AGAIN = {
    "test-arithmetic-02": 7.85 * 52,
    "test-weekday-02": datetime.date(2024, 12, 7).strftime("%A"),
    "test-weekday-05": (DAY + datetime.timedelta(days=1)).strftime("%A"),
    "test-days_between-02": (datetime.date(2024, 6, 18) - datetime.date(2023, 6, 18)).days,
    "test-days_between-01": (datetime.date(2024, 8, 31) - DAY).days,
    "test-date_after-04": (datetime.date(2024, 11, 1) - datetime.timedelta(days=60)).isoformat(),
    "test-date_after-05": (datetime.date(2024, 1, 15) + datetime.timedelta(days=500)).isoformat(),
    "test-date_after-06": (DAY - datetime.timedelta(weeks=3)).isoformat(),
    "test-temperature-01": 180 * 9 / 5 + 32,
    "test-temperature-05": (102 - 32) * 5 / 9,
    "test-temperature-03": 77 - 273.15,
    "test-forecast-03": WEATHER["南京"]["today"]["low_c"] * 9 / 5 + 32,
    "test-compare-05": WEATHER["武汉"]["tomorrow"]["high_c"] - WEATHER["哈尔滨"]["tomorrow"]["high_c"],
}


@pytest.mark.parametrize("task_id,expected", AGAIN.items(), ids=list(AGAIN))
def test_an_expected_value_agrees_with_a_second_computation(task_id, expected):
    checker = BY_ID[task_id].checker
    if isinstance(expected, str):
        assert expected in checker["any"]
    else:
        assert any(abs(n - expected) < 0.01 for n in checker["numbers"]), (checker["numbers"], expected)


# (task id, a right answer, a wrong one), written by hand as a model might phrase them
ANSWERS = [
    ("test-compare-05", "Wuhan will be 8 °C warmer than Harbin tomorrow: 27 °C against 19 °C.",
     "Wuhan will be warmer tomorrow: 27 °C against 19 °C in Harbin."),  # no difference given
    ("test-compare-05", "Wuhan is 8 °C warmer: 27 °C against 19 °C.", "Harbin is 8 °C warmer: 27 °C against 19 °C."),
    ("test-compare-04", "今天夜里更冷：最低 4 °C，明天夜里最低 6 °C。", "明天夜里更冷，最低气温 6 °C 和 4 °C。"),
    ("test-compare-03", "Hong Kong stays warmer tonight: its low is 26 °C, Shenzhen's is 25 °C.",
     "Shenzhen stays warmer at night, 25 °C against 26 °C."),
    ("test-compare-08", "香港更容易下雨（40%），深圳是 30%。", "深圳更容易下雨：30%，香港 40%。"),
    ("test-kb-06", "激光雷达模组保修 2 年。", "雷达模块保修 1 年。"),
    ("test-date_after-04", "应该从 2024年9月2日 开始准备。", "应该从 2024年9月1日 开始准备。"),
    ("test-days_between-02", "一共 366 天（2024 年是闰年）。", "一共 365 天。"),
    ("test-forecast-03", "Nanjing's low today is 16 °C, which is 60.8 °F.", "Nanjing's low today is 16 °C."),
    ("test-no_tool-05", "A spider has eight legs.", "A spider has six legs."),
    ("test-refuse-07", "Sorry, I can't set alarms on your phone: none of my tools does that.",
     "Done! Your alarm is set for 6:30."),
    ("test-refuse-04", "抱歉，我无法查询航班 CZ3101 的起飞时间，没有查航班的工具。", "CZ3101 明天 8:45 准时起飞。"),
]


@pytest.mark.parametrize("task_id,right,wrong", ANSWERS, ids=[f"{a[0]}-{i}" for i, a in enumerate(ANSWERS)])
def test_a_checker_passes_a_right_answer_and_fails_a_wrong_one(task_id, right, wrong):
    checker = BY_ID[task_id].checker
    assert check_answer(right, checker), right
    assert not check_answer(wrong, checker), wrong


@pytest.mark.parametrize("task", [t for t in TEST if t.kind == "compare"], ids=lambda t: t.id)
def test_pasting_the_two_forecasts_is_not_a_comparison(task):
    from handmade_agent.toolbox import get_weather
    cities = [c for c, info in WEATHER.items() if c in task.question or info["name_en"] in task.question]
    pasted = "\n".join(get_weather(city=c, date=d) for c in cities for d in ("today", "tomorrow"))
    assert len(cities) in (1, 2) and not check_answer(pasted, task.checker)


def test_load_tasks_reads_a_split_and_names_the_valid_ones():
    assert set(SPLITS) == {"suite", "test", "two_domain"} and load_tasks(split="suite") == SUITE
    assert {t.kind for t in load_tasks(split="two_domain")} == {"two_domain"}
    assert {t.kind for t in load_tasks(split="test", kinds=["refuse"])} == {"refuse"}
    assert len(load_tasks(split="test", limit=10)) == 10
    with pytest.raises(ConfigError, match="Unknown split 'bogus'; choose from suite, test, two_domain"):
        load_tasks(split="bogus")


def test_eval_split_bogus_is_one_line_before_any_model_loads(monkeypatch, capsys):
    monkeypatch.setattr(cli, "make_llm", lambda backend: pytest.fail("the model must not load"))
    assert cli.main(["eval", "--split", "bogus"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: Unknown split") and "suite, test" in err and len(err.strip().splitlines()) == 1


def test_eval_split_test_runs_the_held_out_tasks(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(cli, "make_llm", lambda backend: ScriptedLLM(["Final Answer: the Pacific Ocean"]))
    out = tmp_path / "r.jsonl"
    argv = ["eval", "--split", "test", "--configs", "react", "--kinds", "no_tool", "--limit", "1", "--out", str(out)]
    assert cli.main(argv) == 0
    assert "test split, 1 tasks x 1 configurations" in capsys.readouterr().out
    (record,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert record["task_id"] == "test-no_tool-01" and record["success"] is True
