"""Saving and resuming agents: the agent's state as versioned JSON, in a file or a SQLite session.

An agent's *state* is what it cannot rebuild by itself: its settings
(``agent.settings()``), its memory (``memory.to_dict()``) and the trace of its
last run. The model and the tools are *code and weights*, not state: you pass
them again when loading, so a state file never contains a model, a function
or an API key, and loading one can never run code (which is why there is no
pickle anywhere in this package).

``save_agent`` / ``load_agent`` write and read one agent here; the atomic versioned
JSON is ``state_file.py``'s, and ``sessions.py`` keeps agents in SQLite.

Deliberately left out: saving the model's KV cache (it is a cache: rebuilt from
the messages) and the tools' own state.

    >>> from handmade_agent.memory import ConversationMemory
    >>> isinstance(jsonable(ConversationMemory().to_dict()), dict)
    True
"""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from ..errors import StateError
from ..agent import Agent, RunResult
from ..memory import memory_from_dict
from .state_file import load_state, save_state


def jsonable(obj: Any) -> Any:
    """Plain JSON data from dataclasses, lists and dicts; anything else becomes its ``str``."""
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    if isinstance(obj, float):
        return obj if obj == obj and abs(obj) != float("inf") else None  # JSON has no NaN/inf
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        d = {f.name: jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
        kind = getattr(obj, "kind", None)  # event records keep their kind (a class attribute)
        return {"kind": kind, **d} if isinstance(kind, str) else d
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    return str(obj)


def agent_state(agent: Any) -> dict:
    """The JSON-able state of an agent: settings, memory, model name (info only) and last trace."""
    memory = getattr(agent, "memory", None)
    last = getattr(agent, "last_result", None)
    return {"settings": jsonable(agent.settings()),
            "memory": memory.to_dict() if memory is not None else None,
            "model": getattr(getattr(agent, "llm", None), "model", ""),
            "trace": jsonable(last.to_dict() if hasattr(last, "to_dict") else last) if last is not None else None}


def agent_from_state(state: dict, llm: Any, tools: Any, **overrides: Any) -> Any:
    """A new Agent built only from ``state`` plus the model and tools you pass (and any overrides)."""
    settings = {**(state.get("settings") or {}), **overrides}
    try:
        memory = memory_from_dict(state["memory"], llm) if state.get("memory") else None
        agent = Agent(llm, tools, memory=memory, **settings)
    except TypeError as e:  # a setting this Agent does not know: state from another version
        raise StateError(f"The saved settings do not fit this Agent ({e}). Pass corrected values as "
                         "keyword overrides, or rebuild the agent.") from e
    if state.get("trace"):  # the last run before saving, so a resumed agent can show it
        try:
            agent.last_result = RunResult.from_dict(state["trace"])
        except (TypeError, KeyError, ValueError) as e:
            raise StateError(f"The saved trace does not fit this version's RunResult ({e}). Delete its "
                             "\"trace\" field to load the rest.") from e
    return agent


def save_agent(agent: Any, path: str | os.PathLike) -> Path:
    """Save an agent's state (settings, memory, last trace) to ``path`` atomically, as versioned JSON."""
    return save_state(agent_state(agent), path, kind="agent")


def load_agent(path: str | os.PathLike, llm: Any, tools: Any, **overrides: Any) -> Any:
    """Load a state file written by ``save_agent`` into a brand-new Agent using ``llm`` and ``tools``."""
    return agent_from_state(load_state(path, kind="agent"), llm, tools, **overrides)
