"""Versioned JSON state files: atomic saves that survive a killed writer, and bad files that touch nothing."""
from __future__ import annotations

import errno
import json
import math
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from handmade_agent.storage import state_file
from handmade_agent.errors import StateError
from handmade_agent.storage.state_file import FORMAT, VERSION, load_state, parse_state, save_state

OLD = {"memory": {"turns": [["old turn", "旧的回答"]]}, "n": 1}
NEW = {"memory": {"turns": [["new turn " * 2000]]}, "n": 2}  # big enough to take several chunks
ROOT = Path(__file__).resolve().parents[1]


def snapshot(directory: Path) -> dict[str, tuple[bytes, int]]:
    """Every file in a directory with its bytes and mtime, to prove nothing was touched."""
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(directory.iterdir())}


def test_round_trip_and_the_file_is_readable_versioned_json(tmp_path):
    p = save_state(OLD, tmp_path / "agent.json")
    doc = json.loads(p.read_text(encoding="utf-8"))
    assert doc == {"format": FORMAT, "version": VERSION, "kind": "agent", "data": OLD}
    assert "旧的回答" in p.read_text(encoding="utf-8")  # readable, not \\u-escaped
    assert load_state(p) == OLD and load_state(p, kind="agent") == OLD
    assert [x.name for x in tmp_path.iterdir()] == ["agent.json"]  # no temp file left behind


def test_save_replaces_the_previous_state(tmp_path):
    p = tmp_path / "agent.json"
    save_state(OLD, p)
    save_state(NEW, p)
    assert load_state(p) == NEW


def test_save_creates_missing_directories(tmp_path):
    assert load_state(save_state(OLD, tmp_path / "a" / "b" / "s.json")) == OLD


def versioned(version, data=None, **extra) -> str:
    return json.dumps({"format": FORMAT, "version": version, "kind": "agent", "data": data or {"x": 1}, **extra})


BAD_FILES = {
    "empty file": (b"", "corrupt"),
    "cut short": (versioned(1)[:-7].encode(), "corrupt"),
    "binary garbage": (b"\x80\x81\xfe\xff" * 8, "corrupt"),
    "a JSON list": (b"[1, 2, 3]", "not a handmade-agent state file"),
    "other JSON": (b'{"hello": "world"}', "not a handmade-agent state file"),
    "wrong format name": (versioned(1).replace(FORMAT, "pickle").encode(), "not a handmade-agent state file"),
    "no version": (json.dumps({"format": FORMAT, "data": {}}).encode(), "unknown format version None"),
    "version as text": (versioned("1").encode(), "unknown format version '1'"),
    "version zero": (versioned(0).encode(), "unknown format version 0"),
    "version true": (versioned(True).encode(), "unknown format version True"),
    "newer version": (versioned(VERSION + 1).encode(), "newer handmade-agent"),
    "data not an object": (json.dumps({"format": FORMAT, "version": 1, "data": [1]}).encode(), "not an object"),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_each_bad_file_gives_a_clear_error_and_touches_nothing(tmp_path, case):
    raw, message = BAD_FILES[case]
    p = tmp_path / "agent.json"
    p.write_bytes(raw)
    before = snapshot(tmp_path)
    with pytest.raises(StateError, match=message) as err:
        load_state(p)
    assert str(p) in str(err.value)  # says which file
    assert snapshot(tmp_path) == before


def test_missing_file_and_wrong_kind(tmp_path):
    with pytest.raises(StateError, match="No saved state"):
        load_state(tmp_path / "nope.json")
    assert list(tmp_path.iterdir()) == []
    save_state({"a": 1}, tmp_path / "s.json", kind="session")
    with pytest.raises(StateError, match="'session' state, not 'agent'"):
        load_state(tmp_path / "s.json", kind="agent")


def test_older_versions_are_upgraded_in_memory_only(tmp_path, monkeypatch):
    monkeypatch.setattr(state_file, "VERSION", 3)
    monkeypatch.setattr(state_file, "MIGRATIONS", {1: lambda d: {**d, "v2": True}, 2: lambda d: {**d, "v3": True}})
    p = tmp_path / "old.json"
    p.write_text(versioned(1))
    before = snapshot(tmp_path)
    assert load_state(p) == {"x": 1, "v2": True, "v3": True}
    assert snapshot(tmp_path) == before
    monkeypatch.setattr(state_file, "MIGRATIONS", {2: lambda d: d})  # no path from 1
    with pytest.raises(StateError, match="no upgrade from it"):
        load_state(p)


@pytest.mark.parametrize("data", [{"s": {1, 2}}, {"f": math.nan}, {"o": object()}])
def test_unserializable_state_is_refused_before_the_old_file_is_touched(tmp_path, data):
    p = save_state(OLD, tmp_path / "agent.json")
    before = snapshot(tmp_path)
    with pytest.raises(StateError, match="not plain JSON"):
        save_state(data, p)
    assert snapshot(tmp_path) == before


def test_a_write_that_fails_part_way_leaves_the_old_state_and_no_temp_file(tmp_path, monkeypatch):
    p = save_state(OLD, tmp_path / "agent.json")
    before = snapshot(tmp_path)
    real_write, calls = os.write, []

    def failing_write(fd, data):
        calls.append(len(data))
        if len(calls) == 1:
            return real_write(fd, data[: len(data) // 2])  # a short write, as a nearly full disk gives
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(state_file.os, "write", failing_write)
    with pytest.raises(StateError, match="No space left.*previous file.*unchanged"):
        save_state(NEW, p)
    assert len(calls) == 2  # the short write was retried, then the disk "filled up"
    monkeypatch.undo()
    assert snapshot(tmp_path) == before and load_state(p) == OLD


CHILD_PRELUDE = """
import os, signal, sys, time
sys.path.insert(0, {root!r})
from handmade_agent.storage import state_file
state_file.CHUNK = 4096
path, new = sys.argv[1], {new!r}
"""


def run_child(tmp_path: Path, body: str, **popen) -> subprocess.Popen:
    code = CHILD_PRELUDE.format(root=str(ROOT), new=NEW) + textwrap.dedent(body)
    return subprocess.Popen([sys.executable, "-c", code, str(tmp_path / "agent.json")], **popen)


def assert_old_state_intact(tmp_path: Path) -> None:
    assert load_state(tmp_path / "agent.json") == OLD
    leftovers = [x.name for x in tmp_path.iterdir() if x.name != "agent.json"]
    assert all(n.startswith(".agent.json.") and n.endswith(".tmp") for n in leftovers)


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")
def test_a_writer_that_dies_in_the_middle_of_writing_leaves_the_old_state(tmp_path):
    save_state(OLD, tmp_path / "agent.json")
    child = run_child(tmp_path, """
        real_write, n = os.write, [0]
        def write_then_die(fd, data):
            n[0] += 1
            if n[0] == 3:  # two chunks are on disk, the third never comes
                os.kill(os.getpid(), signal.SIGKILL)
            return real_write(fd, data)
        os.write = write_then_die
        state_file.save_state(new, path)
        print("save finished - the kill did not happen")
    """, stdout=subprocess.PIPE)
    out, _ = child.communicate(timeout=60)
    assert child.returncode == -signal.SIGKILL and b"finished" not in out
    assert_old_state_intact(tmp_path)
    partial = [x for x in tmp_path.iterdir() if x.name.endswith(".tmp")]
    assert len(partial) == 1 and partial[0].stat().st_size == 2 * 4096  # the half-written temp file


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")
def test_a_writer_killed_by_another_process_before_the_rename_leaves_the_old_state(tmp_path):
    save_state(OLD, tmp_path / "agent.json")
    child = run_child(tmp_path, """
        real_fsync = os.fsync
        def fsync_then_wait(fd):
            real_fsync(fd)
            print("written", flush=True)
            time.sleep(60)  # the parent kills us here, between fsync and os.replace
        os.fsync = fsync_then_wait
        state_file.save_state(new, path)
    """, stdout=subprocess.PIPE)
    try:
        assert child.stdout.readline().strip() == b"written"
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
        child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    assert_old_state_intact(tmp_path)


def test_readers_only_ever_see_a_complete_state_while_another_process_saves(tmp_path):
    p = save_state({"i": -1, "pad": "x" * 50_000}, tmp_path / "agent.json")
    child = run_child(tmp_path, """
        for i in range(60):
            state_file.save_state({"i": i, "pad": "x" * 50_000}, path)
    """)
    seen = set()
    while child.poll() is None:
        seen.add(load_state(p)["i"])  # raises StateError if it ever saw a half-written file
    assert child.returncode == 0 and load_state(p)["i"] == 59 and len(seen) >= 1


def test_parse_state_names_its_source():
    with pytest.raises(StateError, match="session s-1 is corrupt"):
        parse_state("{", source="session s-1")
