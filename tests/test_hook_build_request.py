"""A hook that finds no index it can read starts one detached build and logs what it did; a build that died is
noticed by the next hook, which starts another (trialJ F4: recall stayed off for ten minutes after a killed build,
while the log said "requested a build" each time and none was started); one that failed is not started again by
every hook for 10 minutes, and one that ended well leaves nothing that stops the next (review57c F2, review58a)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_hooks import MODULE_ERROR, Machine, cursor, wait_for_index

from deja.core.index import MANIFEST, index_dir
from deja.core.indexer.checked import Checked
from deja.core.indexer.driver import LOCK_NAME
from deja.core.indexer.lock import WriterLock
from deja.hooks.build_request import BUILD_SENTINEL


@pytest.fixture
def unreadable(tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch) -> Machine:
    """The sample history indexed, then its manifest damaged: every hook asks for a build."""
    machine = Machine(tmp_path, fake_home)
    for name, value in machine.history.environment(machine.deja_home).items():
        monkeypatch.setenv(name, value)
    machine.index()
    (index_dir(machine.deja_home) / MANIFEST).write_bytes(b"\x93garbage that is not msgpack")
    return machine


def _prompt(machine: Machine, conversation: str) -> str:
    payload = cursor("beforeSubmitPrompt", conversation, machine.api, prompt=f"tests fail: {MODULE_ERROR}")
    assert machine.run("hook-prompt", payload).stdout == ""
    return machine.log().splitlines()[-1]


def _dead_pid() -> int:
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    return ended.pid


def test_a_build_that_died_is_started_again_by_the_next_hook(unreadable: Machine) -> None:
    sentinel = unreadable.deja_home / BUILD_SENTINEL
    sentinel.write_bytes(b"%d" % _dead_pid())  # a build started a moment ago, then killed

    assert "started a build" in _prompt(unreadable, "c-1")
    pid = int(sentinel.read_bytes())
    assert pid != 0 and wait_for_index(unreadable.deja_home).session_count == 7


def test_a_running_build_is_not_started_twice_and_the_log_says_so(unreadable: Machine) -> None:
    sentinel = unreadable.deja_home / BUILD_SENTINEL
    sentinel.write_bytes(b"%d" % os.getpid())  # a live process stands for the running build
    os.utime(sentinel, (time.time() - 30, time.time() - 30))

    line = _prompt(unreadable, "c-1")
    assert "a build started 3" in line and " s ago is still running; not starting another" in line, line
    assert "requested a build" not in line
    assert sentinel.read_bytes() == b"%d" % os.getpid(), "no other build was started"


def test_an_index_file_that_fails_its_checksum_starts_a_build_that_mends_it(
    tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A byte flipped in each segment's ``sessions.idx``: the index opens, and the damage is met while a hook reads
    it. Every hook stayed silent (``failed: IndexUnreadable``) until a person ran ``deja index`` (trial57)."""
    machine = Machine(tmp_path, fake_home)
    for name, value in machine.history.environment(machine.deja_home).items():
        monkeypatch.setenv(name, value)
    machine.index()
    for idx in index_dir(machine.deja_home).glob("seg-*/sessions.idx"):
        data = bytearray(idx.read_bytes())
        data[len(data) // 2] ^= 0xFF
        idx.write_bytes(bytes(data))

    line = _prompt(machine, "c-damaged")
    assert "silent: failed: IndexUnreadable" in line and "| started a build" in line, line
    builder, deadline = int((machine.deja_home / BUILD_SENTINEL).read_bytes()), time.monotonic() + 60
    while _alive(builder) and time.monotonic() < deadline:  # (the sentinel outlives the build, its pid does not)
        time.sleep(0.1)
    payload = cursor("beforeSubmitPrompt", "c-mended", machine.api, prompt=f"tests fail: {MODULE_ERROR}")
    assert "Past turns" in machine.run("hook-prompt", payload).stdout, machine.log().splitlines()[-1]


def _rotted(machine: Machine) -> None:
    """A byte of each segment's ``sessions.idx`` flipped under the stamps ``deja index`` recorded as read whole (bit
    rot: size, times and inode as they were, ``indexer.checked``)."""
    directory = index_dir(machine.deja_home)
    for idx in directory.glob("seg-*/sessions.idx"):
        data = bytearray(idx.read_bytes())
        data[len(data) // 2] ^= 0xFF
        idx.write_bytes(bytes(data))
    checked = Checked(directory)
    for segment in directory.glob("seg-*"):
        for file in segment.iterdir():
            checked.vouches_for(file)
    checked.save()


def test_an_index_file_that_rotted_under_its_recorded_stamps_is_mended_by_one_build(
    tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``deja index`` vouched for a file whose stamps it recorded as read whole, so the build a hook started (and the
    ``deja index`` search's message asks for) mended nothing, and every hook started another (review57c F2)."""
    machine = Machine(tmp_path, fake_home)
    for name, value in machine.history.environment(machine.deja_home).items():
        monkeypatch.setenv(name, value)
    machine.index()
    _rotted(machine)
    line = _prompt(machine, "c-rotted")
    assert "silent: failed: IndexUnreadable" in line and "| started a build" in line, line
    builder, deadline = int((machine.deja_home / BUILD_SENTINEL).read_bytes()), time.monotonic() + 60
    while _alive(builder) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert (machine.deja_home / BUILD_SENTINEL).read_bytes() == b"%d 0" % builder  # (its keeper's record: ended well)
    payload = cursor("beforeSubmitPrompt", "c-mended", machine.api, prompt=f"tests fail: {MODULE_ERROR}")
    assert "Past turns" in machine.run("hook-prompt", payload).stdout, machine.log().splitlines()[-1]


def test_a_build_that_failed_is_not_started_again_by_every_hook(
    tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every hook started another build where one could not mend the damage (a full disk, a row deja cannot decode:
    review57c F2), and where it met the damage did not matter (review58a F2): a file cut short, met as the index
    opens, started a full rebuild with each hook. The build's keeper records how it ended; one that failed within
    ``BUILD_RETRY_SECONDS`` is enough, whoever asks. Here every build fails (a root override names no folder)."""
    machine = Machine(tmp_path, fake_home)
    for name, value in machine.history.environment(machine.deja_home).items():
        monkeypatch.setenv(name, value)
    machine.index()
    for idx in index_dir(machine.deja_home).glob("seg-*/sessions.idx"):
        idx.write_bytes(idx.read_bytes()[:-7])  # cut short: met when the index opens, not while reading it
    monkeypatch.setenv("DEJA_CURSOR_ROOT", str(tmp_path / "gone"))
    machine.env["DEJA_CURSOR_ROOT"] = str(tmp_path / "gone")
    assert "written; started a build" in _prompt(machine, "c-first")
    sentinel, deadline = machine.deja_home / BUILD_SENTINEL, time.monotonic() + 60
    while len(sentinel.read_bytes().split()) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    keeper, status = sentinel.read_bytes().split()
    assert status == b"1"
    line = _prompt(machine, "c-again")
    assert "the build a hook started failed 0 s ago; `deja index` says why" in line and "started a" not in line, line
    assert sentinel.read_bytes() == keeper + b" 1", "no other build was started"


def test_damage_after_a_build_that_ended_well_starts_a_build(
    tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sentinel outlived a build that ended well, so damage a hook met in the next 10 minutes was taken for
    damage that build left: no build, and the log said the build "did not mend it" (review58a F3)."""
    machine = Machine(tmp_path, fake_home)
    for name, value in machine.history.environment(machine.deja_home).items():
        monkeypatch.setenv(name, value)
    machine.deja_home.mkdir(parents=True)
    (machine.deja_home / BUILD_SENTINEL).write_bytes(b"%d 0" % _dead_pid())  # a build a hook started, ended well
    machine.index()
    _rotted(machine)
    assert "| started a build" in _prompt(machine, "c-new-damage")


def test_a_kill_of_the_pid_the_sentinel_names_ends_the_build_and_the_next_hook_starts_one(unreadable: Machine) -> None:
    """``kill $(cat ~/.cache/deja/index-build.requested)`` ended the keeper and left its ``deja index`` running, and
    the next hook, finding that pid gone with no status, started a second build beside it (review58c F4). Now the
    keeper passes the signal on, and records the build as killed: the next hook starts it again. The test holds the
    index's writer lock, so the build is still waiting for it when the signal comes (review59a F3: one that ended
    first left an index the next hook recalled from), inside ``deja index``'s own handling of an interrupt once
    it has started."""
    sentinel = unreadable.deja_home / BUILD_SENTINEL
    with WriterLock(index_dir(unreadable.deja_home) / LOCK_NAME, 0):
        assert "started a build" in _prompt(unreadable, "c-1")
        keeper = int(sentinel.read_bytes().split()[0])
        deadline = time.monotonic() + 20
        while not (builds := _children(keeper)) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert builds, "the keeper started no deja index"
        time.sleep(1.5)  # (past its start, waiting for the lock: ``guarded`` turns an interrupt into exit 130)
        os.kill(keeper, signal.SIGINT)  # (``deja index`` exits 130, which read as a failure, review58e F4)
    deadline = time.monotonic() + 20
    while len(sentinel.read_bytes().split()) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sentinel.read_bytes() == b"%d %d" % (keeper, -signal.SIGINT)
    assert not _alive(builds[0]) or Path(f"/proc/{builds[0]}/stat").read_text().split(") ")[1].startswith("Z")
    assert "started a build" in _prompt(unreadable, "c-2")


def _children(pid: int) -> list[int]:
    """The processes ``pid`` started (Linux's record of them; none elsewhere)."""
    try:
        return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return pid > 0
