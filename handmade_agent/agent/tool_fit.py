"""Does an offered tool fit the question? The local model's own answer, read from its probabilities.

``ToolFit(model).score(question, tool)`` is how much the tool's name and description raises the probability of the
question: log P(question | "Tool: <name: description>\\nA question this tool answers:") minus
log P(question | "A question:"), summed over the question's tokens (pointwise mutual information). A tool that does
what is asked makes the question likelier; a tool that does not, less likely or no likelier.
``fitting_tools(question, tools, fit)`` keeps the tools scoring above a threshold (0: the tool makes the question
no likelier at all). Offered none, the agent answers without a tool: from what it knows, or by declining.

Measured (``benchmarks/tool_relevance.py --model``, the 1.5B, 2026-12-06): on tools the course never saw, each narrow
(``data/unfamiliar_tools.json``, 46 tool questions, 22 that no tool answers), the score separates the two kinds
almost perfectly (AUC 0.998). On the course's own toolbox it does not (AUC 0.72): a calculator's word problem does
not read like "an arithmetic expression". So this is an opt-in for a toolset of narrow tools (an MCP server's, a
learner's own), never the default; ``benchmarks/unfamiliar_tools.py --configs react+c+fit`` measures the agent with it.

It needs the weights on this machine: a second, small llama.cpp context of its own (512 tokens, logits at every
position), 2 forward passes per tool and one more per question, about 4 s per question of 5 tools on the 1.5B.

Deliberately left out: a threshold tuned per toolset, a served model (an OpenAI-compatible server gives no
log-probabilities of a prompt's own tokens), and asking the model in words ("does this tool fit? yes/no" said yes
to 45 of 45 calls, right and wrong: docs/benchmarks.md).

    >>> from handmade_agent.tools import tool
    >>> @tool
    ... def air_quality(city: str) -> str:
    ...     "Air quality index of a city."
    ...     return "AQI 42"
    >>> class Scores:  # stands in for ToolFit: the tool makes the question less likely
    ...     def scores(self, question, tools): return {"air_quality": -7.11}
    >>> fitting_tools("What is the capital of Australia?", [air_quality], Scores()).names()
    []
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from ..tools import Tool, ToolRegistry


class ToolFit:
    """The fit score of a tool for a question, by the local model's weights (loaded on first use)."""

    def __init__(self, model_path: str | Path | None = None, *, n_ctx: int = 512, n_threads: int = 2):
        self.model_path, self.n_ctx, self.n_threads = model_path, n_ctx, n_threads
        self._llama: Any = None

    def _model(self) -> Any:
        if self._llama is None:
            from llama_cpp import Llama

            from .files import find_model
            path = self.model_path or find_model(fetch=False)
            # logits at every position are what a prompt's own probability needs: a small context of its own
            self._llama = Llama(str(path), n_ctx=self.n_ctx, n_batch=256, n_threads=self.n_threads,
                                logits_all=True, verbose=False)
        return self._llama

    def logprob(self, prefix: str, text: str) -> float:
        """log P(text | prefix), summed over the tokens of ``text``."""
        import numpy as np
        llama = self._model()
        head = llama.tokenize(prefix.encode(), add_bos=False)
        tokens = llama.tokenize(f"{prefix} {text}".encode(), add_bos=False)[:self.n_ctx]
        llama.reset()
        llama.eval(tokens)
        rows = np.asarray(llama.scores[len(head) - 1:len(tokens) - 1], dtype=np.float64)
        top = rows.max(axis=1, keepdims=True)
        logz = top[:, 0] + np.log(np.exp(rows - top).sum(axis=1))
        return float((rows[np.arange(len(rows)), tokens[len(head):]] - logz).sum())

    def scores(self, question: str, tools: Iterable[Tool]) -> dict[str, float]:
        """Each tool's fit score for ``question``, by name."""
        alone = self.logprob("A question:", question)
        return {t.name: self.logprob(f"Tool: {t.name.replace('_', ' ')}: {t.description or ''}\n"
                                     "A question this tool answers:", question) - alone for t in tools}


def fitting_tools(question: str, tools: Iterable[Tool], fit: Any, threshold: float = 0.0) -> ToolRegistry:
    """A registry of the ``tools`` whose fit score for ``question`` (``fit.scores``) is above ``threshold``."""
    kept = {"approve": getattr(tools, "approve", None), "max_chars": getattr(tools, "max_chars", 2000)}  # a registry's
    tools = list(tools)
    scored = fit.scores(question, tools)
    return ToolRegistry([t for t in tools if scored[t.name] > threshold], **kept)
