"""Read the knowledge base (markdown with anchored headings) and the retrieval eval set.

A document is one markdown file: first line ``# Title``; every ``##``/``###``
heading ends with an explicit anchor such as ``{#fault-codes}``. Parsing
strips the anchors from the text and records each section (heading path,
anchor, where its body starts and ends), so chunkers can cut by structure
and every chunk can say which passage (``doc_id#anchor``) it came from.

Deliberately left out: full markdown parsing (lists, tables and code are kept
as plain text), front matter, and links between documents.

    >>> parse_document("x1", "# X1\\n\\n## Power {#power}\\n\\n220 V.\\n").sections[1].passage_id
    'x1#power'
"""
from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import StateError
from ..observers import read_jsonl

# Possessive blanks, and the anchor found by a second pattern: ``\s+(.*?)\s*(anchor)?\s*$`` could split
# a heading of 5,000 spaces in n³ ways (minutes); these two scan each character a bounded number of times.
HEADING = re.compile(r"^(#{1,6})\s++(.*)$")
ANCHOR = re.compile(r"\{#([A-Za-z0-9_.:-]+)\}$")
MAX_DOC_BYTES = 5 << 20  # a knowledge-base page is a few KB; a bigger file is not one, and is skipped
FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass
class Section:
    """One heading and the body under it (up to the next heading of any level)."""
    doc_id: str
    level: int                 # 1 for the title, 2 for ##, 3 for ###
    anchor: str | None         # None for the text under the title
    heading_path: list[str]    # titles from the document title down to this heading
    start: int                 # offset of the heading line in Document.text
    body_start: int            # offset where the body begins (after the heading line)
    end: int                   # offset where the next heading begins

    @property
    def passage_id(self) -> str:
        return f"{self.doc_id}#{self.anchor}" if self.anchor else self.doc_id


@dataclass
class Document:
    """A markdown document with its anchors removed from ``text`` and kept in ``sections``."""
    doc_id: str
    text: str
    lang: str = "en"
    title: str = ""
    path: str = ""
    sections: list[Section] = field(default_factory=list)

    def section_at(self, offset: int) -> Section:
        """The section whose span contains ``offset``."""
        for s in reversed(self.sections):
            if s.start <= offset:
                return s
        return self.sections[0]


def match_heading(line: str) -> tuple[str, str, str | None] | None:
    """(the ``#`` marks, the title, the anchor or None) if ``line`` is a heading, else None."""
    m = HEADING.match(line)
    if not m:
        return None
    title = m.group(2).rstrip()
    anchored = ANCHOR.search(title)
    return m.group(1), (title[:anchored.start()] if anchored else title).strip(), anchored and anchored.group(1)


def parse_document(doc_id: str, markdown: str, lang: str = "en", path: str = "") -> Document:
    """Parse anchored headings; the returned text is the markdown minus ``{#...}`` anchors."""
    out: list[str] = []
    heads: list[tuple[int, str, str | None, int, int]] = []  # level, title, anchor, start, body_start
    pos, in_fence = 0, False
    for line in markdown.splitlines(keepends=True):
        bare = line.rstrip("\r\n")
        if FENCE.match(bare):
            in_fence = not in_fence  # a '#' inside a code block is a comment, not a heading
        m = None if in_fence else match_heading(bare)
        if m:
            hashes, title, anchor = m
            level = len(hashes)
            line = f"{hashes} {title}" + line[len(bare):]
            heads.append((level, title, anchor, pos, pos + len(line)))
        out.append(line)
        pos += len(line)
    text = "".join(out)
    if not heads or heads[0][3] != 0 or heads[0][0] != 1:
        heads.insert(0, (1, doc_id, None, 0, 0))  # no title line: the doc id stands in for it
    sections, path_stack = [], []
    for i, (level, title, anchor, start, body_start) in enumerate(heads):
        path_stack = [p for p in path_stack if p[0] < level] + [(level, title)]
        end = heads[i + 1][3] if i + 1 < len(heads) else len(text)
        sections.append(Section(doc_id, level, anchor if level > 1 else None,
                                [t for _, t in path_stack], start, body_start, end))
    return Document(doc_id, text, lang, heads[0][1], path, sections)


class Documents(list):
    """The documents that loaded, plus ``skipped``: (path, reason) for each file that did not."""

    def __init__(self, docs: list[Document] = (), skipped: list[tuple[str, str]] = ()):
        super().__init__(docs)
        self.skipped = list(skipped)


def read_markdown(path: Path, limit: int = MAX_DOC_BYTES) -> str:
    """A knowledge-base file's text, or ValueError saying why it is not one (too big, binary, not UTF-8, empty)."""
    size = path.stat().st_size
    if size > limit:
        raise ValueError(f"{size:,} bytes, more than the {limit:,} a knowledge-base page may have")
    raw = path.read_bytes()
    if b"\x00" in raw:
        raise ValueError("a binary file (it contains NUL bytes), not markdown")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"not UTF-8 text ({e.reason} at byte {e.start}); save it as UTF-8") from None
    if not text.strip():
        raise ValueError("empty")
    return text


def load_documents(root: str | Path, langs: tuple[str, ...] | None = None) -> Documents:
    """Read ``root/<lang>/<doc_id>.md`` files, sorted by language then doc id.

    A file that cannot be a document (binary, not UTF-8, empty, too big, unreadable) is skipped, not
    fatal: the rest load, a warning lists what was skipped and why, and so does the result's ``skipped``.
    """
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"No knowledge base at {root}. Expected {root}/en/*.md and {root}/zh/*.md.")
    docs = Documents()
    for lang_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        if langs and lang_dir.name not in langs:
            continue
        for f in sorted(lang_dir.glob("*.md")):
            rel = f"{lang_dir.name}/{f.name}"
            try:
                docs.append(parse_document(f.stem, read_markdown(f), lang_dir.name, rel))
            except (ValueError, OSError) as e:
                docs.skipped.append((rel, str(e)))
    if docs.skipped:
        shown = "; ".join(f"{p}: {why}" for p, why in docs.skipped[:10])
        warnings.warn(f"load_documents skipped {len(docs.skipped)} file(s) under {root}: {shown}. "
                      "Fix or remove them; the other files loaded.", stacklevel=2)
    return docs


@dataclass
class EvalItem:
    """One labelled question: the passages in ``relevant`` answer it."""
    qid: str
    lang: str
    question: str
    relevant: list[str]
    answer: str = ""
    kind: str = "lexical"      # lexical | paraphrase | cross-lingual | table
    answer_lang: str = ""      # language of the documents holding the answer ("" = the question's)

    @property
    def cross_lingual(self) -> bool:
        return bool(self.answer_lang) and self.answer_lang != self.lang


def load_eval(path: str | Path) -> list[EvalItem]:
    """Read the JSONL eval set; a malformed line is an error naming its line number."""
    items = []
    try:
        for n, d in read_jsonl(path):
            try:
                items.append(EvalItem(d["qid"], d["lang"], d["question"], list(d["relevant"]),
                                      d.get("answer", ""), d.get("kind", "lexical"),
                                      d.get("answer_lang", "")))
            except (ValueError, KeyError, TypeError, AttributeError) as e:
                raise ValueError(f"{path}:{n}: not a valid eval item ({e}); each line needs "
                                 "qid, lang, question and relevant (a list of doc_id#anchor).") from e
    except StateError as e:  # not JSON at all
        raise ValueError(str(e)) from e
    return items
