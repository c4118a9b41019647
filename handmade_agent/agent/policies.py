"""Answer policies: code from outside the loop that may rewrite a final answer before the run records it.

The loop knows no course data. A lesson that wants more of an answer (the bilingual RAG lesson of chapter 06
wants it in the question's language) writes a policy, a callable ``policy(context, answer) -> answer``, and
passes it: ``Agent(llm, tools, answer_policies=[policy])``. The agent runs its policies in order on each final
answer; the reply keeps what the model wrote. ``context`` is an ``AnswerContext``: the run's question, ids,
whether replies are constrained, and ``ask``, the one observed, retried model call (``model_call.complete``)
of this step, so a policy's model calls show in every trace like the agent's own, and none starts once the
run's time budget is over. A policy that returns None keeps the answer.

Deliberately left out: policies on tool calls or observations (the registry's approval hook guards calls),
and catching a policy's own exceptions (a bug in it is a bug, not something a model did).

    >>> shout = lambda context, answer: answer.upper()
    >>> apply_policies([shout], AnswerContext("q?", "run-1", 1, False, lambda *a, **k: None), "four")
    'FOUR'
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from ..errors import ConfigError
from ..llm import Completion


@dataclass
class AnswerContext:
    """What a policy may use. ``ask(messages, purpose=..., grammar=None, **kw)`` returns a Completion, or None
    when the backend failed (after the agent's retries) or the run's time budget is over."""
    question: str
    run_id: str
    step: int
    constrained: bool                     # the backend decodes under a grammar if ``ask`` is given one
    ask: Callable[..., Completion | None]
    results: tuple[str, ...] = ()         # the text of each result the run's tools returned, in order


AnswerPolicy = Callable[[AnswerContext, str], "str | None"]


def apply_policies(policies: Iterable[AnswerPolicy], context: AnswerContext, answer: str) -> str:
    """``answer`` after each policy in turn (a policy returning None keeps what it was given)."""
    for policy in policies:
        out = policy(context, answer)
        if out is not None and not isinstance(out, str):
            raise ConfigError(f"the answer policy {getattr(policy, '__name__', policy)!r} returned a "
                              f"{type(out).__name__}; a policy returns the answer as text (or None to keep it).")
        answer = answer if out is None else out
    return answer
