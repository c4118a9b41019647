"""Is an answer right, and was the way to it sound? Checks by code, from a task's ``checker`` spec.

``in_question_language(answer, question)`` says apart whether the answer is in the question's
script, which ``check_answer`` does not ask (a fact counts in either language).
``check_answer(answer, checker)``: every number of ``numbers`` appears (within ``tolerance``,
0.05 by default), every text of ``all`` appears, one text of ``any`` appears, no text of ``none``
appears, ``compare`` names the right winner (``comparison.py``), and with ``refuse`` the answer
says it cannot know and states no number beyond ``allowed_numbers`` (a date is not a claim).
Numbers are read after NFKC (full-width digits and commas become ASCII), thousands separators
(``1,250`` and ``1，250``) and 零下 (below zero). The trajectory checks read a ``RunResult``.

Deliberately left out: judging prose with a model (a check here is code, so it gives the same
verdict every run), and negations ("not warmer") inside a comparison.

    >>> check_answer("The tip is 15.48 dollars.", {"numbers": [15.48]})
    True
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter
from typing import Any

from ..agent import RunResult
from ..rag import answer_script, needs_translation
from .comparison import compare_ok

# what a task's checker may hold; "tools" is the trajectory's expectation, not read by check_answer
CHECKER_KEYS = ("numbers", "tolerance", "all", "any", "none", "compare", "refuse", "allowed_numbers", "tools")
TOLERANCE = 0.05
# the number pattern keeps "14-27 °C" as 14 and 27: a minus sign right after a digit is a range's dash
_NUMBER = re.compile(r"(?<![\d.])-?\d+(?:\.\d+)?")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_DATE = re.compile(r"\d{4}\s*[-/.年]\s*\d{1,2}\s*[-/.月]\s*\d{1,2}\s*日?")
_REFUSAL = re.compile(
    r"\b(?:cannot|can ?not|can't|can’t|could not|couldn't|unable|not able|don't know|do not know|don’t know|"
    r"no (?:tool|way|access|information|data)|(?:don't|do not|don’t) have (?:access|any|the|a tool|real-time)|"
    r"not available|no real-time)\b"
    r"|无法|不能|不知道|不清楚|没办法|没有办法|查不到|无从|没有.{0,12}(?:工具|信息|数据|权限)", re.I)


def normalized(text: str | None) -> str:
    """``text`` with full-width forms made ASCII, thousands separators dropped and 零下 as a minus sign."""
    text = unicodedata.normalize("NFKC", text or "").replace("−", "-")
    return re.sub(r"零下\s*", "-", _THOUSANDS.sub("", text))


def numbers_in(text: str | None) -> list[float]:
    """Every number written in ``text``: ``numbers_in("14-27 °C, 1，250 元")`` is ``[14.0, 27.0, 1250.0]``."""
    return [float(x) for x in _NUMBER.findall(normalized(text))]


def refused(answer: str | None) -> bool:
    """Does the answer say it cannot answer (English or Chinese)? No answer at all is not a refusal."""
    return bool(_REFUSAL.search(normalized(answer)))


def claims_no_number(answer: str | None, allowed: list[float]) -> bool:
    """No number in the answer but the ``allowed`` ones (a refusal may repeat the question's) and dates."""
    found = numbers_in(_DATE.sub(" ", normalized(answer)))
    return all(any(abs(x - a) <= TOLERANCE for a in allowed) for x in found)


def check_answer(answer: str | None, checker: dict[str, Any]) -> bool:
    """Does ``answer`` pass every part of ``checker`` (see the module docstring)? None never passes."""
    if answer is None or not answer.strip():
        return False
    text, found = normalized(answer).lower(), numbers_in(answer)
    tolerance = float(checker.get("tolerance", TOLERANCE))
    if checker.get("refuse") and not (refused(answer) and claims_no_number(answer, checker.get("allowed_numbers", []))):
        return False
    return (all(any(abs(x - n) <= tolerance for x in found) for n in checker.get("numbers", []))
            and all(normalized(w).lower() in text for w in checker.get("all", []))
            and (not checker.get("any") or any(normalized(w).lower() in text for w in checker["any"]))
            and not any(normalized(w).lower() in text for w in checker.get("none", []))
            and ("compare" not in checker or compare_ok(normalized(answer), checker["compare"])))


def in_question_language(answer: str | None, question: str) -> bool | None:
    """Is the answer in the question's script (``rag.answer_language``)? None when the question's is unclear.
    The answer checks accept a fact in either language; this says which one the asker got.

    >>> in_question_language("两年", "保修几年？"), in_question_language("2 years", "保修几年？")
    (True, False)
    """
    script = answer_script(question)
    if script is None:
        return None
    return bool(answer and answer.strip()) and not needs_translation(answer, script)


# --- the trajectory ---------------------------------------------------------------------------------

def tools_called(result: RunResult) -> list[str]:
    """The tools that ran and returned a result, in order (failed calls and warned repeats left out)."""
    return [u.tool for s in result.steps for u in s.tool_uses if u.ok]


def expected_tools_called(result: RunResult, tools: list[str]) -> bool:
    """Did every expected tool run, as often as listed, in any order (other calls allowed)?"""
    return not Counter(tools) - Counter(tools_called(result))


def no_tool_called(result: RunResult) -> bool:
    """Did the run answer without asking for any tool (not even a failed or refused call)?"""
    return not any(s.tool_uses for s in result.steps)


def invented_observation(result: RunResult) -> bool:
    """Did the model write a tool result itself: a reply line starting with "Observation:" (or 观察:)?"""
    return any(re.match(r"\s*(?:observation|观察)\s*[:：]", line, re.I)
               for s in result.steps for line in (s.reply or "").splitlines())


def trajectory_ok(result: RunResult, checker: dict[str, Any]) -> bool:
    """No invented observation, and the expected tools ran (``"tools": []``: no tool was called)."""
    if invented_observation(result):
        return False
    if "tools" not in checker:
        return True
    expected = checker["tools"]
    return no_tool_called(result) if not expected else expected_tools_called(result, expected)
