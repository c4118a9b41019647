"""The code-as-action prompt: the step format, the rules of a program, the tools as signatures, worked examples.

``code_prompt_messages(tools, question=...)`` is what a ``CodeAgent`` sends before the question: one system message
(what a step is, the rules, one line per tool: ``Tool.signature()`` and the first sentence of its description),
then the worked examples chosen for the question (``examples.py``) as the chat turns of real runs, the tool
example last, next to the question. ``program_text`` writes a step the way the model should write it again;
what it sees after a program is ``Observation:`` and what the program printed. With the toolbox the prompt is
about 645 tokens (the ReAct prompt: 770 on average over the suite's questions, 910 for a comparison).

Deliberately left out: explaining the whole language (the interpreter's errors say what is not allowed, and
where) and the rest of a tool's description (its first sentence only: every word is prefilled).

    >>> print(program_text("Look it up.", 'print(get_weather(city="Dali"))'))
    Thought: Look it up.
    ```python
    print(get_weather(city="Dali"))
    ```
"""
from __future__ import annotations

from typing import Any, Iterable

from ..llm import Message
from ..react import first_sentence
from .examples import GENERIC_TOOL, CodeExample, chosen_examples

TEACHING = "You answer questions with tools, which you call from small Python programs."
FORMAT = """Reply with exactly one step:
Thought: <one line: what to do next>
```python
<a program that calls tools and prints what you need>
```
or, when you know the answer:
Thought: <why you are done>
Final Answer: <the answer>"""
# only what the examples cannot show; "never invent a fact" took refusals from 1/6 to 2/6 (examples.py)
RULES = ("Rules: call tools by keyword (name=value); they return text or a number. You see only what the program "
         "prints, as 'Observation: ...', and its variables are gone after it: print every result you need. No "
         "import, def, class, while or try. Use a tool for every fact and calculation. If no tool fits, give the "
         "Final Answer at once: general knowledge if it is, else say that you cannot answer; never invent a fact. "
         "The Final Answer answers the whole question: compare when asked to compare (and name both values), "
         "convert when asked to convert.")
GENERIC_NOTE = f"The examples use a tool you do not have: {GENERIC_TOOL}."


def program_text(thought: str, code: str) -> str:
    """A program step exactly as the model should write it."""
    return (f"Thought: {thought}\n" if thought else "") + f"```python\n{code}\n```"


def answer_text(thought: str, answer: str) -> str:
    return (f"Thought: {thought}\n" if thought else "") + f"Final Answer: {answer}"


def example_messages(example: CodeExample) -> list[Message]:
    """One example as the chat turns of a real run."""
    messages = [Message("user", example.question)]
    for p in example.programs:
        messages += [Message("assistant", program_text(p.thought, p.code)),
                     Message("user", f"Observation: {p.observation}")]
    return messages + [Message("assistant", answer_text(example.thought, example.answer))]


def tool_lines(tools: Iterable[Any]) -> str:
    """One line per tool: its Python-like signature and the first sentence of its description."""
    lines = [f"- {t.signature()}: {first_sentence(t.description)}" for t in tools]
    return "Your tools (use only these):\n" + ("\n".join(lines) or "(none: give the Final Answer)")


def code_prompt_messages(tools: Iterable[Any], few_shot: bool = True, question: str | None = None) -> list[Message]:
    """The system message (format, rules, tools) and, with ``few_shot``, the worked examples as chat turns."""
    tools = list(tools or [])
    examples, generic = chosen_examples(tools, question) if few_shot else ([], False)
    system = "\n\n".join([TEACHING, FORMAT, RULES, *([GENERIC_NOTE] if generic else []), tool_lines(tools)])
    return [Message("system", system), *[m for e in examples for m in example_messages(e)]]
