"""One model call for the agent, with retries and the events that describe each attempt.

A backend can fail for a moment (a server restarting, a time-out). ``complete``
tries ``1 + retries`` times when the backend raises ``LLMError`` and gives up
at once on any other exception (a bug fails the same way twice). It never
raises: it returns the completion, or None and the last error's text, so the
agent can end the run with ``stop_reason="model_error"``.

Deliberately left out: waiting between attempts. Clients such as the
``openai`` SDK already back off inside one attempt.

    >>> from handmade_agent.llm import ScriptedLLM
    >>> from handmade_agent.errors import LLMError
    >>> complete(ScriptedLLM([LLMError("down"), "hi"]), [], retries=1, emit=lambda e: None)[0].text
    'hi'
"""
from __future__ import annotations

import inspect
import time
from typing import Any, Callable, Sequence

from . import events as ev
from ..errors import LLMError
from ..llm import Completion, MessageLike, as_message


def complete(llm: Any, messages: Sequence[MessageLike], *, retries: int, emit: Callable[[ev.Event], None],
             purpose: str = "step", **kwargs: Any) -> tuple[Completion | None, str]:
    """Call ``llm.complete(messages, **kwargs)`` with retries; return (completion or None, last error text).

    ``purpose`` tells observers what the call was for: ``"step"`` (the agent's next step),
    ``"summary"`` (summary memory), ``"rerank"`` (the LLM judge), ``"translate"`` (the answer into the question's language).
    """
    error = ""
    messages = [as_message(m) for m in messages]
    for _attempt in range(1 + retries):
        emit(ev.LLMCallStarted(messages=[m.to_dict() for m in messages], purpose=purpose))
        t0 = time.perf_counter()
        try:
            c = llm.complete(messages, **kwargs)
        except Exception as e:  # any backend failure becomes a result, never a crash of the run
            error = f"{type(e).__name__}: {e}"
            emit(ev.LLMCallFinished(error=error, latency=time.perf_counter() - t0, purpose=purpose))
            if not isinstance(e, LLMError):
                break  # not a backend hiccup: retrying would fail the same way
            continue
        c.latency = c.latency or time.perf_counter() - t0
        emit(ev.LLMCallFinished(text=c.text, usage=c.usage, latency=c.latency, purpose=purpose))
        return c, ""
    return None, error


def takes_timeout(llm: Any) -> bool:
    """Does ``llm.complete`` name a ``timeout`` parameter? (Not merely ``**kwargs``: a wrapper may pass them on
    to a backend that has none.)"""
    try:
        return "timeout" in inspect.signature(llm.complete).parameters
    except (TypeError, ValueError, AttributeError):
        return False
