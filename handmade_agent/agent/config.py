"""``AgentConfig``: every setting of an agent in one dataclass, checked in one place.

An agent is its model, its tools, its memory, its observers — and these settings. They are plain
data, so ``asdict(config)`` is what a saved agent stores and ``AgentConfig(**saved)`` rebuilds it.
Every assignment is checked, at construction and afterwards (``config.max_steps = 0`` is refused as
``AgentConfig(max_steps=0)`` is), by ``check_setting``: the type the field declares (``True`` is not an
int here) and its range. A saved agent's settings are checked by the same function (``storage``).

Deliberately left out: per-tool settings (time-outs and approval belong to the tools and registry), and
policies that rewrite an answer (code, not data: ``Agent(answer_policies=...)``).

    >>> AgentConfig(max_steps=3).max_steps
    3
    >>> AgentConfig(strategy="telepathy")
    Traceback (most recent call last):
    ...
    handmade_agent.errors.ConfigError: strategy must be 'react' or 'native', not 'telepathy'.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from ..errors import ConfigError

STRATEGIES = ("react", "native")
_KINDS = {"int": (int,), "float": (int, float), "str": (str,), "bool": (bool,), "None": (type(None),)}
_AT_LEAST = {"max_steps": 1, "max_format_errors": 1, "max_tokens": 1, "llm_retries": 0}


@dataclass
class AgentConfig:
    """How an agent runs. ``strategy``: the text ReAct protocol or the backend's native tool calls."""
    strategy: str = "react"
    max_steps: int = 8                 # model calls per run
    time_budget: float | None = None   # seconds of wall clock per run: no model call or tool starts after it
    max_format_errors: int = 3         # unreadable replies in a row before giving up
    system_prompt: str | None = None   # None: the protocol's own prompt, written from the tools
    few_shot: bool = True              # worked examples (text ReAct only): tool-agnostic ones in the prompt
    toolbox_examples: bool = False     # every toolbox example that fits the tools (default: only the kept ones)
    llm_retries: int = 1               # extra attempts when the backend fails
    max_tokens: int = 256              # per model reply
    recap_results: bool = True         # each observation repeats the earlier results (text ReAct)
    constrained: bool | None = None    # grammar-constrained replies; None: wherever the backend supports it
    repeat_guard: bool = True          # warn on an identical repeated call, stop at the second (off: it runs again)
    results_answer: bool = True        # after two or more tool results, the answer is written again from them alone
    act_first: bool = False            # the first reply must call a tool (constrained text ReAct; tool_fit.py)
    tool_fit: bool | None = None       # the fit gate (tool_fit.py); None: where every tool is narrow and weights are here

    def __setattr__(self, name: str, value: Any) -> None:
        check_setting(name, value)
        super().__setattr__(name, value)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in fields(cls)]


def check_setting(name: str, value: Any) -> None:
    """ConfigError unless ``value`` fits the setting ``name``: its declared type, then its range."""
    declared = next((f.type for f in fields(AgentConfig) if f.name == name), None)
    if declared is None:
        raise ConfigError(f"AgentConfig has no setting {name!r}; known: {AgentConfig.names()}.")
    allowed = tuple(t for part in str(declared).split("|") for t in _KINDS.get(part.strip(), (object,)))
    if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):
        raise ConfigError(f"{name}={str(value)[:40]!r} should be {declared}, not {type(value).__name__}.")
    if name == "strategy" and value not in STRATEGIES:
        raise ConfigError(f"strategy must be 'react' or 'native', not {value!r}.")
    if name in _AT_LEAST and value < _AT_LEAST[name]:
        raise ConfigError("max_steps, max_format_errors and max_tokens must be at least 1, llm_retries at least 0; "
                          f"{name}={value!r} is not.")
    if name == "time_budget" and value is not None and value <= 0:
        raise ConfigError(f"time_budget must be a positive number of seconds (or None for none), not {value!r}.")
