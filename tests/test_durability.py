"""The index survives what an unlucky user does to it: kills, damage, other accounts, a read-only home.

Each test is one failure of issue 11 (items 2, 3, 4, 5, 7 and 11), seen as a user sees it: deja run
as a process, killed at a named point (``deja.core.faults``), its files damaged on disk.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import stat
import subprocess
import time
from pathlib import Path

import msgspec
import orjson
import pytest
from harness import ENTRY, Sample

from deja.core.bookkeeping import State
from deja.core.index import MANIFEST, Index, index_dir, read_manifest, remove_stale_segments
from deja.core.indexer import refresh
from deja.core.sample import API_CACHE_CHAT, INFRA_CHAT
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

APPENDED = "7a11e9f0-4b2c-4d8e-9f10-aa00bb11cc22"


def deja(sample: Sample, *args: str, fault: str = "", umask: int | None = None, **env: str):
    """``deja ARGS`` as a process, killed at ``fault`` if given, under ``umask`` if given."""
    environment = {**sample.env, **env}
    if fault:
        environment["DEJA_FAULT"] = fault
    return subprocess.run(
        [*ENTRY, *args],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=(lambda: os.umask(umask)) if umask is not None else None,
    )


def killed(result: subprocess.CompletedProcess[str]) -> bool:
    return result.returncode == -signal.SIGKILL


def bookkeeping_files(home: Path) -> dict[str, bytes]:
    """The manifest and every bookkeeping file it names, by path: what a refresh builds upon."""
    directory = index_dir(home)
    manifest = read_manifest(directory)
    state_path = directory / manifest.state
    state = msgspec.msgpack.decode(state_path.read_bytes(), type=State)
    names = [n for n in state.shards if n] + [db.fingerprints for db in state.ide.values() if db.fingerprints]
    files = [directory / MANIFEST, state_path, *(directory / "state" / name for name in names)]
    return {str(path): path.read_bytes() for path in files}


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    return result.stderr


# --- 2: private files ---------------------------------------------------------------------


def _loose(home: Path) -> list[str]:
    """Everything under ``home`` (and ``home``) another account could read, list or write."""
    found = []
    for path in [home, *home.rglob("*")]:
        if stat.S_IMODE(path.lstat().st_mode) & 0o077:
            found.append(f"{oct(stat.S_IMODE(path.lstat().st_mode))} {path}")
    return found


def _hook(sample: Sample, command: str, event: str, umask: int, **fields: object) -> None:
    payload = {
        "conversation_id": "c-private",
        "hook_event_name": event,
        "cursor_version": "2.0.77",
        "workspace_roots": [str(sample.history.projects["api"])],
        **fields,
    }
    result = subprocess.run(
        [*ENTRY, command],
        env=sample.env,
        input=orjson.dumps(payload),
        capture_output=True,
        timeout=60,
        preexec_fn=lambda: os.umask(umask),
    )
    assert result.returncode == 0


def test_deja_home_is_private_whatever_the_umask(sample: Sample) -> None:
    assert deja(sample, "index", umask=0).returncode == 0
    assert deja(sample, "search", "docker", umask=0).returncode == 0
    prompt = "why does the price cache return stale prices after switching the locale?"
    _hook(sample, "hook-prompt", "beforeSubmitPrompt", 0, prompt=prompt)
    _hook(sample, "hook-session-end", "sessionEnd", 0)
    assert (sample.home / "hooks" / "seen").is_dir() and (sample.home / "hooks.log").is_file()
    assert (index_dir(sample.home) / ".lock").exists()
    assert _loose(sample.home) == []


def test_an_install_readable_by_others_is_tightened_on_the_next_run(sample: Sample) -> None:
    refresh(sample.home)
    for path in [sample.home, *sample.home.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    assert _loose(sample.home)
    assert deja(sample, "search", "docker").returncode == 0
    assert _loose(sample.home) == []


def test_tightening_leaves_what_is_not_deja_s_alone(sample: Sample) -> None:
    sample.home.mkdir(mode=0o755)
    sample.home.chmod(0o755)
    theirs = sample.home / "notes.txt"
    theirs.write_text("not deja's")
    theirs.chmod(0o644)
    assert deja(sample, "index").returncode == 0
    assert stat.S_IMODE(theirs.stat().st_mode) == 0o644
    assert _loose(sample.home) == [f"0o644 {theirs}"]


# --- 3 and 4: a killed full rebuild -------------------------------------------------------


def test_a_full_rebuild_killed_while_writing_its_bookkeeping_leaves_the_live_one_untouched(
    indexed_sample: Sample,
) -> None:
    sample = indexed_sample
    before = bookkeeping_files(sample.home)
    for nth in (1, 3):
        assert killed(deja(sample, "index", "--full", fault=f"bookkeeping-shard@{nth}"))
        assert bookkeeping_files(sample.home) == before
    for args in (["search", "docker"], ["sessions"], ["show", INFRA_CHAT], ["stats"], ["index"]):
        result = deja(sample, *args)
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stderr
    assert len(Index.open(sample.home).find(API_CACHE_CHAT)) == 1


def test_a_kill_before_the_manifest_swap_then_an_appended_turn_leaves_one_record_per_id(sample: Sample) -> None:
    project = str(sample.history.projects["api"])
    transcript = transcript_path(sample.history.cli_root, project, APPENDED)
    write_transcript(transcript, [user_turn("how do we rotate the signing keys?"), assistant_turn("With kms rotate.")])
    assert deja(sample, "index").returncode == 0
    assert killed(deja(sample, "index", "--full", fault="before-manifest-swap"))
    with transcript.open("ab") as f:
        f.write(orjson.dumps(user_turn("and the zebra certificates?")) + b"\n")
        f.write(orjson.dumps(assistant_turn("Those rotate yearly.")) + b"\n")

    by_prefix = deja(sample, "show", APPENDED[:8])
    assert by_prefix.returncode == 0, by_prefix.stderr
    assert "zebra certificates" in by_prefix.stdout
    exact = deja(sample, "show", APPENDED)
    assert "zebra certificates" in exact.stdout
    assert [meta.id for _, _, meta in Index.open(sample.home).sessions()].count(APPENDED) == 1


# --- 5: damaged index files ---------------------------------------------------------------


def _a_segment(home: Path) -> Path:
    return index_dir(home) / read_manifest(index_dir(home)).segments[0].name


def _a_shard(home: Path) -> Path:
    directory = index_dir(home)
    state = msgspec.msgpack.decode((directory / read_manifest(directory).state).read_bytes(), type=State)
    return directory / "state" / next(n for n in state.shards if n)


def _doctor_damage(sample: Sample, state: str = "damaged") -> str:
    report = orjson.loads(deja(sample, "doctor", "--json").stdout)
    assert report["index"]["state"] == state
    return " ".join(p["message"] for p in report["problems"] if p["area"] == "index")


@pytest.mark.parametrize(
    ("file", "damage"),
    [
        ("postings.bin", "truncate"),
        ("records.bin", "zero"),
        ("terms.idx", "truncate"),
        ("sessions.bin", "garbage"),
        ("records.bin", "garbage"),
    ],
)
def test_a_damaged_segment_file_is_named_and_deja_index_rebuilds_it(
    indexed_sample: Sample, file: str, damage: str
) -> None:
    sample = indexed_sample
    path = _a_segment(sample.home) / file
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "zero":
        path.write_bytes(b"")
    else:  # (the same garbage on every run: a failure one run finds, the next finds again)
        path.write_bytes(random.Random(61).randbytes(len(data)))

    assert str(path) in _doctor_damage(sample)
    if damage != "garbage":  # a size check on open catches these: the refresh before a read rebuilds, and says why
        searched = deja(sample, "search", "docker")
        assert searched.returncode == 0 and INFRA_CHAT in searched.stdout
        assert str(path) in one_line_error(searched)
    else:  # what reads the garbage names the file; `deja index` (and doctor) read every byte
        shown = deja(sample, "show", INFRA_CHAT)
        assert shown.returncode == 1 and str(path) in one_line_error(shown)
        rebuilt = deja(sample, "index")
        assert rebuilt.returncode == 0 and str(path) in rebuilt.stderr
    assert len(Index.open(sample.home).find(INFRA_CHAT)) == 1
    assert "docker" in deja(sample, "show", INFRA_CHAT).stdout.lower()


@pytest.mark.parametrize("damage", ["truncate", "garbage", "zero", "version"])
def test_a_damaged_manifest_is_named_and_rebuilt(indexed_sample: Sample, damage: str) -> None:
    sample = indexed_sample
    path = index_dir(sample.home) / MANIFEST
    data = path.read_bytes()
    path.write_bytes(
        {
            "truncate": data[: len(data) // 2],
            "garbage": random.Random(61).randbytes(len(data)),  # (the same on every run)
            "zero": b"",
            "version": msgspec.msgpack.encode({"version": 4, "generation": 1, "built_at": 0.0}),
        }[damage]
    )
    assert str(path) in _doctor_damage(sample, "older" if damage == "version" else "damaged"), "format 4: older"
    shown = deja(sample, "show", INFRA_CHAT)
    assert shown.returncode == 0 and "docker" in shown.stdout.lower()
    assert str(path) in one_line_error(shown)
    assert len(Index.open(sample.home).find(INFRA_CHAT)) == 1


@pytest.mark.parametrize("damage", ["truncate", "garbage", "zero"])
def test_damaged_bookkeeping_is_named_and_rebuilt(indexed_sample: Sample, damage: str) -> None:
    sample = indexed_sample
    path = _a_shard(sample.home)
    data = path.read_bytes()
    path.write_bytes({"truncate": data[: len(data) // 2], "garbage": b"\xc1" * len(data), "zero": b""}[damage])
    assert str(path) in _doctor_damage(sample)
    # A read with nothing changed does not open the bookkeeping (only writers do): it answers from the index...
    searched = deja(sample, "search", "docker")
    assert searched.returncode == 0 and INFRA_CHAT in searched.stdout
    # ...and the next refresh finds the damage, rebuilds, and says why.
    rebuilt = deja(sample, "index")
    assert rebuilt.returncode == 0 and str(path) in rebuilt.stderr
    assert deja(sample, "doctor", "--json").returncode == 0
    assert len(Index.open(sample.home).find(INFRA_CHAT)) == 1


# --- 7: readers and a rebuild's old segments ----------------------------------------------


def test_segments_a_reader_has_just_found_outlive_a_full_rebuild(indexed_sample: Sample) -> None:
    directory = index_dir(indexed_sample.home)
    seen = read_manifest(directory)
    refresh(indexed_sample.home, full=True)
    assert read_manifest(directory).segments != seen.segments
    assert len(Index(directory, seen).find(INFRA_CHAT)) == 1


def test_stray_segments_of_a_killed_build_are_removed_later(indexed_sample: Sample) -> None:
    sample = indexed_sample
    directory = index_dir(sample.home)
    assert killed(deja(sample, "index", "--full", fault="before-manifest-swap"))
    live = {ref.name for ref in read_manifest(directory).segments}
    strays = {p.name for p in directory.glob("seg-*")} - live
    assert strays
    long_ago = time.time() - 3600
    for name in strays:
        os.utime(directory / name, (long_ago, long_ago))
    refresh(sample.home, full=True)
    assert not strays & {p.name for p in directory.glob("seg-*")}


def _wait_until_stopped(pid: int, timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return False
        if state in ("T", "t"):
            return True
        if state == "Z":
            return False
        time.sleep(0.01)
    return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="watches the reader through /proc")
def test_a_reader_whose_segments_vanish_retries_on_the_newest_manifest(indexed_sample: Sample) -> None:
    sample = indexed_sample
    directory = index_dir(sample.home)
    reader = subprocess.Popen(
        [*ENTRY, "show", INFRA_CHAT],
        env={**sample.env, "DEJA_FAULT": "reader-read-manifest", "DEJA_FAULT_SIGNAL": "STOP"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert _wait_until_stopped(reader.pid), "the reader never reached its fault point"
        refresh(sample.home, full=True)
        remove_stale_segments(directory, [ref.name for ref in read_manifest(directory).segments], grace_seconds=-1)
    finally:
        reader.send_signal(signal.SIGCONT)
    out, err = reader.communicate(timeout=60)
    assert reader.returncode == 0, err
    assert "docker" in out.lower()


def _written(directory: Path) -> set[str]:
    """The index's segments, bookkeeping and temp files, by path inside its folder."""
    return {
        str(path.relative_to(directory))
        for path in directory.rglob("*")
        if path.relative_to(directory).parts[0].startswith(("seg-", "state")) or path.name.endswith(".tmp")
    }


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="watches the refresh through /proc")
def test_a_refresh_whose_write_fails_removes_what_it_wrote_and_keeps_the_index(indexed_sample: Sample) -> None:
    # trialL D2: on a full disk each failed `deja index` left its segment and bookkeeping until a later run swept
    # them, and so ate the last free space. Here the manifest's write fails as it would on a full disk.
    sample = indexed_sample
    directory = index_dir(sample.home)
    before = _written(directory)
    records = [user_turn("why does the wildebeest sync stall"), assistant_turn("The wildebeest sync waits on a lock.")]
    write_transcript(transcript_path(sample.history.cli_root, "/work/zoo", "c-wildebeest"), records)
    refresher = subprocess.Popen(
        [*ENTRY, "index"],
        env={**sample.env, "DEJA_FAULT": "before-manifest-swap", "DEJA_FAULT_SIGNAL": "STOP"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    obstacle = directory / f".{MANIFEST}.{refresher.pid}.tmp"
    try:
        assert _wait_until_stopped(refresher.pid), "the refresh never reached its fault point"
        assert _written(directory) - before, "the refresh wrote nothing before its swap"
        obstacle.mkdir()
    finally:
        refresher.send_signal(signal.SIGCONT)
    _, err = refresher.communicate(timeout=120)
    assert refresher.returncode == 1, err
    obstacle.rmdir()
    assert _written(directory) == before
    assert refresh(sample.home).added == 1  # the index it had is whole, and the next run does the work


# --- 11: a read-only home -----------------------------------------------------------------


def _read_only(sample: Sample, *args: str) -> subprocess.CompletedProcess[str]:
    """``deja ARGS`` with DEJA_HOME read-only: by permissions, or for root (whom they do not stop) by a mount."""
    if os.geteuid() != 0:
        for path in [sample.home, *sample.home.rglob("*")]:
            path.chmod(stat.S_IMODE(path.stat().st_mode) & ~0o222)
        try:
            return deja(sample, *args)
        finally:
            for path in [sample.home, *sample.home.rglob("*")]:
                path.chmod(stat.S_IMODE(path.stat().st_mode) | 0o200)
    if shutil.which("unshare") is None:
        pytest.skip("needs unshare to make a read-only home for root")
    home = str(sample.home)
    script = 'mount --bind -o ro "$0" "$0" && exec "$@"'
    result = subprocess.run(
        ["unshare", "-m", "sh", "-c", script, home, *ENTRY, *args],
        env=sample.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    if "mount" in result.stderr and result.returncode != 0 and "deja" not in result.stderr:
        pytest.skip(f"cannot mount read-only here: {result.stderr.strip()}")
    return result


@pytest.mark.parametrize(
    ("args", "expected"),
    [(["search", "docker"], INFRA_CHAT), (["show", INFRA_CHAT], "docker"), (["sessions"], INFRA_CHAT[:8])],
)
def test_a_read_only_home_still_answers_from_the_index(indexed_sample: Sample, args: list[str], expected: str) -> None:
    quiet = _read_only(indexed_sample, *args)  # nothing changed: nothing to write, nothing to say
    assert quiet.returncode == 0 and quiet.stderr == ""
    project = str(indexed_sample.history.projects["api"])
    new_chat = transcript_path(indexed_sample.history.cli_root, project, APPENDED)
    write_transcript(new_chat, [user_turn("how do we rotate the signing keys?"), assistant_turn("With kms rotate.")])
    result = _read_only(indexed_sample, *args)  # a new chat to index, and no way to write it down
    assert result.returncode == 0, result.stderr
    assert expected in result.stdout.lower() or expected in result.stdout
    assert "answering from the index as it stands" in one_line_error(result)
