"""``core.detached``: the one way deja starts a process it does not wait for (hooks, reads, the MCP server)."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

import pytest

from deja.core import detached

#: What the child reports: its session, its pid, what it read on stdin, which descriptors it holds, its niceness and
#: its autogroup (where Linux has them), read once its stdin is read (after its starter has lowered its priority).
REPORT = """
import json, os, sys
data = sys.stdin.read()
fds = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
try:
    group = open("/proc/self/autogroup").read()
except OSError:
    group = None
report = {"sid": os.getsid(0), "pid": os.getpid(), "stdin": data, "fds": fds, "env": os.environ.get("WHO")}
with open(sys.argv[1], "w") as out:
    json.dump(report | {"nice": os.getpriority(os.PRIO_PROCESS, 0), "autogroup": group}, out)
"""

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="the child lists /proc/self/fd")


def _report(path: Path, pid: int) -> dict:
    """The child's report, once it has written it and ended (reaped by ``running``)."""
    deadline = time.monotonic() + 30
    while detached.running(pid):
        assert time.monotonic() < deadline, "the child did not end"
        time.sleep(0.02)
    return json.loads(path.read_text())


def test_a_started_process_has_its_own_session_its_stdin_and_nothing_else_of_ours(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    kept_read, kept_write = os.pipe()
    os.set_inheritable(kept_write, True)  # a descriptor a hook's caller might have handed down
    try:
        pid = detached.start(
            [sys.executable, "-c", REPORT, str(out)], stdin=b'{"conversation_id": "c1"}', env={"WHO": "ingest"}
        )
        report = _report(out, pid)
    finally:
        os.close(kept_read)
        os.close(kept_write)
    assert report["sid"] == report["pid"] == pid
    assert report["stdin"] == '{"conversation_id": "c1"}'
    assert report["env"] == "ingest"
    assert report["fds"][:3] == [0, 1, 2]
    assert kept_write not in report["fds"]
    with pytest.raises(ChildProcessError):  # reaped: no zombie left behind
        os.waitpid(pid, os.WNOHANG)


def test_without_stdin_it_reads_nothing_and_writes_nowhere(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report.json"
    pid = detached.start([sys.executable, "-c", REPORT + "print('noise'); print('noise', file=sys.stderr)", str(out)])
    assert _report(out, pid)["stdin"] == ""
    assert capfd.readouterr() == ("", "")


def test_it_starts_from_a_process_with_threads_and_reaps_what_ended(tmp_path: Path) -> None:
    """The MCP server starts builds and walks from its worker threads, for as long as it runs."""
    started: dict[int, int] = {}

    def start_one(n: int) -> None:
        started[n] = detached.start([sys.executable, "-c", REPORT, str(tmp_path / f"{n}.json")])

    threads = [threading.Thread(target=start_one, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    reports = {n: _report(tmp_path / f"{n}.json", pid) for n, pid in started.items()}
    assert {n: report["pid"] for n, report in reports.items()} == started


def test_a_program_that_cannot_start_is_an_oserror(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        detached.start([str(tmp_path / "no-such-program")], stdin=b"x")


def test_a_started_process_runs_below_its_starter(tmp_path: Path) -> None:
    """Background work yields the core to what a person waits for: niceness, and its session's group's."""
    out = tmp_path / "report.json"
    report = _report(out, detached.start([sys.executable, "-c", REPORT, str(out)], stdin=b"go"))
    assert report["nice"] == min(19, os.getpriority(os.PRIO_PROCESS, 0) + detached.NICE)
    if report["autogroup"] is not None:
        assert report["autogroup"].split()[-2:] == ["nice", str(detached.NICE)]
