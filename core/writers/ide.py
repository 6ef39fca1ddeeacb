"""Build real Cursor IDE ``state.vscdb`` files, for tests and the shipped sample history.

The schema is Cursor's own (``readers/ide.py`` says which rows it reads). A value is stored as
Cursor might store it: a ``dict``/``list`` becomes JSON TEXT, a ``str`` is stored
as TEXT unchanged (so a test can store malformed JSON), ``bytes`` as a BLOB and
``None`` as NULL. Use :func:`as_blob` for JSON stored as UTF-8 bytes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

#: What a key-value row may hold: JSON-able data, raw TEXT, a BLOB or NULL.
Value = dict[str, Any] | list[Any] | str | bytes | None

ITEM_TABLE_SCHEMA = "CREATE TABLE IF NOT EXISTS ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"
DISK_KV_SCHEMA = "CREATE TABLE IF NOT EXISTS cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"

HEADERS_SCHEMA = """
CREATE TABLE IF NOT EXISTS composerHeaders (composerId TEXT PRIMARY KEY, workspaceId TEXT,
  createdAt INTEGER, lastUpdatedAt INTEGER, isArchived INTEGER, isSubagent INTEGER,
  recency INTEGER, checkpointAt INTEGER, value TEXT);
CREATE INDEX IF NOT EXISTS idx_composerHeaders_0
  ON composerHeaders (workspaceId, isSubagent, isArchived, recency);
"""


@dataclass(frozen=True)
class ComposerHeader:
    """One row of the newer global ``composerHeaders`` table."""

    composer_id: str
    workspace_id: str | None = None
    created_at: int | None = None
    last_updated_at: int | None = None
    #: The ``recency`` column (ms): when the chat was last touched (cursor-drift-2026.md §4).
    recency: int | None = None
    #: The row's JSON ``value``: ``{name, workspaceIdentifier, isDraft, …}``.
    value: dict[str, Any] = field(default_factory=dict)


def composer_key(composer_id: str) -> str:
    return f"composerData:{composer_id}"


def bubble_key(composer_id: str, bubble_id: str) -> str:
    return f"bubbleId:{composer_id}:{bubble_id}"


def as_blob(data: Any) -> bytes:
    """``data`` as UTF-8 JSON bytes, which SQLite stores as a BLOB."""
    return orjson.dumps(data)


def encode_value(value: Value) -> str | bytes | None:
    """The SQLite value for ``value``: JSON TEXT for data, anything else unchanged."""
    if isinstance(value, (dict, list)):
        return orjson.dumps(value).decode()
    return value


def write_state_vscdb(
    path: Path,
    *,
    composers: Mapping[str, Value] | None = None,
    bubbles: Mapping[str, Mapping[str, Value]] | None = None,
    item_table: Mapping[str, Value] | None = None,
    disk_kv: Mapping[str, Value] | None = None,
    composer_headers: Iterable[ComposerHeader] | None = None,
    with_disk_kv: bool = True,
) -> Path:
    """Create (or add to) a ``state.vscdb`` at ``path`` and return ``path``.

    ``composers`` maps a composer id to its ``composerData`` value, ``bubbles``
    maps a composer id to ``{bubble id: bubble value}``, ``disk_kv`` holds any
    other ``cursorDiskKV`` rows verbatim (``agentKv:…``, ``checkpointId:…``) and
    ``item_table`` the ``ItemTable`` rows. ``composer_headers`` creates the newer
    ``composerHeaders`` table; ``with_disk_kv=False`` builds an old ItemTable-only
    database.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    rows: dict[str, Value] = dict(disk_kv or {})
    for composer_id, value in (composers or {}).items():
        rows[composer_key(composer_id)] = value
    for composer_id, by_id in (bubbles or {}).items():
        for bubble_id, value in by_id.items():
            rows[bubble_key(composer_id, bubble_id)] = value
    if rows and not with_disk_kv:
        raise ValueError("an ItemTable-only database cannot hold cursorDiskKV rows")

    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA synchronous=OFF")  # a written test or sample database needs no crash safety
        conn.execute(ITEM_TABLE_SCHEMA)
        put_values(conn, "ItemTable", item_table or {})
        if with_disk_kv:
            conn.execute(DISK_KV_SCHEMA)
            put_values(conn, "cursorDiskKV", rows)
        if composer_headers is not None:
            conn.executescript(HEADERS_SCHEMA)
            conn.executemany(
                "INSERT OR REPLACE INTO composerHeaders"
                " (composerId, workspaceId, createdAt, lastUpdatedAt, recency, value) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (h.composer_id, h.workspace_id, h.created_at, h.last_updated_at, h.recency, encode_value(h.value))
                    for h in composer_headers
                ],
            )
    conn.close()
    return path


def put_values(conn: sqlite3.Connection, table: str, values: Mapping[str, Value]) -> None:
    """Insert or replace ``values`` in ``ItemTable`` or ``cursorDiskKV`` on an open connection."""
    if table not in ("ItemTable", "cursorDiskKV"):
        raise ValueError(f"not a key-value table: {table}")
    conn.executemany(
        f"INSERT INTO {table} (key, value) VALUES (?, ?)",
        [(key, encode_value(value)) for key, value in values.items()],
    )


def write_workspace_json(workspace_dir: Path, *, folder: str | None = None, workspace: str | None = None) -> Path:
    """Write the ``workspace.json`` Cursor keeps beside a workspace ``state.vscdb``.

    ``folder`` and ``workspace`` are URIs as Cursor writes them (percent-encoded
    ``file:///…`` or ``vscode-remote://…``); ``Path.as_uri()`` makes one from a path.
    """
    data = {k: v for k, v in (("folder", folder), ("workspace", workspace)) if v is not None}
    workspace_dir.mkdir(parents=True, exist_ok=True)
    target = workspace_dir / "workspace.json"
    target.write_bytes(orjson.dumps(data))
    return target


# --- Cursor 3.x shapes: where a chat's project is recorded --------------------

WORKSPACE_COMPOSERS_KEY = "composer.composerData"
GLASS_PROJECTS_KEY = "glass.localAgentProjects.v1"
GLASS_MEMBERSHIP_KEY = "glass.localAgentProjectMembership.v1"


def file_uri(path: str) -> dict[str, Any]:
    """A VS Code URI object for a local file, as ``codeBlocks[].uri`` and ``fileSelections[].uri`` hold it."""
    return {"$mid": 1, "fsPath": path, "external": Path(path).as_uri(), "path": path, "scheme": "file"}


def tool_former_data(
    name: str, params: dict[str, Any], result: Any = None, status: str = "completed"
) -> dict[str, Any]:
    """A bubble's ``toolFormerData``: ``params`` and ``result`` stored as JSON strings, as Cursor stores them."""
    data: dict[str, Any] = {"name": name, "status": status, "params": orjson.dumps(params).decode()}
    if result is not None:
        data["result"] = orjson.dumps(result).decode()
    return data


def composer_data(
    composer_id: str,
    bubbles: Iterable[tuple[str, int]],
    *,
    created_at: int,
    name: str | None = None,
    file_selections: Iterable[str] = (),
    **fields: Any,
) -> dict[str, Any]:
    """A Cursor 3.x ``composerData`` value: no ``workspaceIdentifier`` unless given in ``fields``.

    ``bubbles`` are ``(bubble id, type)`` pairs in conversation order (type 1 user, 2 assistant);
    ``file_selections`` are paths attached to the chat (``context.fileSelections``).
    """
    data: dict[str, Any] = {
        "_v": 13,
        "composerId": composer_id,
        "createdAt": created_at,
        "lastUpdatedAt": created_at,
        "fullConversationHeadersOnly": [{"bubbleId": b, "type": t} for b, t in bubbles],
        "context": {"fileSelections": [{"uri": file_uri(p)} for p in file_selections]},
        **fields,
    }
    if name is not None:
        data["name"] = name
    return data


def glass_items(projects: Mapping[str, str], membership: Mapping[str, str]) -> dict[str, Value]:
    """The global ``ItemTable`` rows of Cursor's agent projects: ``{project id: folder}`` and ``{composer id: project id}``."""
    listed = [
        {"id": pid, "name": Path(folder).name, "workspace": {"id": f"ws-{pid}", "uri": file_uri(folder)}}
        for pid, folder in projects.items()
    ]
    return {GLASS_PROJECTS_KEY: listed, GLASS_MEMBERSHIP_KEY: dict(membership)}


def write_workspace(
    user_root: Path,
    workspace_id: str,
    *,
    folder: str | None = None,
    all_composers: Iterable[str] = (),
    selected: Iterable[str] = (),
) -> Path:
    """A ``workspaceStorage/<workspace_id>`` folder: its ``workspace.json`` (when ``folder`` is a path) and its
    ``state.vscdb``, whose ``composer.composerData`` lists ``all_composers`` (legacy heads) and ``selected``.

    Returns the workspace database.
    """
    workspace = user_root / "workspaceStorage" / workspace_id
    if folder is not None:
        write_workspace_json(workspace, folder=Path(folder).as_uri())
    lists: dict[str, Any] = {"selectedComposerIds": list(selected), "hasMigratedComposerData": True}
    heads = [{"type": "head", "composerId": cid} for cid in all_composers]
    if heads:
        lists["allComposers"] = heads
    return write_state_vscdb(workspace / "state.vscdb", item_table={WORKSPACE_COMPOSERS_KEY: lists})
