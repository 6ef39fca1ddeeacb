"""Fault injection: deja killed at every named point of a build, its index files damaged, readers racing rebuilds.

Whatever happens, the index stays readable, no session is lost or listed twice, nothing hangs (every
process has a timeout) and no traceback reaches a user. Kills are real (``DEJA_FAULT``, see
``deja.core.faults``); damage is done to the files on disk. Run alone with ``pytest -m faults``.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path

import msgspec
import orjson
import pytest
from harness import ENTRY, Sample

from deja.core.bookkeeping import State
from deja.core.index import MANIFEST, Index, IndexUnreadable, index_dir, read_manifest
from deja.core.indexer import refresh
from deja.core.library import find_session
from deja.core.sample import API_CHAT, INFRA_CHAT
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

pytestmark = pytest.mark.faults

GROWN = "9b0c1d2e-3f40-4152-8a6b-7c8d9e0f1a2b"
NEW = "4e5f6a7b-8c9d-4e0f-9a1b-2c3d4e5f6a7b"


def deja(sample: Sample, *args: str, fault: str = "", payload: bytes | None = None):
    env = {**sample.env, "DEJA_FAULT": fault} if fault else sample.env
    result = subprocess.run([*ENTRY, *args], env=env, input=payload, capture_output=True, timeout=60)
    assert b"Traceback" not in result.stderr, result.stderr.decode()
    return result


def sessions(home: Path) -> Counter[str]:
    """Every live session id, counted; reading each one's messages proves its segment is whole."""
    index = Index.open(home)
    found: Counter[str] = Counter()
    for segment, _, meta in index.sessions():
        segment.messages(meta)
        found[meta.id] += 1
    return found


def assert_whole(home: Path, expected: set[str] | list[set[str]]) -> None:
    """The index opens, holds one record per id, and holds one of the ``expected`` sets of sessions."""
    found = sessions(home)
    assert max(found.values()) == 1, found
    choices = expected if isinstance(expected, list) else [expected]
    assert set(found) in choices, set(found) ^ choices[-1]


def grow(sample: Sample) -> None:
    """One transcript gains a turn and one new chat appears: what an incremental refresh takes in."""
    project = str(sample.history.projects["api"])
    with transcript_path(sample.history.cli_root, project, GROWN).open("ab") as f:
        f.write(orjson.dumps(user_turn("and the zebra certificates?")) + b"\n")
        f.write(orjson.dumps(assistant_turn("They rotate yearly.")) + b"\n")
    write_transcript(
        transcript_path(sample.history.cli_root, project, NEW), [user_turn("a new chat"), assistant_turn("indeed")]
    )


@pytest.fixture
def history(sample: Sample) -> Sample:
    project = str(sample.history.projects["api"])
    write_transcript(
        transcript_path(sample.history.cli_root, project, GROWN),
        [user_turn("how do we rotate the signing keys?"), assistant_turn("With kms rotate.")],
    )
    refresh(sample.home)
    return sample


# --- kills ----------------------------------------------------------------------------------

#: Where a build is killed: inside a segment, between its files, inside the bookkeeping, around the swap.
#: A refresh after ``grow`` writes two sessions into one segment and two bookkeeping shards.
POINTS = {
    "full": ["segment-session@1", "segment-session@4", "segment-file@1", "segment-file@7", "bookkeeping-shard@1"],
    "refresh": ["segment-session@1", "segment-session@2", "segment-file@3", "segment-file@7", "bookkeeping-shard@1"],
}


@pytest.mark.parametrize("full", [True, False], ids=["full", "refresh"])
def test_a_build_killed_at_any_point_leaves_a_whole_index(history: Sample, full: bool) -> None:
    before = set(sessions(history.home))
    grow(history)
    after = before | {NEW}
    points = POINTS["full" if full else "refresh"] + [
        "bookkeeping-shard@2",
        "before-manifest-swap",
        "after-manifest-swap",
    ]
    for point in points:
        result = deja(history, "index", *(["--full"] if full else []), fault=point)
        assert result.returncode == -signal.SIGKILL, f"{point} was never reached"
        assert_whole(history.home, [before, after])
        if point == "after-manifest-swap":
            break  # the swap is done: nothing is left for the next point to kill
    assert deja(history, "index").returncode == 0
    assert_whole(history.home, after)
    segment, meta = find_session(Index.open(history.home), GROWN[:8])
    assert "zebra certificates" in " ".join(m.text for m in segment.messages(meta))


def test_a_kill_then_more_kills_then_a_refresh_still_converge(history: Sample) -> None:
    before = set(sessions(history.home))
    for point in ("before-manifest-swap", "bookkeeping-shard@2", "segment-file@3"):
        assert deja(history, "index", "--full", fault=point).returncode == -signal.SIGKILL
    grow(history)
    assert deja(history, "index", fault="bookkeeping-shard@1").returncode == -signal.SIGKILL
    assert_whole(history.home, before)
    assert deja(history, "search", "zebra").returncode == 0
    assert_whole(history.home, before | {NEW})


# --- damaged files --------------------------------------------------------------------------


def _state(directory: Path) -> State:
    return msgspec.msgpack.decode((directory / read_manifest(directory).state).read_bytes(), type=State)


def index_files(home: Path) -> dict[str, Path]:
    """One file of each kind the index holds, by kind."""
    directory = index_dir(home)
    segment = directory / read_manifest(directory).segments[0].name
    state = _state(directory)
    files = {"manifest": directory / MANIFEST, "state": directory / read_manifest(directory).state}
    files |= {name: segment / name for name in sorted(p.name for p in segment.iterdir())}
    files["shard"] = directory / "state" / next(n for n in state.shards if n)
    files["fingerprints"] = directory / "state" / next(db.fingerprints for db in state.ide.values() if db.fingerprints)
    return files


def damage(path: Path, how: str) -> None:
    data = path.read_bytes()
    if how == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif how == "zero":
        path.write_bytes(b"")
    elif how == "garbage":
        path.write_bytes(bytes(b ^ 0x5A for b in data) or b"\x5a")
    elif how == "version":
        path.write_bytes(msgspec.msgpack.encode({"version": 4, "generation": 1, "built_at": 0.0}))


def read_everything(home: Path) -> str:
    """Every read path over the index: open, list, find by prefix, read every message.

    Returns "" when all of it worked, else the one-line reason deja gave (anything else fails the test).
    """
    try:
        index = Index.open(home)
        for segment, ordinal, meta in index.sessions():
            segment.messages(meta)
            segment.session_keys(ordinal)
        index.find(INFRA_CHAT[:8])
    except IndexUnreadable as exc:
        assert "\n" not in str(exc)
        return str(exc)
    return ""


def test_every_kind_of_damaged_file_is_found_and_rebuilt(history: Sample) -> None:
    home = history.home
    expected = set(sessions(home))
    pristine = home.parent / "pristine"
    shutil.copytree(index_dir(home), pristine)
    kinds = index_files(home)
    assert len(kinds) == 12
    for kind in kinds:
        for how in ("truncate", "zero", "garbage", *(["version"] if kind == "manifest" else [])):
            shutil.rmtree(index_dir(home))
            shutil.copytree(pristine, index_dir(home))
            path = index_files(home)[kind]
            if how in ("truncate", "zero") and not path.stat().st_size:
                continue  # (an empty file has nothing to cut: dicts.bin of a segment too small for a dictionary)
            damage(path, how)
            said = read_everything(home)
            if kind == "manifest" or (how != "garbage" and path.parent.name.startswith("seg-")):
                assert str(path) in said, (kind, how, said)  # a size check on open finds it on every read path
            result = refresh(home, verify=True)
            assert str(path) in result.rebuilt_because, (kind, how, result.rebuilt_because)
            assert read_everything(home) == ""
            assert set(sessions(home)) == expected


def _chats(sample: Sample, count: int) -> None:
    """``count`` chats of a few turns each, their words drawn from one small vocabulary (as a project's chats
    repeat its names): enough that a segment's first ``DICT_SESSIONS`` sessions make it a deflate dictionary."""
    words = ["deploy", "cache", "migration", "certificate", "pinning", "worker", "queue", "retry", "timeout", "schema"]
    draw = random.Random(52)
    project = str(sample.history.projects["api"])
    for i in range(count):
        turns = []
        for _ in range(3):
            turns.append(user_turn(f"chat {i}: why does the {' '.join(draw.choices(words, k=8))} fail?"))
            turns.append(assistant_turn(f"Because {' '.join(draw.choices(words, k=30))}; run make {i}."))
        write_transcript(transcript_path(sample.history.cli_root, project, f"dict-chat-{i:03d}"), turns)


def _read_or_refused(home: Path) -> tuple[list[object], str]:
    """Every session's meta and messages, and each one's first message read alone (a snippet inflates only that
    far), or the one-line reason deja refused them."""
    try:
        index = Index.open(home)
        read: list[object] = []
        for segment, _, meta in index.sessions():
            read += [meta, segment.messages(meta), segment.message(meta.first_doc) if meta.n_docs else None]
    except IndexUnreadable as exc:
        assert "\n" not in str(exc)
        return [], str(exc)
    return read, ""


def test_a_flipped_byte_in_a_dictionarys_sessions_reads_right_or_names_its_file(sample: Sample) -> None:
    """review51c F1: raw deflate holds no checksum, and a byte flipped in sessions.bin, records.bin or dicts.bin
    (the same size: no check on open finds it) inflated to other messages, shown with no error."""
    _chats(sample, 200)
    refresh(sample.home, full=True)
    segment = index_dir(sample.home) / read_manifest(index_dir(sample.home)).segments[0].name
    assert (segment / "dicts.bin").stat().st_size > 0
    pristine, said = _read_or_refused(sample.home)
    assert said == "" and len(pristine) > 3 * 200
    refused = Counter[str]()
    for name in ("sessions.bin", "records.bin", "dicts.bin"):
        path = segment / name
        data = path.read_bytes()
        for at in range(0, len(data), max(1, len(data) // 60)):
            path.write_bytes(data[:at] + bytes([data[at] ^ 0x41]) + data[at + 1 :])
            read, said = _read_or_refused(sample.home)
            assert read == pristine or said.startswith(f"{path} is damaged"), (name, at, said)
            refused[name] += said != ""
        path.write_bytes(data)
    assert all(refused[name] > 40 for name in ("sessions.bin", "records.bin", "dicts.bin")), refused
    last = Index.open(sample.home).segments[0].ref.sessions - 1
    last_id = Index.open(sample.home).segments[0].session(last).id
    records = segment / "records.bin"
    data = records.read_bytes()
    records.write_bytes(data[:-9] + bytes([data[-9] ^ 0x10]) + data[-8:])  # (the last session's records)
    result = deja(sample, "show", last_id)
    assert result.returncode == 1 and result.stdout == b""
    assert result.stderr.decode() == (
        f"deja: {records} is damaged: session {last} does not match the checksum it was written with: "
        "run `deja index` to rebuild it\n"
    )


@pytest.mark.parametrize("kind", ["manifest", "postings.bin", "records.bin", "shard"])
def test_hooks_stay_silent_on_a_damaged_index_and_log_why(history: Sample, kind: str) -> None:
    damage(index_files(history.home)[kind], "garbage")
    payload = {
        "conversation_id": f"c-{kind}",
        "hook_event_name": "beforeSubmitPrompt",
        "cursor_version": "2.0.77",
        "workspace_roots": [str(history.history.projects["api"])],
        "prompt": "docker build fails with no space left on device",
    }
    for command in ("hook-prompt", "hook-context", "hook-session-end"):
        result = deja(history, command, payload=orjson.dumps(payload))
        assert result.returncode == 0
        assert result.stdout == b"" or orjson.loads(result.stdout)
        assert result.stderr == b""
    assert (history.home / "hooks.log").is_file()


# --- readers racing rebuilds ----------------------------------------------------------------


def test_readers_racing_full_rebuilds_never_fail_or_miss_a_session(history: Sample) -> None:
    expected = set(sessions(history.home))
    failures: list[str] = []
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            try:
                found = sessions(history.home)
                if set(found) != expected or max(found.values()) != 1:
                    failures.append(f"saw {sorted(found.items())}")
                find_session(Index.open(history.home), INFRA_CHAT)
            except Exception as exc:  # noqa: BLE001 - any failure is the finding
                failures.append(f"{type(exc).__name__}: {exc}")
            time.sleep(0.002)  # leave the rebuilding process a core

    readers = [threading.Thread(target=read) for _ in range(2)]
    for reader in readers:
        reader.start()
    try:
        deadline = time.monotonic() + 30
        for _ in range(4):
            assert deja(history, "index", "--full").returncode == 0
            assert time.monotonic() < deadline, "rebuilds took too long"
    finally:
        stop.set()
        for reader in readers:
            reader.join(timeout=30)
    assert not any(reader.is_alive() for reader in readers), "a reader hung"
    assert failures == []
    out = deja(history, "show", API_CHAT)
    assert out.returncode == 0


def test_a_cli_reader_during_a_full_rebuild_answers(history: Sample) -> None:
    builder = subprocess.Popen([*ENTRY, "index", "--full"], env=history.env, stderr=subprocess.PIPE)
    try:
        for _ in range(3):
            result = deja(history, "show", INFRA_CHAT)
            assert result.returncode == 0, result.stderr.decode()
            assert b"docker" in result.stdout.lower()
    finally:
        _, err = builder.communicate(timeout=60)
    assert builder.returncode == 0 and b"Traceback" not in err
    assert_whole(history.home, set(sessions(history.home)))
    assert os.listdir(index_dir(history.home))
