"""A disk cache of llama.cpp KV states for prompt prefixes, so no process computes a known prefix again.

An entry is one file ``<key>.kv`` in ``~/.cache/handmade-agent/prefix-cache/``
(``HANDMADE_AGENT_CACHE`` moves the root): a magic line, an HMAC, a JSON header (model
sha256, settings, token count), the prefix's token ids, and the opaque state blob that
llama.cpp produced. The key hashes the model's sha256, the settings and the exact token
ids; ``get`` checks all of them again, so a damaged, truncated or foreign file is a miss
(with a warning, and the file removed), never a wrong answer or a crash inside llama.cpp.

The folder is not trusted (``cache_files.py``): it is created readable by its owner only;
an entry is opened without following links, only as a regular file, and refused from its
size (above the cache's cap) before it is read; its HMAC is keyed by a random per-user key
kept in the folder (0600), so an entry someone else wrote into a shared folder (say, a
planted state of the course's system prompt) is a miss, however consistent it looks.
Writes go to a random temporary file in the same folder, moved in place with ``os.replace``,
so two processes writing one entry both leave a whole file; the temporary files of killed
writers are removed on a later write. Above ``max_bytes`` the least recently used entries
(by mtime, touched on every hit) are deleted. ``HANDMADE_AGENT_PREFIX_CACHE=0`` turns the
cache off; ``HANDMADE_AGENT_PREFIX_CACHE_MB`` sets the cap (default 512; a value that is not
a number of at least 0 is warned about and the default used).

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
import hmac
import json
import math
import os
import struct
import warnings
from pathlib import Path
from typing import Any, Sequence

from .cache_files import UntrustedFile, clean_leftovers, folder_secret, private_folder, read_regular, touch_regular

MAGIC = b"handmade-agent prefix v2\n"  # v2: keyed HMAC instead of a checksum anyone can compute
ENV_SWITCH, ENV_MB = "HANDMADE_AGENT_PREFIX_CACHE", "HANDMADE_AGENT_PREFIX_CACHE_MB"
DEFAULT_MB = 512
MAX_HEADER = 1 << 16  # settings and counts: a few hundred bytes
MAC_BYTES = 32


def enabled() -> bool:
    """False when ``HANDMADE_AGENT_PREFIX_CACHE`` is 0/false/off/no."""
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "false", "off", "no")


def default_dir() -> Path:
    from .files import cache_dir
    return cache_dir() / "prefix-cache"


def cap_from_env() -> int:
    """``HANDMADE_AGENT_PREFIX_CACHE_MB`` in bytes; the default (with a warning) for anything but a number >= 0."""
    text = os.environ.get(ENV_MB) or str(DEFAULT_MB)
    try:
        mb = float(text)
    except ValueError:
        mb = math.nan
    if not (math.isfinite(mb) and 0 <= mb <= 1 << 30):
        warnings.warn(f"{ENV_MB}={text!r} is not a size in MB (a number of at least 0); using {DEFAULT_MB}.",
                      stacklevel=3)
        mb = DEFAULT_MB
    return int(mb * 1024 * 1024)


def entry_key(model_sha256: str, tokens: Sequence[int], settings: dict[str, Any]) -> str:
    """sha256 over everything that decides the state: model bytes, settings, exact token ids."""
    h = hashlib.sha256(MAGIC + json.dumps([model_sha256, settings], sort_keys=True).encode())
    h.update(struct.pack(f"<{len(tokens)}i", *tokens))
    return h.hexdigest()


class PrefixCache:
    """Files of prefix states, verified on read, written atomically, capped with LRU eviction."""

    def __init__(self, directory: str | Path | None = None, max_bytes: int | None = None):
        self.directory = Path(directory) if directory else default_dir()
        self.max_bytes = max_bytes if max_bytes is not None else cap_from_env()

    def __repr__(self) -> str:
        return f"PrefixCache({str(self.directory)!r}, max_bytes={self.max_bytes})"

    def path(self, model_sha256: str, tokens: Sequence[int], settings: dict[str, Any]) -> Path:
        return self.directory / f"{entry_key(model_sha256, tokens, settings)}.kv"

    def _secret(self) -> bytes | None:
        try:
            return folder_secret(private_folder(self.directory))
        except OSError as e:  # UntrustedFile included: without our own key no entry can be trusted
            warnings.warn(f"Prefix cache {self.directory} is not used: {e}.", stacklevel=3)
            return None

    def get(self, model_sha256: str, tokens: Sequence[int], settings: dict[str, Any]) -> bytes | None:
        """The stored state for exactly these tokens, or None. A bad file is warned about and removed."""
        path = self.path(model_sha256, tokens, settings)
        try:
            data = read_regular(path, limit=self.max_bytes)
        except FileNotFoundError:  # the usual miss
            return None
        except UntrustedFile as e:
            return self._reject(path, str(e))
        secret = self._secret()
        if secret is None:
            return None
        problem = _check(data, secret, model_sha256, tokens, settings)
        if isinstance(problem, str):
            return self._reject(path, problem)
        touch_regular(path)  # mtime is the LRU clock (atime is often off)
        return problem

    def _reject(self, path: Path, problem: str) -> None:
        warnings.warn(f"Ignoring prefix-cache file {path.name}: {problem}. It will be rebuilt.", stacklevel=3)
        try:
            path.unlink(missing_ok=True)  # a link is removed, never its target; a folder stays
        except OSError:
            pass

    def put(self, model_sha256: str, tokens: Sequence[int], settings: dict[str, Any], blob: bytes) -> Path | None:
        """Store ``blob`` for these tokens (whole file or nothing), then evict down to ``max_bytes``.

        A failed write (disk full, read-only folder) is a warning and None: the cache only saves time.
        """
        import tempfile
        path = self.path(model_sha256, tokens, settings)
        header = json.dumps({"model_sha256": model_sha256, "settings": settings, "n_tokens": len(tokens),
                             "blob_bytes": len(blob)}, sort_keys=True).encode()
        tmp = None
        try:
            secret = folder_secret(private_folder(self.directory))
            body = struct.pack("<I", len(header)) + header + struct.pack(f"<{len(tokens)}i", *tokens)
            mac = hmac.new(secret, body, hashlib.sha256)
            mac.update(blob)
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".", suffix=".partial")
            with os.fdopen(fd, "wb") as f:
                f.write(MAGIC + mac.digest() + body)
                f.write(blob)
            os.replace(tmp, path)  # atomic in one folder: readers see the old file or the new one
        except OSError as e:
            warnings.warn(f"Could not write prefix-cache file {path}: {e}", stacklevel=2)
            return None
        finally:
            if tmp:
                Path(tmp).unlink(missing_ok=True)
        clean_leftovers(self.directory, ".partial")
        self.evict()
        return path

    def entries(self) -> list[tuple[Path, os.stat_result]]:
        """(path, stat) of every entry (regular ``*.kv`` files only), least recently used first."""
        found = []
        try:
            listing = list(os.scandir(self.directory))
        except OSError:
            listing = []
        for e in listing:
            try:
                if e.name.endswith(".kv") and e.is_file(follow_symlinks=False):
                    found.append((Path(e.path), e.stat(follow_symlinks=False)))
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
            _remove(p)
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
            _remove(p)
        return len(entries)


def _remove(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError:  # another user's file in a shared folder: not ours to delete
        pass


def _check(data: bytes, secret: bytes, model_sha256: str, tokens: Sequence[int],
           settings: dict[str, Any]) -> bytes | str:
    """The blob if ``data`` is a whole entry we wrote for exactly these inputs, else what is wrong with it."""
    if not data.startswith(MAGIC):
        return "not a prefix-cache file of this version"
    at = len(MAGIC) + MAC_BYTES
    if len(data) < at + 4:
        return "truncated header"
    if not hmac.compare_digest(data[len(MAGIC):at], hmac.new(secret, data[at:], hashlib.sha256).digest()):
        return ("truncated or corrupt, or written by someone else (its HMAC does not match this user's "
                "cache key)")
    (n_header,) = struct.unpack_from("<I", data, at)
    at += 4
    if n_header > MAX_HEADER:
        return "header too large"
    try:
        header = json.loads(data[at:at + n_header])
    except (ValueError, RecursionError):
        return "unreadable header"
    if not isinstance(header, dict) or header.get("model_sha256") != model_sha256:
        return "made with a different model"
    if header.get("settings") != json.loads(json.dumps(settings)) or header.get("n_tokens") != len(tokens):
        return "made with different settings or tokens"
    at += n_header
    stored, blob = data[at:at + 4 * len(tokens)], data[at + 4 * len(tokens):]
    if stored != struct.pack(f"<{len(tokens)}i", *tokens):
        return "its token ids differ from the prompt's"
    if len(blob) != header.get("blob_bytes"):
        return "truncated or corrupt state"
    return blob
