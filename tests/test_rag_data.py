"""A tiny two-language knowledge base for the rag tests (imported by the other test_rag files),
and checks that the project's real knowledge base and eval set fit the agreed format."""
from __future__ import annotations

import json
from pathlib import Path

from handmade_agent.rag import chunk_documents
from handmade_agent.rag.documents import load_documents, load_eval, match_heading

EN_PUMP = """# Brookline B2 pump

The Brookline B2 is a garden pump for rain barrels.

## Specifications {#specs}

It delivers 1,800 litres per hour at 0.9 bar. The motor draws 240 W. The cable is 10 m long.

## Fault codes {#faults}

| Code | Meaning |
|---|---|
| P-01 | Dry run: no water for 20 s |
| P-04 | Motor overheated above 70 °C |

### Dry run {#dry-run}

Fault P-01 means the intake is above the water line. Lower the float switch and restart.

## Cleaning {#cleaning}

Rinse the intake sieve every month. Descale the impeller with vinegar once a year.
"""

EN_OFFICE = """# Harbour office notes

## Opening hours {#hours}

The Harbour office opens at 08:30 and closes at 17:00. On Fridays it closes at 15:00.

## Parking {#parking}

Visitors park in bay C. Bicycles go in the yard behind the kitchen.
"""

ZH_PUMP = """# 布鲁克林 B2 水泵

布鲁克林 B2 是一款用于雨水桶的花园水泵。

## 技术参数 {#specs}

每小时出水 1800 升，压力 0.9 巴。电机功率 240 瓦。电缆长 10 米。

## 故障代码 {#faults}

P-01 表示干转：二十秒内没有水。P-04 表示电机过热，温度超过七十度。

## 清洁 {#cleaning}

每月冲洗一次进水滤网！每年用醋除一次叶轮上的水垢。
"""


KINDS = ("lexical", "paraphrase", "cross-lingual", "table")


def write_kb(root: Path) -> Path:
    """Write the tiny knowledge base under ``root/kb`` and return that directory."""
    kb = root / "kb"
    for rel, text in {"en/b2-pump.md": EN_PUMP, "en/office.md": EN_OFFICE, "zh/b2-pump-zh.md": ZH_PUMP}.items():
        (kb / rel).parent.mkdir(parents=True, exist_ok=True)
        (kb / rel).write_text(text, encoding="utf-8")
    return kb


# --- the real knowledge base (data/kb, data/rag_eval.jsonl): format checks -------------------------

# Both are committed: a missing file is a broken checkout and fails, it does not skip.
DATA = Path(__file__).resolve().parent.parent / "data"


def test_tiny_kb_parses(tmp_path):
    docs = load_documents(write_kb(tmp_path))
    assert [(d.lang, d.doc_id) for d in docs] == [("en", "b2-pump"), ("en", "office"), ("zh", "b2-pump-zh")]
    assert "{#" not in docs[0].text


def test_every_subheading_has_a_unique_anchor():
    paths = sorted((DATA / "kb").glob("*/*.md"))
    assert paths, f"no knowledge base in {DATA / 'kb'}: it is committed (git checkout data/kb)"  # else a vacuous pass
    for path in paths:
        lines = path.read_text(encoding="utf-8").splitlines()
        assert lines[0].startswith("# "), f"{path}: first line must be '# Title'"
        anchors = []
        for line in lines:
            m = match_heading(line)
            if m and len(m[0]) >= 2:
                assert m[2], f"{path}: heading without {{#anchor}}: {line!r}"
                anchors.append(m[2])
        assert len(anchors) == len(set(anchors)), f"{path}: duplicate anchors"


def test_every_relevant_passage_is_a_chunk_of_its_language():
    items = load_eval(DATA / "rag_eval.jsonl")
    assert len({it.qid for it in items}) == len(items)
    for lang in ("en", "zh"):
        passages = {p for c in chunk_documents(load_documents(DATA / "kb", (lang,))) for p in c.passage_ids}
        for it in (i for i in items if (i.answer_lang or i.lang) == lang):
            missing = [r for r in it.relevant if r not in passages]
            assert not missing, f"{it.qid}: relevant ids {missing} are no passage with text in data/kb/{lang}"


def test_cross_lingual_items_load_as_cross_lingual():
    items = load_eval(DATA / "rag_eval.jsonl")
    cross = [i for i in items if i.cross_lingual]
    assert {i.kind for i in cross} == {"cross-lingual"} and {i.lang for i in cross} == {"en", "zh"}
    assert all(i.answer_lang != i.lang for i in cross) and len(cross) >= 24


def test_eval_lines_are_valid_json_with_the_agreed_keys():
    for n, line in enumerate((DATA / "rag_eval.jsonl").read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            d = json.loads(line)
            assert {"qid", "lang", "question", "answer", "relevant", "kind"} <= set(d), f"line {n}"
            assert d["lang"] in ("en", "zh") and d["kind"] in KINDS, f"line {n}"
