"""Writes Cursor's ``ai-code-tracking.db`` as Cursor lays it out, for tests and the sample history."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

SCHEMA = (
    "CREATE TABLE ai_code_hashes (hash TEXT PRIMARY KEY, source TEXT, fileName TEXT, fileExtension TEXT,"
    " requestId TEXT, conversationId TEXT, model TEXT, timestamp INTEGER, createdAt INTEGER)",
    "CREATE TABLE conversation_summaries (conversationId TEXT PRIMARY KEY, title TEXT, tldr TEXT, overview TEXT,"
    " summaryBullets TEXT, model TEXT, mode TEXT, updatedAt INTEGER)",
    "CREATE TABLE tracking_state (key TEXT PRIMARY KEY, value TEXT)",
)


def write_ai_tracking_db(path: Path, rows: list[dict[str, Any]]) -> Path:
    """``ai_code_hashes`` rows: ``hash``, ``fileName``, ``conversationId``, ``model``, ``timestamp`` (ms), ``source``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as conn:
        for statement in SCHEMA:
            conn.execute(statement.replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS"))
        for row in rows:
            name = str(row.get("fileName", ""))
            conn.execute(
                "INSERT OR REPLACE INTO ai_code_hashes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    row["hash"],
                    row.get("source", "composer"),
                    name,
                    name.rsplit(".", 1)[-1] if "." in name else "",
                    row.get("requestId", ""),
                    row.get("conversationId"),
                    row.get("model", "claude-4.5-sonnet"),
                    row.get("timestamp", 0),
                    row.get("timestamp", 0),
                ),
            )
    conn.close()
    return path
