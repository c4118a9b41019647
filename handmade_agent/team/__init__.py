"""Chapter 11, many agents: subagents called like tools, an orchestrator over specialists, and handoffs.

``subagent_tool`` wraps an ``Agent`` as a tool with a clean message list of its own (``subagents.py``);
``orchestrator`` splits the tools by domain into specialists and builds the agent that asks them
(``specialists.py``); ``Handoff`` gives the whole conversation to the one agent a model call chose
(``handoffs.py``). Every run of a tree is one record: the children hang on the tool calls that made them
(``walk``, ``tree_lines``). Long conversations are chapter 05's package: ``memory.CompactingMemory``.

    >>> [d.name for d in COURSE_DOMAINS]
    ['ask_manual', 'ask_calendar']
"""
from .handoffs import Handoff
from .specialists import COURSE_DOMAINS, Domain, orchestrator, split_tools
from .subagents import subagent_tool, tree_lines, walk

__all__ = ["subagent_tool", "walk", "tree_lines", "Domain", "COURSE_DOMAINS", "split_tools", "orchestrator",
           "Handoff"]
