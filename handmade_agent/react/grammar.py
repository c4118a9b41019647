"""The ReAct step as a grammar: what a constrained model may write, built from tool schemas only.

``react_grammar(tools)`` is GBNF for exactly one step::

    Thought: <one line>
    Action: <a real tool name>
    Action Input: <a JSON object valid for that tool's schema>

or ``Thought: <one line>`` then ``Final Answer: <text>``, so "no tool fits" is open unless ``act=True`` (a step
that must call a tool: ``AgentConfig.act_first``, set when the model's own fit score says a tool fits, ``tool_fit.py``).
The grammar ends right after the Action Input's JSON, where the ``Observation:`` stop sequence
would cut anyway: a constrained model cannot invent an observation. Each tool's arguments get
their own rules (``args0``, ``args1``, ...); grammars are cached per tool set.

Deliberately left out: constraining the Thought or the answer's content (the model's own words),
and the tool descriptions (a grammar restricts form, the prompt explains meaning).

    >>> "Action Input: " in react_grammar([])
    False
    >>> react_grammar([], act=True) == react_grammar([])  # with no tool to call, answering stays open
    True
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Iterable

from ..grammar import argument_rules, literal, tool_parameters

# a thought is one line of at most 200 characters: unbounded, the 0.5B model sometimes lists plan steps
# until max_tokens runs out and never reaches the Action
HEAD = ['root ::= "Thought: " thought "\\n" ( action | final )',
        'thought ::= [^\\n]{1,200}',
        'line ::= [^\\n]+',
        'final ::= "Final Answer: " line ( "\\n" line )*']


def react_grammar(tools: Iterable[Any], act: bool = False) -> str:
    """GBNF for one ReAct step with these tools (``Tool`` objects or OpenAI tool dicts); ``act``: no Final Answer."""
    named = [tool_parameters(t) for t in tools]
    return _react_grammar(json.dumps(named, ensure_ascii=False), act)


@lru_cache(maxsize=64)  # an agent asks at every step; converting schemas is not free
def _react_grammar(key: str, act: bool = False) -> str:
    named = json.loads(key)
    if not named:
        return 'root ::= "Thought: " thought "\\n" final\n' + "\n".join(HEAD[1:]) + "\n"
    choices = " | ".join(f"call{i}" for i in range(len(named)))
    head = ['root ::= "Thought: " thought "\\n" action', HEAD[1]] if act else HEAD
    lines = head + [f'action ::= "Action: " ( {choices} )']
    lines += [f"call{i} ::= {literal(name + chr(10) + 'Action Input: ')} args{i}" for i, (name, _) in enumerate(named)]
    return "\n".join(lines) + "\n" + argument_rules([p for _, p in named], "args")
