"""Does an answer refuse, and only refuse? Read by code, clause by clause, in English and Chinese.

``refused(answer)`` is true when some clause says the speaker cannot answer ("I cannot…", "抱歉，我不能…", "there is no
tool…", "无法…") and every other clause is courtesy: an apology, a pointer elsewhere ("you can check…", "建议…") or a
question. A clause that states anything else is a claim, and an answer with a claim is no refusal: "CA981 cannot be
late: it lands on time", "I can't check, but it is on time". The plan-and-execute agent reads it to see a step that
gave up, reflection to rank a retry that gave up below an answer, the evaluation suite to score refusals, and the loop
(``results_answer.py``) to keep its own answer over a second one that gives up.

Deliberately left out: a claim inside the refusing clause itself ("I cannot check, it is on time" without a "but"),
negated claims, and any language but English and Chinese.

    >>> refused("抱歉，我无法查询航班。你可以访问航空公司的网站。"), refused("I can't check, but CA981 is on time.")
    (True, False)
    >>> refused("I cannot answer this: the weather data provided is not trustworthy.")
    True
"""
from __future__ import annotations

import re
import unicodedata

# a refusal word said by someone refusing: "I cannot", "sorry, can't", "我不能"; said of something else it is a
# claim ("CA981 cannot be late")
_PERSONAL = re.compile(r"\b(?:cannot|can ?not|can't|could not|couldn't|unable|not able|not sure|don't know|do not know|"
                       r"(?:don't|do not) have|have no)\b|不能|不知道|不清楚", re.I)
_SPEAKER = re.compile(r"\b(?:i|we|sorry|unfortunately)\b|我|抱歉|对不起|很遗憾|不好意思", re.I)
# refusals that need no speaker: "there is no tool for flights", "无法查询"
_IMPERSONAL = re.compile(r"\bno (?:tool|way|access|information|data)\b|\bnot available\b|\bno real-time\b"
                         r"|\bno [\w ]{1,30} (?:is |are )?available\b|\bnone of (?:my|the|our) tools\b"
                         r"|无法|没办法|没有办法|查不到|无从|没有.{0,12}(?:工具|信息|数据|权限)"
                         r"|\b(?:data|information|results?|sources?) (?:\w+ ){0,3}(?:is|are) not (?:trustworthy|reliable)\b"
                         r"|(?:数据|信息|结果).{0,8}不可(?:信|靠)", re.I)
# an apology, and a pointer elsewhere: they belong to a refusal and claim nothing
_APOLOGY = re.compile(r"^\W*(?:(?:i'm |i am )?(?:very |so )?sorry|i apologi[sz]e|unfortunately|抱歉|对不起|很遗憾|不好意思)\W*",
                      re.I)
_POINTER = re.compile(r"^\W*(?:(?:you|they) (?:can|could|may|might|should|will)|please|try|check|consult|contact|visit|"
                      r"ask|i (?:recommend|suggest|can help|could help|would suggest)|let me know|if you|feel free|"
                      r"请|建议|您可以|你可以|可以通过|可以查看|可以联系|可以访问|如果|如需|欢迎)", re.I)
# what follows these says something of its own: "I cannot check, but CA981 is on time"
_CONTRAST = re.compile(r"\b(?:but|however|though|although|maybe|perhaps|probably)\b|不过|但是|但|然而|可是|也许", re.I)
_CLAUSE_END = re.compile(r"(?<!\d)[.:](?!\d)|[!?。！？;；\n]")


def refused(answer: str | None) -> bool:
    """Does ``answer`` refuse and claim nothing (see the module's docstring)? No answer at all is not a refusal."""
    kinds = [_clause_kind(c) for c in _clauses(unicodedata.normalize("NFKC", answer or "").replace("’", "'"))]
    return "refusal" in kinds and "claim" not in kinds


def _clauses(text: str) -> list[str]:
    """The sentences of ``text`` (each with its end mark), cut again at every "but", "不过", "maybe"…"""
    sentences, start = [], 0
    for m in _CLAUSE_END.finditer(text):
        sentences.append(text[start:m.end()])
        start = m.end()
    return [part for sentence in [*sentences, text[start:]] for part in _CONTRAST.split(sentence)]


def _clause_kind(clause: str) -> str:
    """"refusal", "courtesy" (an apology, a pointer elsewhere, a question), "empty" or "claim"."""
    if not re.search(r"\w", clause):
        return "empty"
    personal = _PERSONAL.search(clause)
    if _IMPERSONAL.search(clause) or (personal and (_SPEAKER.search(clause[:personal.start()])
                                                   or not re.search(r"\w", clause[:personal.start()]))):
        return "refusal"
    rest = _APOLOGY.sub("", clause)
    if not re.search(r"\w", rest) or _POINTER.match(rest) or clause.rstrip().endswith("?"):
        return "courtesy"
    return "claim"
