"""Why a Cursor file a refresh could not read cannot be read: what a message tells the person, looked at again.

A refresh counts what it could not read (its readers swallow the error and keep
the sessions as they were); the one file a message names is opened once more,
briefly, when the message is written, to say why in a word the person can act on.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ..regular_files import open_regular
from .vscdb import is_locked, read_whole

#: How long the second look waits for a lock (the refresh already waited its own time).
_LOCK_WAIT_SECONDS = 0.2


def why_unreadable(path: str) -> str:
    """ "locked", "damaged" or "not readable" (a FIFO in its place, no permission); "" when it reads now."""
    try:
        if path.endswith(".jsonl"):
            with open_regular(path) as transcript:
                transcript.read(1)
            return ""
        read_whole(
            Path(path), lambda db: db.execute("SELECT count(*) FROM sqlite_master").fetchone(), _LOCK_WAIT_SECONDS
        )
    except sqlite3.DatabaseError as exc:
        if is_locked(exc):
            return "locked"
        return "not readable" if "unable to open" in str(exc).lower() else "damaged"
    except (OSError, ValueError):
        return "not readable"
    return ""


def unreadable_named(files: list[str], count: int, why: str) -> str:
    """The stores a refresh could not read, as a message names them: the first of ``files`` (the ones known by name)
    and ``why`` (``why_unreadable``), and how many more; their count alone when none is known by name. The CLI's
    lines and the session-end hook's log line say it alike."""
    stores = "Cursor store" if count == 1 else "Cursor stores"
    if not files:
        return f"{count} {stores}"
    named = f"{files[0]} ({why})" if why else files[0]
    more = count - 1
    return f"{named} and {more} more {'Cursor store' if more == 1 else 'Cursor stores'}" if more else named
