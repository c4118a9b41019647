"""Model resolution: explicit path, cache, mirror assembly, and every corrupt/missing case, on real files."""
from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from handmade_agent.errors import ModelNotFound
from handmade_agent.local.files import QWEN_CODER_05B, ModelSpec, find_model, mirror_parts, verify

BLOB = bytes(range(256)) * 1000  # 256,000 bytes of known content


def small_spec(n_parts: int = 3, prefix: str = "hatestpart") -> ModelSpec:
    return ModelSpec("tiny.gguf", len(BLOB), hashlib.sha256(BLOB).hexdigest(), "nobody/nothing",
                     tuple(f"{prefix}{i}" for i in range(1, n_parts + 1)))


def install_fake_mirror(site: Path, spec: ModelSpec, blob: bytes) -> None:
    """Write installed-package metadata + data files the way pip does, into a directory on sys.path."""
    n = len(spec.mirror_packages)
    step = -(-len(blob) // n)
    for i, name in enumerate(spec.mirror_packages):
        pkg, data = name.replace("-", "_"), blob[i * step:(i + 1) * step]
        (site / pkg / "data").mkdir(parents=True)
        (site / pkg / "data" / f"part{i + 1:02d}.bin").write_bytes(data)
        info = site / f"{pkg}-0.9.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.9.0\n")
        (info / "RECORD").write_text(f"{pkg}/data/part{i + 1:02d}.bin,,{len(data)}\n{info.name}/METADATA,,\n")


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("HANDMADE_AGENT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("HANDMADE_AGENT_GGUF", raising=False)
    return tmp_path


def test_mirror_parts_are_found_by_metadata_joined_and_verified(env, monkeypatch):
    spec = small_spec()
    install_fake_mirror(env / "site", spec, BLOB)
    monkeypatch.syspath_prepend(str(env / "site"))
    assert [p.name for p in mirror_parts(spec)] == ["part01.bin", "part02.bin", "part03.bin"]
    got = find_model(spec)
    assert got == env / "cache" / "tiny.gguf" and got.read_bytes() == BLOB
    assert not any(name.startswith("hatestpart") for name in sys.modules)  # found, never imported
    assert find_model(spec) == got  # second time: from the cache


def test_a_damaged_mirror_is_refused_and_leaves_no_file(env, monkeypatch):
    spec = small_spec(prefix="hadamaged")
    install_fake_mirror(env / "site", spec, BLOB[:-1] + b"\x00")
    monkeypatch.syspath_prepend(str(env / "site"))
    with pytest.raises(ModelNotFound, match="reinstall them"):
        find_model(spec)
    assert not list((env / "cache").iterdir())


def test_missing_model_names_every_way_to_get_it(env):
    with pytest.raises(ModelNotFound) as e:
        find_model(small_spec(prefix="notinstalled"))
    msg = str(e.value)
    for way in ("HANDMADE_AGENT_GGUF", "handmade-agent fetch-model", "Hugging Face Hub", "model-mirror"):
        assert way in msg


def test_explicit_path_must_verify(env, monkeypatch):
    spec = small_spec()
    good, bad, short = env / "good.gguf", env / "bad.gguf", env / "short.gguf"
    good.write_bytes(BLOB)
    bad.write_bytes(BLOB[:-1] + b"\x00")
    short.write_bytes(BLOB[:100])
    monkeypatch.setenv("HANDMADE_AGENT_GGUF", str(good))
    assert find_model(spec) == good
    monkeypatch.setenv("HANDMADE_AGENT_GGUF", str(bad))
    with pytest.raises(ModelNotFound, match="corrupt: sha256"):
        find_model(spec)
    monkeypatch.setenv("HANDMADE_AGENT_GGUF", str(short))
    with pytest.raises(ModelNotFound, match="100 bytes, expected 256,000"):
        find_model(spec)
    monkeypatch.setenv("HANDMADE_AGENT_GGUF", str(env / "absent.gguf"))
    with pytest.raises(ModelNotFound, match="No model file at"):
        find_model(spec)


def test_a_file_changed_after_verification_is_checked_again(env):
    spec, path = small_spec(), env / "m.gguf"
    path.write_bytes(BLOB)
    verify(path, spec)
    assert (env / "m.gguf.verified").exists()
    path.write_bytes(BLOB[::-1])  # same size, new content, new mtime: the stamp no longer matches
    with pytest.raises(ModelNotFound, match="corrupt"):
        verify(path, spec)


def test_the_real_mirror_packages_hold_exactly_the_model_size():
    parts = mirror_parts(QWEN_CODER_05B)
    if parts is None:
        pytest.skip("the model-mirror extra is not installed")
    assert len(parts) == 6 and sum(p.stat().st_size for p in parts) == QWEN_CODER_05B.size
