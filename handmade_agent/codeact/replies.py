"""Reading a code-as-action reply, writing a program step back into the chat, and the step's grammar.

``read_code_reply(text)`` finds what a reply asks for: a program (the first ```python block, ``fences.py``) or a
final answer, whichever comes first, with the ``Thought:`` line before it; a reply with neither is a problem,
whose feedback restates the format. ``ProgramStep`` is a ``Step`` whose ``to_messages`` shows an action the
way this protocol writes it: the thought and the program, then ``Observation:`` and what the program printed
(kept in ``feedback``; the real tool calls are its ``tool_uses``). ``code_grammar()`` is GBNF for one step::

    Thought: <one line>
    ```python
    <lines, none starting with a backtick>
    ```

or ``Thought: <one line>`` then ``Final Answer: <text>``; ``code_grammar(answer_only=True)`` allows only the
second. The grammar ends at the closing fence, so a constrained model cannot write an observation; unconstrained,
``STOP`` cuts the reply there.

Deliberately left out: the grammar of the Python subset itself (the interpreter refuses what it cannot run,
with a message the model reads), and repairing a reply (a broken one is sent back once per step).

    >>> read_code_reply("Thought: add\\n```python\\nprint(1 + 1)\\n```").code
    'print(1 + 1)'
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from ..agent import Step
from ..llm import Message
from .fences import FENCE, extract_code
from .prompt import FORMAT, program_text

# "\n```\n" ends a program written unconstrained: what follows would be the model's own made-up observation
STOP = ["Observation:", "\n```\n"]
_FINAL = re.compile(r"^[ \t]*\**final answer\**[ \t]*[:：][ \t]*", re.I | re.M)
_THOUGHT = re.compile(r"^[ \t]*\**thought\**[ \t]*[:：][ \t]*(.*)$", re.I | re.M)
NO_STEP = "The reply has neither a ```python block nor a Final Answer."
EMPTY_ANSWER = "The Final Answer is empty."

_THOUGHT_RULES = ['thought ::= [^\\n]{1,200}', 'line ::= [^\\n]+', 'final ::= "Final Answer: " line ( "\\n" line )*']
# a code line is empty or starts with anything but a backtick: "```" alone can only close the block
_PROGRAM_RULES = ['program ::= "```python\\n" code "```"', 'code ::= ( [^`\\n] [^\\n]* "\\n" | "\\n" )+']


@dataclass
class CodeReply:
    text: str
    thought: str = ""
    code: str | None = None
    answer: str | None = None
    problem: str | None = None

    @property
    def feedback(self) -> str | None:
        return None if self.problem is None else f"{self.problem}\n{FORMAT}"


def read_code_reply(text: str | None) -> CodeReply:
    """What the reply ``text`` asks for: ``code`` to run, an ``answer``, or a ``problem`` (see the module doc)."""
    text = text or ""
    fence, final = text.find(FENCE), _FINAL.search(text)
    code = extract_code(text)
    first = min(i for i in (fence if code is not None else -1, final.start() if final else -1, len(text)) if i >= 0)
    thought = next((m.group(1).strip() for m in _THOUGHT.finditer(text, 0, first)), "")
    if code is not None and (final is None or fence < final.start()):
        return CodeReply(text, thought, code=code)
    if final is not None:
        answer = text[final.end():]
        answer = answer[:answer.find(FENCE)] if FENCE in answer else answer  # a program after the answer is dropped
        answer = answer.strip()
        return CodeReply(text, thought, answer=answer) if answer else CodeReply(text, thought, problem=EMPTY_ANSWER)
    return CodeReply(text, thought, problem=NO_STEP)


class ProgramStep(Step):
    """An action step of a ``CodeAgent``: its reply held a program (``tool_uses``: the calls it made; ``feedback``:
    the observation). Saved and read back (``Step.from_dict``) it is a plain ``Step`` again."""

    @property
    def observation(self) -> str | None:
        return self.feedback if self.kind == "action" else super().observation

    def to_messages(self, earlier_results: Sequence[str] = ()) -> list[Message]:
        if self.kind != "action":
            return super().to_messages(earlier_results)
        code = extract_code(self.reply) or ""
        return [Message("assistant", program_text(self.thought, code)),
                Message("user", f"Observation: {self.feedback or ''}")]


@lru_cache(maxsize=2)
def code_grammar(answer_only: bool = False) -> str:
    """GBNF for one step: a thought, then a fenced program or a final answer (only the answer with ``answer_only``)."""
    if answer_only:
        return "\n".join(['root ::= "Thought: " thought "\\n" final', *_THOUGHT_RULES]) + "\n"
    return "\n".join(['root ::= "Thought: " thought "\\n" ( program | final )', *_PROGRAM_RULES,
                      *_THOUGHT_RULES]) + "\n"
