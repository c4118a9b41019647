"""The tools a task is asked with: the toolbox on the suite's clock, or the knowledge base search.

``TaskTools()("toolbox")`` is ``default_registry(today=SUITE_TODAY)``; ``("kb")`` is the
``knowledge_search`` tool over the product documents of ``data/kb`` with the default retriever
(``rag.knowledge_retriever``: USE multilingual + BM25), the same one ``benchmarks/kb_tasks.py``
uses; ``("both")`` is the two together (chapter 11's two-domain tasks); ``("none")`` is the toolbox too, because a question that needs no tool measures restraint
only when tools are on offer. Each set is built once, on first use: the retriever embeds the
manual (seconds the first time, then read from the embedding cache), so a run without kb tasks
never loads it.

Deliberately left out: tools per task (every toolbox task gets the whole toolbox).

    >>> TaskTools()("none").names()[:2]
    ['calculator', 'current_date']
"""
from __future__ import annotations

from pathlib import Path
from ..errors import ConfigError
from ..tools import ToolRegistry
from .tasks import SUITE_TODAY, TOOLSETS

KB_DIR = Path(__file__).resolve().parents[2] / "data" / "kb"


class TaskTools:
    """Builds each toolset once, when a task first needs it; ``kb_dir`` holds the manual, ``cache_dir`` the
    embeddings (None: the user's cache, shared with notebook 06)."""

    def __init__(self, kb_dir: str | Path = KB_DIR, cache_dir: str | Path | None = None):
        self.kb_dir, self.cache_dir = Path(kb_dir), cache_dir
        self._built: dict[str, ToolRegistry] = {}

    def __call__(self, toolset: str) -> ToolRegistry:
        if toolset not in TOOLSETS:
            raise ConfigError(f"Unknown toolset {toolset!r}; a task's tools must be one of {list(TOOLSETS)}.")
        key = toolset if toolset in ("kb", "both") else "toolbox"
        if key not in self._built:
            self._built[key] = {"kb": self._knowledge, "both": self._both}.get(key, self._toolbox)()
        tools = self._built[key]
        for t in tools:  # the search tool keeps every hit it showed; one task's hits are not the next one's
            getattr(t.fn, "retrieved", []).clear()
        return tools

    def _toolbox(self) -> ToolRegistry:
        from ..toolbox import default_registry
        return default_registry(today=SUITE_TODAY)

    def _knowledge(self) -> ToolRegistry:
        from ..rag import knowledge_retriever, knowledge_search_tool, load_documents
        # the agent-* notes explain this course, not the product: benchmarks/kb_tasks.py leaves them out too
        docs = [d for d in load_documents(self.kb_dir) if not d.doc_id.startswith(("agent-", "zh-agent-"))]
        return ToolRegistry([knowledge_search_tool(knowledge_retriever(docs, cache_dir=self.cache_dir), k=3)])

    def _both(self) -> ToolRegistry:  # chapter 11's two-domain tasks: the toolbox and the manual
        return ToolRegistry([*self("toolbox"), *self("kb")])

    def built(self) -> list[str]:
        """Which toolsets exist so far (``kb`` only once a kb task ran)."""
        return sorted(self._built)

