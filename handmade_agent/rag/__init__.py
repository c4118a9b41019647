"""Retrieval-augmented generation, built from parts (notebook 06).

documents → chunking → embedding (+ cache) → index / BM25 → retriever (hybrid,
rerank) → evaluation, and context injection plus a ``knowledge_search`` tool for
the agent, and ``translate_answer``, the answer policy that keeps a bilingual agent's answer in the
question's language (``answer_language.py``). numpy is imported here; torch and sentence-transformers load only
when a real embedding model or cross-encoder is first used.

    >>> from handmade_agent.rag import terms
    >>> terms("故障")
    ['故障']
"""
from .answer_language import answer_script, han_share, keeps_facts, needs_translation, translate_answer
from .bm25 import BM25
from .cache import CachedEmbedder, EmbeddingCache, default_cache_dir
from .chunking import Chunk, chunk_documents, fixed_chunks, split_sentences, structure_chunks
from .context import attribute, check_citations, citations, cite, format_passages, rag_messages
from .crosslingual import CrossLingual
from .documents import Document, EvalItem, load_documents, load_eval, parse_document
from .embedding import HashingEmbedder, SentenceTransformerEmbedder, default_model_path
from .multilingual import USEEmbedder
from .evaluation import EvalReport, evaluate, evaluate_retriever, ndcg_at_k, recall_at_k, reciprocal_rank, table
from .focus import best_lines, lines_of, named_columns
from .fusion import blend, rrf
from .index import VectorIndex, top_k
from .support import Support, check_support
from .rerank import CrossEncoderReranker, LLMJudgeReranker, Reranker, YesProbabilityReranker
from .retriever import METHODS, Hit, Retriever
from .terms import is_cjk, terms
from .tool import (DEFAULT_ALPHA, DEFAULT_HUBNESS, KB_HINT, SEARCH_EXAMPLE, knowledge_retriever, knowledge_search_tool,
                   merged_search)

__all__ = [
    "Document", "EvalItem", "load_documents", "load_eval", "parse_document",
    "Chunk", "structure_chunks", "fixed_chunks", "chunk_documents", "split_sentences",
    "HashingEmbedder", "SentenceTransformerEmbedder", "USEEmbedder", "default_model_path",
    "CachedEmbedder", "EmbeddingCache", "default_cache_dir",
    "VectorIndex", "top_k", "BM25", "terms", "is_cjk", "rrf", "blend",
    "Hit", "Retriever", "METHODS", "Reranker", "CrossEncoderReranker", "LLMJudgeReranker", "YesProbabilityReranker",
    "evaluate", "evaluate_retriever", "table", "EvalReport", "recall_at_k", "reciprocal_rank", "ndcg_at_k",
    "format_passages", "rag_messages", "check_support", "Support", "citations", "check_citations", "attribute", "cite", "knowledge_search_tool", "knowledge_retriever", "DEFAULT_ALPHA",
    "DEFAULT_HUBNESS", "CrossLingual", "best_lines", "lines_of", "named_columns", "merged_search",
    "KB_HINT", "SEARCH_EXAMPLE", "translate_answer", "answer_script", "needs_translation", "han_share", "keeps_facts",
]
