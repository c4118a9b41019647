"""Does the cited passage support the sentence? A cheap check of numbers, units, codes and names first.

An answer can cite a passage that was retrieved and still say something the
passage does not: "350 kg [t4-specifications#sensors:2]" when the row says 350 g.
``check_support`` splits the answer into sentences and, for each sentence with a
checkable fact, looks for every fact in the passages that sentence cites (if it
cites none: those the answer cites; if the answer cites none: all of them):

- numbers (``5,200`` = ``5200``) and, where a unit follows, the same unit in any
  of the two languages (``350 g`` = ``350 克``, ``€14`` = ``14 €``, ``2 years`` = ``两年``);
- codes and part numbers (``E-17``, ``QF-F120``);
- Latin-script names not at the start of a sentence (``Dana Whitlock``).

All found: ``supported``; one missing: ``unsupported`` (with what is missing).
A sentence with no checkable fact is ``undecided``; only there an optional
``judge(sentence, passage) -> bool`` (e.g. the model) is asked. Facts are
language-neutral on purpose, so a Chinese sentence citing an English row checks.

A number in a cited passage backs a number with a unit only with that unit or bare; a
number that counts something ("64 plants", "64 株植物", a cell that is only "64") backs
none ("64 升" is unsupported), while words that count nothing ("in 2019 by") do not
make a count, and a year before 年 is a date.

Deliberately left out: paraphrased facts without numbers or names (that is what
the judge is for), negation ("not 350 g" passes), arithmetic on the facts, units named
only in a table's header ("Capacity (L)": the knowledge base writes units in the cells).

    >>> [s.status for s in check_support("The arm lifts 350 克 [a:1].", [("a:1", "| Arm payload | 350 g |")])]
    ['supported']
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Sequence

from .chunking import split_sentences

UNITS = {"g": "g", "克": "g", "kg": "kg", "千克": "kg", "公斤": "kg", "mm": "mm", "毫米": "mm", "cm": "cm",
         "厘米": "cm", "m": "m", "米": "m", "l": "L", "升": "L", "ml": "mL", "毫升": "mL", "min": "min",
         "分钟": "min", "h": "h", "小时": "h", "w": "W", "瓦": "W", "v": "V", "%": "%", "€": "EUR", "元": "CNY",
         "yuan": "CNY", "db": "dB", "mah": "mAh", "wh": "Wh", "s": "s", "秒": "s", "days": "day", "day": "day",
         "天": "day", "months": "month", "month": "month", "个月": "month", "years": "year", "year": "year",
         "年": "year", "lux": "lux", "勒克斯": "lux", "hz": "Hz", "grams": "g", "gram": "g", "kilograms": "kg",
         "litres": "L", "liters": "L", "litre": "L", "liter": "L", "millimetres": "mm", "millimeters": "mm",
         "metres": "m", "meters": "m", "minutes": "min", "hours": "h", "hour": "h", "seconds": "s", "watts": "W",
         "volts": "V", "percent": "%"}
COUNTED = "other"  # the unit of a passage's number that counts something else: "64 plants", "64 株植物"
# words after a number that count nothing: "in 2019 by", "8 to 12", "3 和 4"
NOT_COUNTED = {"and", "or", "to", "by", "at", "in", "on", "of", "for", "from", "with", "per", "before", "after",
               "the", "a", "an", "is", "are", "was", "were", "x", "than", "和", "至", "到", "或", "与", "及"}
_NEXT_WORD = re.compile(r"[ \t]*([A-Za-z]+|[\u4e00-\u9fff])")
_WHOLE_CELL = re.compile(r"[ \t]*\|")
# a fault code or part number (E-17, QF-F120); not \b: 故障E-63 has no word boundary
CODE = re.compile(r"(?<![A-Za-z0-9-])[A-Z]{1,3}-[A-Z]?\d+(?![A-Za-z0-9])")
_UNIT = "|".join(sorted(map(re.escape, UNITS), key=len, reverse=True))
QUANTITY = re.compile(rf"(€)\s*(\d+(?:[.,]\d+)*)|(\d+(?:[.,]\d+)*)\s*(?:({_UNIT})(?![A-Za-z]))?", re.I)
NAME = re.compile(r"(?<![\w-])[A-Z][a-zà-ÿ]{2,}\b")
CITED = re.compile(r"\[[^\[\]]*\]")
CITATION = re.compile(r"\[([^\[\]\s]+#[^\[\]\s]*|[^\[\]\s]+[:@]\d+)\]")  # [a#b:1], [a#b], [a@2]
COMMON = {"The", "This", "That", "Yes", "Use", "Press", "Tap", "Open", "Each", "Every", "When", "After"}


# small numbers written in Chinese characters before a unit ("两年", "六个月"): a translated answer writes them so
ZH_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_ZH_UNIT = "|".join(sorted((re.escape(u) for u in UNITS if re.match("[\u4e00-\u9fff]", u)), key=len, reverse=True))
ZH_QUANTITY = re.compile(rf"(?<![一二两三四五六七八九十百千万])([一二两三四五六七八九十]{{1,3}})\s*({_ZH_UNIT})")


def zh_number(s: str) -> int | None:
    """1..99 from Chinese numerals ("两" 2, "十二" 12, "三十五" 35), None for anything else.

    >>> zh_number("两"), zh_number("十二"), zh_number("三十五"), zh_number("十十")
    (2, 12, 35, None)
    """
    if "十" not in s:
        return ZH_DIGITS.get(s) if len(s) == 1 else None
    tens, _, ones = s.partition("十")
    if "十" in ones or len(tens) > 1 or len(ones) > 1:
        return None
    t, o = (ZH_DIGITS.get(tens) if tens else 1), (ZH_DIGITS.get(ones) if ones else 0)
    return None if t is None or o is None else 10 * t + o


def _number(s: str) -> str:
    s = re.sub(r"(?<=\d),(?=\d{3}\b)", "", s)  # 5,200 -> 5200 (a thousands separator, not a decimal comma)
    return s.replace(",", ".")


def quantities(text: str, counted: bool = False) -> set[tuple[str, str]]:
    """(number, canonical unit or "") pairs in ``text``; with ``counted``, a number followed by a word that is
    no unit gets ``COUNTED`` instead of "", so "64 plants" cannot back "64 L".

    >>> sorted(quantities("64 株植物, 2.6 L")), sorted(quantities("64 株植物", counted=True))
    ([('2.6', 'L'), ('64', '')], [('64', 'other')])
    """
    out = set()
    for m in QUANTITY.finditer(text):
        if m.group(1):
            out.add((_number(m.group(2)), "EUR"))
        elif not CODE.search(text[max(0, m.start() - 4): m.end()]):  # the 17 of E-17 is part of a code
            number, unit = _number(m.group(3)), UNITS.get((m.group(4) or "").lower(), "")
            if unit == "year" and re.fullmatch(r"(?:19|20)\d\d", number):
                unit = ""  # 2019 年 is a date, not a duration
            word = _NEXT_WORD.match(text, m.end()) if counted and not unit else None
            if word and word.group(1).lower() not in NOT_COUNTED:
                unit = COUNTED
            elif counted and not unit and _WHOLE_CELL.match(text, m.end()) and _opens_cell(text, m.start()):
                unit = COUNTED  # a cell that is only a number counts what its row names: "| Registered plants | 64 |"
            out.add((number, unit))
    for m in ZH_QUANTITY.finditer(text):
        if (n := zh_number(m.group(1))) is not None:
            out.add((str(n), UNITS[m.group(2)]))
    return out


def _opens_cell(text: str, i: int) -> bool:
    """Is ``text[i]`` the first thing in a table cell (only blanks since a "|")? Walks back over the blanks
    alone: a regex search of ``text[:i]`` for each number took 8.8 s on 100,000 characters."""
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    return i > 0 and text[i - 1] == "|"


def facts(sentence: str) -> dict[str, set]:
    """The checkable facts of one sentence (citations removed)."""
    s = CITED.sub(" ", sentence)
    start = len(s) - len(s.lstrip())  # a name opening the sentence may be any capitalised word
    names = {m.group() for m in NAME.finditer(s) if m.start() > start and m.group() not in COMMON}
    return {"quantities": quantities(s), "codes": set(CODE.findall(s)), "names": names}


def citations(text: str) -> list[str]:
    """Cited ids in order of first appearance (``[a#b:1]``, ``[a#b]``, ``[a@2]``)."""
    return list(dict.fromkeys(m.group(1) for m in CITATION.finditer(text or "")))


@dataclass
class Support:
    sentence: str
    cited: list[str]
    status: str                      # supported | unsupported | undecided
    missing: list[str] = field(default_factory=list)


def _missing(f: dict[str, set], text: str) -> list[str]:
    have_q, lower = quantities(text, counted=True), text.lower()
    numbers = {n for n, _ in have_q}
    miss = [f"{n} {u}".strip() for n, u in f["quantities"]
            if n not in numbers or (u and (n, u) not in have_q and (n, "") not in have_q)]
    miss += [c for c in f["codes"] if c not in text]
    miss += [n for n in f["names"] if n.lower() not in lower]
    return miss


def check_support(answer: str, passages: Sequence, judge: Callable[[str, str], bool] | None = None) -> list[Support]:
    """One ``Support`` per sentence of ``answer`` that cites something or states a fact.

    ``passages``: hits, chunks or ``(id, text)`` pairs; a hit is known by its chunk id and passage ids.
    """
    by_id: dict[str, str] = {}
    for p in passages:
        if isinstance(p, tuple):
            by_id[p[0]] = p[1]
            continue
        c = getattr(p, "chunk", p)
        for key in (c.id, *c.passage_ids):
            by_id[key] = by_id.get(key, "") + "\n" + c.search_text
    everywhere = [i for i in citations(answer) if i in by_id]
    out = []
    for sentence in (s.strip() for s in split_sentences(answer or "")):
        f, cited = facts(sentence), [i for i in citations(sentence) if i in by_id]
        if not sentence or not (cited or any(f.values())):
            continue
        text = "\n".join(by_id[i] for i in (cited or everywhere or list(by_id)))
        if not any(f.values()):
            ok = judge(sentence, text) if (judge is not None and text) else None
            out.append(Support(sentence, cited, {True: "supported", False: "unsupported"}.get(ok, "undecided")))
            continue
        miss = _missing(f, text) if text else ["(no cited passage)"]
        out.append(Support(sentence, cited, "unsupported" if miss else "supported", miss))
    return out
