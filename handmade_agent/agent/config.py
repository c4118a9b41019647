"""``AgentConfig``: every setting of an agent in one dataclass, checked once.

An agent is its model, its tools, its memory, its observers — and these settings. They are plain
data, so ``asdict(config)`` is what a saved agent stores and ``AgentConfig(**saved)`` rebuilds it.

Deliberately left out: per-tool settings (time-outs and approval belong to the tools and registry).

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


@dataclass
class AgentConfig:
    """How an agent runs. ``strategy``: the text ReAct protocol or the backend's native tool calls."""
    strategy: str = "react"
    max_steps: int = 8                 # model calls per run
    time_budget: float | None = None   # seconds of wall clock per run, checked before each model call
    max_format_errors: int = 3         # unreadable replies in a row before giving up
    system_prompt: str | None = None   # None: the protocol's own prompt, written from the tools
    few_shot: bool = True              # worked examples (text ReAct only): tool-agnostic ones in the prompt
    toolbox_examples: bool = False     # every toolbox example that fits the tools (default: only the kept ones)
    llm_retries: int = 1               # extra attempts when the backend fails
    max_tokens: int = 256              # per model reply
    recap_results: bool = True         # each observation repeats the earlier results (text ReAct)
    constrained: bool | None = None    # grammar-constrained replies; None: wherever the backend supports it
    repeat_guard: bool = True          # warn on an identical repeated call, stop at the second (off: it runs again)
    translate_answer: bool = True      # an answer not in the question's script is translated (agent.answer_language)

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise ConfigError(f"strategy must be 'react' or 'native', not {self.strategy!r}.")
        if self.max_steps < 1 or self.max_format_errors < 1 or self.llm_retries < 0 or self.max_tokens < 1:
            raise ConfigError("max_steps, max_format_errors and max_tokens must be at least 1, llm_retries at least 0.")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in fields(cls)]
