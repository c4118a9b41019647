"""What happens to a final answer before the run records it: checks that send it back, policies that rewrite it.

The loop knows no course data. Code from outside plugs in two kinds of callable, both ``f(context, answer)``:

- a **check** (``Agent(checks=[...])``) returns None when the answer may stand, or a message that says what is
  wrong with it. The loop then sends the answer back: the message is the model's next observation, and the model
  may call tools again or answer again (the way smolagents' final-answer checks and mini-swe-agent's exceptions
  that carry feedback work). Each check sends back at most once a run; after that its verdict no longer holds the
  answer, so a model that cannot repair never loops. On the run's last step no check is asked: a send-back there
  would end the run with no answer at all. Checks are asked in order and the first objection wins.
- a **policy** (``Agent(answer_policies=[...])``) returns the answer rewritten (or None to keep it): chapter 06's
  ``translate_answer`` is one. Policies run in order once every check passed or was spent.

``context`` is an ``AnswerContext``: the run's question, what its tools returned and which calls failed, and
``ask``, the one observed, retried model call (``model_call.complete``) of this step, so a policy's model calls
show in every trace like the agent's own, and none starts once the run's time budget is over.

Deliberately left out: checks on tool calls or observations (the registry's approval hook guards calls), and
catching a check's or policy's own exceptions (a bug in one is a bug, not something a model did).

    >>> shout = lambda context, answer: answer.upper()
    >>> apply_policies([shout], AnswerContext("q?", "run-1", 1, False, lambda *a, **k: None), "four")
    'FOUR'
    >>> no_digits = lambda context, answer: "Say it in words." if any(c.isdigit() for c in answer) else None
    >>> first_objection([no_digits], AnswerContext("q?", "run-1", 1, False, lambda *a, **k: None), "4", spent=())
    ('<lambda>', 'Say it in words.')
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Collection, Iterable

from ..errors import ConfigError
from ..llm import Completion


@dataclass
class AnswerContext:
    """What a check or policy may use. ``ask(messages, purpose=..., grammar=None, **kw)`` returns a Completion, or
    None when the backend failed (after the agent's retries) or the run's time budget is over."""
    question: str
    run_id: str
    step: int
    constrained: bool                     # the backend decodes under a grammar if ``ask`` is given one
    ask: Callable[..., Completion | None]
    results: tuple[str, ...] = ()         # the text of each result the run's tools returned, in order
    errors: tuple[str, ...] = ()          # the text of each failed tool call of the run
    failed_tools: tuple[str, ...] = ()    # the names of the tools whose calls failed
    inputs: tuple[str, ...] = ()          # the input of each call that returned a result, as JSON text
    tools: tuple[str, ...] = ()           # the names of the tools the run was offered


AnswerPolicy = Callable[[AnswerContext, str], "str | None"]
AnswerCheck = Callable[[AnswerContext, str], "str | None"]


def name_of(f: Callable) -> str:
    """The name a check is known by in a run's steps ("figures_found")."""
    return getattr(f, "__name__", type(f).__name__)


def first_objection(checks: Iterable[AnswerCheck], context: AnswerContext, answer: str,
                    spent: Collection[str]) -> tuple[str, str] | None:
    """(check name, message) of the first check not yet ``spent`` that objects to ``answer``, or None."""
    for check in checks:
        if name_of(check) in spent:
            continue
        message = check(context, answer)
        if message is not None and not isinstance(message, str):
            raise ConfigError(f"the answer check {name_of(check)!r} returned a {type(message).__name__}; a check "
                              "returns None (the answer stands) or a message for the model.")
        if message:
            return name_of(check), message
    return None


def apply_policies(policies: Iterable[AnswerPolicy], context: AnswerContext, answer: str) -> str:
    """``answer`` after each policy in turn (a policy returning None keeps what it was given)."""
    for policy in policies:
        out = policy(context, answer)
        if out is not None and not isinstance(out, str):
            raise ConfigError(f"the answer policy {name_of(policy)!r} returned a "
                              f"{type(out).__name__}; a policy returns the answer as text (or None to keep it).")
        answer = answer if out is None else out
    return answer
