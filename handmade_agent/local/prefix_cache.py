"""A disk cache of llama.cpp KV states for prompt prefixes, so no process computes a known prefix again.

An entry is one file ``<key>.kv`` in ``~/.cache/handmade-agent/prefix-cache/``
(``HANDMADE_AGENT_CACHE`` moves the root): a magic line, a JSON header (model
sha256, settings, token count, blob sha256), the prefix's token ids, and the
opaque state blob that llama.cpp produced. The key hashes the model's sha256,
the settings and the exact token ids; ``get`` checks all of them again plus the
blob's sha256, so a damaged, truncated or foreign file is a miss (with a
warning, and the file removed), never a wrong answer or a crash inside llama.cpp.
Writes go to a temporary file in the same folder and are moved in place with
``os.replace``, so two processes writing one entry both leave a whole file.
Above ``max_bytes`` the least recently used entries (by mtime, touched on every
hit) are deleted. ``HANDMADE_AGENT_PREFIX_CACHE=0`` turns the cache off;
``HANDMADE_AGENT_PREFIX_CACHE_MB`` sets the cap (default 512).

Deliberately left out: what a state *is* (the caller's bytes, see ``model.py``),
locking (last writer wins, each write is whole), and pickle, ever.

    >>> import tempfile
    >>> c = PrefixCache(tempfile.mkdtemp())
    >>> _ = c.put("ab" * 32, [1, 2, 3], {"n_ctx": 8}, b"state")
    >>> c.get("ab" * 32, [1, 2, 3], {"n_ctx": 8}), c.get("ab" * 32, [1, 2, 4], {"n_ctx": 8})
    (b'state', None)
"""
from __future__ import annotations

import hashlib
import json
import os
import struct
import warnings
from pathlib import Path
from typing import Any, Sequence

MAGIC = b"handmade-agent prefix v1\n"
ENV_SWITCH, ENV_MB = "HANDMADE_AGENT_PREFIX_CACHE", "HANDMADE_AGENT_PREFIX_CACHE_MB"
DEFAULT_MB = 512


def enabled() -> bool:
    """False when ``HANDMADE_AGENT_PREFIX_CACHE`` is 0/false/off/no."""
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "false", "off", "no")


def default_dir() -> Path:
    from .files import cache_dir
    return cache_dir() / "prefix-cache"


def entry_key(model_sha256: str, tokens: Sequence[int], settings: dict[str, Any]) -> str:
    """sha256 over everything that decides the state: model bytes, settings, exact token ids."""
    h = hashlib.sha256(MAGIC + json.dumps([model_sha256, settings], sort_keys=True).encode())
    h.update(struct.pack(f"<{len(tokens)}i", *tokens))
    return h.hexdigest()


class PrefixCache:
    """Files of prefix states, verified on read, written atomically, capped with LRU eviction."""

    def __init__(self, directory: str | Path | None = None, max_bytes: int | None = None):
        self.directory = Path(directory) if directory else default_dir()
        self.max_bytes = max_bytes if max_bytes is not None else int(
            float(os.environ.get(ENV_MB) or DEFAULT_MB) * 1024 * 1024)

    def __repr__(self) -> str:
        return f"PrefixCache({str(self.directory)!r}, max_bytes={self.max_bytes})"

    def path(self, model_sha256: str, tokens: Sequence[int], settings: dict[str, Any]) -> Path:
        return self.directory / f"{entry_key(model_sha256, tokens, settings)}.kv"

    def get(self, model_sha256: str, tokens: Sequence[int], settings: dict[str, Any]) -> bytes | None:
        """The stored state for exactly these tokens, or None. A bad file is warned about and removed."""
        path = self.path(model_sha256, tokens, settings)
        try:
            data = path.read_bytes()
        except OSError:  # missing (the usual miss) or unreadable: either way, compute it
            return None
        problem = _check(data, model_sha256, tokens, settings)
        if isinstance(problem, str):
            warnings.warn(f"Ignoring prefix-cache file {path.name}: {problem}. It will be rebuilt.", stacklevel=2)
            path.unlink(missing_ok=True)
            return None
        try:
            os.utime(path)  # mtime is the LRU clock (atime is often off)
        except OSError:
            pass
        return problem

    def put(self, model_sha256: str, tokens: Sequence[int], settings: dict[str, Any], blob: bytes) -> Path | None:
        """Store ``blob`` for these tokens (whole file or nothing), then evict down to ``max_bytes``.

        A failed write (disk full, read-only folder) is a warning and None: the cache only saves time.
        """
        import tempfile
        path = self.path(model_sha256, tokens, settings)
        header = json.dumps({"model_sha256": model_sha256, "settings": settings, "n_tokens": len(tokens),
                             "blob_bytes": len(blob), "blob_sha256": hashlib.sha256(blob).hexdigest()},
                            sort_keys=True).encode()
        tmp = None
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".", suffix=".partial")
            with os.fdopen(fd, "wb") as f:
                f.write(MAGIC + struct.pack("<I", len(header)) + header)
                f.write(struct.pack(f"<{len(tokens)}i", *tokens))
                f.write(blob)
            os.replace(tmp, path)  # atomic in one folder: readers see the old file or the new one
        except OSError as e:
            warnings.warn(f"Could not write prefix-cache file {path}: {e}", stacklevel=2)
            return None
        finally:
            if tmp:
                Path(tmp).unlink(missing_ok=True)
        self.evict()
        return path

    def entries(self) -> list[tuple[Path, os.stat_result]]:
        """(path, stat) of every entry, least recently used first."""
        found = []
        for p in self.directory.glob("*.kv") if self.directory.is_dir() else []:
            try:
                found.append((p, p.stat()))
            except OSError:  # removed by another process meanwhile
                pass
        return sorted(found, key=lambda e: e[1].st_mtime_ns)

    def evict(self) -> int:
        """Delete least recently used entries until the total is within ``max_bytes``; return how many."""
        entries = self.entries()
        total, removed = sum(st.st_size for _, st in entries), 0
        for p, st in entries:
            if total <= self.max_bytes:
                break
            p.unlink(missing_ok=True)
            total, removed = total - st.st_size, removed + 1
        return removed

    def info(self) -> dict[str, Any]:
        entries = self.entries()
        return {"directory": str(self.directory), "entries": len(entries), "enabled": enabled(),
                "bytes": sum(st.st_size for _, st in entries), "max_bytes": self.max_bytes}

    def clear(self) -> int:
        """Remove every entry; return how many. (Temporary files of writers still running are left alone.)"""
        entries = self.entries()
        for p, _ in entries:
            p.unlink(missing_ok=True)
        return len(entries)


def _check(data: bytes, model_sha256: str, tokens: Sequence[int], settings: dict[str, Any]) -> bytes | str:
    """The blob if ``data`` is a whole entry for exactly these inputs, else what is wrong with it."""
    if not data.startswith(MAGIC):
        return "not a prefix-cache file"
    at = len(MAGIC) + 4
    if len(data) < at:
        return "truncated header"
    (n_header,) = struct.unpack_from("<I", data, len(MAGIC))
    try:
        header = json.loads(data[at:at + n_header])
    except ValueError:
        return "unreadable header"
    if not isinstance(header, dict) or header.get("model_sha256") != model_sha256:
        return "made with a different model"
    if header.get("settings") != json.loads(json.dumps(settings)) or header.get("n_tokens") != len(tokens):
        return "made with different settings or tokens"
    at += n_header
    stored, blob = data[at:at + 4 * len(tokens)], data[at + 4 * len(tokens):]
    if stored != struct.pack(f"<{len(tokens)}i", *tokens):
        return "its token ids differ from the prompt's"
    if len(blob) != header.get("blob_bytes") or hashlib.sha256(blob).hexdigest() != header.get("blob_sha256"):
        return "truncated or corrupt state"
    return blob
