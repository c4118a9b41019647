"""Every number a notebook's takeaways or interview answers state is one its own run shows (issue 32).

The "## Takeaways" and "## Interview questions" sections (Chinese edition: "## 要点" and "## 面试题") are
where a reader, or an interviewer, takes figures from: "recall@5 0.65", "2 of 12 free replies", "76%". A
figure there is only honest if the recorded run shows it. So, for each notebook of both editions, every
number in the markdown cells of those two sections must occur in the same notebook's code (cell sources:
the assertions and the parameters) or in its recorded outputs (stream text, ``text/plain``,
``text/markdown``, ``text/html``), or in a file under ``data/`` whose file name a code cell mentions (the
data the code reads). A section runs from its "## " heading to the next "## " heading; only markdown
cells are read.

What counts as a number: a run of digits, with optional thousands separators (``1,634`` is 1634) and
decimals, read whole; ``a/b`` is a fraction and ``N%`` a percentage.

What is not a measured number, and is skipped (general rules, none about a particular figure):

- code: inline code spans and fenced blocks (``E-11``, ``k=4``, ``9**9**9`` are code, checked by running it);
- markup: HTML tags, link targets, URLs, and path-like words (``notebooks/05_memory.ipynb``);
- the "*In 30 seconds:*" / "*30 秒回答：*" label of an interview answer (a reading length, not a result);
- names with digits: a number glued to a Latin letter or underscore on either side, or joined by ``-``,
  ``=``, ``@`` or ``.`` *after* a letter (``Q6``, ``0.5B``, ``BM25``, ``recall@5``, ``Q4_K_M``, ``E-17``,
  ``00_setup``, ``T4``); a number *followed* by ``-word`` stays a quantity (``600-character chunks``), and
  so does a multiplier (``3x``);
- references to other parts of the course: the number(s) after "notebook", "chapter", "section",
  "exercise", "question", "step", "§" or "Q" (``section 7½``, ``notebooks 03 and 08``; a comma ends the
  reference, so "in section 3, 2 of 12 replies" still checks 2), and in Chinese after "笔记本", "练习",
  "问题" or inside "第 … 章|节|题|步";
- ordered-list markers ("1. " at the start of a line);
- dates and years: ``YYYY-MM-DD``, and 1900-2099 after "in", "since", "by", "until" or a month, or before 年;
- counting words ("two", "three", 两, 三) are not digits, so they are never checked.

How a number is backed (the prose may round what the run printed, never invent it):

- equal in value to a number in the code or outputs (``0.65`` matches ``0.650``; ``1,634`` matches ``1634``),
  or a printed number with more decimals rounds to it at the prose's precision (``0.7188`` backs ``0.719``);
- a percentage ``p%`` is backed by ``p`` itself or by a fraction printed as ``p/100`` (``0.76`` backs 76%),
  with the same rounding;
- a fraction ``a/b`` is backed by ``a/b`` printed as such or by both ``a`` and ``b`` printed
  (``2 of 6``, ``passed 2 / 6``).
"""
from __future__ import annotations

import json
import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
DATA = ROOT / "data"
PATHS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")) + sorted((NOTEBOOKS / "zh").glob("[0-9][0-9]_*.ipynb"))
SECTIONS = re.compile(r"^##\s+(Takeaways|Interview questions|要点|面试题)\s*$", re.I)
ANY_H2 = re.compile(r"^##\s")
OUTPUT_TYPES = ("text/plain", "text/markdown", "text/html")

# a number: digits with optional thousands separators and decimals; then an optional fraction or percent
NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
TOKEN = re.compile(rf"(?P<num>{NUMBER})(?:\s*/\s*(?P<den>{NUMBER}))?(?P<pct>\s?%)?")

# --- the skipping rules, as text removals (each replaced by a space so neighbours do not merge) ---
REMOVALS = [
    re.compile(r"```.*?```", re.S),                                  # fenced code
    re.compile(r"`[^`\n]*`"),                                        # inline code
    re.compile(r"<[^>\n]*>"),                                        # HTML tags
    re.compile(r"\]\([^)\s]*\)"),                                    # link targets
    re.compile(r"https?://\S+"),                                     # URLs
    re.compile(r"\S*[A-Za-z_]\S*/\S*|\S*/\S*[A-Za-z_]\S*\.\w+"),      # paths (a/b_c, x/y.ipynb)
    re.compile(r"\*In \d+ seconds:\*|\*\d+\s*秒回答[:：]\*", re.I),   # the interview answer's label
    re.compile(r"\d{4}-\d{2}-\d{2}"),                                # ISO dates
    re.compile(r"(?:(?:in|since|by|until|January|February|March|April|May|June|July|August|September|"
               r"October|November|December)\s+)(?:19|20)\d\d\b|\b(?:19|20)\d\d\s*年"),  # years
    re.compile(r"(?im)^\s*\d+\.\s"),                                 # ordered-list markers
    # references to other parts of the course: "section 4", "notebooks 03 and 08", "section 7½", "Q6"
    re.compile(r"(?i)\b(?:notebooks?|chapters?|sections?|exercises?|questions?|steps?|§|Q)\s*"
               r"\d+½?(?:\s*(?:and|or|to|–|-)\s*\d+½?)*"),
    re.compile(r"(?:笔记本|练习|问题)\s*\d+(?:\s*(?:和|与|及|或|–|-|到|至)\s*\d+)*|第\s*\d+½?\s*(?:章|节|题|步|个练习)"),
    # names with digits: glued to a Latin letter/underscore, or joined to a preceding letter by -=@.
    re.compile(r"[A-Za-z_]+[-=@.]?[\d.]*\d[\w.]*|\d[\d.,]*(?![x×]\b)[A-Za-z_][\w.]*"),
]


def clean(text: str) -> str:
    for pattern in REMOVALS:
        text = pattern.sub(" ", text)
    return text


def value(number: str) -> Decimal:
    return Decimal(number.replace(",", ""))


def decimals(number: str) -> int:
    return len(number.split(".")[1]) if "." in number else 0


def prose_numbers(text: str, where: list | None = None):
    """(kind, literal, numbers) for each number left in ``text`` once the skipping rules have run.

    ``where``, if given, receives each number's context in the cleaned text.
    """
    cleaned = clean(text)
    for m in TOKEN.finditer(cleaned):
        if where is not None:
            where.append(" ".join(cleaned[max(0, m.start() - 60): m.end() + 40].split()))
        literal = m.group(0).strip()
        if m.group("den"):
            yield "fraction", literal, (m.group("num"), m.group("den"))
        elif m.group("pct"):
            yield "percent", literal, (m.group("num"),)
        else:
            yield "number", literal, (m.group("num"),)


def sections(nb: dict):
    """(cell index, text) for each markdown cell of the Takeaways and Interview questions sections."""
    inside = False
    for index, cell in enumerate(nb["cells"]):
        text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        first = text.lstrip().splitlines()[0] if text.strip() else ""
        if cell["cell_type"] == "markdown" and ANY_H2.match(first):
            inside = bool(SECTIONS.match(first))
        if inside and cell["cell_type"] == "markdown":
            yield index, text


def _joined(value_) -> str:
    return "".join(value_) if isinstance(value_, list) else str(value_)


def evidence(nb: dict) -> str:
    """The code, the recorded outputs and the data files the code names, as one text."""
    parts = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        parts.append(_joined(cell["source"]))
        for output in cell.get("outputs", []):
            if "text" in output:
                parts.append(_joined(output["text"]))
            for kind in OUTPUT_TYPES:
                if kind in output.get("data", {}):
                    parts.append(_joined(output["data"][kind]))
    code = "\n".join(_joined(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    for path in sorted(DATA.rglob("*")):
        if path.is_file() and path.name in code:
            parts.append(path.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(parts)


class Backing:
    """The numbers and fractions a notebook's code and outputs show."""

    def __init__(self, text: str):
        plain = re.findall(r"(?<![\d.])(\d+(?:\.\d+)?)(?![\d])", text)
        grouped = re.findall(r"(?<![\d.,])(\d{1,3}(?:,\d{3})+(?:\.\d+)?)(?![\d,])", text)
        self.numbers = {}
        for literal in plain + grouped:
            self.numbers.setdefault(value(literal), decimals(literal))
            v = value(literal)
            self.numbers[v] = max(self.numbers[v], decimals(literal))
        self.fractions = {(value(a), value(b)) for a, b in re.findall(r"(\d[\d,]*)\s*/\s*(\d[\d,]*)", text)
                          if re.fullmatch(r"\d{1,3}(?:,\d{3})*|\d+", a) and re.fullmatch(r"\d{1,3}(?:,\d{3})*|\d+", b)}

    def shows(self, target: Decimal, places: int) -> bool:
        if target in self.numbers:
            return True
        quantum = Decimal(1).scaleb(-places)
        return any(more > places and shown.quantize(quantum, ROUND_HALF_UP) == target
                   for shown, more in self.numbers.items())


def backed(kind: str, numbers: tuple, backing: Backing) -> bool:
    if kind == "fraction":
        a, b = (value(n) for n in numbers)
        return (a, b) in backing.fractions or all(backing.shows(value(n), decimals(n)) for n in numbers)
    number = numbers[0]
    if backing.shows(value(number), decimals(number)):
        return True
    return kind == "percent" and backing.shows(value(number) / 100, decimals(number) + 2)


def unbacked(path: Path) -> list[str]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    backing = Backing(evidence(nb))
    found = []
    for index, text in sections(nb):
        contexts: list[str] = []
        for kind, literal, numbers in prose_numbers(text, contexts):
            if not backed(kind, numbers, backing):
                found.append(f"cell {index}: {literal!r} in …{contexts[-1]}…")
    return found


@pytest.mark.parametrize("path", PATHS, ids=lambda p: str(p.relative_to(NOTEBOOKS)))
def test_takeaway_and_interview_numbers_are_shown_by_the_run(path):
    missing = unbacked(path)
    assert not missing, (f"{path.relative_to(ROOT)}: numbers in the takeaways or interview answers that no "
                         f"code cell or output of the notebook shows:\n" + "\n".join(missing))


def test_the_rules_keep_measured_numbers_and_skip_names():
    text = ("*In 30 seconds:* In section 4 the 0.5B model (`k=4`, Q6, BM25, recall@5, 00_setup) passed 2/6 "
            "tasks, 76% of 1,634 chunks, 0.719 and 600-character chunks, 3x; notebooks 03 and 08; 第 7½ 节; 笔记本 05")
    assert [literal for _, literal, _ in prose_numbers(text)] == ["2/6", "76%", "1,634", "0.719", "600", "3"]
    backing = Backing("passed 2 of 6\nshare 0.7619\n1634 chunks\nrecall 0.71875\nsize=600 x3")
    assert all(backed(kind, numbers, backing) for kind, _, numbers in prose_numbers(text))
    assert not backed("number", ("0.73",), Backing("0.7188"))
    assert [literal for _, literal, _ in prose_numbers("in section 3, 2 of 12 replies; 练习 2; 第 4 节")] == ["2", "12"]
    assert not backed("percent", ("77",), Backing("0.7619"))
