"""Versioned JSON state, written atomically, read back with clear errors.

A state file is one JSON object: ``{"format": "handmade-agent-state", "version": 1,
"kind": "agent", "data": {...}}``. Saving never edits the file in place: it writes
a temporary file in the same directory (unbuffered ``os.write`` calls, so
there is no user-space buffer left to flush), fsyncs it, renames it over
the old file with ``os.replace`` (atomic on POSIX and Windows), then fsyncs the
directory so the rename itself survives a power cut. A crash at any moment
leaves either the old file or the new one, never half of each.

Loading only reads. A missing, corrupt, foreign, unknown-version or newer-version
file raises ``StateError`` saying what is wrong and what to do; nothing is
renamed, repaired or deleted. Older versions are upgraded in memory through
``MIGRATIONS`` (version n -> n+1). JSON holds data only, so unlike pickle,
loading a file can never run code.

Every read is bounded (size, nesting depth) and every save cleans the temporary
files a killed save left behind in its folder (``limits.py``).

Deliberately left out: compression, encryption, and file locking between writers
(the last complete write wins).

    >>> import tempfile, os; p = os.path.join(tempfile.mkdtemp(), "s.json")
    >>> _ = save_state({"x": 1}, p); load_state(p)
    {'x': 1}
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Callable

from ..errors import StateError
from ..redaction import redact
from .limits import clean_stale_temps, loads_json, read_limited, utf8_text

FORMAT = "handmade-agent-state"
VERSION = 1
MIGRATIONS: dict[int, Callable[[dict], dict]] = {}  # {n: upgrade data of version n to n+1}; none yet
CHUNK = 1 << 20  # bytes per os.write call


def dump_state(data: dict, kind: str = "agent") -> str:
    """The versioned JSON text for ``data``; raises StateError if it is not plain JSON data."""
    doc = {"format": FORMAT, "version": VERSION, "kind": kind, "data": redact(data)}  # saved state is shared too
    try:
        # a lone surrogate cannot be UTF-8: written as its JSON escape, it loads back as the same string
        return utf8_text(json.dumps(doc, ensure_ascii=False, indent=1, allow_nan=False))
    except (TypeError, ValueError, RecursionError) as e:  # a set, an object, NaN...: refuse before touching any file
        raise StateError(f"State is not plain JSON data ({e}). Convert it to dicts, lists, strings, "
                         "numbers, booleans and None before saving.") from e


def parse_state(text: str | bytes, *, kind: str | None = None, source: str = "state") -> dict:
    """Check and unwrap versioned JSON text; returns ``data`` (upgraded to the current version)."""
    try:
        doc = loads_json(text, source)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise StateError(f"{source} is corrupt: not valid JSON ({e}). It may have been cut short or edited by "
                         "hand. It was left untouched: restore a backup, or delete it to start fresh.") from e
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise StateError(f"{source} is not a handmade-agent state file (no \"format\": \"{FORMAT}\" field). "
                         "Check the path; it was left untouched.")
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise StateError(f"{source} has an unknown format version {version!r}; this handmade-agent reads "
                         f"whole-number versions from 1 up to {VERSION}. The file was left untouched.")
    if version > VERSION:
        raise StateError(f"{source} was written by a newer handmade-agent (format version {version}); this one "
                         f"reads up to version {VERSION}. Upgrade handmade-agent to load it; the file was left "
                         "untouched.")
    if kind is not None and doc.get("kind") != kind:
        raise StateError(f"{source} holds a {doc.get('kind')!r} state, not {kind!r}. Check the path.")
    data = doc.get("data")
    for v in range(version, VERSION):  # upgrade step by step, in memory only
        if v not in MIGRATIONS:
            raise StateError(f"{source} has format version {v} and no upgrade from it is known; "
                             "the file was left untouched.")
        data = MIGRATIONS[v](data)
    if not isinstance(data, dict):
        raise StateError(f"{source} is corrupt: its \"data\" field is not an object. It was left untouched.")
    return data


def save_state(data: dict, path: str | os.PathLike, *, kind: str = "agent") -> Path:
    """Write ``data`` as versioned JSON to ``path`` atomically. Returns the path."""
    path = Path(path)
    atomic_write_bytes(path, dump_state(data, kind).encode("utf-8"))
    return path


def load_state(path: str | os.PathLike, *, kind: str | None = None) -> dict:
    """Read a state file written by ``save_state``. Raises StateError; never modifies the file."""
    path = Path(path)
    try:
        raw = read_limited(path)
    except FileNotFoundError as e:
        raise StateError(f"No saved state at {path}. Save one first (save_state / save_agent), "
                         "or check the path.") from e
    except OSError as e:
        raise StateError(f"Cannot read {path}: {e}. Check its permissions.") from e
    return parse_state(raw, kind=kind, source=str(path))


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` all at once: temp file, fsync, os.replace, fsync the directory."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Same directory as the target: os.replace is only atomic within one file system.
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as e:  # a read-only or missing folder, a full disk, a file where the folder should be
        raise StateError(f"Could not save {path}: {e}. Check that its folder is writable, or save elsewhere; "
                         "the previous file, if any, is unchanged.") from e
    try:
        try:
            _write_all(fd, data)
            os.fsync(fd)  # the bytes are on disk before the name points at them
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException as e:  # includes KeyboardInterrupt: never leave the temp file or a half file
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise StateError(f"Could not save {path}: {e}. The previous file, if any, is unchanged.") from e
        raise
    _fsync_dir(path.parent)
    clean_stale_temps(path.parent)  # what earlier saves, killed half-way, left in this folder


def _write_all(fd: int, data: bytes) -> None:
    """os.write may write fewer bytes than asked (full disk, signals), so loop until all are written."""
    view, done = memoryview(data), 0
    while done < len(data):
        done += os.write(fd, view[done:done + CHUNK])


def _fsync_dir(directory: Path) -> None:
    if os.name != "posix":  # Windows cannot open a directory for fsync; NTFS journals the rename
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)

