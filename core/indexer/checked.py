"""Which index files ``deja index`` has already read whole against their checksums.

Index files (segments, bookkeeping) are written once under a new name and never
changed in place, so a file whose size, times and inode are as they were when
every byte of it passed still holds those bytes: ``deja index`` reads it whole
again only when any of them moved (a file cut short, emptied or overwritten
moves them). ``deja doctor`` reads every byte every time. The record is
``index/checked``; losing it costs one whole read. It is written and read without msgspec (``index.pack``,
``index.light``).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..index.light import LIGHT, unpackb
from ..index.pack import packb
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
        #: What a file's path in the index folder starts with: the rest is its name in the record.
        self.prefix = os.path.join(directory, "")
        self.before: dict[str, list[int]] = {}
        try:
            self.before = _stamps(unpackb((directory / RECORD).read_bytes()))
        except OSError:
            pass
        except LIGHT.damage:
            pass
        self.now: dict[str, list[int]] = {}

    def vouches_for(self, path: Path) -> bool:
        """True when ``path`` passed before and has not moved since; either way it is remembered as passing
        once the caller's whole check succeeds."""
        current = stamp(path)
        key = os.fspath(path).removeprefix(self.prefix)  # (``Path.relative_to``: 13 µs a file, a segment has 7)
        self.now[key] = current
        return bool(current) and self.before.get(key) == current

    def save(self) -> None:
        replace_private(self.directory / RECORD, packb(self.now))


def _stamps(record: object) -> dict[str, list[int]]:
    """The record as read, if it is {file: stamp}; else nothing is vouched for (a record of another shape)."""
    if not isinstance(record, dict):
        return {}
    for name, stamped in record.items():
        if not isinstance(name, str) or not isinstance(stamped, list) or not all(type(n) is int for n in stamped):
            return {}
    return record
