"""Write data/eval_tasks.jsonl, the evaluation suite, with every expected value computed by code.

    python benchmarks/make_eval_tasks.py          # rewrites data/eval_tasks.jsonl
    python benchmarks/make_eval_tasks.py --check  # exit 1 if the file differs from what this script writes

The questions and what each is computed from are in ``eval_questions.py``. Each expected value comes
from the course's own tools on the suite's clock (``SUITE_TODAY``) or from ``datetime`` checked against
them: the calculator, the date tools, ``convert_temperature`` and the weather table. Manual questions
take their facts from data/kb_tasks.jsonl, and each fact is looked up in data/kb before it is written.
Tasks copied from the old data/agent_tasks.jsonl (removed) keep their ids; new ones are numbered from 42 on.
Not copied: percent-22 (the worked example "What is 17% of 2350?" with other numbers), days_between-07 (Jan 1 to
Dec 31: 365 days, or 366 counting both ends?), kelvin-30 (-40 °C is -40 °F, so an answer repeating the
question passes) and arith-38/40/41 (enough bare arithmetic).

Deliberately left out: the questions' wording (``eval_questions.py``, by hand).
"""
from __future__ import annotations

import datetime
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from eval_questions import KB_IDS, SUITE  # noqa: E402
from handmade_agent.evaluation import KINDS, SUITE_TODAY  # noqa: E402
from handmade_agent.evaluation.checks import normalized, numbers_in  # noqa: E402
from handmade_agent.toolbox import default_registry, load_weather  # noqa: E402

OUT = ROOT / "data" / "eval_tasks.jsonl"
TOOLS = default_registry(today=SUITE_TODAY)
WEATHER = load_weather()
EN_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
ZH_DAYS = "一二三四五六日"


def call(tool: str, **args) -> str:
    result = TOOLS.call(tool, args)
    assert result.ok, result.content
    return result.content


def day_of(text: str) -> datetime.date:
    """A date as the date tools read it: ISO, or the words "today" and "tomorrow" on the suite's clock."""
    relative = {"today": 0, "tomorrow": 1}
    if text in relative:
        return SUITE_TODAY + datetime.timedelta(days=relative[text])
    return datetime.date.fromisoformat(text)


def weekday_forms(day: datetime.date) -> list[str]:
    zh = ZH_DAYS[day.weekday()]
    forms = [EN_DAYS[day.weekday()], f"星期{zh}", f"周{zh}", f"礼拜{zh}"]
    return forms + (["星期天", "礼拜天"] if zh == "日" else [])


def date_forms(day: datetime.date) -> list[str]:
    """ISO, Chinese and English spellings, none inside another date's: no "8 February 2025" (in "18 February
    2025"), and 月日 alone only from March on ("2月8日" is inside "12月8日"); 年月日 also zero-padded ("2025年02月08日")."""
    forms = [day.isoformat(), f"{day.year}年{day.month}月{day.day}日", f"{day.strftime('%B')} {day.day}, {day.year}"]
    padded = f"{day.year}年{day.month:02d}月{day.day:02d}日"
    return forms + [padded] * (padded != forms[1]) + ([f"{day.month}月{day.day}日"] if day.month >= 3 else [])


def arithmetic(expression: str) -> dict:
    return {"numbers": [float(call("calculator", expression=expression))], "tools": ["calculator"]}


def weekday(date: str) -> dict:
    day = day_of(date)
    assert EN_DAYS[day.weekday()] in call("weekday", date=date)
    return {"any": weekday_forms(day), "tools": ["weekday"]}


def days_between(start: str, end: str) -> dict:
    days = (day_of(end) - day_of(start)).days
    assert f"is {days} days" in call("days_between", start=start, end=end)
    return {"numbers": [days], "tools": ["days_between"]}


def date_after(start: str, days: int) -> dict:
    day = day_of(start) + datetime.timedelta(days=days)
    assert day.isoformat() in call("add_days", date=start, days=days)
    return {"any": date_forms(day), "tools": ["add_days"]}


def fahrenheit(celsius: float) -> float:
    return numbers_in(call("convert_temperature", value=celsius, from_unit="C", to_unit="F"))[-1]


def temperature(value: float, source: str, target: str) -> dict:
    converted = numbers_in(call("convert_temperature", value=value, from_unit=source, to_unit=target))[-1]
    return {"numbers": [converted], "tools": ["convert_temperature"]}


def forecast(city: str, day: str, figure: str, unit: str) -> dict:
    """One figure of a forecast, in °F if ``unit`` is F; ``summary``: the condition and both temperatures."""
    data = WEATHER[city][day]
    assert city in call("get_weather", city=city, date=day)
    if figure == "summary":
        checker = {"numbers": [data["low_c"], data["high_c"]], "any": [data["condition"], data["condition_zh"]]}
    else:
        checker = {"numbers": [fahrenheit(data[figure]) if unit == "F" else data[figure]]}
    return {**checker, "tools": ["get_weather"] + (["convert_temperature"] if unit == "F" else [])}


def compare(aspect: str, figure: str, a: tuple[str, str], b: tuple[str, str]) -> dict:
    """Compare ``figure`` of (city, day) ``a`` and ``b``; the sides are named by city, or by day for one city."""
    va, vb = WEATHER[a[0]][a[1]][figure], WEATHER[b[0]][b[1]][figure]
    assert va != vb, "a comparison needs a winner"

    def names(city: str, day: str) -> list[str]:
        if a[0] != b[0]:
            return [city, WEATHER[city]["name_en"], *WEATHER[city]["aliases"]]
        return [day, {"today": "今天", "tomorrow": "明天"}[day]]
    more, less = (a, b) if va > vb else (b, a)
    spec = {"aspect": aspect, "more": names(*more), "less": names(*less)}
    return {"numbers": [va, vb], "compare": spec, "tools": ["get_weather", "get_weather"]}


def no_tool(*forms: str) -> dict:
    return {"any": list(forms), "tools": []}


def refuse(question: str) -> dict:
    """The answer must refuse, with no number the question does not hold."""
    return {"refuse": True, "allowed_numbers": numbers_in(question)}


def kb(task: dict) -> dict:
    """A lone number is checked as a number, words as any accepted form; either must be in the manual."""
    (forms,) = task["facts"]  # one fact per question here
    text = normalized("\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "data" / "kb").rglob("*.md")))
    if len(forms) == 1 and re.fullmatch(r"\d+(\.\d+)?", forms[0]):
        assert float(forms[0]) in numbers_in(text), forms
        return {"numbers": [float(forms[0])], "tools": ["knowledge_search"]}
    assert any(normalized(f).lower() in text.lower() for f in forms), forms
    return {"any": forms, "tools": ["knowledge_search"]}


def kb_tasks() -> dict[str, dict]:
    """The manual's questions and facts (data/kb_tasks.jsonl) by id."""
    lines = (ROOT / "data" / "kb_tasks.jsonl").read_text("utf-8").splitlines()
    return {t["id"]: t for t in map(json.loads, lines)}


BUILDERS = {"arithmetic": arithmetic, "weekday": weekday, "forecast": forecast, "compare": compare,
            "no_tool": no_tool, "days_between": days_between, "date_after": date_after, "temperature": temperature}


def build() -> list[dict]:
    """Every task, kind by kind in the order of ``KINDS``; new tasks numbered from 42 on."""
    assert list(SUITE) == list(KINDS), "one block per kind, in the order of KINDS"
    facts = kb_tasks()
    rows, number = [], 42
    for kind, entries in SUITE.items():
        if kind == "kb":
            entries = [(f"kb-{i}", facts[i]["lang"], facts[i]["question"], facts[i]) for i in KB_IDS]
        for task_id, lang, question, *inputs in entries:
            if task_id is None:
                task_id, number = f"{kind}-{number}", number + 1
            checker = kb(*inputs) if kind == "kb" else refuse(question) if kind == "refuse" else BUILDERS[kind](*inputs)
            rows.append({"id": task_id, "lang": lang, "kind": kind, "question": question,
                         "tools": "kb" if kind == "kb" else "toolbox", "checker": tidy(checker)})
    return rows


def tidy(checker: dict) -> dict:
    """Whole numbers written as integers, so the file reads 304 rather than 304.0."""
    def whole(x):
        return int(x) if isinstance(x, float) and x.is_integer() else x
    return {k: [whole(x) for x in v] if k in ("numbers", "allowed_numbers") else v for k, v in checker.items()}


def text() -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in build())


def write_or_check(out: Path, written: str, check: bool) -> int:
    """Write ``written`` to ``out``, or with ``check`` only compare: the exit status (1: the file differs)."""
    if check:
        same = out.exists() and out.read_text(encoding="utf-8") == written
        print(f"{out}: {'up to date' if same else 'differs from what this script writes'}")
        return 0 if same else 1
    out.write_text(written, encoding="utf-8")
    print(f"wrote {written.count(chr(10))} tasks to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(write_or_check(OUT, text(), "--check" in sys.argv))
