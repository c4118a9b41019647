"""Document parsing and the two chunkers."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from handmade_agent.rag.chunking import (chunk_documents, covered_passages, fixed_chunks, split_sentences,
                                         structure_chunks)
from handmade_agent.rag import load_documents, parse_document
from test_rag_data import EN_PUMP, ZH_PUMP, write_kb


def test_parse_strips_anchors_and_records_sections():
    doc = parse_document("b2", EN_PUMP)
    assert "{#" not in doc.text and "## Fault codes\n" in doc.text
    assert doc.title == "Brookline B2 pump"
    assert [s.passage_id for s in doc.sections] == ["b2", "b2#specs", "b2#faults", "b2#dry-run", "b2#cleaning"]
    dry = doc.sections[3]
    assert dry.heading_path == ["Brookline B2 pump", "Fault codes", "Dry run"]
    assert doc.text[dry.start:dry.body_start] == "### Dry run\n"
    assert doc.text[dry.body_start:dry.end].strip().startswith("Fault P-01 means")


def test_hash_lines_inside_code_fences_are_not_headings():
    doc = parse_document("c", "# C\n\n## Shell {#shell}\n\n```\n# not a heading\n```\n")
    assert [s.passage_id for s in doc.sections] == ["c", "c#shell"]


def test_document_without_title_uses_its_id():
    doc = parse_document("notes", "Just text.\n\n## Part {#part}\n\nMore.\n")
    assert doc.sections[0].heading_path == ["notes"] and doc.sections[1].passage_id == "notes#part"


def test_split_sentences_handles_english_and_chinese_punctuation():
    assert split_sentences("One. Two! 三。四？五；六") == ["One.", " Two!", " 三。", "四？", "五；", "六"]
    text = "E-07 at 0.9 bar. Done.\nNext line"
    assert "".join(split_sentences(text)) == text and "0.9" in split_sentences(text)[0]


def test_structure_chunks_follow_headings_and_keep_passage_ids():
    doc = parse_document("b2", EN_PUMP)
    chunks = structure_chunks(doc)
    assert [c.id for c in chunks] == ["b2:1", "b2#specs:1", "b2#faults:1", "b2#faults:2", "b2#dry-run:1",
                                      "b2#cleaning:1"]
    for c in chunks:
        assert c.text == doc.text[c.start:c.end] and c.text == c.text.strip()
        assert "#" not in c.text.splitlines()[0][:2]  # a heading line is never inside a chunk
    faults = chunks[3]
    assert faults.heading_path == ["Brookline B2 pump", "Fault codes"] and "P-04" in faults.text
    assert faults.search_text.startswith("Brookline B2 pump > Fault codes\n")


def test_a_table_row_is_a_chunk_with_its_header_and_section_title():
    doc = parse_document("b2", EN_PUMP)
    rows = [c for c in structure_chunks(doc) if c.table_header]
    assert [c.text for c in rows] == ["| P-01 | Dry run: no water for 20 s |", "| P-04 | Motor overheated above 70 °C |"]
    assert rows[0].table_header == "| Code | Meaning |" and rows[0].display_text.startswith("| Code | Meaning |\n")
    assert rows[1].search_text == "Brookline B2 pump > Fault codes\n| Code | Meaning |\n| P-04 | Motor overheated above 70 °C |"
    as_prose = structure_chunks(doc, tables=False)  # the switch for measuring what row chunks bring
    assert not any(c.table_header for c in as_prose) and "b2#faults:2" not in [c.id for c in as_prose]


def test_arm_payload_finds_the_350_g_row_in_the_real_knowledge_base():
    from handmade_agent.rag import BM25, load_documents, terms
    kb = Path(__file__).resolve().parent.parent / "data" / "kb"
    chunks = [c for d in load_documents(kb, ("en",)) for c in structure_chunks(d)]
    bm = BM25([terms(c.search_text) for c in chunks])
    best = chunks[int(bm.scores(terms("arm load payload")).argmax())]
    assert best.text == "| Arm payload | 350 g |" and "Arm and sensors" in best.search_text


def test_long_sections_split_by_sentences_with_overlap_and_chinese_punctuation():
    body = "".join(f"第{i}句说明水泵的一个细节。" for i in range(40))  # one long Chinese paragraph
    doc = parse_document("z", f"# 标题\n\n## 细节 {{#details}}\n\n{body}\n", lang="zh")
    chunks = structure_chunks(doc, max_chars=120, overlap=30)
    assert len(chunks) > 3 and all(len(c.text) <= 120 for c in chunks)
    assert all(c.text.endswith("。") for c in chunks)  # cut at sentence ends, not mid-sentence
    for a, b in zip(chunks, chunks[1:]):
        assert b.start < a.end, "consecutive chunks of one section share an overlap"
        assert a.end - b.start <= 30
    assert {c.passage_id for c in chunks} == {"z#details"}
    assert [c.id for c in chunks][:2] == ["z#details:1", "z#details:2"]


def test_a_sentence_longer_than_the_limit_is_cut_by_characters():
    doc = parse_document("w", "# W\n\n" + "x" * 250 + "\n")
    chunks = structure_chunks(doc, max_chars=100, overlap=0)
    assert [len(c.text) for c in chunks] == [100, 100, 50]


def test_overlap_must_be_smaller_than_the_size():
    doc = parse_document("w", "# W\n\ntext\n")
    with pytest.raises(ValueError, match="overlap"):
        structure_chunks(doc, max_chars=50, overlap=50)
    with pytest.raises(ValueError, match="overlap"):
        fixed_chunks(doc, size=50, overlap=60)


def test_fixed_chunks_are_windows_with_overlap_and_cover_passages():
    doc = parse_document("b2", EN_PUMP)
    chunks = fixed_chunks(doc, size=200, overlap=50)
    assert chunks[0].start == 0 and chunks[-1].end == len(doc.text)
    for a, b in zip(chunks, chunks[1:]):
        assert b.start == a.start + 150 and len(a.text) == 200
    assert all(c.text == doc.text[c.start:c.end] for c in chunks)
    spec = next(s for s in doc.sections if s.anchor == "specs")
    assert "b2#specs" in covered_passages(doc, spec.body_start, spec.end)
    # 5 characters of a passage at the end of a span that is mostly another passage don't count
    assert "b2#specs" not in covered_passages(doc, spec.body_start - 100, spec.body_start + 5)


def test_chunk_documents_over_a_kb_and_unknown_method(tmp_path):
    docs = load_documents(write_kb(tmp_path))
    chunks = chunk_documents(docs)
    assert {c.lang for c in chunks} == {"en", "zh"} and len({c.id for c in chunks}) == len(chunks)
    zh = [c for c in chunks if c.lang == "zh"]
    assert any("P-01 表示干转" in c.text for c in zh)
    with pytest.raises(ValueError, match="structure"):
        chunk_documents(docs, "semantic")


def test_chinese_document_chunks(tmp_path):
    doc = parse_document("b2-zh", ZH_PUMP, lang="zh")
    chunks = structure_chunks(doc, max_chars=20, overlap=0)
    assert all(len(c.text) <= 20 for c in chunks)
    assert any(c.text.endswith("！") for c in chunks) and any(c.text.endswith("。") for c in chunks)


paragraph = st.text(alphabet="ab .。！\n", min_size=1, max_size=80)


@settings(max_examples=60, deadline=None)
@given(paras=st.lists(paragraph, min_size=1, max_size=6), size=st.integers(20, 120), overlap=st.integers(0, 19))
def test_structure_chunks_cover_every_non_blank_character(paras, size, overlap):
    doc = parse_document("p", "# P\n\n## S {#s}\n\n" + "\n\n".join(paras) + "\n")
    chunks = structure_chunks(doc, size, overlap)
    covered = set()
    for c in chunks:
        assert 0 < len(c.text) <= size and c.text == doc.text[c.start:c.end]
        covered.update(range(c.start, c.end))
    body = doc.sections[-1]
    missing = [i for i in range(body.body_start, body.end) if not doc.text[i].isspace() and i not in covered]
    assert not missing
