"""The three checks of benchmarks/kb_tasks.py, and its task file's format."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("kb_tasks", ROOT / "benchmarks" / "kb_tasks.py")
kb_tasks = importlib.util.module_from_spec(spec)
spec.loader.exec_module(kb_tasks)


def test_fact_language_and_support_checks():
    from handmade_agent.rag import Chunk
    assert kb_tasks.fact_correct("The arm lifts 350 g.", [["350"]])
    assert kb_tasks.fact_correct("Dose: 1,150 元", [["1150"]]) and not kb_tasks.fact_correct("35 g", [["350"]])
    assert not kb_tasks.fact_correct("5 and 35", [["5"], ["40"]])
    # a number is whole ("41" is not in "141" or "4.1"); no space is needed between a number and a Chinese unit
    assert not kb_tasks.fact_correct("141 dB", [["41"]]) and not kb_tasks.fact_correct("4.1 L", [["41"]])
    assert kb_tasks.fact_correct("保修期是2年。", [["2 年"]]) and not kb_tasks.fact_correct("保修期是12年。", [["2 年"]])
    assert kb_tasks.language_correct("机械臂负载为 350 克 [a#b:1]。", "zh")
    assert not kb_tasks.language_correct("The arm payload is 350 g (机械臂).", "en")
    assert not kb_tasks.language_correct("The arm payload is 350 g.", "zh")
    row = [Chunk("s#arm:1", "s", "| Arm payload | 350 g |", passage_ids=["s#arm"])]
    assert kb_tasks.citation_supported("机械臂负载为 350 克 [s#arm:1]。", row)
    assert kb_tasks.citation_supported("The arm lifts 350 g.", row)  # no id: cite attributes one
    assert not kb_tasks.citation_supported("The arm lifts 500 g [s#arm:1].", row)
    # a Chinese answer shares no word with an English row: its number and unit place it, in numerals too
    assert kb_tasks.citation_supported("机械臂负载为 350 克。", row)
    lidar = [Chunk("w#lidar:1", "w", "| LiDAR module | 2 years |", passage_ids=["w#lidar"])]
    assert kb_tasks.citation_supported("激光雷达模组保修两年。", lidar)
    assert not kb_tasks.citation_supported("激光雷达模组保修三年。", lidar)


def test_task_file_has_twenty_tasks_of_four_kinds():
    tasks = [json.loads(l) for l in (ROOT / "data" / "kb_tasks.jsonl").read_text(encoding="utf-8").splitlines() if l]
    assert len(tasks) >= 20 and len({t["id"] for t in tasks}) == len(tasks)
    assert {t["kind"] for t in tasks} == {"en", "zh", "cross-lingual", "table"}
    assert all(t["lang"] in ("en", "zh") and t["facts"] and all(t["facts"]) for t in tasks)
