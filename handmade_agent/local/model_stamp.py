"""The stamp beside a verified model file: proof that its bytes were hashed and found right, that only we can make.

Hashing the model (0.5-1.1 GB) costs seconds on every load, so ``files.verify`` leaves a stamp beside a file it
has hashed (``<file>.verified``) and skips the hash while the stamp still holds. The stamp vouches for the file
as ``stat`` describes it: size, mtime, ctime, inode and device (a byte rewritten in place keeps size, inode
and, with ``os.utime``, mtime; only ctime, which no user call can set back, still moves). Those numbers are no
secret: anyone who can see the file can write them down, so a stamp of them alone was forged by one ``echo``.
The stamp therefore holds them signed: an HMAC under this user's random key (``cache_files.folder_secret``,
a 0600 file in the model cache folder). A stamp written by someone without the key does not hold, nor does
one copied from another file (another inode, another ctime): the file is hashed again. The content's own
hash cannot be part of the key: computing it is the very cost the stamp saves.

A stamp is read as an untrusted file (no link followed, no FIFO waited on, a few hundred bytes at most) and
written atomically (a private temporary file, then ``os.replace``): a link planted at the stamp's name is
replaced, never written through.

Deliberately left out: protection from the user's own account (it can read the key, as it can write the model).

    >>> import tempfile, pathlib; d = pathlib.Path(tempfile.mkdtemp()); f = d / "m.gguf"; _ = f.write_bytes(b"x")
    >>> write_stamp(f, f.stat(), "ab" * 32, b"k" * 32); stamp_holds(f, f.stat(), "ab" * 32, b"k" * 32)
    True
    >>> stamp_holds(f, f.stat(), "ab" * 32, b"another key" * 3)
    False
"""
from __future__ import annotations

import hashlib
import hmac
import os
from pathlib import Path

from .cache_files import read_regular, write_atomic

FORMAT = "v3"  # v2 stamps held the stat numbers unsigned: they no longer hold, and the file is hashed once more
MAX_STAMP_BYTES = 256


def stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def _signed(st: os.stat_result, sha256: str, secret: bytes) -> str:
    what = f"{st.st_size} {st.st_mtime_ns} {st.st_ctime_ns} {st.st_ino} {st.st_dev} {sha256}"
    return f"{FORMAT} {hmac.new(secret, what.encode(), hashlib.sha256).hexdigest()}"


def stamp_holds(path: Path, st: os.stat_result, sha256: str, secret: bytes | None) -> bool:
    """Does the stamp beside ``path`` vouch that the file ``st`` describes has the hash ``sha256``?"""
    if secret is None:
        return False
    try:
        found = read_regular(stamp_path(path), limit=MAX_STAMP_BYTES).decode("ascii").strip()
    except (OSError, UnicodeDecodeError):  # none, a link, a FIFO, too big, unreadable: no proof
        return False
    return hmac.compare_digest(found, _signed(st, sha256, secret))


def write_stamp(path: Path, st: os.stat_result, sha256: str, secret: bytes | None) -> None:
    """Leave a stamp for the file ``st`` describes; a folder we cannot write to only means hashing next time."""
    if secret is None:
        return
    try:
        write_atomic(stamp_path(path), (_signed(st, sha256, secret) + "\n").encode())
    except OSError:
        pass


def drop_stamp(path: Path) -> None:
    """Remove the stamp beside ``path`` (a link is removed, never its target), so it cannot vouch again."""
    try:
        stamp_path(path).unlink(missing_ok=True)
    except OSError:  # a folder in its place, or a read-only folder: it cannot vouch either way
        pass
