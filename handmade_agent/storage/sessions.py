"""SQLiteStore: many conversations (sessions), their messages and trace events in one SQLite file.

One JSON file per agent is fine for one conversation. A chat app has many, and
several processes (a web server's workers) write them at once. SQLite gives
transactions and locking for free; WAL mode lets readers work while one writer
commits, and ``busy_timeout`` makes a second writer wait its turn instead of
failing. Each write is one short ``BEGIN IMMEDIATE`` transaction, so two
processes writing different sessions never lose each other's rows.

Tables: ``sessions`` (id, title, times, optional versioned state snapshot),
``messages`` (the conversation log) and ``events`` (trace events as JSON).
``observer(session_id)`` records a running agent's events *and* its
question/answer pairs; ``resume`` rebuilds an agent from a session.

SQLite's own errors (a corrupt or locked file, a read-only folder) come out as
``StateError`` saying what to do (``limits.sqlite_errors``); text with a lone
surrogate is stored with U+FFFD in its place instead of failing every save.

Deliberately left out: full-text search, users/permissions, and schema
migrations beyond refusing a database written by a newer version.

    >>> store = SQLiteStore(":memory:"); sid = store.create_session("demo")
    >>> store.add_message(sid, Message("user", "你好")); [m.content for m in store.messages(sid)]
    ['你好']
"""
from __future__ import annotations

import json
import os
import sqlite3
import time
import uuid
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator

from ..errors import StateError
from ..redaction import redact
from ..llm import Message, MessageLike, as_message
from ..memory import ConversationMemory
from .agents import agent_from_state, agent_state
from .limits import loads_json, plain_text, sqlite_errors, utf8_text
from .session_schema import SCHEMA, SCHEMA_VERSION, SessionInfo
from .state_file import dump_state, parse_state


class SQLiteStore:
    """Sessions, messages and trace events in one SQLite file (WAL mode, safe across processes)."""

    @sqlite_errors
    def __init__(self, path: str | os.PathLike, *, timeout: float = 30.0, clock: Callable[[], float] = time.time):
        self.path, self.clock = str(path), clock
        # isolation_level=None: we issue BEGIN/COMMIT ourselves, so every transaction is explicit.
        self.db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
        self.db.execute("PRAGMA foreign_keys = ON")
        try:
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.DatabaseError as e:  # "file is not a database": a corrupt or foreign file
            self.db.close()
            raise StateError(f"{self.path} is not a SQLite database ({e}). Check the path; the file was "
                             "left untouched.") from e
        if version > SCHEMA_VERSION:  # checked before anything (even the journal mode) is changed
            self.db.close()
            raise StateError(f"{self.path} was written by a newer handmade-agent (schema {version}; this one "
                             f"knows {SCHEMA_VERSION}). Upgrade handmade-agent; the database was left untouched.")
        self.journal_mode = self.db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        with self._write() as db:  # not executescript: it would commit our transaction half-way
            for statement in filter(str.strip, SCHEMA.split(";")):
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        # IMMEDIATE takes the write lock up front, so two writers queue (busy_timeout) instead of deadlocking.
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise
        if self.db.in_transaction:
            self.db.execute("COMMIT")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "SQLiteStore":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # --- sessions -----------------------------------------------------------
    @sqlite_errors
    def create_session(self, title: str = "", session_id: str | None = None) -> str:
        """Start a new session; returns its id."""
        sid, now = session_id or f"s-{uuid.uuid4().hex[:12]}", self.clock()
        with self._write() as db:
            db.execute("INSERT INTO sessions (id, title, created, updated) VALUES (?, ?, ?, ?)",
                       (sid, plain_text(redact(title)), now, now))  # a title is shown and shared too
        return sid

    @sqlite_errors
    def list_sessions(self) -> list[SessionInfo]:
        """All sessions, most recently updated first."""
        rows = self.db.execute(
            "SELECT s.id, s.title, s.created, s.updated, "
            "(SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id), "
            "(SELECT COUNT(*) FROM events e WHERE e.session_id = s.id), s.state IS NOT NULL "
            "FROM sessions s ORDER BY s.updated DESC, s.rowid DESC").fetchall()
        return [SessionInfo(r[0], r[1], r[2], r[3], r[4], r[5], bool(r[6])) for r in rows]

    @sqlite_errors
    def delete_session(self, session_id: str) -> bool:
        """Delete a session with its messages and events. Returns whether it existed."""
        with self._write() as db:
            return db.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount > 0

    def _touch(self, db: sqlite3.Connection, session_id: str) -> None:
        if db.execute("UPDATE sessions SET updated = ? WHERE id = ?", (self.clock(), session_id)).rowcount == 0:
            raise StateError(f"No session {session_id!r} in {self.path}. Create it with create_session() or "
                             "pick one from list_sessions().")

    # --- messages and events -------------------------------------------------
    def add_message(self, session_id: str, message: MessageLike) -> None:
        self.add_messages(session_id, [message])

    @sqlite_errors
    def add_messages(self, session_id: str, messages: Iterable[MessageLike]) -> None:
        """Append messages to a session's log, all in one transaction."""
        with self._write() as db:
            self._touch(db, session_id)
            for m in map(as_message, messages):
                extra = {k: v for k, v in m.to_dict().items() if k not in ("role", "content")}
                extra_text = utf8_text(json.dumps(extra, ensure_ascii=False)) if extra else None
                db.execute("INSERT INTO messages (session_id, role, content, extra) VALUES (?, ?, ?, ?)",
                           (session_id, m.role, plain_text(redact(m.content)), extra_text and redact(extra_text)))

    @sqlite_errors
    def messages(self, session_id: str) -> list[Message]:
        rows = self.db.execute("SELECT role, content, extra FROM messages WHERE session_id = ? ORDER BY id",
                               (session_id,)).fetchall()
        return [as_message({"role": r, "content": c, **loads_json(x or "{}", f"session {session_id}")})
                for r, c, x in rows]

    @sqlite_errors
    def add_event(self, session_id: str, event: Any) -> None:
        """Append one trace event (an ``events.Event`` or a dict with at least ``kind``)."""
        d = redact(event.to_dict() if hasattr(event, "to_dict") else dict(event))
        with self._write() as db:
            self._touch(db, session_id)
            db.execute("INSERT INTO events (session_id, run_id, kind, step, ts, data) VALUES (?, ?, ?, ?, ?, ?)",
                       (session_id, d.get("run_id"), d["kind"], d.get("step"), d.get("ts"),
                        utf8_text(json.dumps(d, ensure_ascii=False, default=str))))

    @sqlite_errors
    def events(self, session_id: str, kind: str | None = None) -> list[dict]:
        sql, args = "SELECT data FROM events WHERE session_id = ?", [session_id]
        if kind:
            sql, args = sql + " AND kind = ?", args + [kind]
        return [loads_json(r[0], f"session {session_id}") for r in self.db.execute(sql + " ORDER BY id", args)]

    def observer(self, session_id: str) -> Callable[[Any], None]:
        """An agent observer that stores every event, plus each question and final answer as messages."""
        def record(event: Any) -> None:
            self.add_event(session_id, event)
            if event.kind == "run_started":
                self.add_message(session_id, Message("user", event.question))
            elif event.kind == "run_finished" and event.answer is not None:
                self.add_message(session_id, Message("assistant", event.answer))
        return record

    # --- snapshots and resuming ------------------------------------------------
    @sqlite_errors
    def save_state(self, session_id: str, data: dict, kind: str = "agent") -> None:
        """Store a versioned state snapshot (same format and checks as a state file) on the session."""
        text = dump_state(data, kind)
        with self._write() as db:
            self._touch(db, session_id)
            db.execute("UPDATE sessions SET state = ? WHERE id = ?", (text, session_id))

    @sqlite_errors
    def load_state(self, session_id: str, kind: str | None = None) -> dict | None:
        """The session's snapshot, or None if it has none. Raises StateError if it is bad."""
        row = self.db.execute("SELECT state FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            raise StateError(f"No session {session_id!r} in {self.path}; see list_sessions().")
        return None if row[0] is None else parse_state(row[0], kind=kind, source=f"session {session_id}")

    def save_agent(self, session_id: str, agent: Any) -> None:
        """Snapshot an agent's settings, memory and last trace onto the session."""
        self.save_state(session_id, agent_state(agent))

    def resume(self, session_id: str, llm: Any, tools: Any, **overrides: Any) -> Any:
        """A new Agent for this session: from its snapshot if it has one, else with a memory
        rebuilt from the message log. The agent keeps recording into the session."""
        state = self.load_state(session_id)
        if state is None:
            memory = ConversationMemory(llm=llm)
            for m in self.messages(session_id):
                memory.add(m)
            state = {"settings": {}, "memory": memory.to_dict()}
        agent = agent_from_state(state, llm, tools, **overrides)
        agent.observers.append(self.observer(session_id))
        return agent
