"""Terms, BM25 (checked against rank_bm25 on the same corpus), the vector index and fusion."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from handmade_agent.rag import BM25
from handmade_agent.rag import chunk_documents
from handmade_agent.rag import load_documents
from handmade_agent.rag.fusion import blend, minmax, rrf
from handmade_agent.rag.index import VectorIndex, full_sort_top_k, matches, top_k
from handmade_agent.rag.terms import bigrams, is_cjk, terms
from test_rag_data import DATA, write_kb


def test_terms_english_words_codes_and_stopwords():
    assert terms("What is the E-07 fault?") == ["e-07", "e", "07", "fault"]
    assert terms("Pump_01 runs") == ["pump", "01", "runs"]  # underscore separates words


def test_terms_chinese_bigrams_and_mixed_text():
    assert bigrams("水泵") == ["水泵"] and bigrams("泵") == ["泵"]
    assert terms("水泵过热，E-04") == ["水泵", "泵过", "过热", "e-04", "e", "04"]
    assert terms("B2型水泵") == ["b2", "型水", "水泵"]
    assert is_cjk("B2型") and not is_cjk("B2")


def _corpus(tmp_path):
    kb = DATA / "kb" if any((DATA / "kb").glob("*/*.md")) else write_kb(tmp_path)
    chunks = chunk_documents(load_documents(kb))
    return [terms(c.search_text) for c in chunks]


QUERIES = ["dry run fault", "How long is the cable?", "水泵 故障", "电机过热", "firmware update battery",
           "E-07 fault code", "清洁 滤网", "opening hours Friday", "nothing-matches-this"]


def test_okapi_variant_matches_rank_bm25_number_for_number(tmp_path):
    docs = _corpus(tmp_path)
    ours, ref = BM25(docs, idf="okapi"), BM25Okapi(docs)
    for q in QUERIES:
        np.testing.assert_allclose(ours.scores(terms(q)), ref.get_scores(terms(q)), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("k1,b", [(1.2, 0.75), (2.0, 0.3), (1.5, 1.0)])
def test_okapi_variant_matches_rank_bm25_for_other_parameters(tmp_path, k1, b):
    docs = _corpus(tmp_path)
    ours, ref = BM25(docs, k1=k1, b=b, idf="okapi"), BM25Okapi(docs, k1=k1, b=b)
    for q in QUERIES[:4]:
        np.testing.assert_allclose(ours.scores(terms(q)), ref.get_scores(terms(q)), rtol=1e-9)


def test_lucene_idf_is_never_negative_and_rare_terms_weigh_more():
    docs = [["pump", "water"], ["pump", "fan"], ["pump", "valve"]]
    bm = BM25(docs)
    assert bm.idf["pump"] > 0 and bm.idf["fan"] > bm.idf["pump"]
    assert math.isclose(bm.idf["fan"], math.log(1 + (3 - 1 + 0.5) / 1.5))
    # okapi raises negative idf to epsilon * mean idf, which on a tiny corpus is itself negative
    assert math.isclose(BM25(docs, idf="okapi").idf["pump"], BM25Okapi(docs).idf["pump"])


def test_bm25_tf_saturates_and_long_documents_are_discounted():
    bm = BM25([["fan"], ["fan", "fan"], ["fan"] * 20, ["fan", "x", "y", "z", "w", "v"], ["other"]])
    s = bm.scores(["fan"])
    assert s[1] > s[0] and s[2] - s[1] < (bm.k1 + 1) * bm.idf["fan"]  # never beyond idf * (k1 + 1)
    assert s[0] > s[3] and s[4] == 0


def test_bm25_search_returns_only_positive_and_respects_mask():
    bm = BM25([["red", "pump"], ["blue", "pump"], ["green", "fan"]])
    assert [i for i, _ in bm.search(["pump"], k=5)] == [0, 1]
    assert [i for i, _ in bm.search(["pump"], k=5, mask=np.array([False, True, True]))] == [1]
    assert bm.matched(["pump", "red", "pump", "x"], ["red", "pump"]) == ["pump", "red"]
    with pytest.raises(ValueError, match="lucene"):
        BM25([["a"]], idf="bm25+")


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=1, max_size=60), st.integers(1, 70))
def test_top_k_equals_full_sort(values, k):
    scores = np.array(values, dtype=np.float64)
    assert top_k(scores, k).tolist() == full_sort_top_k(scores, k).tolist()


def test_vector_index_search_filter_and_save_load(tmp_path):
    ix = VectorIndex(3, "toy")
    ix.add([[1, 0, 0], [0.9, 0.1, 0], [0, 1, 0], [0, 0, 5]],
           [{"id": "a", "lang": "en"}, {"id": "b", "lang": "zh"}, {"id": "c", "lang": "en"}, {"id": "d", "lang": "en"}])
    assert np.allclose(np.linalg.norm(ix.vectors, axis=1), 1.0)
    assert [m["id"] for m, _ in ix.search([1, 0, 0], k=2)] == ["a", "b"]
    assert [m["id"] for m, _ in ix.search([1, 0, 0], k=2, where={"lang": "zh"})] == ["b"]
    assert [m["id"] for m, _ in ix.search([1, 0, 0], k=9, where=lambda m: m["id"] in "cd")] == ["c", "d"]
    assert matches({"lang": "en"}, {"lang": ["en", "zh"]}) and not matches({"lang": "fr"}, {"lang": {"en"}})
    ix.save(tmp_path / "ix")
    back = VectorIndex.load(tmp_path / "ix")
    assert back.metas == ix.metas and back.model_id == "toy" and np.array_equal(back.vectors, ix.vectors)
    with pytest.raises(ValueError, match="metadata"):
        ix.add([[1, 0, 0]], [])


def test_rrf_rewards_agreement_and_blend_normalizes():
    fused = rrf([["a", "b", "c"], ["x", "b", "c"]], k=60)
    assert list(fused)[:2] == ["b", "c"]  # agreement beats one first place
    assert math.isclose(fused["b"], 2 / 62)
    assert minmax({"a": 3.0, "b": 3.0}) == {"a": 1.0, "b": 1.0}
    mixed = blend({"a": 0.9, "b": 0.1}, {"b": 30.0, "c": 10.0}, alpha=0.5)
    assert mixed == {"a": 0.5, "b": 0.5, "c": 0.0}
    assert list(blend({"a": 0.9, "b": 0.1}, {"b": 30.0, "c": 10.0}, alpha=0.8))[0] == "a"
