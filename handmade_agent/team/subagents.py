"""A subagent: a second agent, with a clean message list, its own tools and its own budget, called like a tool.

``subagent_tool(agent, name, description)`` wraps an ``Agent`` as a ``Tool`` with one parameter, ``request``: the
orchestrator writes what it wants to know, the subagent runs it from scratch (its own prompt, its own worked
examples, none of the orchestrator's conversation) and its final answer is the observation. A run that ends
without an answer is a tool error naming its stop reason, so the orchestrator reads it as any failed call.

One record of the whole tree: the tool appends the subagent's ``RunResult`` to the call's ``RunContext.children``,
and the calling agent keeps it on the ``ToolUse`` (``children``), with its tokens counted in the caller's run.
``walk(result)`` yields every run of the tree with its depth; ``tree_lines`` prints it.

The time budget: the subagent gets what is left of the caller's run (``RunContext.remaining``), or its own
``time_budget`` when that is shorter, so a slow specialist cannot outlast the orchestrator.

Deliberately left out: subagents that share the caller's memory (that is a handoff, ``handoffs.py``), running
several subagents at once (one model, two cores), and a subagent calling another (it works, and costs twice).

    >>> from handmade_agent.agent import Agent
    >>> from handmade_agent.llm import ScriptedLLM
    >>> t = subagent_tool(Agent(ScriptedLLM(["Thought: known\\nFinal Answer: 24 months"]), []), "ask_manual",
    ...                   "Ask the manual expert.")
    >>> t.fn(request="How long is the warranty?")
    '24 months'
"""
from __future__ import annotations

import copy
from typing import Any, Iterator

from ..agent import RunResult
from ..errors import ToolError
from ..tools import RunContext, Tool

REQUEST = {"type": "string",
           "description": "the question for the specialist, complete on its own: every date, name and figure it needs"}


def subagent_tool(agent: Any, name: str, description: str, *, example: Any = None) -> Tool:
    """A ``Tool`` named ``name`` that runs ``agent`` on the request it is given and returns its final answer."""

    def ask(request: str, run: RunContext | None = None) -> str:
        if not str(request).strip():
            raise ToolError("the request is empty: write the question for the specialist, with the facts it needs.")
        child = copy.copy(agent)  # its own run state, whatever the caller does meanwhile; same model, same tools
        left = run.remaining() if run is not None else None
        if left is not None:
            if left <= 0:
                raise ToolError("the run's time budget is over: answer with what you have.")
            budget, child.config = agent.config.time_budget, copy.copy(agent.config)
            child.config.time_budget = left if budget is None else min(left, budget)
        result = child.run(str(request))
        if run is not None:
            run.children.append(result)
        ask.runs.append(result)
        if result.answer is None:
            raise ToolError(f"the specialist stopped without an answer ({result.stop_reason}); ask it more simply, "
                            "or answer with what you have.")
        return result.answer

    ask.runs = []  # every run this tool made, for a notebook to read back
    params = {"type": "object", "properties": {"request": REQUEST}, "required": ["request"]}
    # timeout None: the subagent runs in the caller's thread, bounded by its own time budget instead
    return Tool(name, description, params, ask, timeout=None, context_arg="run", example=example, broad=True)


def walk(result: RunResult, depth: int = 0) -> Iterator[tuple[int, RunResult]]:
    """Every run in ``result``'s tree, parents before children, with its depth (0: the run itself)."""
    yield depth, result
    for step in result.steps:
        for use in step.tool_uses:
            for child in use.children:
                yield from walk(child, depth + 1)


def tree_lines(result: RunResult, width: int = 100) -> list[str]:
    """The tree of runs as indented lines: each step's tool calls, each subagent's run under its call."""
    lines: list[str] = []

    def show(run: RunResult, depth: int) -> None:
        pad = "  " * depth
        lines.append(f"{pad}▶ {_cut(run.question, width)}  [{run.stop_reason}, {run.usage.prompt_tokens} prompt tokens]")
        for step in run.steps:
            for use in step.tool_uses:
                lines.append(f"{pad}  {step.index}. {use.tool}: {_cut(use.input, width)} → {_cut(use.observation, width)}")
                for child in use.children:
                    show(child, depth + 2)
        lines.append(f"{pad}  ✔ {_cut(run.answer, width)}")

    show(result, 0)
    return lines


def _cut(value: Any, width: int) -> str:
    text = " ".join(str(value.get("request", value) if isinstance(value, dict) else value).split())
    return text if len(text) <= width else text[: width - 1] + "…"
