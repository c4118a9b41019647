"""The answer in the question's language: which script a question wants, and a policy that translates.

A 0.5B model answers by copying. Asked in Chinese about an English passage it answers in English;
measured on the 22 KB tasks (benchmarks/kb_tasks.py), 11 answers were in the wrong language. Holding
the answer's first character to the question's script with the ReAct grammar fixed the language
(21 of 22) but broke the facts (14 → 11 of 22): made to open in Chinese, the model copied a Chinese line
instead of the right English one. So the model answers as it reads and, only when the answer's script
is not the question's, ``translate_answer`` asks it to translate that answer in one short call (the
answer and one worked pair, about 115 prompt tokens besides the answer's own, no passages to copy from), constrained to the script when the
backend can; the answer's citations are kept (``keep_citations``), and a translation that changed a
number, a code or a named model is thrown away (``keeps_facts``): the answer stays as the model wrote it.

On the 1.5B (benchmarks/kb_tasks.py, 2026-12-07, one run each) the call's grammar had held the translation to
open with a Chinese character, so it translated the code or name an answer opens with ("E-63" became 六号三号)
and ``keeps_facts`` threw 4 of 4 translations away. Now the grammar wants one Chinese character anywhere, one
worked pair shows codes, names and ids kept, and a translation is kept when it moved toward the question's
script (``toward``): language-correct 15 -> 18 of 22, fact-correct 14 -> 14; with the two guards that followed
(``in_proportion``, no words outside addresses and codes in ``needs_translation``) 18 and 15 (the one fact: noise).

``translate_answer`` is an answer policy (``agent/policies.py``): the agent runs it only when given it,
``Agent(llm, tools, answer_policies=[translate_answer])``; the evaluation suite and benchmarks/kb_tasks.py do.

Deliberately left out: languages beyond Chinese and scripts without Chinese characters (the course's
knowledge base is bilingual); Japanese (kana) and questions that ask for Chinese are left as answered.

    >>> answer_script("这台设备的水箱容量是多少？"), answer_script("How big is the tank?")
    ('han', 'no-han')
    >>> needs_translation("2 years [specs:1]", "han"), needs_translation("两年 [specs:1]", "han")
    (True, False)
"""
from __future__ import annotations

import re
from typing import Any

from ..llm import Message

HAN = "\u3400-\u9fff"  # CJK ideographs, extension A and the unified block
_HAN = re.compile(f"[{HAN}]")
_KANA = re.compile("[\u3040-\u30ff]")
_ASKS_FOR_CHINESE = re.compile(r"chinese|mandarin|cantonese|hanzi|pinyin|kanji", re.I)
# cited passage ids are not language. No "[" inside: each try stops at the next "[", so a text of a
# hundred thousand "[" is scanned once, not once per bracket (measured 3.5-9.5 s with [^\]]*)
_IDS = re.compile(r"\[[^\[\]]*\]")
NAMES = {"han": "Chinese", "no-han": "English"}
# Chinese: at least one Chinese character, anywhere. Held to open with one (the earlier rule), the 1.5B
# translated the code or the name an answer opens with: "E-63" became 六号三号, "Tessel" 泰塞尔, "AF-10" 阿法
GRAMMARS = {"han": f'root ::= [^\\n{HAN}]* [{HAN}] [^\\n]* ( "\\n" [^\\n]+ )*\n',
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
    its letters are Chinese characters, so an English answer naming 北京 stays as it is. No letters outside
    e-mail addresses, web addresses and codes: never (held to write Chinese, the 1.5B turned the bare address
    "careers-cn@quillfern.example." into "careers-cn@quillfern.example。//在")."""
    share = han_share(_NOT_WORDS.sub(" ", answer or ""))
    if share is None or script is None:
        return False
    return (share >= 0.3) != (script == "han")


def toward(script: str, answer: str, translation: str) -> bool:
    """Has the translation more of ``script`` than the answer had? Not "is it all in that script": a Chinese
    sentence around a long English name or an e-mail address ("公司的 CEO 是 Aino Varjola") is still the better
    answer to a Chinese question.

    >>> toward("han", "The CEO is Aino Varjola.", "CEO 是 Aino Varjola。"), toward("han", "2 years", "2 years")
    (True, False)
    """
    before, after = han_share(answer) or 0.0, han_share(translation) or 0.0
    return after > before if script == "han" else after < before


def in_proportion(script: str, answer: str, translation: str) -> bool:
    """Is the translation about as long as the answer? Chinese takes fewer characters than English, English up
    to about four times as many. A longer one says something else: asked to translate "86 °F", the 1.5B added a
    paragraph about the worked pair's "Brookline B2" (notebook 08, native tool calls).

    >>> in_proportion("han", "86 °F", "86 °F。"), in_proportion("han", "86 °F", "86 °F。在翻译过程中，我注意到 B2 的缩写……")
    (True, False)
    """
    n = len(_IDS.sub("", answer))
    return len(_IDS.sub("", translation)) <= (1.5 * n + 10 if script == "han" else 4 * n + 20)


def keep_citations(answer: str, translation: str) -> str:
    """The translation with every ``[id]`` of the answer it lost put back at its end (a small model drops some).

    >>> keep_citations("2 years [specs:1]", "两年")
    '两年 [specs:1]'
    """
    kept = set(_IDS.findall(translation))
    lost = [i for i in dict.fromkeys(_IDS.findall(answer)) if i not in kept]
    return " ".join([translation.strip(), *lost])


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# a code or model number: a capital letter, capitals and hyphens, a digit, then capitals, digits, hyphens
# (E-63, QF-F120, X2); not \b: 故障E-63 has no word boundary. No digit before the first one, so one try is linear
CODE = re.compile(r"(?<![A-Za-z0-9-])[A-Z][A-Z-]*\d[A-Z0-9-]*(?![A-Za-z0-9])")
# letters that are no language: e-mail and web addresses, codes. An address starts where a run of its characters
# starts (the lookbehind), so a long text without "@" is scanned once, not once per character
_NOT_WORDS = re.compile(r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+|https?://\S+|" + CODE.pattern)
# a capitalised word right before a model number is a name ("Orion X2"): the 0.5B model translated such a name
# by its meaning, a wrong fact. Other names may be transliterated, so they are not checked
NAMED_MODEL = re.compile(r"(?<![A-Za-z])[A-Z][a-z]{2,}(?= [A-Z]{1,3}-?\d)")


def keeps_facts(answer: str, translation: str) -> bool:
    """Does the translation keep the answer's codes, named models and numbers of two or more characters
    (one-digit numbers may turn into 两, 三...)? If not, the agent keeps the answer untranslated: a fact over a
    language.

    >>> keeps_facts("Mainboard: 1150 元, E-63", "主板 1150 元，E-63"), keeps_facts("1150 元", "115 元")
    (True, False)
    >>> keeps_facts("Orion X2: 2.6 L", "Orion X2：2.6 升"), keeps_facts("Orion X2: 2.6 L", "猎户座 X2：2.6 升")
    (True, False)
    """
    def numbers(text: str) -> list[str]:
        return sorted(n for n in _NUMBER.findall(_IDS.sub("", text)) if len(n) > 1)
    return (numbers(answer) == numbers(translation) and set(CODE.findall(answer)) <= set(CODE.findall(translation))
            and all(name in translation for name in NAMED_MODEL.findall(answer)))


# one worked pair per direction, about invented products: it shows a code, a name and an id kept as written
_PAIR = ("The Brookline B2's tank holds 1.5 L; fault W-12 means the pump is blocked [b2:3].",
         "Brookline B2 的水箱容量为 1.5 L；故障 W-12 表示水泵堵塞 [b2:3]。")
EXAMPLES = {"han": _PAIR, "no-han": _PAIR[::-1]}


def translation_messages(answer: str, script: str) -> list[Message]:
    """The whole prompt of the translation call: an instruction, one worked pair and the answer; no passages."""
    source, target = EXAMPLES[script]
    return [Message("system", SYSTEM.format(language=NAMES[script])), Message("user", source),
            Message("assistant", target), Message("user", answer)]


def translate_answer(context: Any, answer: str) -> str:
    """An answer policy: ``answer`` in the script of ``context.question``, translated by one model call
    (``context.ask``, purpose "translate") when it is not. A failed translation, or one that changed a fact, keeps
    the answer; citations the translation lost are put back."""
    script = answer_script(context.question)
    if not needs_translation(answer, script):
        return answer
    extra = {"grammar": GRAMMARS[script]} if context.constrained else {}
    c = context.ask(translation_messages(answer, script), purpose="translate", **extra)
    ok = (c is not None and bool((c.text or "").strip()) and toward(script, answer, c.text)
          and in_proportion(script, answer, c.text) and keeps_facts(answer, c.text))
    return keep_citations(answer, c.text) if ok else answer
