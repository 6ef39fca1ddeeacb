"""Syncing deja's own files (``core.private``): every file's sync is waited for, and a failed one is raised."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from deja.core.private import replace_private, sync_all, sync_paths, write_private

pytestmark = pytest.mark.unit


def test_sync_all_raises_when_one_of_the_files_cannot_be_synced(tmp_path: Path) -> None:
    good = [os.open(tmp_path / f"f{n}", os.O_WRONLY | os.O_CREAT, 0o600) for n in range(3)]
    closed = os.open(tmp_path / "gone", os.O_WRONLY | os.O_CREAT, 0o600)
    os.close(closed)
    try:
        sync_all(good)
        with pytest.raises(OSError):
            sync_all([*good, closed])
    finally:
        for fd in good:
            os.close(fd)


def test_a_synced_replace_leaves_the_new_bytes_private(tmp_path: Path) -> None:
    (tmp_path / "index").mkdir()
    target = tmp_path / "index" / "manifest.msgpack"
    target.write_bytes(b"old")
    replace_private(target, b"new", sync=True)
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert [p.name for p in target.parent.iterdir()] == ["manifest.msgpack"]


def test_sync_paths_names_a_file_that_is_not_there(tmp_path: Path) -> None:
    written = tmp_path / "state-1.msgpack"
    write_private(written, b"state")
    sync_paths([written])
    with pytest.raises(FileNotFoundError, match="shard-1"):
        sync_paths([written, tmp_path / "shard-1.msgpack"])
