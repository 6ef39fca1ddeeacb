"""The index's writer lock (``core.indexer.lock``): one writer at a time, the same lock filelock takes."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from filelock import FileLock, Timeout

from deja.core.indexer.lock import WriterLock

pytestmark = pytest.mark.unit


def test_a_lock_filelock_holds_keeps_the_writer_out(tmp_path: Path) -> None:
    path = tmp_path / ".lock"
    with FileLock(str(path)), pytest.raises(TimeoutError, match=r"\.lock is held by another process"):
        WriterLock(path, timeout=0.1).__enter__()


def test_the_writer_lock_keeps_filelock_out_until_it_is_released(tmp_path: Path) -> None:
    path = tmp_path / ".lock"
    with WriterLock(path, timeout=0), pytest.raises(Timeout):
        FileLock(str(path), timeout=0).acquire()
    with FileLock(str(path), timeout=0):
        pass


def test_a_second_writer_waits_then_gives_up_and_the_lock_file_is_private(tmp_path: Path) -> None:
    path = tmp_path / ".lock"
    path.write_bytes(b"")
    path.chmod(0o644)
    with WriterLock(path, timeout=0):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        with pytest.raises(TimeoutError):
            WriterLock(path, timeout=0.2).__enter__()
    with WriterLock(path, timeout=0):
        pass
