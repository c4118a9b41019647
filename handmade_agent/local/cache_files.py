"""Files in the user's cache folders, opened as if someone else had planted them.

A cache folder may be shared, copied, or written by another user, so nothing in it is
trusted: ``read_regular`` opens without following a symbolic link and without blocking on
a FIFO, accepts only a regular file, and checks its size before reading a byte (a cap,
never "the whole file"); ``write_atomic`` writes a randomly named temporary file created
exclusively (``tempfile.mkstemp``: a planted link at a guessable name is never written
through) and moves it in place with ``os.replace``; ``private_folder`` creates a folder
readable by its owner only; ``folder_secret`` is a per-user random key kept in the folder
(mode 0600, owned by this user) that signs what the folder holds, so an entry a planter
made cannot pass as ours; ``clean_leftovers`` removes temporary files a killed writer left.

Deliberately left out: Windows ACLs (modes and owners are checked where the OS has them),
and protection from the user's own account (it can read the key, as it can read the cache).

    >>> import tempfile, pathlib; d = pathlib.Path(tempfile.mkdtemp())
    >>> write_atomic(d / "a.json", b"{}"); read_regular(d / "a.json", limit=10)
    b'{}'
"""
from __future__ import annotations

import os
import stat
import tempfile
import time
from pathlib import Path

SECRET_FILE, SECRET_BYTES = ".cache-key", 32
LEFTOVER_SECONDS = 600  # a cache write takes seconds; a temporary file this old belongs to a killed writer


class UntrustedFile(OSError):
    """A cache file that is not a plain file of ours: a link, a FIFO, a folder, too big, or open to others."""


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of the regular file ``path`` (not a link, FIFO or device), refused above ``limit`` bytes.

    Raises FileNotFoundError for a missing file, ``UntrustedFile`` for the rest of what is refused.
    """
    try:  # O_NONBLOCK: opening a FIFO must not wait for a writer that never comes
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise
    except OSError as e:
        if os.path.islink(path):
            raise UntrustedFile(f"{path.name} is a symbolic link") from None
        raise UntrustedFile(f"{path.name} cannot be opened ({e.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UntrustedFile(f"{path.name} is not a regular file")
        if st.st_size > limit:
            raise UntrustedFile(f"{path.name} is {st.st_size:,} bytes, above the cap of {limit:,}")
        chunks, left = [], st.st_size + 1  # one byte more: a file growing under us is noticed
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 24))):
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > limit:
            raise UntrustedFile(f"{path.name} grew beyond {limit:,} bytes while being read")
        return data
    finally:
        os.close(fd)


def touch_regular(path: Path) -> None:
    """Set the mtime of ``path`` to now, unless it is a link (a link's target is not ours to touch)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode) and os.utime in os.supports_fd:
            os.utime(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def private_folder(folder: Path) -> Path:
    """``folder``, created (with its parents) readable and writable by its owner only if it did not exist."""
    folder = Path(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        if not folder.is_dir():
            raise
    return folder


def write_atomic(path: Path, data: bytes, suffix: str = ".tmp") -> None:
    """Replace ``path`` with ``data`` whole: a new random temporary file (0600) in its folder, then os.replace."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def folder_secret(folder: Path) -> bytes:
    """This user's random key for ``folder`` (created on first use). ``UntrustedFile`` if the key file there
    is not a private regular file owned by this user: someone else could know it."""
    folder, path = Path(folder), Path(folder) / SECRET_FILE
    for _ in range(2):
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        except FileNotFoundError:
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".key.", suffix=".tmp")  # 0600, created exclusively
            try:
                os.write(fd, os.urandom(SECRET_BYTES))
                os.close(fd)
                os.link(tmp, path)  # fails if another process made the key first: then read theirs
            except FileExistsError:
                pass
            finally:
                os.unlink(tmp)
            continue
        except OSError as e:
            raise UntrustedFile(f"the cache key {path} cannot be opened ({e.strerror}); delete it") from None
        try:
            st = os.fstat(fd)
            mine = not hasattr(os, "getuid") or st.st_uid == os.getuid()
            if not stat.S_ISREG(st.st_mode) or not mine or st.st_mode & 0o077 or st.st_size != SECRET_BYTES:
                raise UntrustedFile(f"the cache key {path} is not a private {SECRET_BYTES}-byte file of this user; "
                                    "delete it (a new one is made on the next use)")
            return os.read(fd, SECRET_BYTES + 1)
        finally:
            os.close(fd)
    raise UntrustedFile(f"the cache key {path} could not be created")


def clean_leftovers(folder: Path, suffix: str, now: float | None = None) -> int:
    """Delete ``.<name>.<random><suffix>`` files older than ``LEFTOVER_SECONDS``; how many. Never raises."""
    now, removed = time.time() if now is None else now, 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        if not (entry.name.startswith(".") and entry.name.endswith(suffix)):
            continue
        try:
            if entry.is_file(follow_symlinks=False) and now - entry.stat(follow_symlinks=False).st_mtime > \
                    LEFTOVER_SECONDS:
                os.unlink(entry.path)
                removed += 1
        except OSError:  # gone already, or another user's: cleaning is a courtesy
            pass
    return removed
