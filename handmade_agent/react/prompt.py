"""The ReAct prompt: tools, the exact reply format, worked examples, and how results are shown.

``build_system_prompt(registry)`` lists each tool with the JSON its input
takes and states the format (``Thought`` / ``Action`` / ``Action Input``, or
``Thought`` / ``Final Answer``); with ``few_shot=True`` the examples of
``react_examples`` follow as text. The agent instead sends the examples as
chat turns (``few_shot_messages``), the same shape as its real history.
``observation_text`` writes what the model sees after a tool ran: once there
are two or more results it repeats all of them, numbered, because a small
model copies from the latest message far more reliably than from older ones.
``STOP`` ends generation before the model can write an ``Observation:`` itself.

Deliberately left out: per-model prompt variants; one prompt, tuned on the
course's 0.5B model, is what every backend gets.

    >>> observation_text(["sunny", "rain"])
    'Observation: results so far:\\n1. sunny\\n2. rain'
"""
from __future__ import annotations

import json
from typing import Any, Iterable, Sequence

from ..llm import Message
from .examples import EXAMPLES, Example, usable
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

RULES = ("After Action Input, stop: the tool's result comes back as 'Observation: ...'. Never write the "
         "Observation yourself. Use the tools for every calculation and fact. In your first Thought write a "
         "numbered plan of the tool calls you need; then do one step at a time and never repeat a call.")


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


def few_shot_messages(registry: Any) -> list[Message]:
    """The usable examples for these tools, as chat turns to place before the real question."""
    tools = list(registry or [])
    return [m for e in EXAMPLES if usable(e, tools) for m in example_messages(e)]


def _arguments_shape(parameters: dict) -> str:
    """The shape of a tool's arguments, e.g. {"city": string, "date": "today" | "tomorrow"}."""
    props = (parameters or {}).get("properties", {})
    return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {type_text(v)}" for k, v in props.items()) + "}"


def describe_tools(tools: Iterable[Any]) -> str:
    """One line per tool: name, description, and the JSON its Action Input takes."""
    lines = [f"- {t.name}: {' '.join((t.description or '').split())} Action Input: {_arguments_shape(t.parameters)}"
             for t in tools]
    return "\n".join(lines) or "(no tools: answer directly with Final Answer)"


def build_system_prompt(registry: Any, few_shot: bool = True) -> str:
    """The system prompt for a text-ReAct agent using the tools in ``registry`` (a ToolRegistry or list)."""
    tools = list(registry or [])
    parts = ["You answer questions step by step using tools.", "Tools:\n" + describe_tools(tools),
             format_help([t.name for t in tools] or ["none"]), RULES]
    if few_shot:
        shots = ["\n".join(("Question: " if m.role == "user" and i == 0 else "") + m.content
                           for i, m in enumerate(example_messages(e)))
                 for e in EXAMPLES if usable(e, tools)]
        if shots:
            parts.append("Examples:\n\n" + "\n\n".join(shots))
    return "\n\n".join(parts)
