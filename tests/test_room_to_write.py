"""A write stopped for want of room: a file-size limit (``ulimit -f``), a full disk. Its line names that cause and
what gives room, not "is ~/.cache writable?" of a folder that is (trial48 F5)."""

from __future__ import annotations

import errno
import os
import resource
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from harness import ENTRY, Sample, run_deja

from deja.core.sample import API_CACHE_CHAT
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript
from deja.interfaces.doctor import IndexStatus, _file_size_limit
from deja.interfaces.fastpath import unwritable

NEW_CHAT = "5e1f0a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b"
#: Bytes a file may grow to under the limit: less than any segment of the index, more than nothing.
LIMIT_BYTES = 512
LIMIT_FIX = "a file-size limit (ulimit -f) stopped the write: raise it (ulimit -f unlimited)"
#: deja in Python's development mode, where 3.11 and 3.12 report what 3.13 reports in any mode: a file left open
#: that fails to close at exit ("Exception ignored in: <_io.BufferedWriter …> OSError: [Errno 27] File too large").
DEV_ENTRY = (sys.executable, "-X", "dev", *ENTRY[1:])


def _limited(*argv: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``argv`` run under a file-size limit of ``LIMIT_BYTES``, as ``ulimit -f`` sets one in a shell."""
    return subprocess.run(
        argv,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT_BYTES, LIMIT_BYTES)),  # noqa: PLW1509 - the child's own limit
    )


def _new_chat(sample: Sample) -> None:
    project = str(sample.history.projects["api"])
    turns = [user_turn("why does the okapi cache miss"), assistant_turn("The okapi cache keys on the host name.")]
    write_transcript(transcript_path(sample.history.cli_root, project, NEW_CHAT), turns)


def test_deja_index_under_a_file_size_limit_names_the_limit(sample: Sample) -> None:
    """The one line and nothing after it: a segment's files left open when its first failed to close (its write
    failed again) each failed to close at exit, printed there on Python 3.13."""
    indexed = _limited(*DEV_ENTRY, "index", env=sample.env)
    assert indexed.returncode == 1
    said = f"deja: cannot write the index ({sample.home}: File too large): {LIMIT_FIX}, then run `deja index`\n"
    assert indexed.stderr == said


def test_deja_index_under_an_open_file_limit_names_the_limit_and_leaves_no_file_open(sample: Sample) -> None:
    """``ulimit -n`` from too low for a segment's files to as many as a build needs: the open that fails is each of
    a segment's files in turn, and those opened before it were left open (a ResourceWarning after the line, on
    Python 3.13 too), the line asked "is ~/.cache writable?" of a folder that was, and a segment folder was made
    for nothing (review55b W3)."""
    failed: list[str] = []
    for limit in range(8, 64):
        indexed = subprocess.run(
            [*DEV_ENTRY, "index"],
            env=sample.env,
            capture_output=True,
            text=True,
            timeout=120,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (limit, 3 * limit)),  # noqa: PLW1509, B023 - the child's own limit, set before the next
        )
        if indexed.returncode == 0:
            break
        assert indexed.returncode == 1 and indexed.stderr.count("\n") == 1, indexed.stderr
        fix = f"a limit on open files (ulimit -n) was reached: raise it (ulimit -n {3 * limit})"
        assert fix in indexed.stderr, indexed.stderr  # (a module to import, past the home, says it too)
        assert not list((sample.home / "index").glob("seg-*")), indexed.stderr
        failed.append(indexed.stderr)
    assert indexed.returncode == 0, indexed.stderr
    after_another = ("sessions.bin", "docs.bin", "sessions.idx", "dicts.bin", "terms.bin", "terms.idx")
    assert any(f"/{name}: Too many open files" in line for line in failed for name in after_another), failed


def test_an_open_file_limit_that_is_the_hard_limit_is_left_to_an_administrator() -> None:
    """``ulimit -n 4096`` under a hard limit of 64 is refused by the shell (mend56 said it all the same)."""
    said = subprocess.run(
        [
            sys.executable,
            "-c",
            "import errno; from deja.core.private import room_fix; print(room_fix(OSError(errno.EMFILE, 'x')))",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64)),  # noqa: PLW1509 - the child's own limit
    )
    assert (
        said.stdout
        == "a limit on open files (ulimit -n: 64) was reached, and it is the hard limit: have an administrator raise it\n"
    )


def test_an_open_file_limit_still_reached_names_ulimit() -> None:
    """With every descriptor still taken, no module can be opened to read the limits: the fix still names
    ``ulimit -n`` (review57a F4: it gave the Windows wording)."""
    code = (
        "import os\n"
        "from deja.core.private import room_fix\n"
        "held = []\n"
        "try:\n"
        "    while True: held.append(os.open(os.devnull, os.O_RDONLY))\n"
        "except OSError as exc: print(room_fix(exc))\n"
    )
    said = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (64, 1024)),  # noqa: PLW1509 - the child's own limit
    )
    assert said.stdout == "a limit on open files (ulimit -n) was reached: raise it\n", said.stdout


def test_a_search_under_a_file_size_limit_answers_and_names_the_limit(indexed_sample: Sample) -> None:
    _new_chat(indexed_sample)
    searched = _limited(*DEV_ENTRY, "search", "docker", env=indexed_sample.env)
    assert searched.returncode == 0 and "docker" in searched.stdout.lower(), searched.stderr
    said = (
        f"deja: cannot update the index ({indexed_sample.home / 'index'}: File too large): {LIMIT_FIX}; "
        "answering from the index as it stands\n"
    )
    assert searched.stderr == said


def test_the_session_end_ingest_under_a_file_size_limit_logs_the_limit(indexed_sample: Sample) -> None:
    """What `deja hooks log` shows for the ingest (hooks.log itself is past the limit: its line is run here)."""
    _new_chat(indexed_sample)
    script = (
        "import sys; from deja.hooks import session_end; from deja.hooks.call import HookCall; "
        "call = HookCall.from_stdin(sys.stdin.buffer.read(), 'SessionEnd'); "
        "session_end.session_end(call); print(call.why)"
    )
    payload = orjson.dumps({"conversation_id": NEW_CHAT, "hook_event_name": "sessionEnd"}).decode()
    env = {**indexed_sample.env, "DEJA_INGEST_WAIT": "1"}
    ended = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        input=payload,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT_BYTES, LIMIT_BYTES)),  # noqa: PLW1509 - the child's own limit
    )
    assert ended.returncode == 0, ended.stderr
    expected = f"not ingested {NEW_CHAT}: cannot write the index (File too large): {LIMIT_FIX}\n"
    assert ended.stdout == expected


def test_a_full_disk_is_named_with_free_space_as_its_fix(sample: Sample) -> None:
    """A real ENOSPC (``/dev/full`` answers every write with it), as a refresh would raise it."""
    with pytest.raises(OSError) as raised, open("/dev/full", "wb", buffering=0) as full:
        full.write(b"a segment")
    assert raised.value.errno == errno.ENOSPC
    said = unwritable(raised.value)
    home = os.path.abspath(sample.home)
    assert said == (
        f"cannot write the index ({home}: No space left on device): free space on that disk, then run `deja index`"
    )


def test_a_file_too_large_for_a_reader_outside_the_home_is_not_a_limit(sample: Sample, tmp_path: Path) -> None:
    """A chat store's meta past its reader's cap raises EFBIG too: that is a file deja reads, not one it writes."""
    from deja.core.regular_files import read_regular

    meta = tmp_path / "meta.json"
    meta.write_bytes(b"x" * 100)
    with pytest.raises(OSError) as raised:
        read_regular(meta, 10)
    assert (
        unwritable(raised.value)
        == f"cannot read {meta} (larger than 10 bytes): give your user access to it, or move it away"
    )


def test_doctor_warns_of_a_file_size_limit_that_stops_a_refresh(indexed_sample: Sample) -> None:
    """After `deja index` failed on the limit, doctor said "fix: deja index", which failed the same way."""
    doctor = _limited(*ENTRY, "doctor", "--json", env=indexed_sample.env)
    assert "Traceback" not in doctor.stderr, doctor.stderr
    [limit] = [p for p in orjson.loads(doctor.stdout)["problems"] if "ulimit -f" in p["message"]]
    assert limit["level"] == "warn" and limit["message"].startswith("a file-size limit of 512 B is set (ulimit -f)")
    assert limit["fix"] == "ulimit -f unlimited, then run deja index"
    unlimited = orjson.loads(run_deja("doctor", "--json", env=indexed_sample.env).stdout)["problems"]
    assert not [p for p in unlimited if "ulimit -f" in p["message"]]


def test_doctors_file_size_limit_is_compared_with_the_largest_file_a_merge_writes(indexed_sample: Sample) -> None:
    """The limit is a file's: compared with the whole index's size, 100 MB warned of a 150 MB index of ten segments
    whose merge writes no file that large (review48a L2). The index here is the sample's, said to be 150 MB."""
    folder = indexed_sample.home / "index"
    assert (folder / "manifest.msgpack").is_file()
    status = IndexStatus(str(folder), "ok", bytes=150 * 2**20)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    try:
        resource.setrlimit(resource.RLIMIT_FSIZE, (100 * 2**20, hard))
        assert _file_size_limit(status) == []
        resource.setrlimit(resource.RLIMIT_FSIZE, (32 * 2**20, hard))
        [warning] = _file_size_limit(status)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert warning.message.startswith("a file-size limit of 33.6 MB is set (ulimit -f)")


def test_an_export_under_a_file_size_limit_names_the_limit(indexed_sample: Sample, tmp_path: Path) -> None:
    """It said "give -o another path", which the same limit stops too."""
    target = tmp_path / "notes.md"
    exported = _limited(*ENTRY, "export", API_CACHE_CHAT[:8], "-o", str(target), env=indexed_sample.env)
    assert (exported.returncode, exported.stderr) == (
        1,
        f"deja: cannot write {target} (File too large): {LIMIT_FIX}, or give -o another path\n",
    )
    assert not target.exists()
