"""Format checks for the knowledge base (data/kb) and the retrieval eval set (data/rag_eval.jsonl).

The corpus is hand-written data, so these tests guard the contract the rag code relies on:
every document starts with `# Title`, every `##`/`###` heading ends with a unique ASCII `{#anchor}`,
passage ids (`doc_id#anchor`) are unique across both languages, and every eval question points at
passages that exist and contain its answer verbatim. The tests read the files with a tiny parser of
their own, independent of the package's chunker, so a chunker bug cannot hide a data bug.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
KB = ROOT / "data" / "kb"
EVAL = ROOT / "data" / "rag_eval.jsonl"
LANGS = ("en", "zh")

HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
ANCHORED = re.compile(r"^(?P<text>.*\S)\s+\{#(?P<anchor>[a-z0-9]+(?:-[a-z0-9]+)*)\}$")
CJK = re.compile(r"[\u4e00-\u9fff]")


def doc_paths() -> list[Path]:
    return sorted(p for lang in LANGS for p in (KB / lang).glob("*.md"))


def parse_passages(text: str) -> list[dict]:
    """Split a document into passages: the text under each heading up to the next heading of any level.

    Lines inside ``` fences are never headings (a code sample may contain '#').
    """
    passages: list[dict] = []
    current = {"level": 0, "heading": "", "anchor": None, "lines": []}  # text before the title
    in_fence = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        m = None if in_fence else HEADING.match(line)
        if m:
            passages.append(current)
            current = {"level": len(m.group(1)), "heading": m.group(2), "anchor": None, "lines": []}
            a = ANCHORED.match(m.group(2))
            if a:
                current["heading"], current["anchor"] = a.group("text"), a.group("anchor")
        else:
            current["lines"].append(line)
    passages.append(current)
    for p in passages:
        p["body"] = "\n".join(p.pop("lines")).strip()
    return passages


@pytest.fixture(scope="module")
def docs() -> dict[str, dict]:
    out = {}
    for path in doc_paths():
        text = path.read_text(encoding="utf-8")
        out[path.stem] = {"lang": path.parent.name, "text": text, "passages": parse_passages(text)}
    return out


@pytest.fixture(scope="module")
def passage_index(docs) -> dict[str, dict]:
    index = {}
    for doc_id, d in docs.items():
        for p in d["passages"]:
            if p["anchor"]:
                index[f"{doc_id}#{p['anchor']}"] = {**p, "lang": d["lang"]}
    return index


@pytest.fixture(scope="module")
def questions() -> list[dict]:
    lines = EVAL.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


# ---------------------------------------------------------------- documents

def test_corpus_size_and_languages(docs):
    langs = Counter(d["lang"] for d in docs.values())
    assert len(docs) >= 36, f"only {len(docs)} documents"
    assert langs["en"] >= 15 and langs["zh"] >= 15, langs
    # Several hundred passages is what makes retrieval a real search problem.
    n_passages = sum(1 for d in docs.values() for p in d["passages"] if p["anchor"])
    assert n_passages >= 250, n_passages


def test_doc_ids_are_unique_slugs_across_languages():
    stems = [p.stem for p in doc_paths()]
    assert len(stems) == len(set(stems)), [s for s, n in Counter(stems).items() if n > 1]
    for stem in stems:
        assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", stem), stem


@pytest.mark.parametrize("path", doc_paths(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_document_structure(path):
    text = path.read_text(encoding="utf-8")
    first = text.splitlines()[0]
    assert re.match(r"^# \S", first), f"{path.name}: first line must be '# Title', got {first!r}"
    assert "{#" not in first, f"{path.name}: the title carries no anchor"
    passages = parse_passages(text)
    titles = [p for p in passages if p["level"] == 1]
    assert len(titles) == 1, f"{path.name}: exactly one '# ' title expected"
    sections = [p for p in passages if p["level"] >= 2]
    assert len(sections) >= 4, f"{path.name}: too few sections"
    for p in sections:
        assert p["level"] <= 3, f"{path.name}: only ## and ### headings are used: {p['heading']!r}"
        assert p["anchor"], f"{path.name}: heading without {{#anchor}}: {p['heading']!r}"
    anchors = [p["anchor"] for p in sections]
    dup = [a for a, n in Counter(anchors).items() if n > 1]
    assert not dup, f"{path.name}: duplicate anchors {dup}"
    # Every section has text, unless it is a ## whose text lives in its ### children.
    for i, p in enumerate(sections):
        nxt = sections[i + 1] if i + 1 < len(sections) else None
        has_children = nxt is not None and nxt["level"] > p["level"]
        assert p["body"] or has_children, f"{path.name}: empty section {p['anchor']}"
    assert 1000 <= len(text) <= 6000, f"{path.name}: {len(text)} characters"


@pytest.mark.parametrize("path", doc_paths(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_document_language_matches_folder(path):
    text = path.read_text(encoding="utf-8")
    share = len(CJK.findall(text)) / max(1, len(re.findall(r"\S", text)))
    if path.parent.name == "zh":
        assert share > 0.4, f"{path.name}: mostly not Chinese ({share:.0%} CJK)"
    else:
        assert share == 0 or path.stem.startswith("agent-"), f"{path.name}: Chinese in an English doc"


# ---------------------------------------------------------------- eval set

def test_eval_schema(questions):
    keys = {"qid", "lang", "question", "answer", "relevant", "kind", "answer_lang"}
    qids = [q["qid"] for q in questions]
    assert len(qids) == len(set(qids)), "duplicate qids"
    for q in questions:
        assert set(q) == keys, q
        assert q["lang"] in LANGS and q["answer_lang"] in LANGS, q
        assert q["kind"] in {"lexical", "paraphrase", "cross-lingual", "table"}, q
        # cross-lingual means exactly this: the answer is only in the other language's documents
        assert (q["kind"] == "cross-lingual") == (q["answer_lang"] != q["lang"]), q["qid"]
        assert re.fullmatch(rf"{q['lang']}-\d{{3}}", q["qid"]), q["qid"]
        assert q["question"].strip() and q["answer"].strip(), q["qid"]
        assert isinstance(q["relevant"], list) and 1 <= len(q["relevant"]) <= 4, q["qid"]
        assert len(q["answer"]) <= 60, f"{q['qid']}: answers are short spans"


def test_eval_coverage(questions):
    assert len(questions) >= 60
    by = Counter((q["lang"], q["kind"]) for q in questions)
    for lang in LANGS:
        total = by[(lang, "lexical")] + by[(lang, "paraphrase")]
        assert total >= 30, (lang, total)
        assert by[(lang, "paraphrase")] * 3 >= total, f"{lang}: fewer than a third paraphrases"
    for lang in LANGS:  # issue 15: both directions of cross-lingual questions, and table rows
        assert by[(lang, "cross-lingual")] >= 12, (lang, by[(lang, "cross-lingual")])
    assert by[("en", "table")] + by[("zh", "table")] >= 12
    # Questions about fault codes and numbers from tables are part of the set.
    assert sum(bool(re.fullmatch(r"[EWM]-\d\d", q["answer"])) for q in questions) >= 4


def test_relevant_passages_exist_and_match_language(questions, passage_index):
    for q in questions:
        for pid in q["relevant"]:
            assert pid in passage_index, f"{q['qid']}: unknown passage {pid}"
            assert passage_index[pid]["lang"] == q["answer_lang"], f"{q['qid']}: {pid} is in another language"


def test_answer_is_a_span_of_a_relevant_passage(questions, passage_index):
    for q in questions:
        bodies = [passage_index[pid]["body"] for pid in q["relevant"] if pid in passage_index]
        assert any(q["answer"] in body for body in bodies), f"{q['qid']}: {q['answer']!r} not in {q['relevant']}"


def test_chinese_questions_are_written_in_chinese(questions):
    for q in questions:
        if q["lang"] == "zh":
            assert CJK.search(q["question"]), q["qid"]
        else:
            assert not CJK.search(q["question"]), q["qid"]


def test_parser_finds_passages_and_skips_code_fences():
    text = "# T\n\n## A {#a}\n\nx\n\n```\n## not a heading\n```\n\n### B {#b}\n\ny\n"
    got = [(p["anchor"], p["body"]) for p in parse_passages(text) if p["anchor"]]
    assert got == [("a", "x\n\n```\n## not a heading\n```"), ("b", "y")]
