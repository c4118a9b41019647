"""A tool's error message is not an answer.

``ToolRegistry.call`` words every failure as text that starts with "Error:" ("Error: calculator: unknown name
'北京'"), and the agent shows it to the model so it can fix its call. A small model often hands that text back as
its final answer instead (the 0.5B did on 2 of 40 suite tasks; a translation makes it "错误：…"). ``copies_tool_error``
says whether an answer is such a copy: a line that starts with the registry's label (after at most a quote, a bullet
or a copied "Observation:"), or the first clause of one of the run's failed results copied without its label. The check ``error_not_answer``
sends such an answer back once (``RETRY``); if the next answer is a copy again (of an error, or of that note:
``echoes_retry``, the 0.5B model copies the last thing it read), the policy ``refuse_copied_error`` ends the run with
``refusal``: a plain "cannot answer" that names the tool that failed, never the error dressed as an answer.
Measured on the 1.5B (all 76 suite tasks, ``-errors``): see docs/benchmarks.md. The evaluation's answer checks use
the same test, so a copied error never counts as right.

Deliberately left out: an error the model retold in its own words, and deciding whether the error was the tool's
fault or the model's (either way the answer is not the error).

    >>> copies_tool_error("Error: calculator: unknown name '北京'"), copies_tool_error("a calibration error: recalibrate")
    (True, False)
"""
from __future__ import annotations

import re
import unicodedata
from typing import Any, Iterable

_LABELLED = re.compile(r"^[^\w\n]{0,4}(?:(?:final answer|observation|answer|最终答案|答案|观察)\s*:\s*)?(?:error|错误)\s*:",
                       re.I | re.M)
_ERROR_LINE = re.compile(r"^[^\w\n]{0,4}(?:error|错误)\s*:\s*(.+)$", re.I | re.M)
RETRY = ("That answer is the tool's error message, not an answer to the question. Read the error: call the tool "
         "again with what it asks for, use another tool, or answer that you cannot answer this with your tools.")


def _plain(text: str | None) -> str:
    return unicodedata.normalize("NFKC", text or "").lower()


def error_heads(errors: Iterable[str]) -> list[str]:
    """The first clause of each "Error: …" message in ``errors``, without its label, if long enough to be no
    accident (12 characters or more; cut at 40, so an answer that copied only the start is caught)."""
    found = [m.group(1) for error in errors for m in _ERROR_LINE.finditer(_plain(error))]
    return [head for head in (re.split(r"[;.]\s", message)[0].strip()[:40] for message in found) if len(head) >= 12]


def copies_tool_error(answer: str | None, errors: Iterable[str] = ()) -> bool:
    """Is ``answer`` a tool's error message: a line labelled "Error:" (or 错误：), or the head of one of ``errors``
    (the run's failed tool results) without its label? The word "error" inside a sentence is not one."""
    text = _plain(answer)
    return bool(_LABELLED.search(text)) or any(head in text for head in error_heads(errors))


def echoes_retry(answer: str | None) -> bool:
    """Does ``answer`` copy the note ``RETRY`` (the 0.5B model answered with the note it was sent back with)?"""
    return _plain(RETRY)[:40] in _plain(answer)


def refusal(tools: list[str]) -> str:
    """The answer of a run whose model answered with a tool's error twice: it cannot answer, and which tool failed.
    The error itself is not quoted: it may hold the model's own bad input, which a reader would take for a fact.

        >>> refusal(["calculator"])
        'I cannot answer this with the tools I have (the calculator call failed).'
    """
    names = list(dict.fromkeys(t for t in tools if t))
    # one clause: a refusal, with nothing after it that reads as a claim of its own
    return "I cannot answer this with the tools I have" + (f" (the {' and '.join(names[-2:])} call failed)." if names
                                                            else ".")


def error_not_answer(context: Any, answer: str) -> str | None:
    """A final-answer check (``policies.py``): an answer that is a tool's error message goes back with ``RETRY``."""
    return RETRY if context.errors and copies_tool_error(answer, context.errors) else None


def refuse_copied_error(context: Any, answer: str) -> str | None:
    """An answer policy: a copied error (or ``RETRY``) that survived its one return becomes ``refusal``."""
    if context.errors and (copies_tool_error(answer, context.errors) or echoes_retry(answer)):
        return refusal(list(context.failed_tools))
    return None
