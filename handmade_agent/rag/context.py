"""Context injection: put retrieved chunks into the prompt with ids the answer can cite.

Each passage is shown as ``[chunk-id] heading path`` followed by its text; the
system prompt asks for answers from these passages only, with the id in square
brackets after each fact. ``citations`` reads the ids back out of an answer and
``check_citations`` says which ones were really retrieved, so an invented
citation is caught rather than trusted.

Deliberately left out: token budgeting across passages (``max_chars`` per
passage is the simple guard), quoting spans, and answer verification.

    >>> citations("The tank holds 1.2 L [t4-specs#water:1].")
    ['t4-specs#water:1']
"""
from __future__ import annotations

import re
from typing import Sequence

from ..llm import Message

RAG_SYSTEM = (
    "Answer the question using only the passages below. After the facts you use, write the id of the "
    "passage in square brackets, for example [{example}]. If the passages do not contain the answer, "
    "say that you do not know. Answer in the language of the question.")
CITATION = re.compile(r"\[([^\[\]\s]+#[^\[\]\s]*|[^\[\]\s]+[:@]\d+)\]")


def format_passages(hits: Sequence, max_chars: int = 800) -> str:
    """The passages block: one ``[id] heading path`` line and the text per hit."""
    blocks = []
    for h in hits:
        c = getattr(h, "chunk", h)
        path = " > ".join(c.heading_path)
        text = c.text if len(c.text) <= max_chars else c.text[:max_chars].rstrip() + " …"
        blocks.append(f"[{c.id}] {path}".rstrip() + "\n" + text.rstrip())
    return "\n\n".join(blocks)


def rag_messages(question: str, hits: Sequence, *, system: str = RAG_SYSTEM, max_chars: int = 800) -> list[Message]:
    """Messages for a plain completion: instructions + passages as system text, then the question.

    The citation reminder is repeated after the question: a small model follows the
    instruction nearest to where it starts writing far more reliably than one above the passages.
    """
    example = getattr(hits[0], "id", "doc#section:1") if hits else "doc#section:1"
    sys_text = system.replace("{example}", example) + "\n\nPassages:\n\n" + format_passages(hits, max_chars)
    reminder = f"\n\n(Answer briefly from the passages and cite the passage id in square brackets, like [{example}].)"
    return [Message("system", sys_text), Message("user", question + reminder)]


def citations(text: str) -> list[str]:
    """Cited ids in order of first appearance (``[a#b:1]``, ``[a#b]``, ``[a@2]``)."""
    return list(dict.fromkeys(m.group(1) for m in CITATION.finditer(text or "")))


def check_citations(answer: str, hits: Sequence) -> dict[str, list[str]]:
    """Split the answer's citations into ``valid`` (a retrieved chunk or its passage) and ``unknown``."""
    known = set()
    for h in hits:
        c = getattr(h, "chunk", h)
        known.update([c.id, *c.passage_ids])
    cited = citations(answer)
    return {"valid": [c for c in cited if c in known], "unknown": [c for c in cited if c not in known]}
