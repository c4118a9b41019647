"""The SQLite layout of ``SQLiteStore``: its tables, schema version and the session summary it lists.

Kept apart from ``sessions.py`` so the store reads as behaviour and this file as the data it keeps.

Deliberately left out: migrations (a database from a newer schema is refused by the store).

    >>> SessionInfo("s-1", "demo", 0.0, 0.0, 0, 0, False).title
    'demo'
"""
from __future__ import annotations

from dataclasses import dataclass

SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, title TEXT NOT NULL, created REAL NOT NULL,
    updated REAL NOT NULL, state TEXT);
CREATE TABLE IF NOT EXISTS messages (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL
    REFERENCES sessions(id) ON DELETE CASCADE, role TEXT NOT NULL, content TEXT NOT NULL, extra TEXT);
CREATE INDEX IF NOT EXISTS messages_by_session ON messages(session_id, id);
CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL
    REFERENCES sessions(id) ON DELETE CASCADE, run_id TEXT, kind TEXT NOT NULL, step INTEGER, ts REAL,
    data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS events_by_session ON events(session_id, id);
"""


@dataclass
class SessionInfo:
    """One row of ``SQLiteStore.list_sessions()``: the session and how much it holds."""
    id: str
    title: str
    created: float
    updated: float
    messages: int
    events: int
    has_state: bool
