"""Which index files ``deja index`` has already read whole against their checksums.

Index files (segments, bookkeeping) are written once under a new name and never
changed in place, so a file whose size, times and inode are as they were when
every byte of it passed still holds those bytes: ``deja index`` reads it whole
again only when any of them moved (a file cut short, emptied or overwritten
moves them). ``deja doctor`` reads every byte every time. The record is
``index/checked``; losing it costs one whole read.
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec

from ..private import replace_private

RECORD = "checked"


def stamp(path: Path) -> list[int]:
    """What changes when a file's bytes can have changed: size, modification and change times, inode."""
    try:
        st = os.stat(path)
    except OSError:
        return []
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


class Checked:
    """The files read whole before, and those read whole (or vouched for again) this time."""

    def __init__(self, directory: Path):
        self.directory = directory
        try:
            self.before = msgspec.msgpack.decode((directory / RECORD).read_bytes(), type=dict[str, list[int]])
        except (OSError, msgspec.DecodeError):
            self.before = {}
        self.now: dict[str, list[int]] = {}

    def vouches_for(self, path: Path) -> bool:
        """True when ``path`` passed before and has not moved since; either way it is remembered as passing
        once the caller's whole check succeeds."""
        current = stamp(path)
        key = str(path.relative_to(self.directory))
        self.now[key] = current
        return bool(current) and self.before.get(key) == current

    def save(self) -> None:
        replace_private(self.directory / RECORD, msgspec.msgpack.encode(self.now))
