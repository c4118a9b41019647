"""Retriever methods, per-stage scores, filters, rerankers, evaluation metrics."""
from __future__ import annotations

import math

import pytest

from handmade_agent.errors import LLMError, ModelNotFound
from handmade_agent.llm import ScriptedLLM
from handmade_agent.rag import Chunk, chunk_documents
from handmade_agent.rag import EvalItem, load_documents
from handmade_agent.rag import HashingEmbedder
from handmade_agent.rag import evaluate, ndcg_at_k, recall_at_k, reciprocal_rank
from handmade_agent.rag import CrossEncoderReranker, LLMJudgeReranker
from handmade_agent.rag import METHODS, Retriever
from test_rag_data import write_kb


@pytest.fixture
def chunks(tmp_path):
    return chunk_documents(load_documents(write_kb(tmp_path)))


@pytest.fixture
def retriever(chunks):
    return Retriever(chunks, HashingEmbedder(256))


@pytest.mark.parametrize("method", ["dense", "bm25", "rrf", "blend", "hybrid"])
def test_every_method_finds_the_fault_passage(retriever, method):
    hits = retriever.search("dry run fault P-01", k=3, method=method)
    assert len(hits) == 3 and hits[0].method == ("blend" if method == "hybrid" else method)
    assert any(h.chunk.passage_id == "b2-pump#dry-run" for h in hits[:2])
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_hits_carry_the_score_and_rank_of_every_stage(retriever):
    hits = retriever.search("motor overheated", k=4, method="rrf")
    for h in hits:
        assert set(h.scores) == {"dense", "bm25", "rrf"} and set(h.ranks) == {"dense", "bm25", "rrf"}
        assert -1.0 <= h.scores["dense"] <= 1.0 + 1e-6
    top = hits[0]
    assert math.isclose(top.score, top.scores["rrf"])
    r_dense, r_bm25 = top.ranks["dense"], top.ranks["bm25"]
    assert math.isclose(top.score, 1 / (60 + r_dense) + 1 / (60 + r_bm25))  # RRF, recomputed from the ranks
    assert "motor" in top.matched and "overheated" in top.matched
    bm = retriever.search("motor overheated", k=1, method="bm25")[0]
    assert bm.ranks["bm25"] == 1 and "dense" in bm.scores  # bm25 hits still show their dense score


def test_where_filter_restricts_every_method(retriever):
    for method in ("dense", "bm25", "rrf", "blend"):
        hits = retriever.search("水泵 故障", k=5, method=method, where={"lang": "zh"})
        assert hits and all(h.chunk.lang == "zh" for h in hits)
    assert retriever.search("水泵", k=5, method="bm25", where={"doc_id": "office"}) == []


def test_chinese_bigrams_let_bm25_find_chinese_text(retriever):
    hit = retriever.search("电机过热是什么故障", k=1, method="bm25")[0]
    assert hit.chunk.passage_id == "b2-pump-zh#faults" and "过热" in hit.matched


def test_bm25_only_retriever_and_bad_arguments(chunks):
    r = Retriever(chunks)
    assert r.search("parking bay", k=1, method="bm25")[0].chunk.passage_id == "office#parking"
    assert "dense" not in r.search("parking bay", k=1, method="bm25")[0].scores
    with pytest.raises(ValueError, match="embedder"):
        r.search("parking", method="hybrid")
    with pytest.raises(ValueError, match="one of"):
        r.search("parking", method="magic")
    with pytest.raises(ValueError, match="reranker"):
        Retriever(chunks, HashingEmbedder(32)).search("parking", method="rerank")
    with pytest.raises(ValueError, match="twice"):
        Retriever([Chunk("a:1", "a", "x"), Chunk("a:1", "a", "y")])
    assert set(METHODS) == {"dense", "bm25", "rrf", "blend", "hybrid", "rerank"}
    with pytest.raises(ValueError, match="fusion"):
        Retriever(chunks, fusion="max")


def test_llm_judge_rerank_reorders_the_top_and_keeps_ties_in_order(chunks):
    judge = LLMJudgeReranker(ScriptedLLM(["1", "3", "garbage", "3"]))
    r = Retriever(chunks, HashingEmbedder(256), reranker=judge, rerank_top=4)
    before = [h.id for h in r.search("pump fault", k=6, method="hybrid")]
    hits = r.search("pump fault", k=6, method="rerank")
    assert [h.id for h in hits[:4]] == [before[1], before[3], before[0], before[2]]  # 3, 3 (tie: old order), 1, 0
    assert [h.id for h in hits[4:]] == before[4:]
    assert [h.scores["rerank"] for h in hits[:4]] == [3.0, 3.0, 1.0, 0.0]
    assert all({"dense", "bm25", "blend", "rerank"} <= set(h.scores) for h in hits[:4])
    assert judge.calls == 4 and judge.unparsed == 1 and judge.grades == [1.0, 3.0, 0.0, 3.0]
    sent = judge.llm.calls[0]["messages"]
    assert [m.role for m in sent] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert sent[-1].content.startswith("Question: pump fault") and sent[-1].content.endswith("Grade (0-3):")
    assert judge.llm.calls[1]["messages"][:-1] == sent[:-1]  # the same prefix every call


class PartialEmbedder(HashingEmbedder):
    """Claims to know only half of every query's tokens, like MiniLM on Chinese text."""

    def coverage(self, text):
        return 0.5


def test_fusion_trusts_dense_by_the_embedders_coverage(chunks):
    half = Retriever(chunks, PartialEmbedder(256), fusion="rrf")
    assert half.dense_trust("anything") == 0.5 and Retriever(chunks).dense_trust("x") == 1.0
    top = half.search("motor overheated", k=1, method="hybrid")[0]
    expected = 0.5 / (60 + top.ranks["dense"]) + 1 / (60 + top.ranks["bm25"])
    assert top.method == "rrf" and math.isclose(top.score, expected)
    plain = Retriever(chunks, PartialEmbedder(256), fusion="rrf", adaptive=False)
    assert plain.dense_trust("anything") == 1.0
    # alpha 1.0 scaled by trust 0.5 is the same blend as alpha 0.5 without adaptation
    adapted = Retriever(chunks, PartialEmbedder(256), alpha=1.0).search("motor overheated", k=5, method="blend")
    fixed = Retriever(chunks, PartialEmbedder(256), alpha=0.5, adaptive=False).search("motor overheated", k=5,
                                                                                    method="blend")
    assert [(h.id, round(h.score, 9)) for h in adapted] == [(h.id, round(h.score, 9)) for h in fixed]
    only_dense = Retriever(chunks, PartialEmbedder(256), alpha=1.0, adaptive=False)
    assert [h.id for h in only_dense.search("motor overheated", k=5, method="blend")] == \
        [h.id for h in only_dense.search("motor overheated", k=5, method="dense")]


def test_llm_judge_survives_a_failing_model():
    judge = LLMJudgeReranker(ScriptedLLM([LLMError("server down"), LLMError("still down"), "2"]))  # 1 retry
    assert judge.score("q", ["a", "b"]) == [0.0, 2.0] and judge.unparsed == 1


def test_cross_encoder_without_a_model_is_a_clear_error(tmp_path):
    pytest.importorskip("sentence_transformers")
    missing = tmp_path / "no-cross-encoder"
    missing.mkdir()
    with pytest.raises(ModelNotFound, match="No cross-encoder ships"):
        CrossEncoderReranker(missing).score("q", ["passage"])
    assert CrossEncoderReranker(missing).score("q", []) == []


def test_metrics_by_hand():
    ranked = [["x"], ["a#1", "a#2"], ["y"], ["b#1"]]
    rel = {"a#2", "b#1", "c#9"}
    assert recall_at_k(ranked, rel, 2) == pytest.approx(1 / 3)
    assert recall_at_k(ranked, rel, 4) == pytest.approx(2 / 3)
    assert reciprocal_rank(ranked, rel) == 0.5 and reciprocal_rank([["x"]], rel) == 0.0
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    ideal = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at_k(ranked, rel, 4) == pytest.approx(dcg / ideal)
    assert ndcg_at_k([["a"]], {"a"}, 5) == 1.0
    assert recall_at_k([["a"], ["a"]], {"a", "b"}, 2) == 0.5  # the same passage twice counts once


def test_evaluate_reports_by_language_and_kind(retriever):
    items = [EvalItem("en-1", "en", "When does the office close on Friday?", ["office#hours"], kind="lexical"),
             EvalItem("en-2", "en", "Where do guests leave their cars?", ["office#parking"], kind="paraphrase"),
             EvalItem("zh-1", "zh", "电机过热的故障代码", ["b2-pump-zh#faults"])]
    report = evaluate(lambda q: retriever.search(q, k=5, method="bm25"), items, k=5)
    assert [r.qid for r in report.rows] == ["en-1", "en-2", "zh-1"]
    assert report.rows[0].rr == 1.0 and report.rows[0].retrieved[0] == "office#hours:1"
    assert report.mean("zh")["n"] == 1 and report.mean("zh")["recall@5"] == 1.0
    en = report.mean("en")
    assert en["n"] == 2 and 0 <= en["mrr"] <= 1 and set(en) == {"n", "recall@5", "mrr", "ndcg@5"}
    assert {r.qid for r in report.misses()} <= {"en-2"}
    assert report.mean(kind="lexical")["n"] == 2
