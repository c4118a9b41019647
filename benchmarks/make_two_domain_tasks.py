"""Write ``data/eval_tasks_two_domain.jsonl``: tasks that need the manual and the calendar (or the calculator).

Each task needs one fact from the product manual (``data/kb``: a period in days or a price) and one computation
from the toolbox on the suite's clock (``SUITE_TODAY``, 2024-05-20): a date that many days later, days left until
it, or a price times a count. The expected value is computed here from the fact, never typed in; ``FACTS`` quotes
the manual's own words, and ``tests/test_two_domain_tasks.py`` checks that each quote is in the manual. Chinese
questions use the Chinese manual's facts (robots bought in mainland China have their own periods and prices).

    python benchmarks/make_two_domain_tasks.py        # rewrites the file
"""
from __future__ import annotations

import datetime
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from make_eval_tasks import date_forms  # noqa: E402  the suite's date spellings, one definition for every task file
OUT = ROOT / "data" / "eval_tasks_two_domain.jsonl"
TODAY = datetime.date(2024, 5, 20)  # evaluation.tasks.SUITE_TODAY, written out

# (file in data/kb, the manual's words, the figure they give)
FACTS = {
    "return_web": ("en/returns-and-trade-in.md", "can be returned within 30 days of delivery", 30),
    "careshield_days": ("en/t4-warranty.md", "must be bought within 60 days of delivery", 60),
    "unattended": ("en/t4-watering.md", "runs unattended for up to 21 days", 21),
    "careshield_pro": ("en/t4-warranty.md", "€99 for the T4 Pro", 99),
    "consumables": ("en/t4-spare-parts.md", "a year of consumables costs about €66 for one robot", 66),
    "photos_plus": ("en/grove-app.md", "90 days on Grove Plus", 90),
    "return_cn": ("zh/zh-china-after-sales.md", "自签收之日起 7 天内", 7),
    "careshield_cn_days": ("zh/zh-china-after-sales.md", "需在签收后 60 天内购买", 60),
    "careshield_cn_pro": ("zh/zh-china-pricing.md", "T4 Pro 为 699 元", 699),
    "exchange_cn": ("zh/zh-china-after-sales.md", "自签收之日起 15 天内出现性能故障", 15),
    "unattended_cn": ("zh/zh-t4-watering.md", "最长可以无人值守 21 天", 21),
    "filter_cn": ("zh/zh-t4-maintenance.md", "滤网仍应按 90 天更换", 90),
    "repair_cn": ("zh/zh-china-after-sales.md", "保外维修的部件享有 90 天保修", 90),
}


def after(start: str, fact: str) -> list[str]:
    return date_forms(datetime.date.fromisoformat(start) + datetime.timedelta(days=FACTS[fact][2]))


def tasks() -> list[dict]:
    dates, calc = ["knowledge_search", "add_days"], ["knowledge_search", "calculator"]
    left = (datetime.date(2024, 5, 2) + datetime.timedelta(days=FACTS["return_web"][2]) - TODAY).days
    rows = [
        ("en-1", "My Tessel T4 was delivered on 2024-04-25; I bought it in the Quillfern web shop. What is the last "
                 "day I can return it?", {"any": after("2024-04-25", "return_web"), "tools": dates}),
        ("en-2", "My T4 was delivered on 2024-04-02. Until what date can I still buy CareShield for it?",
         {"any": after("2024-04-02", "careshield_days"), "tools": dates}),
        ("en-3", "I am going away today and my T4 has no auto-fill kit. On what date does the longest time it can run "
                 "unattended end?", {"any": after(TODAY.isoformat(), "unattended"), "tools": dates}),
        ("en-4", "How much does CareShield cost for three T4 Pro robots?",
         {"numbers": [3 * FACTS["careshield_pro"][2]], "tools": calc}),
        ("en-5", "About how much does a year of consumables cost for 4 T4 robots?",
         {"numbers": [4 * FACTS["consumables"][2]], "tools": calc}),
        ("en-6", "I uploaded a plant photo to the cloud on Grove Plus on 2024-03-01. Until what date is it kept?",
         {"any": after("2024-03-01", "photos_plus"), "tools": dates}),
        ("en-7", "My T4 from the web shop was delivered on 2024-05-02. How many days do I have left to return it?",
         {"numbers": [left], "tools": ["knowledge_search"]}),
        ("zh-1", "我的 T4 是 2024-05-16 签收的，无理由退货最晚到哪天？", {"any": after("2024-05-16", "return_cn"), "tools": dates}),
        ("zh-2", "T4 在 2024-04-05 签收，安心保最晚要在哪天之前买？",
         {"any": after("2024-04-05", "careshield_cn_days"), "tools": dates}),
        ("zh-3", "给三台 T4 Pro 都买安心保，一共要多少元？", {"numbers": [3 * FACTS["careshield_cn_pro"][2]], "tools": calc}),
        ("zh-4", "我的 T4 于 2024-05-10 签收，现在出现了性能故障，换货期限到哪天为止？",
         {"any": after("2024-05-10", "exchange_cn"), "tools": dates}),
        ("zh-5", "我今天出门旅行，T4 没装自动补水套件，最长可以无人值守到几月几号？",
         {"any": after(TODAY.isoformat(), "unattended_cn"), "tools": dates}),
        ("zh-6", "我在 2024-04-01 换了 T4 的滤网，下次应该哪天换？", {"any": after("2024-04-01", "filter_cn"), "tools": dates}),
        ("zh-7", "保外维修的部件在 2024-03-01 修好，它的保修到哪天结束？", {"any": after("2024-03-01", "repair_cn"), "tools": dates}),
    ]
    return [{"id": f"two_domain-{i}", "lang": i[:2], "kind": "two_domain", "question": q, "tools": "both",
             "checker": c} for i, q, c in rows]


if __name__ == "__main__":
    OUT.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in tasks()), encoding="utf-8")
    print(f"{OUT.relative_to(ROOT)}: {len(tasks())} tasks")
