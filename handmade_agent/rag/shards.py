"""Shard files of the embedding cache (``cache.py``), read as if someone else had planted them.

A shard is an ``.npz`` of two arrays: ``keys`` (sha256 hex strings) and ``vectors`` (float32, one row per key).
Reading: it is opened only as a regular file (no link, no FIFO) of at most ``MAX_SHARD_BYTES``; the array
headers are checked before any array is loaded, because ``np.load`` allocates whatever a header claims before
it reads a byte (a header claiming 64 M-character keys asked for gigabytes): one vector per key, keys of at most
``MAX_KEY_CHARS`` characters, vectors of the embedder's dimension when it is known without loading the model
(else at most ``MAX_DIM``), the whole claim within ``MAX_SHARD_BYTES``; and every number must be finite.
A failed check is a ``ValueError`` (or ``OSError``) saying why.
Writing: a private temporary file created exclusively under a random name in the shard folder
(``tempfile.mkstemp``: a link planted at a guessable name is never written through), then ``os.replace``.

Deliberately left out: signing shards (a wrong vector costs retrieval quality, never code execution: no pickle).

    >>> import tempfile, pathlib; d = pathlib.Path(tempfile.mkdtemp())
    >>> read_shard(write_shard(d, ["k" * 64], np.ones((1, 4))), dim=4)[0] == ["k" * 64]
    True
"""
from __future__ import annotations

import hashlib
import io
import os
import stat
import tempfile
import zipfile
from pathlib import Path

import numpy as np

MAX_SHARD_BYTES = 1 << 30  # a million 256-dim vectors; a bigger shard is not one we wrote
MAX_DIM = 16384             # the widest embedder in use has 1024
MAX_KEY_CHARS = 64          # a key is a sha256 in hex


def read_shard(path: Path, dim: int | None) -> tuple[list[str], np.ndarray]:
    """(keys, vectors) of a shard, checked as this module's docstring says; ValueError/OSError say why not."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_SHARD_BYTES:
            raise ValueError("not a regular file of a plausible size")
        data = f.read(MAX_SHARD_BYTES + 1)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        shapes = {}
        for name in ("keys", "vectors"):
            with z.open(f"{name}.npy") as member:  # the header only: nothing is allocated from a claimed shape
                version = np.lib.format.read_magic(member)
                read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else \
                    np.lib.format.read_array_header_2_0
                shapes[name] = read_header(member)  # (shape, fortran order, dtype)
    (n,), key_type = shapes["keys"][0], shapes["keys"][2]
    shape, vec_type = shapes["vectors"][0], shapes["vectors"][2]
    if key_type.kind != "U" or vec_type.kind != "f" or len(shape) != 2 or shape[0] != n:
        raise ValueError(f"arrays of unexpected types or shapes ({key_type}, {vec_type}, {shape})")
    if not 0 < shape[1] <= MAX_DIM or (dim is not None and shape[1] != dim):
        raise ValueError(f"{shape[1]}-dimensional vectors, expected {dim or f'at most {MAX_DIM}'}")
    # np.load allocates what a header claims before reading a byte: bound the claim by what we write
    if key_type.itemsize > MAX_KEY_CHARS * 4 or n * (key_type.itemsize + shape[1] * vec_type.itemsize) > MAX_SHARD_BYTES:
        raise ValueError(f"headers claiming {n:,} keys of {key_type.itemsize // 4:,} characters and vectors of "
                         f"{vec_type.itemsize} bytes, more than a shard of ours holds")
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        keys, vectors = z["keys"].tolist(), z["vectors"]
    if not np.isfinite(vectors).all():
        raise ValueError("vectors with NaN or infinite numbers")
    return keys, vectors


def write_shard(folder: Path, keys: list[str], vectors) -> Path:
    """A new shard of ``keys`` and ``vectors`` in ``folder``, whole or not at all (see the module docstring)."""
    folder.mkdir(parents=True, exist_ok=True)
    name = hashlib.sha256("".join(keys).encode()).hexdigest()[:16]
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp.npz")
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, keys=np.array(keys), vectors=np.asarray(vectors, dtype=np.float32))
        os.replace(tmp, folder / f"{name}.npz")
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:  # a folder that lets us create but not remove: the hidden file is skipped when reading
            pass
        raise
    return folder / f"{name}.npz"
