"""Chapter 05, persistence: state as versioned JSON written atomically, SQLite sessions, saved agents.

``save_state`` / ``load_state`` (``state_file.py``) write any JSON-able state so a crash leaves
the old file or the new one, never half of each; ``save_agent`` / ``load_agent`` (``agents.py``)
keep an agent's settings, memory and last run (never its model or tools); ``SQLiteStore``
(``sessions.py``) keeps many sessions' messages and snapshots in one database.

    >>> import tempfile, pathlib
    >>> p = save_state({"n": 1}, pathlib.Path(tempfile.mkdtemp()) / "s.json")
    >>> load_state(p)["n"]
    1
"""
from .agents import agent_from_state, agent_state, load_agent, save_agent
from .sessions import SessionInfo, SQLiteStore
from .state_file import FORMAT, VERSION, atomic_write_bytes, load_state, save_state

__all__ = ["save_state", "load_state", "atomic_write_bytes", "FORMAT", "VERSION", "save_agent", "load_agent",
           "agent_state", "agent_from_state", "SQLiteStore", "SessionInfo"]
