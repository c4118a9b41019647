"""Context injection: put retrieved chunks into the prompt with ids the answer can cite.

Each passage is shown as ``[chunk-id] heading path`` followed by its text; the
system prompt asks for answers from these passages only, with the id in square
brackets after each fact. ``citations`` reads the ids back out of an answer and
``check_citations`` says which ones were really retrieved, so an invented
citation is caught rather than trusted, and ``support.check_support`` says
whether each cited passage holds the sentence's numbers, units, codes and names
(``check_citations(...)["unsupported"]`` lists the sentences that fail). Small models often answer correctly
and forget the id: ``attribute`` finds by term overlap which retrieved chunks
hold the answer's words, and ``cite`` returns the answer with valid citations
(the model's own, else attributed ones that support the answer). The answer is
asked in the question's language whatever the passages' language.

Deliberately left out: token budgeting across passages (``max_chars`` per
passage is the simple guard), quoting spans, rewriting unsupported sentences.

    >>> citations("The tank holds 1.2 L [t4-specs#water:1].")
    ['t4-specs#water:1']
"""
from __future__ import annotations

import re
from typing import Sequence

from ..llm import Message
from .support import CITATION, check_support, citations, facts, quantities  # noqa: F401  (citations is public from here too)
from .terms import is_cjk, terms

RAG_SYSTEM = (
    "Answer the question using only the passages below. After the facts you use, write the id of the "
    "passage in square brackets, for example [{example}]. If the passages do not contain the answer, "
    "say that you do not know. Answer in the language of the question, even when the passages are in "
    "another language (translate the facts, keep numbers, units and codes exact).")


def format_passages(hits: Sequence, max_chars: int = 800, texts: Sequence[str] | None = None,
                    headings: bool = True) -> str:
    """The passages block: one ``[id] heading path`` line and the text per hit (or ``texts``, one per hit:
    what ``focus.best_lines`` kept of each)."""
    blocks = []
    for i, h in enumerate(hits):
        c = getattr(h, "chunk", h)
        path = " > ".join(c.heading_path)
        full = texts[i] if texts is not None else c.display_text  # a table row comes with its header row
        text = full if len(full) <= max_chars else full[:max_chars].rstrip() + " …"
        blocks.append((f"[{c.id}] {path}" if headings else f"[{c.id}]").rstrip() + "\n" + text.rstrip())
    return "\n\n".join(blocks)


def rag_messages(question: str, hits: Sequence, *, system: str = RAG_SYSTEM, max_chars: int = 800) -> list[Message]:
    """Messages for a plain completion: instructions + passages as system text, then the question alone.

    (Measured on the 0.5B model: reminders after the question made it copy passages or the
    example instead of answering, so the question stays alone; ``cite`` adds ids it forgets.)
    """
    example = getattr(hits[0], "id", "doc#section:1") if hits else "doc#section:1"
    sys_text = system.replace("{example}", example) + "\n\nPassages:\n\n" + format_passages(hits, max_chars)
    return [Message("system", sys_text), Message("user", question)]


def check_citations(answer: str, hits: Sequence, judge=None) -> dict[str, list[str]]:
    """Split the answer's citations into ``valid`` (a retrieved chunk or its passage) and ``unknown``;
    ``unsupported``: the sentences whose cited passages lack one of their facts (see ``support``)."""
    known = set()
    for h in hits:
        c = getattr(h, "chunk", h)
        known.update([c.id, *c.passage_ids])
    cited = citations(answer)
    return {"valid": [c for c in cited if c in known], "unknown": [c for c in cited if c not in known],
            "unsupported": [s.sentence for s in check_support(answer, hits, judge) if s.status == "unsupported"]}


def attribute(answer: str, hits: Sequence, min_share: float = 0.6) -> list[str]:
    """Ids of the chunks that hold at least ``min_share`` of the answer's terms, best first.

    A check done by code, not by the model: it finds where the answer's words come from.
    (A lone Chinese character such as 年 counts if it occurs anywhere in the chunk.)
    """
    want = set(terms(answer))
    if not want:
        return []
    shares = []
    for h in hits:
        c = getattr(h, "chunk", h)
        have, text = set(terms(c.search_text)), c.search_text.lower()
        share = sum(t in have or (len(t) == 1 and is_cjk(t) and t in text) for t in want) / len(want)
        if share >= min_share:
            shares.append((share, c.id))
    return [cid for _, cid in sorted(shares, key=lambda t: -t[0])]


def _states_facts_of(answer: str, chunk) -> bool:
    """Does ``answer`` state distinctive facts (a number with a unit, a code, a name; a bare number is too
    common: the 4 of "T4"), all of its facts found in ``chunk``?"""
    f = facts(answer)
    if not (f["codes"] or f["names"] or any(unit for _, unit in f["quantities"])):
        return False
    have = quantities(chunk.search_text)  # a number with a unit needs that unit here: "64 升" is not "64 plants"
    if any(unit and (n, unit) not in have for n, unit in f["quantities"]):
        return False
    checked = check_support(answer, [chunk])
    return any(s.status == "supported" for s in checked) and all(s.status != "unsupported" for s in checked)


def cite(answer: str, hits: Sequence, min_share: float = 0.6) -> tuple[str, list[str]]:
    """The answer with trustworthy citations, and their ids.

    Invented ids are removed; if no valid id remains, the attributed chunks are appended, those whose
    numbers, codes and names match the answer first (``support``); when no chunk shares enough words with
    the answer (another language), the chunks holding all its numbers, codes and names.
    """
    checked = check_citations(answer, hits)
    text = answer
    for bad in checked["unknown"]:
        text = text.replace(f"[{bad}]", "")
    text = re.sub(r"[ \t]{2,}", " ", text).strip()
    if checked["valid"]:
        return text, checked["valid"]
    chunks = {getattr(h, "chunk", h).id: getattr(h, "chunk", h) for h in hits}
    # no shared words (a Chinese answer from an English row): its numbers, codes and names can still place it
    found = attribute(text, hits, min_share) or [i for i, c in chunks.items() if _states_facts_of(text, c)]
    backed = [i for i in found if all(s.status != "unsupported" for s in check_support(text, [chunks[i]]))]
    ids = (backed + [i for i in found if i not in backed])[:2]
    return (text + " " + " ".join(f"[{i}]" for i in ids)).strip() if ids else text, ids
