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

from ..errors import ConfigError, StateError
from ..agent import Agent, RunResult
from ..agent import AgentConfig, check_setting
from ..memory import memory_from_dict
from .state_file import load_state, save_state


RETIRED_SETTINGS = ("translate_answer",)


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
    """A new Agent built only from ``state`` plus the model and tools you pass (and any overrides).

    A saved ``system_prompt`` is refused unless you pass ``system_prompt=...`` yourself: the system
    prompt steers everything the agent does, and a state file is data anyone may have edited, so it
    must not replace the prompt silently. Pass the saved one back (``state["settings"]["system_prompt"]``)
    once you have read it, or ``system_prompt=None`` for the default. Settings of the wrong type
    (a tampered or foreign file) are refused with StateError before any Agent is built.
    """
    if not isinstance(state, dict):
        raise StateError(f"An agent state must be a JSON object, not {type(state).__name__}. "
                         "Check the file; it was left untouched.")
    saved = state.get("settings") or {}
    if not isinstance(saved, dict):
        raise StateError(f"The saved \"settings\" are a {type(saved).__name__}, not an object: the file was "
                         "edited or damaged. Delete that field to load the agent with default settings.")
    # settings an earlier version saved and this one moved out of AgentConfig: translate_answer is now an answer
    # policy (``Agent(answer_policies=[rag.translate_answer])``), code that a state file must not switch on
    saved = {k: v for k, v in saved.items() if k not in RETIRED_SETTINGS}
    check_settings(saved)
    if saved.get("system_prompt") is not None and "system_prompt" not in overrides:
        raise StateError("The saved state sets a system prompt (starting "
                         f"{str(saved['system_prompt'])[:60]!r}). It is not loaded silently: pass "
                         "system_prompt=<the prompt you trust> (the saved one after reading it, or None for "
                         "the default) to load_agent / resume.")
    settings = {**saved, **overrides}
    memory_state = state.get("memory")
    if memory_state is not None and not isinstance(memory_state, dict):
        raise StateError(f"The saved \"memory\" is a {type(memory_state).__name__}, not an object. Delete that "
                         "field to load the agent with an empty memory.")
    try:
        memory = memory_from_dict(memory_state, llm) if memory_state else None
        _check_messages(memory)
        agent = Agent(llm, tools, memory=memory, **settings)
    except (TypeError, ValueError, KeyError, AttributeError, ConfigError) as e:
        # a setting or memory field this version does not know, or of the wrong type
        raise StateError(f"The saved settings or memory do not fit this Agent ({type(e).__name__}: {e}). "
                         "Pass corrected values as keyword overrides, or rebuild the agent.") from e
    if state.get("trace"):  # the last run before saving, so a resumed agent can show it
        try:
            agent.last_result = RunResult.from_dict(state["trace"])
        except (TypeError, KeyError, ValueError, AttributeError) as e:
            raise StateError(f"The saved trace does not fit this version's RunResult ({e}). Delete its "
                             "\"trace\" field to load the rest.") from e
    return agent


def _check_messages(memory: Any) -> None:
    messages = list(getattr(memory, "pinned", [])) + [m for t in getattr(memory, "turns", []) for m in t]
    bad = next((m for m in messages if not (isinstance(m.role, str) and isinstance(m.content, str))), None)
    if bad is not None:
        raise StateError(f"A saved message has role {bad.role!r} and content of type {type(bad.content).__name__}; "
                         "both must be text. The file was edited or damaged: delete its \"memory\" field to "
                         "load the agent with an empty memory.")


def check_settings(saved: dict) -> None:
    """StateError unless every saved setting fits ``AgentConfig`` (its one check, ``check_setting``)."""
    for name, value in saved.items():
        if name not in AgentConfig.names():
            continue  # an unknown setting is refused when the Agent is built, with the list of known ones
        try:
            check_setting(name, value)
        except ConfigError as e:
            raise StateError(f"The saved setting is wrong: {e} The file was edited or damaged. Fix or delete that "
                             f"setting, or pass {name}=... as an override.") from None


def save_agent(agent: Any, path: str | os.PathLike) -> Path:
    """Save an agent's state (settings, memory, last trace) to ``path`` atomically, as versioned JSON."""
    return save_state(agent_state(agent), path, kind="agent")


def load_agent(path: str | os.PathLike, llm: Any, tools: Any, **overrides: Any) -> Any:
    """Load a state file written by ``save_agent`` into a brand-new Agent using ``llm`` and ``tools``."""
    return agent_from_state(load_state(path, kind="agent"), llm, tools, **overrides)
