"""Find the ReAct labels in a model reply, however the model decorated them.

A label starts a line: ``Thought:``, ``Action:``, ``Action Input:``,
``Final Answer:``, ``Observation:`` in any case, with extra spaces, a
full-width colon (``：``), markdown (``**Action:**``, ``### Action``, ``- ``),
a number (``Thought 1:``) or in Chinese (思考 / 行动 / 行动输入 / 最终答案 /
观察). ``split_blocks`` cuts a reply into labelled blocks; deciding what they
mean is ``react.parse``'s job.

Deliberately left out: labels in the middle of a sentence, except the exact
capitalised English ones a model sometimes runs together on one line.

    >>> [(b.label, b.text) for b in split_blocks("**Thought：** hmm\\nFinal Answer: 42")]
    [('thought', 'hmm'), ('final', '42')]
"""
from __future__ import annotations

import re
from dataclasses import dataclass

LABELS: dict[str, str] = {  # order matters: longer names first inside each alternative
    "action_input": r"action[ \t_-]*input|action[ \t_-]*arguments|action[ \t_-]*args|tool[ \t_-]*input|arguments"
                    r"|args|input|行动输入|动作输入|工具输入|输入|参数",
    "action": r"action|tool|行动|动作|工具",
    "final": r"final[ \t_-]*answer|final|answer|最终答案|最终回答|答案|回答",
    "thought": r"thoughts?|thinking|reasoning|思考|想法|思路",
    "observation": r"observations?|观察结果|观察|观测",
}
_NAMES = "|".join(f"(?P<{k}>{v})" for k, v in LABELS.items())
# Every run of blanks is possessive (``*+``): two optional groups side by side could otherwise split a
# line of 8,000 spaces in n² ways before failing (18 s). Nothing after a blank run can start with a blank,
# so giving the blanks up never helped a match.
_LINE = re.compile(
    r"^[ \t]*+(?P<prefix>#{1,6}[ \t]*+|>[ \t]*+|[-+•][ \t]++|\*[ \t]++|\d++[.)][ \t]++)?"
    r"(?P<open>[*_`]{0,3})[ \t]*+(?:" + _NAMES + r")[ \t]*+(?:\d++)?[ \t]*+(?P<close>[*_`]{0,3})[ \t]*+"
    r"(?P<colon>[:：])?[ \t]*+(?P<after>[*_`]{0,3})[ \t]*+(?P<rest>.*)$",
    re.I,
)
# Labels run together on one line ("... Action: calculator Action Input: {...}"): exact spelling only.
_INLINE = re.compile(r"(?<=\S)[ \t]++(?=(?:Action Input|Action|Final Answer|Observation)[ \t]*[:：])")
_WORD = re.compile(r"\w")
_OPEN, _CLOSE = re.compile(r"<think>", re.I), re.compile(r"</think>", re.I)
MAX_REPLY_CHARS = 100_000  # far beyond any reply a step needs; longer text is refused, not scanned
MAX_BLOCKS = 100  # labelled blocks read from one reply
_LOOKBACK = 200  # how far back a run-on label looks for words on its line (bounded: one long line stays linear)


@dataclass
class Block:
    """One labelled part of a reply; ``label`` is "" for text before the first label."""
    label: str
    text: str


def drop_thinking(text: str) -> str:
    """Remove ``<think>…</think>`` blocks; an unclosed ``<think>`` hides everything after it."""
    text = _drop_closed_thinking(text)
    closes = [m.end() for m in _CLOSE.finditer(text)]
    if closes:  # opening tag was in the prompt, closing one in the reply
        text = text[closes[-1]:]
    opened = _OPEN.search(text)
    return text[:opened.start()] if opened else text


def _drop_closed_thinking(text: str) -> str:
    """Remove each ``<think>…</think>`` pair in one left-to-right pass.

    A regex ``<think>.*?</think>`` rescans to the end of the text from every unclosed ``<think>``
    (20,000 of them took 14 s); searching forward from the last pair looks at each character once.
    """
    out, pos = [], 0
    while (start := _OPEN.search(text, pos)) and (end := _CLOSE.search(text, start.end())):
        out.append(text[pos:start.start()])
        pos = end.end()
    return "".join(out) + text[pos:]


def match_label(line: str) -> tuple[str, str] | None:
    """(label, text after it) if ``line`` starts with a label, else None."""
    m = _LINE.match(line)
    if not m:
        return None
    label = next(k for k in LABELS if m.group(k))
    rest = m.group("rest").strip()
    if not m.group("colon"):
        # Without a colon only a heading or a bold line holding just the label counts ("### Action").
        heading = (m.group("prefix") or "").startswith("#")
        bold = bool(m.group("open")) and bool(m.group("close"))
        if rest or m.group("after") or not (heading or bold):
            return None
    if m.group("open") and not m.group("close") and not m.group("after"):
        rest = rest.rstrip("*_`").rstrip()  # "**Final Answer: 42**": the bold closes at the end
    return label, rest


def _split_run_on(m: re.Match) -> str:
    """A newline before a run-on label, unless only a bullet or heading mark precedes it on its line."""
    window_start = max(0, m.start() - _LOOKBACK)
    line_start = max(m.string.rfind("\n", window_start, m.start()) + 1, window_start)
    return "\n" if _WORD.search(m.string, line_start, m.start()) else m.group()


def split_blocks(text: str) -> list[Block]:
    """Cut ``text`` into blocks at label lines; the first block may be unlabelled preamble."""
    blocks = [Block("", "")]
    lines: list[str] = []
    # one step needs a handful of labels; past MAX_BLOCKS the rest is text (and per-label work stays bounded)
    for line in _INLINE.sub(_split_run_on, text, count=MAX_BLOCKS).splitlines():
        found = match_label(line) if len(blocks) <= MAX_BLOCKS else None
        if found is None:
            lines.append(line)
            continue
        blocks[-1].text = "\n".join(lines).strip()
        blocks.append(Block(*found))
        lines = [found[1]]
    blocks[-1].text = "\n".join(lines).strip()
    return blocks if blocks[0].text else blocks[1:]
