"""Does an answer that compares two things name the right one? The ``compare`` part of a checker.

A spec is ``{"aspect": "warm", "more": ["北京", "Beijing"], "less": ["上海", "Shanghai"]}``: the
``more`` side is the warmer (more humid, likelier to rain). Each sentence is searched for a
comparative of the aspect ("warmer", "colder", "更热", "A比B冷"); its subject is the name nearest
before it (for 比, the name before 比), else the first name after it ("warmer in 北京 than ...").
The answer passes if some comparative names the right side and none names the wrong one. Two
forecasts pasted one after the other hold no comparative at all, so they fail: that is the point.

Deliberately left out: negation ("not warmer") and comparisons split over two sentences.

    >>> compare_ok("北京比上海热。", {"aspect": "warm", "more": ["北京"], "less": ["上海"]})
    True
"""
from __future__ import annotations

import re

# per aspect: words saying "more", words saying "less", and the characters that end a Chinese 比 comparison
ASPECTS: dict[str, tuple[tuple[str, ...], tuple[str, ...], str, str]] = {
    "warm": (("warmer", "hotter", "higher", "更热", "更暖", "更高", "较热", "较暖", "较高", "热一些", "暖和一些", "高一些"),
             ("colder", "cooler", "lower", "更冷", "更凉", "更低", "较冷", "较凉", "较低", "冷一些", "凉一些", "低一些"),
             "热暖高", "冷凉低"),
    "humid": (("more humid", "higher humidity", "humidity is higher", "wetter", "higher", "更潮湿", "更湿", "湿度更高",
               "湿度较高", "更高"),
              ("less humid", "lower humidity", "humidity is lower", "drier", "lower", "更干燥", "更干", "湿度更低",
               "湿度较低", "更低"),
              "湿高", "干低"),
    "rain": (("more likely", "higher chance", "rainier", "wetter", "higher", "更可能", "更容易", "可能性更大", "概率更高",
              "更高", "更大"),
             ("less likely", "lower chance", "drier", "lower", "可能性更小", "概率更低", "更低", "更小"),
             "大高", "小低"),
}
ASPECT_NAMES = tuple(ASPECTS)
# 最高气温 (the high) names a figure and compares nothing: "比上海的最高气温低" must not read as 比…高
_NOT_COMPARATIVE = re.compile(r"最高|最低")
_SENTENCE = re.compile(r"(?<!\d)\.(?!\d)|[。!?！？;；\n]")


def _names(sentence: str, spec: dict) -> list[tuple[int, int, str]]:
    """(start, end, side) of every mention of either side in ``sentence``."""
    found = []
    for side in ("more", "less"):
        for name in spec[side]:
            found += [(m.start(), m.end(), side) for m in re.finditer(re.escape(name.lower()), sentence)]
    return sorted(found)


def _subject(sentence: str, names: list[tuple[int, int, str]], at: int, end: int | None) -> str | None:
    """The side named nearest before ``at`` (skipping a name right after 比: in "A比B更热" A is the
    subject), else, unless ``end`` is None, the side named first after ``end``."""
    before = [(start, side) for start, stop, side in names if stop <= at]
    while before and sentence[:before[-1][0]].rstrip().endswith("比"):
        before.pop()
    after = [side for start, stop, side in names if end is not None and start >= end]
    return before[-1][1] if before else (after[0] if after else None)


def claims(answer: str, spec: dict) -> list[str]:
    """The side named the winner by each comparative in ``answer`` ("more" is right, "less" wrong)."""
    more, less, more_zh, less_zh = ASPECTS[spec["aspect"]]
    out = []
    for sentence in _SENTENCE.split(re.sub(r"[(（][^()（）]*[)）]", " ", answer.lower())):
        sentence = _NOT_COMPARATIVE.sub("  ", sentence)  # same length: positions stay those of the answer
        names = _names(sentence, spec)
        for m in re.finditer(rf"比[^，,]{{0,12}}?([{more_zh}{less_zh}])", sentence):
            subject = _subject(sentence, names, m.start(), None)
            if subject:  # A比B冷: A is the colder one
                out.append(subject if m.group(1) in more_zh else _other(subject))
            sentence = sentence[:m.start()] + " " * (m.end() - m.start()) + sentence[m.end():]
        for words, flip in ((more, False), (less, True)):
            for word in words:
                for m in re.finditer(re.escape(word), sentence):
                    subject = _subject(sentence, names, m.start(), m.end())
                    if subject:
                        out.append(_other(subject) if flip else subject)
                    sentence = sentence[:m.start()] + " " * len(word) + sentence[m.end():]
    return out


def _other(side: str) -> str:
    return "less" if side == "more" else "more"


def compare_ok(answer: str, spec: dict) -> bool:
    """Some comparative names the ``more`` side the winner, and none names the ``less`` side."""
    found = claims(answer, spec)
    return "more" in found and "less" not in found
