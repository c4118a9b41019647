"""Is an answer right, and was the way to it sound? Checks by code, from a task's ``checker`` spec.

``in_question_language(answer, question)`` says apart whether the answer is in the question's
script, which ``check_answer`` does not ask (a fact counts in either language).
``check_answer(answer, checker)``: every number of ``numbers`` appears as a whole number (within
``tolerance``, 0.05 by default; with ``unit``, written with one of its spellings, before or after it),
every text of ``all`` appears, one text of ``any`` appears, no text of ``none`` appears (a text that
starts or ends with a digit matches whole numbers only: "3 months" is not in "13 months"), ``compare``
names the right winner (``comparison.py``), and with ``refuse`` the answer is a refusal (``refused``)
that states no number beyond ``allowed_numbers`` (a date is not a claim). No answer passes that is a
tool's error text (``tool_error_text``), whatever it happens to contain. Numbers are read after NFKC
(full-width digits and commas become ASCII), thousands separators (``1,250`` and ``1，250``) and 零下
(below zero). The trajectory checks read a ``RunResult``.

Deliberately left out: judging prose with a model (a check here is code, so it gives the same
verdict every run), negations ("not warmer") inside a comparison, a tool error the model retold in
its own words, and a claim made in the same clause as a refusal ("I cannot check, it is on time").

    >>> check_answer("The tip is 15.48 dollars.", {"numbers": [15.48]})
    True
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter
from typing import Any, Iterable

from ..agent import RunResult, ToolUse, copies_tool_error
from ..rag import answer_script, needs_translation
from ..planning import refused
from .comparison import compare_ok

# what a task's checker may hold; "tools" is the trajectory's expectation, not read by check_answer
CHECKER_KEYS = ("numbers", "tolerance", "unit", "all", "any", "none", "compare", "refuse", "allowed_numbers", "tools")
TOLERANCE = 0.05
# the number pattern keeps "14-27 °C" as 14 and 27: a minus sign right after a digit is a range's dash
_NUMBER = re.compile(r"(?<![\d.])-?\d+(?:\.\d+)?")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_DATE_SPACES = re.compile(r"(?<=\d)\s+(?=[年月日号])|(?<=[年月])\s+(?=\d)")
_DATE = re.compile(r"\d{4}\s*[-/.年]\s*\d{1,2}\s*[-/.月]\s*\d{1,2}\s*日?")
# the rest of a range a number begins ("24-30 °C", "24 to 30 °C"): the unit after it is the first number's too
_RANGE_TAIL = re.compile(r"\s*(?:-|–|—|~|to|至|到)\s*-?\d+(?:\.\d+)?")
def normalized(text: str | None) -> str:
    """``text`` with full-width forms made ASCII, thousands separators dropped, 零下 as a minus sign and no spaces
    inside a Chinese date."""
    text = unicodedata.normalize("NFKC", text or "").replace("−", "-")
    text = _DATE_SPACES.sub("", text)  # "2024 年 8 月 28 日" is written 2024年8月28日 in a checker
    return re.sub(r"零下\s*", "-", _THOUSANDS.sub("", text))


def numbers_in(text: str | None) -> list[float]:
    """Every number written in ``text``: ``numbers_in("14-27 °C, 1，250 元")`` is ``[14.0, 27.0, 1250.0]``."""
    return [float(x) for x in _NUMBER.findall(normalized(text))]


def tool_error_text(answer: str | None, errors: Iterable[str] = ()) -> bool:
    """Is the answer a tool's error message (``agent.copies_tool_error``: a line labelled "Error:"/"错误：", or the
    head of one of ``errors``, the run's failed tool results, copied without its label)?

    >>> tool_error_text("Error: calculator: unknown name '北京'"), tool_error_text("a calibration error: recalibrate")
    (True, False)
    """
    return copies_tool_error(normalized(answer), errors)


def claims_no_number(answer: str | None, allowed: list[float]) -> bool:
    """No number in the answer but the ``allowed`` ones (a refusal may repeat the question's) and dates."""
    found = numbers_in(_DATE.sub(" ", normalized(answer)))
    return all(any(abs(x - a) <= TOLERANCE for a in allowed) for x in found)


def has_quantity(text: str, value: float, tolerance: float = TOLERANCE, units: Iterable[str] = ()) -> bool:
    """Is ``value`` written in ``text`` (``normalized``, lower case) as a whole number, within ``tolerance``, and
    with one of ``units`` (lower case) if any are given: 30 is not in "304.15", nor "30 °C" in "30 °F"."""
    units = list(units)
    return any(abs(float(m.group()) - value) <= tolerance and (not units or _with_unit(text, m, units))
               for m in _NUMBER.finditer(text))


def _with_unit(text: str, number: re.Match, units: list[str]) -> bool:
    """Is a unit written right after the number (or after the range it begins), or a symbol right before it ("$30")?"""
    tail = _RANGE_TAIL.match(text, number.end())
    after, before = text[tail.end() if tail else number.end():].lstrip(), text[:number.start()].rstrip()
    # "41 dBm" is not 41 dB; a unit spelled with letters before the number would be the previous figure's
    return any((after.startswith(u) and not (u[-1].isascii() and u[-1].isalpha() and after[len(u):][:1].isalpha()))
               or (not re.search(r"\w", u) and before.endswith(u)) for u in units)


def has_text(text: str, word: str) -> bool:
    """Is ``word`` in ``text`` (both ``normalized``, lower case)? A figure at either end of ``word`` matches whole
    numbers only: "3 months" is not in "13 months", "30" not in "304.15"."""
    pattern = (r"(?<!\d)(?<!\d\.)" if word[:1].isdigit() else "") + re.escape(word)
    return re.search(pattern + (r"(?!\.?\d)" if word[-1:].isdigit() else ""), text) is not None


def checker_units(checker: dict[str, Any]) -> list[str]:
    """The spellings of the checker's ``unit`` (one string or a list), normalized and in lower case."""
    unit = checker.get("unit", [])
    return [normalized(u).lower().strip() for u in ([unit] if isinstance(unit, str) else unit)]


def check_answer(answer: str | None, checker: dict[str, Any], tool_errors: Iterable[str] = ()) -> bool:
    """Does ``answer`` pass every part of ``checker`` (see the module docstring)? None never passes, nor does a tool's
    error text (``tool_errors``: the run's failed tool results, to catch one copied without its "Error:" label)."""
    if answer is None or not answer.strip() or tool_error_text(answer, tool_errors):
        return False
    text, units = normalized(answer).lower(), checker_units(checker)
    tolerance = float(checker.get("tolerance", TOLERANCE))
    if checker.get("refuse") and not (refused(answer) and claims_no_number(answer, checker.get("allowed_numbers", []))):
        return False
    words = {key: [normalized(w).lower() for w in checker.get(key, [])] for key in ("all", "any", "none")}
    return (all(has_quantity(text, n, tolerance, units) for n in checker.get("numbers", []))
            and all(has_text(text, w) for w in words["all"])
            and (not words["any"] or any(has_text(text, w) for w in words["any"]))
            and not any(has_text(text, w) for w in words["none"])
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

def tool_uses(result: RunResult) -> list[ToolUse]:
    """Every tool call of the run, and of the subagents' runs it made (chapter 11), each after the call that ran it."""
    return [x for s in result.steps for u in s.tool_uses for x in [u, *(y for c in u.children for y in tool_uses(c))]]


def failed_results(result: RunResult) -> list[str]:
    """What each failed tool call of the run (or of its subagents) showed the model (the registry's "Error: …"
    texts): ``check_answer``'s ``tool_errors``."""
    return [u.observation for u in tool_uses(result) if not u.ok]


def tools_called(result: RunResult) -> list[str]:
    """The tools that ran and returned a result, in order (failed calls and warned repeats left out); a
    subagent's tools follow the call that ran it."""
    return [u.tool for u in tool_uses(result) if u.ok]


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
