"""Rerankers: read the query and a passage *together* and score how well the passage answers it.

A bi-encoder (the embedder) compresses query and passage separately, so it
cannot notice that "E-07" in the query is exactly the row of the table. A
reranker sees both at once; it is too slow for the whole corpus, so it only
reorders the top few candidates of a cheaper first stage.

A reranker has ``name`` and ``score(query, texts) -> list[float]``. Two here:

- ``CrossEncoderReranker``: a ``sentence_transformers.CrossEncoder`` model, for
  users who have one (none ships in any package this course installs).
- ``LLMJudgeReranker``: asks a chat model (the local one) to grade each passage
  0–3 (after two worked examples) and parses the digit. Slow (one call per
  passage) and coarse (four grades; ties keep the first-stage order), but it
  runs offline. Measured: the 0.5B model grades almost every passage 3, so it
  is a teaching implementation; pass a stronger ``llm`` for real use.
- ``YesProbabilityReranker``: asks "does the passage answer the question?" and
  reads P("Yes") / (P("Yes") + P("No")) from the model's own next-token
  probabilities (``llm.next_token_logprobs``, one forward pass, no sampling): a
  continuous score, so the model cannot flatten every passage to one grade.
  Measured (benchmarks/rag.py, 10 questions, top 6 of the default hybrid
  reordered, 60 calls): scores spread from 0.25 to 0.82, MRR 0.758 -> 0.770,
  recall@5 0.80 -> 0.80 — a change too small to call a gain on 10 questions,
  at ~10 s per passage on 2 shared cores. So it is not the default: pass it
  as ``reranker`` and use ``method="rerank"`` where latency allows.

Deliberately left out: listwise LLM reranking, score calibration, batching calls.

    >>> from handmade_agent.llm import ScriptedLLM
    >>> LLMJudgeReranker(ScriptedLLM(["3", "grade: 1"])).score("q", ["a", "b"])
    [3.0, 1.0]
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Iterable, Protocol, Sequence, runtime_checkable

from ..agent import Observer, complete, emit
from ..errors import ModelNotFound


@runtime_checkable
class Reranker(Protocol):
    name: str

    def score(self, query: str, texts: Sequence[str]) -> list[float]: ...


class CrossEncoderReranker:
    """A sentence-transformers cross-encoder (model name or local directory), loaded on first use."""

    def __init__(self, model: str | os.PathLike, *, batch_size: int = 16, device: str = "cpu"):
        self.model_name, self.name = str(model), f"cross-encoder:{model}"
        self.batch_size, self.device = batch_size, device
        self._model = None

    def _load(self):
        if self._model is None:
            if Path(self.model_name).is_dir():
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
            from sentence_transformers import CrossEncoder  # heavy: torch loads here
            try:
                self._model = CrossEncoder(self.model_name, device=self.device)
            except Exception as e:  # missing files, bad repo id, no network: all mean "no model"
                raise ModelNotFound(
                    f"Cannot load cross-encoder {self.model_name!r} ({type(e).__name__}). No cross-encoder "
                    "ships with this course: download one where the Hugging Face Hub is reachable (e.g. "
                    "cross-encoder/ms-marco-MiniLM-L6-v2) and pass its directory, or use LLMJudgeReranker.") from e
        return self._model

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        scores = self._load().predict([(query, t) for t in texts], batch_size=self.batch_size,
                                      show_progress_bar=False)
        return [float(s) for s in scores]


JUDGE_SYSTEM = (
    "You grade search results. Given a question and a passage, reply with one digit:\n"
    "3 = the passage contains the answer to the question\n"
    "2 = the passage is about the same subject but does not give the answer\n"
    "1 = the passage is only loosely related\n"
    "0 = the passage is unrelated\n"
    "Reply with the digit only.")
# Two worked examples (an invented product, so they cannot leak into any answer). The prefix they
# form is identical in every call, so the local model evaluates it once and reuses its KV cache.
JUDGE_EXAMPLES = (
    ("How heavy is the Brookline B2 pump?", "Brookline B2 > Specifications\nThe pump weighs 4.2 kg.", "3"),
    ("How heavy is the Brookline B2 pump?", "Harbour office > Parking\nVisitors park in bay C.", "0"),
)
GRADE = re.compile(r"[0-3]")


class LLMJudgeReranker:
    """Grades each passage 0–3 with a chat model; an unreadable reply counts as 0 (and is counted)."""

    def __init__(self, llm, *, max_chars: int = 700, max_tokens: int = 3, system: str = JUDGE_SYSTEM,
                 examples: tuple = JUDGE_EXAMPLES, observers: Iterable[Observer] = (), retries: int = 1):
        self.llm, self.max_chars, self.max_tokens, self.system = llm, max_chars, max_tokens, system
        self.observers, self.retries = list(observers), retries  # judged like any model call: observed, retried
        self.examples = examples
        self.name = f"llm-judge:{getattr(llm, 'model', 'llm')}"
        self.calls = self.unparsed = 0
        self.grades: list[float] = []  # every grade given, in order (to see how discriminating the judge is)

    def messages(self, query: str, text: str) -> list[dict]:
        # shared prefix first (rules, examples, then the question), so consecutive prompts reuse the KV cache
        msgs = [{"role": "system", "content": self.system}]
        for q, passage, grade in self.examples:
            msgs += [{"role": "user", "content": self._ask(q, passage)}, {"role": "assistant", "content": grade}]
        return msgs + [{"role": "user", "content": self._ask(query, text[: self.max_chars])}]

    @staticmethod
    def _ask(query: str, text: str) -> str:
        return f"Question: {query}\n\nPassage:\n{text}\n\nGrade (0-3):"

    def grade(self, query: str, text: str) -> float:
        self.calls += 1
        c, _error = complete(self.llm, self.messages(query, text), retries=self.retries, purpose="rerank",
                             emit=lambda e: emit(self.observers, e), max_tokens=self.max_tokens, temperature=0.0)
        reply = c.text if c is not None else ""  # a failed call must not break the search: the passage ranks last
        m = GRADE.search(reply)
        if m is None:
            self.unparsed += 1
        self.grades.append(float(m.group()) if m else 0.0)
        return self.grades[-1]

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        return [self.grade(query, t) for t in texts]


YES_SYSTEM = ("You check search results. Given a question and a passage, answer Yes if the passage contains "
              "the answer to the question, otherwise No. Answer with one word: Yes or No.")
YES, NO = ("Yes", "yes", "YES"), ("No", "no", "NO")


class YesProbabilityReranker:
    """Scores each passage by the model's probability of answering "Yes" (0..1), after two worked examples.

    ``llm`` needs ``next_token_logprobs(messages, candidates)`` (``LocalLLM`` has it).
    """

    def __init__(self, llm, *, max_chars: int = 700, system: str = YES_SYSTEM, examples: tuple = JUDGE_EXAMPLES):
        if not callable(getattr(llm, "next_token_logprobs", None)):
            raise TypeError(f"{type(llm).__name__} has no next_token_logprobs(messages, candidates); "
                            "use LocalLLM, or LLMJudgeReranker for a chat-only model.")
        self.llm, self.max_chars, self.system, self.examples = llm, max_chars, system, examples
        self.name = f"yes-probability:{getattr(llm, 'model', 'llm')}"
        self.calls = 0
        self.scores: list[float] = []  # every score given, to see how much the judge discriminates

    def messages(self, query: str, text: str) -> list[dict]:
        msgs = [{"role": "system", "content": self.system}]
        for q, passage, grade in self.examples:  # grade 3 -> Yes, anything else -> No
            msgs += [{"role": "user", "content": self._ask(q, passage)},
                     {"role": "assistant", "content": "Yes" if grade == "3" else "No"}]
        return msgs + [{"role": "user", "content": self._ask(query, text[: self.max_chars])}]

    @staticmethod
    def _ask(query: str, text: str) -> str:
        return f"Question: {query}\n\nPassage:\n{text}\n\nDoes the passage answer the question?"

    def probability(self, query: str, text: str) -> float:
        import math
        self.calls += 1
        lp = self.llm.next_token_logprobs(self.messages(query, text), YES + NO)
        yes = sum(math.exp(lp[c]) for c in YES if c in lp)
        no = sum(math.exp(lp[c]) for c in NO if c in lp)
        self.scores.append(yes / (yes + no) if yes + no > 0 else 0.0)
        return self.scores[-1]

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        return [self.probability(query, t) for t in texts]
