"""The ReAct protocol's reader: ``parse(reply) -> Action | FinalAnswer``, or ``FormatError``.

A reply is read as ONE step. The first decisive label wins: ``Action:``
(with its ``Action Input:``) or ``Final Answer:``; whatever follows is
discarded, and so is everything from an invented ``Observation:`` on.
Labels may be decorated (see ``labels.py``); actions may be written as
``name``, ``name(key=value)``, ``name {json}``, a JSON object
(``{"action": ..., "action_input": ...}`` / ``{"name": ..., "arguments": ...}``),
or a ``<tool_call>`` block (read by ``actions.py``); arguments may need repair (``repair.py``).
Anything unreadable or ambiguous raises ``FormatError`` whose ``feedback``
tells the model what to write instead. Nothing else is ever raised.

Deliberately left out: knowing the tools. Whether ``Action: wether`` names a
real tool is the registry's question, answered as an observation.

    >>> parse('Thought: add\\nAction: calculator\\nAction Input: {"expression": "2+3"}')
    Action(tool='calculator', input={'expression': '2+3'}, thought='add', raw='...')
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import FormatError
from .actions import NONE_WORDS, clean, fail, is_final_name, json_actions, read_action, read_input
from .repair import find_object
from .labels import MAX_REPLY_CHARS, Block, drop_thinking, split_blocks


@dataclass
class Action:
    """The model asks to run ``tool`` with ``input`` (a dict of arguments, or one plain string)."""
    tool: str
    input: dict | str
    thought: str = ""
    raw: str = field(default="", repr=False)

    def __repr__(self) -> str:  # raw can be long; the doctest shows it elided
        return f"Action(tool={self.tool!r}, input={self.input!r}, thought={self.thought!r}, raw='...')"


@dataclass
class FinalAnswer:
    """The model is done; ``answer`` is for the user."""
    answer: str
    thought: str = ""
    raw: str = field(default="", repr=False)


def _read_step(blocks: list[Block], i: int) -> tuple[Action | FinalAnswer, int]:
    """Read the action at ``blocks[i]`` with its input; return it and the index after its blocks."""
    tool, value = read_action(blocks[i].text)
    j, inputs = i + 1, []
    while j < len(blocks) and blocks[j].label == "action_input":
        inputs.append(read_input(blocks[j].text, tool))
        j += 1
    if not inputs and i > 0 and blocks[i - 1].label == "action_input":  # written in swapped order
        inputs.append(read_input(blocks[i - 1].text, tool))
    if any(x != inputs[0] for x in inputs) or (inputs and value not in (None, {}, inputs[0])):
        raise fail(f"Your reply gives two different inputs for {tool}.",
                    "Write exactly one Action Input.")
    value = inputs[0] if inputs else value
    if is_final_name(tool):
        answer = value if isinstance(value, str) else ("" if value is None else str(value))
        if not answer.strip():
            raise fail("Your Final Answer is empty.", "Write the answer after 'Final Answer:'.")
        return FinalAnswer(answer.strip()), j
    if value is None:
        raise fail(f"You wrote 'Action: {tool}' but no 'Action Input:'.",
                    f"Add the arguments as JSON on the next line, e.g. Action Input: {{...}} ({{}} if {tool} takes none).")
    return Action(tool, value), j


def _thought(blocks: list[Block]) -> str:
    parts = [clean(b.text) for b in blocks if b.label == "thought"]
    if not parts:
        parts = [clean(b.text) for b in blocks[:1] if b.label == ""]
    return "\n".join(p for p in parts if p)


def _without_json(text: str) -> str:
    found = find_object(text)
    return clean(text[:found[1]] + text[found[2]:]) if found else clean(text)


def _anywhere(text: str, blocks: list[Block]) -> Action | FinalAnswer:
    """No Action/Final Answer label: look for an action written as JSON or a <tool_call> block."""
    found = json_actions(text)
    if len({repr(f) for f in found}) > 1:
        raise fail(f"Your reply asks for {len(found)} actions at once.",
                    "Write exactly one Action and one Action Input, then stop.")
    if found:
        tool, value = found[0]
        if is_final_name(tool):
            if not str(value or "").strip():
                raise fail("Your Final Answer is empty.", "Write the answer after 'Final Answer:'.")
            return FinalAnswer(str(value).strip(), _without_json(_thought(blocks)))
        if value is None:
            raise fail(f"Your JSON action for {tool} has no arguments.",
                        'Write them as "action_input": {...}, or use Action / Action Input lines.')
        return Action(tool, value, _without_json(_thought(blocks)))
    if not text.strip():
        raise fail("Your reply was empty.")
    if any(b.label == "thought" for b in blocks):
        raise fail("Your reply has a Thought but no 'Action:' and no 'Final Answer:'.",
                    "Continue with the Action you need, or with 'Final Answer:' if you know the answer.")
    raise fail("Your reply does not follow the format: it has no 'Action:' and no 'Final Answer:' line.",
                "If you already know the answer, write it after 'Final Answer:'.")


def parse(text: str) -> Action | FinalAnswer:
    """Read one ReAct step from a model reply; raise ``FormatError`` if it is unreadable or ambiguous."""
    raw = text if isinstance(text, str) else ""
    if len(raw) > MAX_REPLY_CHARS:  # refused before any scan: no step needs this much text
        raise fail(f"Your reply is {len(raw):,} characters long; one step is a few lines.",
                   "Write one short Thought, then one Action with its Action Input, or the Final Answer.")
    body = drop_thinking(raw)
    blocks = split_blocks(body)
    cut = next((i for i, b in enumerate(blocks) if b.label == "observation"), len(blocks))
    blocks = blocks[:cut]  # an invented Observation and all that follows it are not the model's step
    for i, b in enumerate(blocks):
        if b.label == "final":
            answer = clean(b.text)
            if not answer:
                raise fail("Your Final Answer is empty.", "Write the answer after 'Final Answer:'.")
            return FinalAnswer(answer, _thought(blocks[:i]), raw)
        if b.label != "action":
            continue
        if clean(b.text).lower() in NONE_WORDS or not clean(b.text):
            if any(x.label == "action_input" for x in blocks[i + 1:i + 2]):
                raise fail("Your 'Action:' line has no tool name.", "Write for example 'Action: calculator'.")
            continue  # "Action: None" then "Final Answer: ...": there is no action
        step, j = _read_step(blocks, i)
        nxt = next((k for k in range(j, len(blocks)) if blocks[k].label in ("action", "thought", "final")), None)
        if nxt is not None and blocks[nxt].label == "action" and clean(blocks[nxt].text).lower() not in NONE_WORDS:
            try:
                other, _ = _read_step(blocks, nxt)
            except FormatError:
                other = None
            if other != step:  # the same action twice is one action; two different ones are ambiguous
                raise fail("Your reply asks for two different actions at once.",
                            "Write exactly one Action and one Action Input, then stop and wait for the Observation.")
        step.thought, step.raw = _thought(blocks[:i]), raw
        return step
    step = _anywhere("\n".join(b.text for b in blocks), blocks)
    step.raw = raw
    return step
