"""What sits under a Cursor file's name cannot hang deja, hold its lock or fill its memory.

A FIFO or a symlink to ``/dev/zero`` where a chat's ``meta.json``, ``store.db``,
its write-ahead log or a transcript should be; a transcript of one line far
longer than any record. Each is built on disk beside a real history (written by
``deja.core.writers``), and deja is run as a process, as a user runs it.
"""

from __future__ import annotations

import hashlib
import os
import resource
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from filelock import FileLock
from harness import Sample, run_deja

from deja.core.index import Index, index_dir
from deja.core.indexer import LOCK_NAME, refresh
from deja.core.model import Message
from deja.core.regular_files import capped_lines, open_regular
from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    transcript_path,
    turn_ended,
    user_turn,
    write_chat_store,
    write_transcript,
)
from deja.core.writers.ide import write_state_vscdb
from deja.hooks import session_end
from deja.hooks.call import HookCall

pytestmark = [
    pytest.mark.hostile,
    pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and /dev/zero are POSIX"),
]

CHAT = "f1f0f1f0-0000-4000-8000-000000000001"
#: A command that blocks on none of these files answers well within this on a loaded machine.
ANSWER_SECONDS = 20


class Machine:
    """One cursor-agent chat and an editor database, and the environment that points deja at them."""

    def __init__(self, root: Path) -> None:
        self.cli_root = root / "cursor"
        self.ide_root = root / "Cursor" / "User"
        self.deja_home = root / "deja"
        self.project = root / "code" / "api"
        self.project.mkdir(parents=True)
        self.transcript = write_transcript(
            transcript_path(self.cli_root, str(self.project), CHAT),
            [
                user_turn("why does the fifo hang the build", datetime(2026, 7, 1, tzinfo=UTC)),
                assistant_turn("A FIFO blocks open."),
                turn_ended(),
            ],
        )
        self.chat_dir = chat_dir_for(self.cli_root, str(self.project), CHAT)
        write_chat_store(self.chat_dir, cwd=str(self.project), name="The fifo", messages=[])
        self.state_vscdb = self.ide_root / "globalStorage" / "state.vscdb"
        write_state_vscdb(self.state_vscdb, composers={}, bubbles={})
        self.env = {
            **os.environ,
            "DEJA_HOME": str(self.deja_home),
            "DEJA_CURSOR_CLI_ROOT": str(self.cli_root),
            "DEJA_CURSOR_ROOT": str(self.ide_root),
        }

    def replace(self, path: Path, kind: str) -> None:
        """Put a FIFO, or a symlink to /dev/zero, where ``path`` was."""
        path.unlink(missing_ok=True)
        if kind == "fifo":
            os.mkfifo(path)
        else:
            path.symlink_to("/dev/zero")


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Machine:
    m = Machine(tmp_path)
    for name in ("DEJA_HOME", "DEJA_CURSOR_CLI_ROOT", "DEJA_CURSOR_ROOT"):
        monkeypatch.setenv(name, m.env[name])
    return m


def _deja(machine: Machine, *args: str, input: bytes | None = None) -> subprocess.CompletedProcess[Any]:
    try:
        return run_deja(*args, env=machine.env, input=input, timeout=ANSWER_SECONDS)
    except subprocess.TimeoutExpired:
        pytest.fail(f"deja {' '.join(args)} hung")


TRAPS = {
    "meta.json": lambda m: m.chat_dir / "meta.json",
    "store.db": lambda m: m.chat_dir / "store.db",
    "store.db-wal": lambda m: m.chat_dir / "store.db-wal",
    "state.vscdb": lambda m: m.state_vscdb,
    "state.vscdb-wal": lambda m: m.state_vscdb.with_name("state.vscdb-wal"),
}


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
@pytest.mark.parametrize("name", sorted(TRAPS))
def test_index_and_search_pass_over_a_fifo_or_dev_zero_in_a_stores_place(
    machine: Machine, name: str, kind: str
) -> None:
    machine.replace(TRAPS[name](machine), kind)
    indexed = _deja(machine, "index")
    assert indexed.returncode == 0, indexed.stderr
    found = _deja(machine, "search", "fifo", "hang")
    assert found.returncode == 0, found.stderr
    if not name.startswith("state.vscdb"):
        assert CHAT[:8] in found.stdout  # the transcript itself was fine


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_transcript_that_is_a_fifo_or_dev_zero_is_skipped(machine: Machine, kind: str) -> None:
    machine.replace(machine.transcript, kind)
    indexed = _deja(machine, "index")
    assert indexed.returncode == 0, indexed.stderr
    assert "0 sessions" in indexed.stdout


def test_session_end_on_a_fifo_returns_and_leaves_the_lock_free(machine: Machine) -> None:
    refresh(machine.deja_home)
    with machine.transcript.open("ab") as more:  # a new turn, so the hook reads the chat again
        more.write(orjson.dumps(user_turn("one more question about the fifo")) + b"\n")
    machine.replace(machine.chat_dir / "meta.json", "fifo")
    payload = {"conversation_id": CHAT, "hook_event_name": "sessionEnd", "transcript_path": str(machine.transcript)}
    started = time.monotonic()
    ended = _deja(machine, "hook-session-end", input=orjson.dumps(payload))
    assert ended.returncode == 0 and not ended.stdout
    assert time.monotonic() - started < ANSWER_SECONDS
    # The detached ingest reads the chat past its FIFO meta.json, then lets the lock go.
    deadline = time.monotonic() + 30
    while not any(m.text.startswith("one more question") for m in _messages(machine)):
        assert time.monotonic() < deadline, "the background ingest never read the new turn"
        time.sleep(0.2)
    with FileLock(str(index_dir(machine.deja_home) / LOCK_NAME), timeout=10):
        pass  # nobody holds it any more


def _messages(machine: Machine) -> list[Message]:
    segment, _, meta = Index.open(machine.deja_home).find(CHAT)[0]
    return segment.messages(meta)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_session_end_on_a_transcript_that_is_a_fifo_or_dev_zero_returns(machine: Machine, kind: str) -> None:
    refresh(machine.deja_home)
    machine.replace(machine.transcript, kind)
    payload = {"conversation_id": CHAT, "hook_event_name": "sessionEnd", "transcript_path": str(machine.transcript)}
    ended = _deja(machine, "hook-session-end", input=orjson.dumps(payload))
    assert ended.returncode == 0 and not ended.stdout
    indexed = _deja(machine, "index")
    assert indexed.returncode == 0, "the writer lock was released"


def test_the_background_ingest_gives_up_on_a_lock_that_is_never_released(
    machine: Machine, monkeypatch: pytest.MonkeyPatch
) -> None:
    refresh(machine.deja_home)
    with machine.transcript.open(
        "ab"
    ) as more:  # a turn to ingest (with nothing changed, the ingest stops at the check)
        more.write(orjson.dumps(user_turn("one more question while the lock is held")) + b"\n")
    monkeypatch.setenv(session_end.WAIT_VARIABLE, "1")
    monkeypatch.setattr(session_end, "BACKGROUND_LOCK_SECONDS", 0.5)
    call = HookCall.from_stdin(orjson.dumps({"conversation_id": CHAT, "hook_event_name": "sessionEnd"}), "SessionEnd")
    assert call is not None
    with FileLock(str(index_dir(machine.deja_home) / LOCK_NAME)):
        started = time.monotonic()
        assert session_end.session_end(call) == ""
        assert time.monotonic() - started < 5
    assert "gave up" in call.why  # what `deja hooks log` shows for this call


# --- a single line far longer than any record ---------------------------------------------

#: The one-line transcript: large enough that holding it (or parsing it) breaks the memory cap below.
LONG_LINE_BYTES = 200 << 20
#: Memory deja may use on top of what an empty `deja index` uses.
HEADROOM_BYTES = 120 << 20


def _with_address_space_limit(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _peak_free_run(machine: Machine, *args: str, limit: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "deja.interfaces.entry", *args],
        env=machine.env,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: _with_address_space_limit(limit),  # noqa: PLW1509 - the child only sets its own limit
    )


def _baseline_address_space(machine: Machine) -> int:
    """The smallest address-space limit under which `deja index` of the small history succeeds."""
    low, high = 64 << 20, 4 << 30
    while high - low > 16 << 20:
        middle = (low + high) // 2
        if _peak_free_run(machine, "index", "--full", limit=middle).returncode == 0:
            high = middle
        else:
            low = middle
    return high


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS bounds memory this way on Linux")
def test_a_200_mb_single_line_transcript_indexes_and_searches_in_bounded_memory(machine: Machine) -> None:
    limit = _baseline_address_space(machine) + HEADROOM_BYTES
    huge = transcript_path(machine.cli_root, str(machine.project), "10n9l1ne-0000-4000-8000-000000000001")
    huge.parent.mkdir(parents=True, exist_ok=True)
    head = orjson.dumps(user_turn("the first line is fine and mentions zebras")) + b"\n"
    start = b'{"role":"assistant","message":{"content":[{"type":"text","text":"'
    tail = b'"}]}}\n' + orjson.dumps(user_turn("a line after the long one about giraffes")) + b"\n"
    with huge.open("wb") as out:  # sparse: the long line's middle is a hole, written in no time
        out.write(head + start)
        out.seek(len(head) + LONG_LINE_BYTES)
        out.write(tail)
    indexed = _peak_free_run(machine, "index", limit=limit)
    assert indexed.returncode == 0, indexed.stderr[-2000:]
    for word in ("zebras", "giraffes", "fifo"):
        found = _peak_free_run(machine, "search", word, limit=limit)
        assert found.returncode == 0, found.stderr[-2000:]
        assert word in found.stdout, found.stdout


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 1 << 20])
def test_capped_lines_keeps_short_lines_whole_and_passes_over_long_ones(tmp_path: Path, chunk: int) -> None:
    path = tmp_path / "lines"
    lines = [b"ab\n", b"\n", b"abcde\n", b"abcdefgh\n", b"xyz\n", b"0123456789"]
    path.write_bytes(b"".join(lines))
    with open_regular(path) as handle:
        read = list(capped_lines(handle, cap=6, chunk_bytes=chunk))
    assert read == [(b"ab\n", 3), (b"\n", 1), (b"abcde\n", 6), (b"\n", 9), (b"xyz\n", 4), (b"", 10)]


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 1 << 20])
def test_capped_lines_keeps_the_head_and_tail_of_a_long_line_when_asked(tmp_path: Path, chunk: int) -> None:
    path = tmp_path / "lines"
    path.write_bytes(b"ab\nabcdefghijk\nxyz\n0123456789")
    with open_regular(path) as handle:
        read = list(capped_lines(handle, cap=6, chunk_bytes=chunk, keep=2))
    assert read == [(b"ab\n", 3), (b"abk\n", 12), (b"xyz\n", 4), (b"0189", 10)]  # (the last: no newline, as written)


def test_open_regular_refuses_a_fifo_and_a_device_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    zero = tmp_path / "zero"
    zero.symlink_to("/dev/zero")
    for path in (fifo, zero, tmp_path):
        with pytest.raises(OSError, match="not a regular file"):
            open_regular(path)


def test_blame_on_a_fifo_says_so_in_one_line_instead_of_hanging(machine: Machine, tmp_path: Path) -> None:
    refresh(machine.deja_home)
    fifo = tmp_path / "source.py"
    os.mkfifo(fifo)
    blamed = _deja(machine, "blame", f"{fifo}:1")
    assert blamed.returncode == 1
    assert blamed.stderr.count("\n") == 1 and "not a regular file" in blamed.stderr


def test_a_hook_whose_seen_file_is_a_fifo_still_answers(indexed_sample: Sample) -> None:
    seen = indexed_sample.home / "hooks" / "seen"
    seen.mkdir(parents=True, exist_ok=True)
    os.mkfifo(seen / hashlib.blake2b(b"c-fifo", digest_size=8).hexdigest())
    payload = {
        "conversation_id": "c-fifo",
        "hook_event_name": "beforeSubmitPrompt",
        "prompt": "why does the price cache return stale prices after switching the locale?",
        "workspace_roots": [str(indexed_sample.history.projects["api"])],
    }
    try:
        answered = run_deja("hook-prompt", env=indexed_sample.env, input=orjson.dumps(payload), timeout=ANSWER_SECONDS)
    except subprocess.TimeoutExpired:
        pytest.fail("hook-prompt hung on a FIFO in its seen-set's place")
    assert answered.returncode == 0 and b"deja-recall" in answered.stdout
