"""``knowledge_search``: the retriever as a tool the agent can call.

The tool returns the top passages as text, each headed by its chunk id, and
tells the model to cite those ids and to answer in the language of the user's question. Every hit it returned is kept in
``tool.fn.retrieved``, so ``context.cite`` can check the final answer's citations. A failure (empty query, no match) comes back
as text saying what to try, never as an exception into the agent loop.

The tool brings its own worked example (``Tool.example``, ``SEARCH_EXAMPLE``: a search about an invented
pump, so it cannot leak facts into answers), which the ReAct prompt shows to an agent offered this tool.
Without it the small model answers product questions from imagination, and after a page of passages it
echoes them instead of answering; with it the 0.5B model searches on its own and then answers from the
passages with their ids. ``KB_HINT`` closes every observation exactly as it closes the example's.

``knowledge_retriever(docs)`` builds the retriever the agent uses by default, chosen
by benchmarks/rag.py: USE multilingual (the only embedder here that finds Chinese
answers and answers in the other language) in a blend with BM25 at dense weight
``DEFAULT_ALPHA`` = 0.7 (at 0.5, BM25's same-language words pushed cross-lingual
answers and English paraphrases out of the top 5), with the cross-lingual hubness
correction at ``DEFAULT_HUBNESS`` = 0.2 (``crosslingual``: an answer written only in
the other language is no longer crowded out by translations of same-language chunks).

The agent hands the tool the run's context (``tools.RunContext``), whose ``question`` is the user's own
words: a 0.5B model's query often names only the product and drops what was asked ("arm payload"), which finds overview
passages. The tool searches with both and fuses the two rankings by reciprocal rank (the question first
on a tie), so the asker's own words can bring up the row that holds the answer; each passage is then
cut to its best lines (``focus.best_lines``). On the 22 KB tasks the answer was in the top 3 for 14 with the
model's queries alone and 18 with both (benchmarks/kb_tasks.py, "seen").

Deliberately left out: letting the model pick the method or k (one knob fewer
for a small model to get wrong); both are fixed when the tool is made. Also tried and dropped, on the 22 KB
tasks: k = 4 (fact 15, language 20, supported 11 against 14, 21, 16 at k = 3) and searching with the question
translated by the model as well (fact 13, language 16: asked to translate a Chinese question, the 0.5B model
mostly answered it, even held by a grammar to end in a question mark; an English one it translated well).

    >>> from handmade_agent.rag.chunking import Chunk
    >>> from handmade_agent.rag.retriever import Retriever
    >>> t = knowledge_search_tool(Retriever([Chunk("a:1", "a", "The pump runs at 3 bar.")]), method="bm25")
    >>> t.fn(query="pump pressure").splitlines()[0]
    '[a:1]'
"""
from __future__ import annotations

from ..react import Call, Example
from ..tools import RunContext
from .context import format_passages
from .focus import best_lines

DEFAULT_ALPHA = 0.7
DEFAULT_CODE_WEIGHT = 0.5  # measured: same eval figures, and the agent's keyword queries ("E-17") find the code's row
# chosen on the even-numbered eval questions (0.1-0.3 score alike there), checked on the odd ones: benchmarks/rag.py
DEFAULT_HUBNESS = 0.2
# said in every observation, because a small model otherwise answers a Chinese question by quoting an English
# passage; it goes before the hint, so an observation still ends as the worked example's does
LANGUAGE_NOTE = ("Answer in the language of the user's question, even if the passages are in another language; "
                 "keep numbers, units and codes exact.")

# the closing line of every knowledge_search observation, and of the worked example's
KB_HINT = "Answer from these passages if they hold the answer, citing the id in square brackets."

SEARCH_EXAMPLE = Example(
    "What does warning W-99 mean on the Brookline B2 pump?",
    [Call("Plan: 1. search the knowledge base for W-99.", "knowledge_search", {"query": "warning W-99"},
          "[b2-manual#warnings:2]\nCode: W-99; Meaning: The sieve is clogged; What to do: Rinse the sieve under the tap\n\n"
          "[b2-manual#warnings:1]\nCode: W-98; Meaning: Water level low; What to do: Refill the tank\n\n"
          "[b2-manual:1]\nThe B2 shows warnings as a letter W and a number.\n\n"
          + KB_HINT)],
    "All 1 steps done. The passage [b2-manual#warnings:2] gives the meaning of W-99.",
    "W-99 means the sieve is clogged: rinse the sieve under the tap [b2-manual#warnings:2].", kept=True)

DESCRIPTION = ("Search the knowledge base (product manuals and company notes, English and Chinese) and "
               "return the most relevant passages, each with an id in square brackets. Cite those ids in "
               "your answer. Use it for any question about the product or the company.")


def knowledge_retriever(docs, embedder=None, *, alpha: float = DEFAULT_ALPHA, cache_dir=None,
                        code_weight: float = DEFAULT_CODE_WEIGHT, hubness: float = DEFAULT_HUBNESS, **kw):
    """A ``Retriever`` over the structure-aware chunks of ``docs`` with the default (cached USE) embedder."""
    from .cache import CachedEmbedder
    from .chunking import chunk_documents
    from .multilingual import USEEmbedder
    from .retriever import Retriever
    embedder = embedder if embedder is not None else CachedEmbedder(USEEmbedder(), cache_dir)
    return Retriever(chunk_documents(list(docs)), embedder, alpha=alpha, code_weight=code_weight, hubness=hubness,
                     **kw)


def merged_search(retriever, queries: list[str], k: int, **kw) -> list:
    """The k best hits of several searches, fused by reciprocal rank (earlier queries win ties)."""
    from .fusion import rrf
    found: dict = {}
    rankings = []
    for q in dict.fromkeys(q.strip() for q in queries if q and q.strip()):
        hits = retriever.search(q, k=k, **kw)
        rankings.append([h.id for h in hits])
        for h in hits:
            found.setdefault(h.id, h)
    return [found[i] for i in list(rrf(rankings))[:k]]


def knowledge_search_tool(retriever, k: int = 4, *, method: str = "hybrid", where=None,
                          name: str = "knowledge_search", max_chars: int = 600, hint: str | None = KB_HINT,
                          with_question: bool = True, focus_lines: int | None = 2, language_note: bool = True):
    """A ``Tool`` with one string parameter ``query`` that searches ``retriever`` (and the user's question,
    which the agent passes, unless ``with_question=False``), showing each passage's ``focus_lines`` best lines
    (``None``: whole passages)."""
    from ..tools import Tool

    def knowledge_search(query: str, run: RunContext | None = None) -> str:
        """Search the knowledge base; returns passages headed by their ids."""
        if not str(query).strip():
            return "The query was empty. Call knowledge_search again with a few keywords from the question."
        queries = [run.question if with_question and run is not None else "", str(query)]
        hits = merged_search(retriever, queries, k, method=method, where=where)
        knowledge_search.retrieved.extend(hits)  # whole chunks: citations are checked against all of it
        if not hits:
            shown = repr(str(query)[:80]) + ("..." if len(str(query)) > 80 else "")
            return (f"No passage matched {shown}: no passage found. Try other keywords (a fault code, a part name) "
                    "or answer that the knowledge base does not say.")
        # closing with what to do next keeps a small model from searching again and again
        texts = None
        if focus_lines:
            shown = best_lines(hits, queries, getattr(retriever, "embedder", None), keep=focus_lines)
            hits, texts = [h for h, _ in shown], [text for _, text in shown]
        note = f"\n\n{LANGUAGE_NOTE}" if language_note else "\n"
        return format_passages(hits, max_chars, texts, headings=not focus_lines) + note + (f"\n{hint}" if hint else "")

    knowledge_search.retrieved = []  # every hit shown to the model, so an answer's citations can be checked
    params = {"type": "object",
              "properties": {"query": {"type": "string", "description": "what to look for, in a few words"}},
              "required": ["query"]}
    # loading the embedding model on the first query can take seconds, hence the generous time-out
    # the worked example calls the tool by its default name; under another name it would teach a wrong call
    example = SEARCH_EXAMPLE if name == "knowledge_search" else None
    return Tool(name, DESCRIPTION, params, knowledge_search, timeout=60.0, context_arg="run", example=example,
                broad=True)
