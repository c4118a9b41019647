"""The answer in the question's language: which script a question wants, and one call to translate.

A 0.5B model answers by copying. Asked in Chinese about an English passage it answers in English;
measured on the 22 KB tasks (benchmarks/kb_tasks.py), 11 answers were in the wrong language. Holding
the answer's first character to the question's script with the ReAct grammar fixed the language
(21 of 22) but broke the facts (14 → 11 of 22): made to open in Chinese, the model copied a Chinese line
instead of the right English one. So the agent lets the model answer as it reads and, only when the
answer's script is not the question's, asks it to translate that answer in one short call (the answer
alone, about 60 prompt tokens, no passages to copy from), constrained to the script when the backend can;
the answer's citations are kept (``keep_citations``), and a translation that changed a number, a code or
a product's name is thrown away (``keeps_facts``): the answer stays as the model wrote it.

Deliberately left out: languages beyond Chinese and scripts without Chinese characters (the course's
knowledge base is bilingual); Japanese (kana) and questions that ask for Chinese are left as answered.

    >>> answer_script("Tessel T4 的水箱容量是多少？"), answer_script("How big is the tank?")
    ('han', 'no-han')
    >>> needs_translation("2 years [t4-specs:1]", "han"), needs_translation("两年 [t4-specs:1]", "han")
    (True, False)
"""
from __future__ import annotations

import re

from ..llm import Message

HAN = "\u3400-\u9fff"  # CJK ideographs, extension A and the unified block
_HAN = re.compile(f"[{HAN}]")
_KANA = re.compile("[\u3040-\u30ff]")
_ASKS_FOR_CHINESE = re.compile(r"chinese|mandarin|cantonese|hanzi|pinyin|kanji", re.I)
_IDS = re.compile(r"\[[^\]]*\]")  # cited passage ids are not language
NAMES = {"han": "Chinese", "no-han": "English"}
GRAMMARS = {"han": f'root ::= [{HAN}] [^\\n]* ( "\\n" [^\\n]+ )*\n',
            "no-han": f'root ::= line ( "\\n" line )*\nline ::= [^\\n{HAN}]+\n'}
SYSTEM = ("Translate the user's text into {language}. Copy numbers, units, names, codes and [ids] "
          "unchanged. Reply with the translation only.")


def han_share(text: str) -> float | None:
    """The share of ``text``'s letters that are Chinese characters, cited ``[ids]`` left out; None: no letters."""
    letters = re.findall(r"[^\W\d_]", _IDS.sub("", text or ""))
    return sum(bool(_HAN.match(ch)) for ch in letters) / len(letters) if letters else None


def answer_script(question: str) -> str | None:
    """"han" for a question mostly in Chinese characters, "no-han" for one with letters but none of
    them Chinese, None when unsure (mixed text, no letters, Japanese, or a question asking for Chinese)."""
    share = han_share(question)
    if share is None or _KANA.search(question) or _ASKS_FOR_CHINESE.search(question):
        return None
    if share == 0:
        return "no-han"
    return "han" if share >= 0.3 else None


def needs_translation(answer: str, script: str | None) -> bool:
    """Is ``answer`` in another script than ``script`` asks for? Text counts as Chinese when at least 30 % of
    its letters are Chinese characters, so an English answer naming 北京 stays as it is. No letters: never."""
    share = han_share(answer)
    if share is None or script is None:
        return False
    return (share >= 0.3) != (script == "han")


def keep_citations(answer: str, translation: str) -> str:
    """The translation with every ``[id]`` of the answer it lost put back at its end (a small model drops some).

    >>> keep_citations("2 years [t4-specs:1]", "两年")
    '两年 [t4-specs:1]'
    """
    lost = [i for i in dict.fromkeys(_IDS.findall(answer)) if i not in translation]
    return " ".join([translation.strip(), *lost])


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# a fault code or part number (E-17, QF-F120); not \b: 故障E-63 has no word boundary. rag.support uses it too
CODE = re.compile(r"(?<![A-Za-z0-9-])[A-Z]{1,3}-[A-Z]?\d+(?![A-Za-z0-9])")


# a product's name: a capitalised word right before a model number ("Tessel T4", "Mini M1"); the 0.5B model
# translated "Tessel" by its meaning (四面体), a wrong fact. Other names may be transliterated, so not checked
PRODUCT = re.compile(r"(?<![A-Za-z])[A-Z][a-z]{2,}(?= [A-Z]{1,3}-?\d)")


def keeps_facts(answer: str, translation: str) -> bool:
    """Does the translation keep the answer's codes, product names and numbers of two or more characters
    (one-digit numbers may turn into 两, 三...)? If not, the agent keeps the answer untranslated: a fact over a
    language.

    >>> keeps_facts("Mainboard: 1150 元, E-63", "主板 1150 元，E-63"), keeps_facts("1150 元", "115 元")
    (True, False)
    >>> keeps_facts("Tessel T4: 2.6 L", "Tessel T4：2.6 升"), keeps_facts("Tessel T4: 2.6 L", "四面体 T4：2.6 升")
    (True, False)
    """
    def numbers(text: str) -> list[str]:
        return sorted(n for n in _NUMBER.findall(_IDS.sub("", text)) if len(n) > 1)
    return (numbers(answer) == numbers(translation) and set(CODE.findall(answer)) <= set(CODE.findall(translation))
            and all(name in translation for name in PRODUCT.findall(answer)))


def translation_messages(answer: str, script: str) -> list[Message]:
    """The whole prompt of the translation call: an instruction and the answer, nothing else."""
    return [Message("system", SYSTEM.format(language=NAMES[script])), Message("user", answer)]
