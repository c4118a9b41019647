"""Turn text into the terms BM25 counts: English words and Chinese character bigrams.

Chinese has no spaces, and a word segmenter is a large dependency with its
own dictionary. Overlapping character bigrams (``故障代码`` → ``故障 障代 代码``)
need neither and match most two-character words, which is what most Chinese
words are. Latin text becomes lower-cased alphanumeric runs minus a short
stopword list, so ``What is the E-07 fault?`` keeps ``e-07``, ``e``, ``07``
and ``fault``: codes and version numbers count whole and by their parts.

Deliberately left out: stemming, a dictionary segmenter, synonyms.

    >>> terms("E-07 故障代码")
    ['e-07', 'e', '07', '故障', '障代', '代码']
"""
from __future__ import annotations

import re

# CJK unified ideographs (with extension A and compatibility ideographs): the characters we pair up.
CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
WORD = rf"[^\W_{CJK}]+"
# a compound such as E-07, QF-F120 or 4.1.3 is kept whole as well as split, so an exact code match weighs more
TOKEN = re.compile(rf"[{CJK}]+|{WORD}(?:[-./]{WORD})*", re.UNICODE)
PART = re.compile(WORD)
CJK_RUN = re.compile(rf"[{CJK}]+")

STOPWORDS = frozenset("""a an and are as at be by can do does for from how i if in into is it its
my of on or so that the their then there these this to was we what when where which who why will
with you your""".split())


def is_cjk(text: str) -> bool:
    """True if ``text`` contains any Chinese character."""
    return bool(CJK_RUN.search(text))


def bigrams(run: str) -> list[str]:
    """Overlapping character pairs of a Chinese run; a lone character stays a unigram."""
    return [run] if len(run) < 2 else [run[i:i + 2] for i in range(len(run) - 1)]


def terms(text: str, stopwords: frozenset[str] = STOPWORDS) -> list[str]:
    """BM25 terms of ``text`` in order (repeats kept, so term frequency can be counted)."""
    out: list[str] = []
    for m in TOKEN.finditer(text.lower()):
        tok = m.group()
        if CJK_RUN.fullmatch(tok):
            out.extend(bigrams(tok))
        else:
            parts = [p for p in PART.findall(tok) if p not in stopwords]
            out.extend(parts if len(parts) < 2 else [tok, *parts])
    return out
