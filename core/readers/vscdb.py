"""Opening a Cursor ``state.vscdb`` read-only: shared by the chat reader and the project resolver."""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path
from urllib.parse import quote

from ..regular_files import check_regular_database

BUSY_TIMEOUT_SECONDS = 2.0


def connect_read_only(path: Path) -> sqlite3.Connection:
    """Open read-only through the WAL.

    ``mode=ro`` never takes a write lock but still reads the ``-wal`` file;
    ``immutable=1`` would skip it and miss what Cursor has not checkpointed.
    """
    location = path.absolute().as_posix()
    if not location.startswith("/"):
        location = "/" + location  # a Windows drive: file:/C:/…
    uri = f"file:{quote(location, safe='/:')}?mode=ro"
    try:
        check_regular_database(path)
    except OSError as error:  # a FIFO would block SQLite's open forever
        raise sqlite3.OperationalError(f"unable to open database file: {error.strerror}") from None
    conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_SECONDS)
    conn.execute("PRAGMA query_only = ON")
    return conn


def table_names(conn: sqlite3.Connection) -> set[str]:
    return {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def item_value(conn: sqlite3.Connection, key: str) -> bytes | None:
    """One ``ItemTable`` value as bytes; None when the key is absent or NULL."""
    row = conn.execute("SELECT CAST(value AS BLOB) FROM ItemTable WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def count_database_error(error: sqlite3.Error, problems: Counter[str]) -> None:
    message = str(error).lower()
    if "not a database" in message:
        problems["ide: not a database"] += 1
    elif "locked" in message or "busy" in message:
        problems["ide: database locked"] += 1
    else:
        problems["ide: unreadable database"] += 1
