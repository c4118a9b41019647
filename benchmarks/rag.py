"""Retrieval benchmark: quality on the eval set, index build time, and search latency.

    python benchmarks/rag.py                       # everything (the LLM-judge rerank runs on a subset)
    python benchmarks/rag.py --rerank-per-lang 0   # skip the slow rerank
    python benchmarks/rag.py --json out.json       # also write the numbers

Quality: recall@5 and MRR per language (each question searches the chunks of its
own language) for dense (all-MiniLM-L6-v2), BM25 (words + Chinese bigrams), the
two fusions (RRF, blend = the default hybrid) and hybrid + LLM-judge rerank,
for structure-aware and fixed-size chunking. The rerank runs the local 0.5B
model once per passage, so it grades the top 5 of the first N questions per
language, and the table shows hybrid on that same subset next to it.

Latency: exact top-k over synthetic unit vectors (384 dims) at 1k/10k/100k rows,
``argpartition`` against a full ``argsort`` measured in the same run, as ratios.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from handmade_agent.rag.cache import CachedEmbedder  # noqa: E402
from handmade_agent.rag.chunking import chunk_documents  # noqa: E402
from handmade_agent.rag.documents import load_documents, load_eval  # noqa: E402
from handmade_agent.rag.embedding import SentenceTransformerEmbedder, normalize  # noqa: E402
from handmade_agent.rag.evaluation import evaluate_retriever, table  # noqa: E402
from handmade_agent.rag.index import full_sort_top_k, top_k  # noqa: E402
from handmade_agent.rag.retriever import Retriever  # noqa: E402

LANGS = ("en", "zh")


def quality(args, docs, items, embedder) -> tuple[dict, dict]:
    reports, builds = {}, {}
    for chunking in ("structure", "fixed"):
        chunks = chunk_documents(docs, chunking)
        embedder.reset_stats()
        t0 = time.perf_counter()
        r = Retriever(chunks, embedder)
        builds[chunking] = {"chunks": len(chunks), "seconds": time.perf_counter() - t0,
                            "embedded": embedder.misses, "from_cache": embedder.hits,
                            "bm25_seconds": r.timings["bm25"],
                            "passages_per_chunk": {lang: float(np.mean([len(c.passage_ids) for c in chunks
                                                                         if c.lang == lang])) for lang in LANGS}}
        for method, label in (("dense", "dense"), ("bm25", "BM25"), ("rrf", "hybrid (RRF)"),
                              ("blend", "hybrid (blend, default)")):
            reports[f"{chunking}: {label}"] = evaluate_retriever(r, items, method)
        if chunking == "structure" and args.rerank_per_lang > 0:
            from handmade_agent.local import LocalLLM
            from handmade_agent.rag import LLMJudgeReranker
            subset = [it for lang in LANGS for it in [i for i in items if i.lang == lang][: args.rerank_per_lang]]
            judge = LLMJudgeReranker(LocalLLM())
            r.reranker, r.rerank_top = judge, args.rerank_top
            n = len(subset)
            reports[f"{chunking}: hybrid, subset of {n}"] = evaluate_retriever(r, subset, "hybrid")
            t0 = time.perf_counter()
            reports[f"{chunking}: hybrid + LLM rerank, subset of {n}"] = evaluate_retriever(r, subset, "rerank")
            builds["rerank"] = {"questions": n, "calls": judge.calls, "unparsed": judge.unparsed,
                                "seconds": time.perf_counter() - t0,
                                "grades": {g: judge.grades.count(g) for g in sorted(set(judge.grades))}}
    return reports, builds


def embed_rate(docs, inner, n: int = 64) -> float:
    """Cold embedding throughput (chunks/s) on a sample, bypassing the cache."""
    texts = [c.search_text for c in chunk_documents(docs)[:n]]
    inner.embed(texts[:4])  # model load and warm-up are not throughput
    t0 = time.perf_counter()
    inner.embed(texts)
    return len(texts) / (time.perf_counter() - t0)


def _median_ms(fn, repeats: int) -> float:
    """Median wall time of ``fn()`` in ms: robust to the spikes a shared 2-core machine produces."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e3 * float(np.median(times))


def latency(sizes=(1_000, 10_000, 100_000), dim: int = 384, k: int = 5, queries: int = 30) -> list[dict]:
    rng = np.random.default_rng(0)
    rows = []
    for n in sizes:
        m = normalize(rng.standard_normal((n, dim)).astype(np.float32))
        qs = normalize(rng.standard_normal((queries, dim)).astype(np.float32))
        it = iter(range(10 ** 9))
        row = {"n": n}
        for key, pick in (("search_ms", top_k), ("sort_search_ms", full_sort_top_k)):
            row[key] = _median_ms(lambda: pick(m @ qs[next(it) % queries], k), queries)
        scores = m @ qs[0]
        row["select_ms"] = _median_ms(lambda: top_k(scores, k), queries)
        row["sort_select_ms"] = _median_ms(lambda: full_sort_top_k(scores, k), queries)
        assert top_k(scores, k).tolist() == full_sort_top_k(scores, k).tolist()
        rows.append(row)
    return rows


def verdict(reports: dict, chunking: str = "structure") -> list[str]:
    """Is hybrid at least as good as the better single method, per language? With per-question wins and losses."""
    lines = []
    for lang in LANGS:
        names = {"dense": "dense", "BM25": "BM25", "hybrid": "hybrid (blend, default)"}
        reps = {m: reports[f"{chunking}: {full}"] for m, full in names.items()}
        got = {m: r.mean(lang) for m, r in reps.items()}
        best = max(("dense", "BM25"), key=lambda m: (got[m]["recall@5"], got[m]["mrr"]))
        h, b = got["hybrid"], got[best]
        ok = h["recall@5"] >= b["recall@5"] - 1e-9 and h["mrr"] >= b["mrr"] - 1e-9
        rr_h = {r.qid: r.rr for r in reps["hybrid"].rows if r.lang == lang}
        rr_b = {r.qid: r.rr for r in reps[best].rows if r.lang == lang}
        up = sum(rr_h[q] > rr_b[q] for q in rr_h)
        down = sum(rr_h[q] < rr_b[q] for q in rr_h)
        lines.append(f"- {lang}: hybrid recall@5 {h['recall@5']:.3f} / MRR {h['mrr']:.3f} vs the better single "
                     f"method ({best}) {b['recall@5']:.3f} / {b['mrr']:.3f}: "
                     + ("at least as good" if ok else "not at least as good on every metric")
                     + f"; hybrid ranks the first relevant chunk higher on {up} questions, lower on {down}.")
    return lines


NOTE = """
Note. Hybrid = blend of min-max normalized dense and BM25 scores over the top 10 of each, alpha 0.5, the dense
weight multiplied by the embedder's coverage of the query (share of its tokens that are not [UNK]: about 1.0 for
English, 0.1-0.4 for Chinese with MiniLM). It matches or beats the better single method on recall@5 in both
languages. Where its MRR is slightly lower, the reason is structural: on questions where the better method
alone already ranks the answer first, fusing in a second, weaker opinion can only keep it first or demote it,
while the gains come on questions the better method ranks low. Equal-weight fusion (rows "RRF") shows what
happens without the coverage weight: Chinese falls far below BM25 alone, because half of every fused list is
MiniLM's noise on text it reads as [UNK]. The rerank rows change MRR only: the judge reorders the top 5, so the
same 5 chunks stay in the top 5 and recall@5 cannot move. Fixed-size chunks look strong in Chinese because 600
Chinese characters hold several short passages, and a chunk is credited for every passage it holds.
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kb", default=str(ROOT / "data" / "kb"))
    ap.add_argument("--eval", default=str(ROOT / "data" / "rag_eval.jsonl"))
    ap.add_argument("--rerank-per-lang", type=int, default=12, help="questions per language to LLM-rerank (0: skip)")
    ap.add_argument("--rerank-top", type=int, default=5)
    ap.add_argument("--json", help="also write all numbers to this file")
    args = ap.parse_args()

    docs, items = load_documents(args.kb), load_eval(args.eval)
    inner = SentenceTransformerEmbedder()
    embedder = CachedEmbedder(inner)
    counts = {lang: sum(i.lang == lang for i in items) for lang in LANGS}
    print(f"# RAG benchmark\n\n{len(docs)} documents, {len(items)} questions ({counts['en']} en, {counts['zh']} zh); "
          f"embedder {embedder.model_id}; k = 5\n")
    reports, builds = quality(args, docs, items, embedder)
    print("## Retrieval quality (each question searches its own language)\n")
    print(table(reports, LANGS))
    print("\n" + "\n".join(verdict(reports)))
    print(NOTE)
    if "rerank" in builds:
        b = builds["rerank"]
        print(f"LLM-judge rerank: {b['calls']} model calls for {b['questions']} questions in {b['seconds']:.0f} s "
              f"({b['unparsed']} unreadable grades); grades given: {b['grades']}.")

    rate = embed_rate(docs, inner)
    print("\n## Index build\n")
    print("| chunking | chunks | build (embed + BM25) | texts embedded / from cache | BM25 build | "
          "passages per chunk en / zh |")
    print("|---|---|---|---|---|---|")
    for chunking in ("structure", "fixed"):
        b = builds[chunking]
        ppc = b["passages_per_chunk"]
        print(f"| {chunking} | {b['chunks']} | {b['seconds']:.2f} s | {b['embedded']} / {b['from_cache']} | "
              f"{1e3 * b['bm25_seconds']:.0f} ms | {ppc['en']:.2f} / {ppc['zh']:.2f} |")
    n_struct = builds["structure"]["chunks"]
    print(f"\nCold embedding throughput: {rate:.1f} chunks/s, so an uncached structure-aware build embeds "
          f"{n_struct} chunks in about {n_struct / rate:.0f} s; with the cache, 0 s.")

    rows = latency()
    print("\n## Search latency (synthetic unit vectors, 384 dims, top 5; median of 30 queries)\n")
    print("| rows | matmul + argpartition | matmul + full sort | full sort / argpartition | "
          "selection only: full sort / argpartition |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['n']:,} | {r['search_ms']:.2f} ms | {r['sort_search_ms']:.2f} ms | "
              f"{r['sort_search_ms'] / r['search_ms']:.1f}x | {r['sort_select_ms'] / r['select_ms']:.1f}x |")
    print("\nThe matrix-vector product dominates at 100k rows; selecting the top 5 is where argpartition wins.\n"
          "On a shared 2-core machine OpenBLAS's threads can make the product itself slower at mid sizes\n"
          "(thread wake-ups); compare with OPENBLAS_NUM_THREADS=1.")
    if args.json:
        out = {"quality": {name: {lang: rep.mean(lang) for lang in LANGS} for name, rep in reports.items()},
               "build": builds, "embed_chunks_per_s": rate, "latency": rows}
        Path(args.json).write_text(json.dumps(out, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
