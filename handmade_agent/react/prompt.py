"""The ReAct prompt: tools, the exact reply format, worked examples, and how results are shown.

``prompt_messages(registry)`` is what the agent sends: a system message with the
format (``Thought`` / ``Action`` / ``Action Input``, or ``Thought`` / ``Final Answer``)
and the rules; worked examples as chat turns (the two toolbox examples most like the
question, or tool-agnostic ones whose one tool is described in the system message, so they
fit any registry); then the tools in a second system message, each with the first sentence
of its description and the JSON its input takes. The first system message is shared by
every tool set and question (prefix cache). ``build_system_prompt`` is the same as one
text, examples inline; ``few_shot_messages`` gives the toolbox's own examples as chat turns, and the
worked example each tool brings (``Tool.example``).
``observation_text`` writes what the model sees after a tool ran: once there
are two or more results it repeats all of them, numbered, because a small
model copies from the latest message far more reliably than from older ones.
``STOP`` ends generation before the model can write an ``Observation:`` itself.

Deliberately left out: per-model prompt variants; one prompt, tuned on the
course's local models (first the 0.5B, now the 1.5B), is what every backend gets. Whole tool descriptions: only
their first sentence is shown.

    >>> observation_text(["sunny", "rain"])
    'Observation: results so far:\\n1. sunny\\n2. rain'
"""
from __future__ import annotations

import json
from typing import Any, Iterable, Sequence

from ..llm import Message
from .choice import choose_examples
from .examples import GENERIC, GENERIC_TOOLS, Example, example_pool, usable
from ..tools import type_text

STOP = ["Observation:"]

FORMAT_TEMPLATE = """Reply with exactly one step:
Thought: <what to do next>
Action: <{tool}>
Action Input: <the tool's arguments as one JSON object>
or, when you know the answer:
Thought: <why you are done>
Final Answer: <the answer>"""


def format_help(tool_names: Sequence[str] = ()) -> str:
    """The format reminder; with the tools' names it says which names are allowed."""
    return FORMAT_TEMPLATE.format(tool=f"one of: {', '.join(tool_names)}" if tool_names else "one tool name")


FORMAT_HELP = format_help()

# every word here is prefilled on each cold start; "never the same call twice" went (the repeat guard enforces it)
RULES = ("Rules: use a tool for every calculation and fact, one call at a time; its result comes back as "
         "'Observation: ...'. If no tool fits, give the Final Answer at once. The Final Answer answers the whole "
         "question: compare when asked to compare (and name both values), convert when asked to convert.")


def observation_text(results: Sequence[str]) -> str:
    """The Observation message: the one result, or all results so far once there are several."""
    if len(results) == 1:
        return f"Observation: {results[0]}"
    return "Observation: results so far:\n" + "\n".join(f"{i}. {r}" for i, r in enumerate(results, 1))


def step_text(thought: str, tool: str, args: Any) -> str:
    """An action step exactly as the model should write it."""
    args_text = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
    return (f"Thought: {thought}\n" if thought else "") + f"Action: {tool}\nAction Input: {args_text}"


def final_text(thought: str, answer: str) -> str:
    return (f"Thought: {thought}\n" if thought else "") + f"Final Answer: {answer}"


def example_messages(example: Example) -> list[Message]:
    """One example as the chat turns of a real run."""
    messages, results = [Message("user", example.question)], []
    for call in example.calls:
        results.append(call.result)
        messages += [Message("assistant", step_text(call.thought, call.tool, call.args)),
                     Message("user", observation_text(results))]
    return messages + [Message("assistant", final_text(example.thought, example.answer))]


def few_shot_messages(registry: Any, everything: bool = False) -> list[Message]:
    """The toolbox examples for these tools as chat turns: the ``kept`` ones that fit (if none fits, every one
    that fits: an example of your own tool beats a generic one), or all that fit with ``everything``."""
    tools = list(registry or [])
    fit = [e for e in example_pool(tools) if usable(e, tools)]
    kept = fit if everything else [e for e in fit if e.kept] or fit
    return [m for e in kept for m in example_messages(e)]


def _arguments_shape(parameters: dict) -> str:
    """The shape of a tool's arguments, e.g. {"city": string, "date": "today" | "tomorrow"}."""
    props = (parameters or {}).get("properties", {})
    return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {type_text(v)}" for k, v in props.items()) + "}"


def first_sentence(text: str) -> str:
    """A description's first sentence: the rest (lists of options, examples) costs tokens on every call."""
    text = " ".join((text or "").split())
    cut = text.find(". ")
    return text[:cut + 1] if cut > 0 else text


def describe_tools(tools: Iterable[Any]) -> str:
    """One line per tool: name, the first sentence of its description, and the JSON its Action Input takes."""
    lines = [f"- {t.name}: {first_sentence(t.description)} Input: {_arguments_shape(t.parameters)}" for t in tools]
    return "\n".join(lines) or "(none: answer with Final Answer)"


def example_text(example: Example) -> str:
    """One worked example as plain text, the way a run reads."""
    return "\n".join(("Question: " if m.role == "user" and i == 0 else "") + m.content
                     for i, m in enumerate(example_messages(example)))


TEACHING = "You answer questions step by step using tools."
EXAMPLES_NOTE = f"The examples below use a tool you do not have: {GENERIC_TOOLS}."


def tools_text(tools: Iterable[Any]) -> str:
    return "Your tools (use only these):\n" + describe_tools(tools)


def build_system_prompt(registry: Any, few_shot: bool = True) -> str:
    """The whole ReAct prompt for ``registry`` (a ToolRegistry or list) as one system text (examples inline)."""
    tools = list(registry or [])
    parts = [TEACHING, format_help(), RULES]
    if few_shot:
        parts.append(EXAMPLES_NOTE + "\n\n" + "\n\n".join(example_text(e) for e in GENERIC))
    return "\n\n".join(parts + [tools_text(tools)])


def prompt_messages(registry: Any, few_shot: bool = True, toolbox_examples: bool = False,
                    question: str | None = None) -> list[Message]:
    """What a ReAct agent sends before the conversation: teaching, worked examples as chat turns, tools last.

    Examples: with a ``question``, the two toolbox examples that fit these tools and look most like it
    (``choice.py``), the closer one last; without one, the ``kept`` ones that fit; all that fit with ``toolbox_examples``;
    the tool-agnostic ones if none fits. With a question, one example answered without a tool and one refused
    go first (``choice.py``); alone, a refusal example made the 0.5B model refuse every task (11/11). The tools
    follow in a second system message, next to the question, so the start is shared by every registry with the
    same examples (prefix cache).
    """
    tools = list(registry or [])
    if few_shot and question is not None and not toolbox_examples:
        # the best example goes last, next to the question: the model imitates the nearest one most (measured:
        # best first, the weather comparison of notebook 03 copied the one-call example after it and stopped)
        shots = [m for e in reversed(choose_examples(question, tools)) for m in example_messages(e)]
    else:
        shots = few_shot_messages(tools, toolbox_examples) if few_shot else []
    generic = few_shot and not shots
    teaching = "\n\n".join([TEACHING, format_help(), RULES] + ([EXAMPLES_NOTE] if generic else []))
    if generic:
        shots = [m for e in GENERIC for m in example_messages(e)]
    return [Message("system", teaching), *shots, Message("system", tools_text(tools))]
