"""Does any offered tool fit the question? The local model's own answer, read from its probabilities.

``ToolFit(model).scores(question, tools)`` gives each tool how much its name and description raise the probability
of the question: log P(question | "Tool: <name: description>\\nA question this tool answers:") minus
log P(question | "A question:"), summed over the question's tokens (pointwise mutual information). A tool that does
what is asked makes the question likelier; one that does not, less likely or no likelier.
``fit_gate(question, tools, fit)`` is the gate, as ``Agent`` keywords: every tool when the best scores above 0 (a tool
that makes the question no likelier does not fit), none when none does, and ``act_first`` when the best scores above
2, so the first reply must call a tool (which one, and with what, is still the model's choice). Offered none, the
agent can only answer: from what it knows, or by declining. It never offers a subset: offered the right tool alone,
the 1.5B refused questions it had answered with that tool among four others ("my tools give share prices, not
comparisons").

Measured (``benchmarks/unfamiliar_tools.py --configs react+c,react+c+nofit``, the 1.5B, one run; docs/benchmarks.md):
on tools the course never saw, each narrow, right calls 34/46 → 44/46 and right refusals 12/22 → 21/22 at 1.9× the
seconds per question. The act-first half turned 10 answers given without the tool (a refusal, or "I turned on the
lights") into the right call; the no-tool half stopped 20 of the 22 questions no tool answers and no tool question.
The thresholds were read off that set's scores; on the held-out set (``--split test``, 20 new tools) it gave 19/20 →
20/20 right calls and 6/10 → 9/10 right refusals. On the course's own toolbox the score does not separate (AUC 0.72):
a calculator's word problem does not read like "an arithmetic expression", and a broad tool (a search, a calculator,
another agent) does not resemble its questions. So ``Agent`` gates a run (``gate_for``) only where every offered tool
is narrow (``Tool.broad`` unset: an MCP server's tools, a learner's own) and the model's weights are on this machine;
``tool_fit=False`` turns it off, ``True`` gates any toolset.

It needs the weights here: a second, small llama.cpp context of its own (512 tokens, logits at every position), one
forward pass per tool and one more per question. Under a notebook's recording the scores are recorded like replies.

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

import time
import weakref
from pathlib import Path
from typing import Any, Iterable

from ..errors import ConfigError
from ..tools import Tool, ToolRegistry

_SCORERS: "weakref.WeakKeyDictionary[Any, ToolFit]" = weakref.WeakKeyDictionary()  # one per LocalLLM, made on use


class ToolFit:
    """The fit score of a tool for a question, by the local model's weights (loaded on first use)."""

    def __init__(self, model_path: str | Path | None = None, *, n_ctx: int = 512, n_threads: int = 2,
                 recording: Any = None, model_sha256: str = ""):
        self.model_path, self.n_ctx, self.n_threads = model_path, n_ctx, n_threads
        self.recording, self.model_sha256 = recording, model_sha256  # a notebook's recording (local/recording.py)
        self._llama: Any = None
        self.last: dict[str, float] = {}  # the last question's scores: what the gate saw

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
        heads = {t.name: f"Tool: {t.name.replace('_', ' ')}: {t.description or ''}\nA question this tool answers:"
                 for t in tools}
        if self.recording is None:
            self.last = self.measure(question, heads)["scores"]
            return self.last
        from ..local import call_key, engine_identity
        key = call_key(engine_identity(self.model_sha256, self.n_ctx), "fit", [], question=question, heads=heads)
        self.last = self.recording.through(key, lambda: self.measure(question, heads),
                                           {"call": "fit", "prompt": question, "heads": heads})["scores"]
        return self.last

    def measure(self, question: str, heads: dict[str, str]) -> dict:
        """{"scores": log P(question | head) - log P(question | "A question:") by name, "seconds": the time taken}."""
        t0 = time.perf_counter()
        alone = self.logprob("A question:", question)
        scores = {name: self.logprob(head, question) - alone for name, head in heads.items()}
        return {"scores": scores, "seconds": round(time.perf_counter() - t0, 3)}


def scorer_for(llm: Any) -> ToolFit | None:
    """The fit scorer on ``llm``'s own weights, or None where there are none on this machine (a server, a script)."""
    from ..local import LocalLLM
    if not isinstance(llm, LocalLLM):
        return None
    if llm not in _SCORERS:
        _SCORERS[llm] = ToolFit(llm.path, recording=llm.recording,  # the sha256 keys a recording; else unread
                                model_sha256=llm.model_sha256() if llm.recording else "")
    return _SCORERS[llm]


def gate_for(agent: Any, question: str) -> dict[str, Any]:
    """``fit_gate``'s keywords for ``agent``'s run of ``question``, or {} where the gate does not apply: its setting
    ``tool_fit`` is False, or None (the default) and a tool is broad or the model's weights are not here."""
    setting, tools = agent.config.tool_fit, list(agent.tools)
    if setting is False or not tools or (setting is None and any(t.broad for t in tools)):
        return {}
    if (scorer := scorer_for(agent.llm)) is None:
        if setting:
            raise ConfigError("tool_fit=True needs the model's weights on this machine (a LocalLLM): a server gives "
                              "no log-probabilities of the prompt. Use LocalLLM(), or leave tool_fit at None.")
        return {}
    return fit_gate(question, agent.tools, scorer)


def fit_gate(question: str, tools: Iterable[Tool], fit: Any, none_below: float = 0.0,
             act_above: float = 2.0) -> dict[str, Any]:
    """``Agent`` keywords for ``question``: ``tools``, all of them (in their order) when the best fit score is
    above ``none_below`` and none otherwise, and ``act_first`` when it is above ``act_above``."""
    keep = {"approve": getattr(tools, "approve", None), "max_chars": getattr(tools, "max_chars", 2000)}  # a registry's
    tools = list(tools)
    best = max(fit.scores(question, tools).values()) if tools else float("-inf")
    return {"tools": ToolRegistry(tools if best > none_below else [], **keep), "act_first": best > act_above}
