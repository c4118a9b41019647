"""Does any offered tool fit the question? The local model's own answer, read from its probabilities.

``ToolFit(model).score(question, tools)`` gives each tool how much its name and description raise the probability
of the question: log P(question | "Tool: <name: description>\\nA question this tool answers:") minus
log P(question | "A question:"), summed over the question's tokens (pointwise mutual information). A tool that does
what is asked makes the question likelier; one that does not, less likely or no likelier.
``fit_gate(question, tools, fit)`` is the gate, as ``Agent`` keywords: every tool when the best scores above 0 (a tool
that makes the question no likelier does not fit), none when none does, and ``act_first`` when the best scores above
2, so the first reply must call a tool (which one, and with what, is still the model's choice). Offered none, the
agent can only answer: from what it knows, or by declining. It never offers a subset: offered the right tool alone,
the 1.5B refused questions it had answered with that tool among four others ("my tools give share prices, not
comparisons").

Measured (``benchmarks/unfamiliar_tools.py --configs react+c+fit,react+c``, the 1.5B, one run; docs/benchmarks.md):
on tools the course never saw, each narrow, right calls 34/46 → 44/46 and right refusals 12/22 → 21/22 at 1.6× the
seconds per question. The act-first half turned 10 answers given without the tool (a refusal, or "I turned on the
lights") into the right call; the no-tool half stopped 20 of the 22 questions no tool answers and no tool question.
The thresholds were read off that set's scores; the held-out set (``--split test``) is in docs/benchmarks.md. On the
course's own toolbox the score does not separate (AUC 0.72): a calculator's word problem does not read like "an
arithmetic expression", and a broad tool (a search, a calculator) does not resemble its questions. So this is an
opt-in for a toolset of narrow tools (an MCP server's, a learner's own), never the default.

It needs the weights on this machine: a second, small llama.cpp context of its own (512 tokens, logits at every
position), one forward pass per tool and one more per question.

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
    >>> fit_gate("What is the capital of Australia?", [air_quality], Scores())["tools"].names()
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

            from ..local import find_model
            path = self.model_path or find_model(fetch=False)
            # a prompt's own probability needs logits at every position: a small context of its own
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


def fit_gate(question: str, tools: Iterable[Tool], fit: Any, none_below: float = 0.0,
             act_above: float = 2.0) -> dict[str, Any]:
    """``Agent`` keywords for ``question``: ``tools``, all of them (in their order) when the best fit score is
    above ``none_below`` and none otherwise, and ``act_first`` when it is above ``act_above``."""
    keep = {"approve": getattr(tools, "approve", None), "max_chars": getattr(tools, "max_chars", 2000)}  # a registry's
    tools = list(tools)
    best = max(fit.scores(question, tools).values()) if tools else float("-inf")
    return {"tools": ToolRegistry(tools if best > none_below else [], **keep), "act_first": best > act_above}
