"""A hook that finds no index it can read starts one detached build and logs what it did; a build that died is
noticed by the next hook, which starts another (trialJ F4: recall stayed off for ten minutes after a killed build,
while the log said "requested a build" each time and none was started)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_hooks import MODULE_ERROR, Machine, cursor, wait_for_index

from deja.core.index import MANIFEST, index_dir
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
