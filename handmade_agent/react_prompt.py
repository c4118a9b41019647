"""The ReAct system prompt: tools, the exact reply format, and worked examples.

``build_system_prompt(registry)`` lists each tool with the JSON its input
takes, states the format (``Thought`` / ``Action`` / ``Action Input``, or
``Thought`` / ``Final Answer``), and adds few-shot examples that use only
tools the registry really has. ``STOP`` ends generation before the model can
write an ``Observation:`` itself.

Deliberately left out: per-model prompt variants; one prompt, tuned on the
course's 0.5B model, is what every backend gets.

    >>> "Final Answer:" in build_system_prompt([], few_shot=False)
    True
"""
from __future__ import annotations

import json
from typing import Any, Iterable

STOP = ["Observation:"]

FORMAT_HELP = """Reply with exactly one step:
Thought: <what to do next>
Action: <one tool name>
Action Input: <the tool's arguments as one JSON object>
or, when you know the answer:
Thought: <why you are done>
Final Answer: <the answer>"""

# Each example: the tools it needs, then the transcript. Only examples whose tools all exist are shown.
EXAMPLES: list[tuple[tuple[str, ...], str]] = [
    (("calculator",), """Question: What is 17% of 2350?
Thought: I need to multiply 2350 by 0.17.
Action: calculator
Action Input: {"expression": "2350 * 0.17"}
Observation: 399.5
Thought: I know the answer.
Final Answer: 17% of 2350 is 399.5."""),
]


def _tools_of(registry: Any) -> list:
    return list(registry) if registry is not None else []


def _example_args(parameters: dict) -> str:
    """A JSON skeleton of a tool's arguments, e.g. {"city": "<string>"}."""
    props = (parameters or {}).get("properties", {})
    return json.dumps({k: f"<{v.get('type', 'value')}>" for k, v in props.items()}, ensure_ascii=False)


def describe_tools(tools: Iterable[Any]) -> str:
    """One line per tool: name, description, and the JSON its Action Input takes."""
    lines = []
    for t in tools:
        desc = " ".join((t.description or "").split())
        lines.append(f"- {t.name}: {desc} Action Input: {_example_args(t.parameters)}")
    return "\n".join(lines) or "(no tools: answer directly with Final Answer)"


def build_system_prompt(registry: Any, few_shot: bool = True) -> str:
    """The system prompt for a text-ReAct agent using the tools in ``registry`` (a ToolRegistry or list)."""
    tools = _tools_of(registry)
    names = ", ".join(t.name for t in tools) or "none"
    parts = [
        "You answer questions step by step using tools.",
        "Tools:\n" + describe_tools(tools),
        FORMAT_HELP.replace("<one tool name>", f"<one of: {names}>"),
        "After Action Input, stop: the tool's result comes back as 'Observation: ...'. "
        "Never write the Observation yourself. Use the tools for every calculation and fact.",
    ]
    if few_shot:
        have = {t.name for t in tools}
        shots = [text for needs, text in EXAMPLES if set(needs) <= have]
        if shots:
            parts.append("Example:\n" + "\n\n".join(shots))
    return "\n\n".join(parts)
