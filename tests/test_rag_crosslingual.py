"""The cross-lingual hubness correction: what it computes, when it acts, and that it leaves one language alone."""
from __future__ import annotations

import numpy as np
import pytest

from handmade_agent.rag import (DEFAULT_HUBNESS, Chunk, CrossLingual, HashingEmbedder, Retriever, chunk_documents,
                                knowledge_retriever, load_documents)
from handmade_agent.rag.crosslingual import hubness, query_language
from test_rag_data import write_kb

# Two English chunks, the Chinese translation of the first, and a Chinese chunk saying something only Chinese says.
TEXTS = {"pump pressure is 3 bar": [1, 0, 0], "the fan is quiet": [0, 1, 0],
         "水泵压力为 3 bar": [0.98, 0.2, 0], "中国大陆保修两年": [0.5, 0, 0.87],
         "pump warranty": [0.9, 0.1, 0.42]}  # the query: nearer the translation than the Chinese-only chunk


class FixedEmbedder:
    """Vectors chosen by hand, so the test knows every cosine."""
    model_id, dim = "fixed-3", 3

    def embed(self, texts):
        return np.array([TEXTS[t] for t in texts], dtype=np.float32)


def chunks():
    return [Chunk("en:1", "en", "pump pressure is 3 bar"), Chunk("en:2", "en", "the fan is quiet"),
            Chunk("zh:1", "zh", "水泵压力为 3 bar", lang="zh"), Chunk("zh:2", "zh", "中国大陆保修两年", lang="zh")]


def order(hits, lang):
    return [h.id for h in hits if h.chunk.lang == lang]


def test_a_chunk_with_a_translation_is_a_hub_and_the_average_chunk_scores_zero():
    v = np.array(list(TEXTS.values())[:4], dtype=np.float32)
    h = hubness(v, ["en", "en", "zh", "zh"], k=1)
    assert h["en"][2] > h["en"][3]                   # the translation sits closer to English than the new fact
    assert h["en"][:2].tolist() == [0, 0]            # English chunks are not corrected for English queries
    assert abs(h["en"][2:].mean()) < 1e-6 and abs(h["zh"][:2].mean()) < 1e-6  # centred: no language moves as a whole


def test_hubness_in_blocks_equals_hubness_at_once():
    rng = np.random.default_rng(0)
    v = rng.normal(size=(40, 8)).astype(np.float32)
    langs = ["en"] * 25 + ["zh"] * 15
    whole, blocks = hubness(v, langs, k=3), hubness(v, langs, k=3, block=4)
    assert all(np.allclose(whole[lang], blocks[lang]) for lang in ("en", "zh"))


def test_the_query_language_is_the_vocabulary_that_holds_most_of_its_terms():
    vocab = {"en": {"pump", "fault", "e-17"}, "zh": {"水泵", "故障", "e-17"}}
    assert query_language(["pump", "fault"], vocab) == "en"
    assert query_language(["水泵", "故障", "e-17"], vocab) == "zh"
    assert query_language(["e-17"], vocab) is None       # a bare code is in both: no correction
    assert query_language(["valve"], vocab) is None      # in neither


def test_the_correction_lets_the_chinese_only_fact_past_the_translation():
    plain = Retriever(chunks(), FixedEmbedder())
    corrected = Retriever(chunks(), FixedEmbedder(), hubness=0.5, hub_k=1)
    assert order(plain.search("pump warranty", k=4, method="dense"), "zh") == ["zh:1", "zh:2"]
    assert order(corrected.search("pump warranty", k=4, method="dense"), "zh") == ["zh:2", "zh:1"]
    # chunks in the query's own language keep their plain cosine
    both = [r.search("pump warranty", k=4, method="dense") for r in (plain, corrected)]
    assert [(h.id, h.scores["dense"]) for h in both[0] if h.chunk.lang == "en"] == \
           [(h.id, h.scores["dense"]) for h in both[1] if h.chunk.lang == "en"]


@pytest.mark.parametrize("method", ["dense", "blend", "rrf"])
def test_a_search_within_the_query_language_is_unchanged(tmp_path, method):
    cs = chunk_documents(load_documents(write_kb(tmp_path)))
    plain, corrected = Retriever(cs, HashingEmbedder(64)), Retriever(cs, HashingEmbedder(64), hubness=1.0)
    for query, lang in (("motor overheated", "en"), ("电机过热", "zh")):
        a = plain.search(query, k=5, method=method, where={"lang": lang})
        b = corrected.search(query, k=5, method=method, where={"lang": lang})
        assert [(h.id, round(h.score, 9)) for h in a] == [(h.id, round(h.score, 9)) for h in b]


def test_a_one_language_knowledge_base_has_nothing_to_correct():
    en = [c for c in chunks() if c.lang == "en"]
    cl = CrossLingual(FixedEmbedder().embed([c.text for c in en]), ["en", "en"], [["pump"], ["fan"]])
    assert cl.hub == {} and cl.language(["pump"]) is None
    assert np.array_equal(cl.adjust(np.array([0.3, 0.1]), ["pump"], 1.0), [0.3, 0.1])


def test_the_agent_retriever_uses_the_correction_and_rebuilds_it_when_k_changes(tmp_path):
    r = knowledge_retriever(load_documents(write_kb(tmp_path)), HashingEmbedder(64))
    assert r.hubness == DEFAULT_HUBNESS > 0
    first = r.crosslingual
    assert r.crosslingual is first and first.k == r.hub_k
    r.hub_k = 2
    assert r.crosslingual is not first and r.crosslingual.k == 2
