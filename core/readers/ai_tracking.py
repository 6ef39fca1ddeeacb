"""Cursor's own attribution of AI-written code: ``~/.cursor/ai-tracking/ai-code-tracking.db``.

``ai_code_hashes(hash, source, fileName, fileExtension, requestId, conversationId, model, timestamp)``
has a row per chunk of code an AI wrote, with the conversation that wrote it
(README "Work history", ``deja blame``). deja joins it with the index to say which chat wrote
a line. The table may be empty or missing, and Cursor documents neither the
hash nor the chunking: a row counts as the line's when its hash is a common
digest of the line's text, otherwise the file's rows only say which
conversations wrote AI code into the file.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from ..lean_msgspec import msgspec
from .vscdb import read_whole


class Attribution(msgspec.Struct):
    """One row of ``ai_code_hashes``: a chunk of AI-written code and the conversation that wrote it."""

    conversation_id: str
    file: str
    model: str = ""
    timestamp: datetime | None = None
    #: Whether the row's hash is the looked-up line's own (else it only names the file).
    line_match: bool = False


def line_hashes(line: str) -> set[str]:
    """The digests a chunk hash of ``line`` could be: md5, sha1 and sha256 of it as written and stripped."""
    found = set()
    for text in {line, line.strip(), line.rstrip("\n")}:
        data = text.encode("utf-8")
        found |= {hashlib.md5(data).hexdigest(), hashlib.sha1(data).hexdigest(), hashlib.sha256(data).hexdigest()}
    return found


def _time(value: object) -> datetime | None:
    if isinstance(value, int | float) and value > 0:
        return datetime.fromtimestamp(value / 1000 if value > 1e11 else value, tz=UTC)
    return None


def attributions(db: Path, file: str, line: str | None = None) -> list[Attribution]:
    """The rows for ``file`` (matched by full path or, failing that, by name), newest first.

    A missing, locked or foreign database answers nothing: attribution is a
    bonus, never a reason for a command to fail.
    """
    if not os.path.isfile(db):  # (``Path.is_file`` raises where a folder above cannot be searched)
        return []
    wanted = line_hashes(line) if line is not None and line.strip() else set()
    name = file.replace("\\", "/").rsplit("/", 1)[-1]
    query = (
        "SELECT hash, fileName, conversationId, model, timestamp FROM ai_code_hashes"
        " WHERE conversationId IS NOT NULL AND (fileName = ? OR fileName LIKE ?)"
    )
    try:
        rows = read_whole(db, lambda conn: conn.execute(query, (file, f"%{name}")).fetchall())
    except sqlite3.Error:
        return []
    exact = [r for r in rows if r[1] == file] or [r for r in rows if str(r[1]).replace("\\", "/").endswith("/" + name)]
    found = [
        Attribution(str(conv), str(path), str(model or ""), _time(ts), str(h).lower() in wanted)
        for h, path, conv, model, ts in exact
    ]
    found.sort(key=lambda a: (a.line_match, a.timestamp or datetime.min.replace(tzinfo=UTC)), reverse=True)
    return found
