"""An orchestrator with specialists: the tools split by domain, one subagent per domain, and a loop that asks them.

``split_tools(tools, domains)`` puts each tool in the first domain that names it (the last domain, with no names,
takes the rest) and drops domains left empty. ``orchestrator(llm, tools, domains)`` builds one ``Agent`` per
domain over its tools, wraps each as a subagent tool (``subagents.py``) and returns the orchestrator: an ``Agent``
whose only tools are the specialists. Settings go to every agent; answer checks and policies (``checks``,
``answer_policies``) to the orchestrator only, because only its answer reaches the user.

``COURSE_DOMAINS`` is the course's split: the manual (``knowledge_search``) and the calendar and calculator (the
toolbox). Each specialist tool brings a worked example written for it, about a made-up pump so that no example
solves a task of the suite: the manual's, in English, asks both specialists (a sieve's interval, then a date); the
calendar's, in Chinese, asks the calendar alone. Measured on the two-domain split (docs/benchmarks.md): a Chinese
two-specialist example in its place solved as few tasks (1/14) and called the right tools less often (3/14 against
5/14), so it was dropped.

Deliberately left out: specialists that see each other's answers (the orchestrator passes what one said to the
other in its request, or not at all), and an orchestrator that writes its own plan (chapter 09 does that).

    >>> from handmade_agent.tools import ToolRegistry, tool
    >>> @tool
    ... def knowledge_search(query: str) -> str:
    ...     '''Search.'''
    ...     return "..."
    >>> [(d.name, t.names()) for d, t in split_tools(ToolRegistry([knowledge_search]), COURSE_DOMAINS)]
    [('ask_manual', ['knowledge_search'])]
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ..agent import Agent
from ..react import Call, Example
from ..tools import ToolRegistry
from .subagents import subagent_tool


@dataclass(frozen=True)
class Domain:
    """A specialist: the tool name the orchestrator calls it by, what it is for, and the tools it gets."""
    name: str
    description: str
    tools: tuple[str, ...] = ()   # empty: every tool no earlier domain took
    example: Example | None = None


SIEVE = Example(
    "I changed the sieve of my Brookline B2 pump on 2024-03-04. When is the next change due?",
    [Call("Plan: 1. ask the manual how often the sieve is changed. 2. ask the calendar for the date that many days "
          "after 2024-03-04.", "ask_manual", {"request": "How often should the sieve of the Brookline B2 pump be "
                                                         "changed?"}, "Change the sieve every 45 days [b2-manual#care:1]."),
     Call("2. ask the calendar for the date 45 days after 2024-03-04.", "ask_calendar",
          {"request": "What date is 45 days after 2024-03-04?"}, "45 days after 2024-03-04 is 2024-04-18.")],
    "All 2 steps done. The sieve is changed every 45 days; 45 days after 2024-03-04 is 2024-04-18.",
    "The next sieve change is due on 2024-04-18: every 45 days, counted from 2024-03-04.")
DAYS_ZH = Example(
    "我的 B2 水泵 2024-01-15 送达，2024-02-20 坏了，一共用了多少天？",
    [Call("Plan: 1. 请日历助手算两个日期之间的天数。", "ask_calendar", {"request": "从 2024-01-15 到 2024-02-20 一共多少天？"},
          "从 2024-01-15 到 2024-02-20 共 36 天。")],
    "All 1 steps done. 日历助手算出共 36 天。", "一共用了 36 天（从 2024-01-15 到 2024-02-20）。")

COURSE_DOMAINS = (
    Domain("ask_manual", "Ask the product-manual expert about the Tessel T4 robots and the company Quillfern: "
                         "warranty, returns, prices, maintenance, specifications. It searches the manual.",
           ("knowledge_search",), SIEVE),
    Domain("ask_calendar", "Ask the calendar and calculator assistant: today's date, the date some days after "
                           "another, the days between two dates, weekdays, arithmetic, weather and unit conversions.",
           (), DAYS_ZH),
)


def split_tools(tools: Any, domains: Sequence[Domain]) -> list[tuple[Domain, ToolRegistry]]:
    """Each domain with its tools (in the domains' order), domains that got none left out."""
    taken: set[str] = set()
    out = []
    for domain in domains:
        mine = [t for t in tools if t.name not in taken and (not domain.tools or t.name in domain.tools)]
        taken |= {t.name for t in mine}
        if mine:
            out.append((domain, ToolRegistry(mine)))
    return out


def orchestrator(llm: Any, tools: Any, domains: Sequence[Domain] = COURSE_DOMAINS, *, checks: Any = None,
                 answer_policies: Sequence[Any] = (), observers: Sequence[Any] = (),
                 specialist_observers: Sequence[Any] = (), **settings: Any) -> Agent:
    """An ``Agent`` whose tools are one subagent per domain of ``tools`` (see the module docstring). ``observers``
    hear the orchestrator's run; its specialists' runs are in its record (``ToolUse.children``) and reach only
    ``specialist_observers`` as events: a trace panel follows one run, and a specialist's start would reset it."""
    team = [subagent_tool(Agent(llm, registry, observers=specialist_observers, **settings), d.name, d.description,
                          example=d.example) for d, registry in split_tools(tools, domains)]
    return Agent(llm, ToolRegistry(team), checks=checks, answer_policies=list(answer_policies), observers=observers,
                 **settings)
