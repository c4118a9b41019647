"""The package's exceptions: one root, a few specific kinds below it.

Every error a user can meet says what went wrong *and* what to do next.
Errors a model can fix (bad format, bad tool call) are not raised into the
agent loop; they become observation text. Running out of steps is a
``stop_reason``, not an exception, so it has no class here.

    >>> try:
    ...     raise ModelNotFound("no model")
    ... except HandmadeAgentError as e:
    ...     print(type(e).__name__)
    ModelNotFound
"""
from __future__ import annotations


class HandmadeAgentError(Exception):
    """Root of every error this package raises on purpose."""


class ConfigError(HandmadeAgentError):
    """A setting is missing or wrong (API key, base URL, model name)."""


class LLMError(HandmadeAgentError):
    """A model backend failed: server unreachable, bad reply, time-out."""


class ScriptExhausted(LLMError):
    """A ScriptedLLM was asked for more replies than it was given."""


class ModelNotFound(HandmadeAgentError):
    """The local model file is missing, corrupt, or cannot be fetched."""


class FormatError(HandmadeAgentError):
    """Model output that does not follow the protocol.

    ``feedback`` is the corrective text sent back to the model; ``problem`` is its first part,
    what was wrong and what to do (the rest restates the format), so a caller that knows the
    tools can restate the format with their names.
    """

    def __init__(self, message: str, feedback: str | None = None, *, problem: str | None = None):
        super().__init__(message)
        self.feedback = feedback or message
        self.problem = problem or message


class ToolError(HandmadeAgentError):
    """A tool could not run. Raised inside tools; the registry turns it into a result."""


class StateError(HandmadeAgentError):
    """A saved state file is corrupt, of an unknown version, or unreadable."""
