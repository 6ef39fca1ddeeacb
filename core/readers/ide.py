"""Read Cursor IDE chats out of a ``state.vscdb``.

Three generations of chat live in these databases (README "What deja reads"):

* ``cursorDiskKV`` rows ``composerData:<cid>`` and ``bubbleId:<cid>:<bid>``
  (current Cursor, mostly in ``globalStorage``);
* ``ItemTable["composer.composerData"]`` whose ``allComposers`` hold whole
  composers with an inline ``conversation[]`` (Cursor ≤ 0.42, workspace DBs);
* ``ItemTable["workbench.panel.aichat.view.aichat.chatdata"]`` ``tabs[]``, the
  old Chat panel, one session per tab.

Each bubble becomes one message. A bubble's ``toolFormerData`` becomes a tool
call on that bubble's own message, so a bubble holding only a tool call is an
assistant message with empty text and that call.

Bad data never raises: every unreadable database or value adds one to
``problems["ide: <reason>"]`` and is skipped. The database is opened read-only
by :mod:`.vscdb`: through its WAL, so chats Cursor has written but not yet
checkpointed are seen, and nothing is left beside it.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

from ..digests import blake2b
from ..lines import first_line
from ..model import Message, Role, Session, Source, ToolCall, cap_text, fill_times
from ..record import Record
from . import jsonvalue
from .projects import GLASS_MEMBERSHIP_KEY, EditorChat, Found, Projects, folder_dir, path_values, uri_dir
from .vscdb import (
    CHANGED_WHILE_READ,
    READ_ATTEMPTS,
    CursorConnection,
    connect_read_only,
    count_database_error,
    table_names,
)

Problems = Counter[str]

SOURCE: Source = "cursor-ide"

_COMPOSER_PREFIX = "composerData:"
_LEGACY_COMPOSERS_KEY = "composer.composerData"
_LEGACY_CHAT_KEY = "workbench.panel.aichat.view.aichat.chatdata"
_HEADERS_KEY = "composer.composerHeaders"
#: The start of the print of a chat a database lists but does not hold (a workspace's legacy ``allComposers`` head,
#: whose composer and bubbles are in the global database): it says where the chat belongs, so a change to it files
#: the chat again, but the chat is not that database's, which neither reads it nor drops it (trial13 F10).
LISTED = "listed:"

# Millisecond times outside 2000..2100 are not wall-clock times (``timingInfo``
# also holds monotonic clocks such as ``clientStartTime: 165658.8``).
_MIN_MS = 946_684_800_000
_MAX_MS = 4_102_444_800_000


class _Header(Record, frozen=True):
    """What a global composer index says about one chat."""

    name: str = ""
    workspace_id: str = ""
    workspace_dir: str = ""
    #: The chat whose subagent ran this thread, when the header names it (``subagentInfo.parentComposerId``).
    parent_id: str = ""
    #: The newest of the header's ``lastUpdatedAt`` and ``recency`` (ms): the chat's recency when its bubbles carry
    #: no time (the composer's own ``lastUpdatedAt`` often stays its ``createdAt``: cursor-drift-2026.md §4).
    last_updated: datetime | None = None


class _Db(Record):
    """One open database and what has been learnt about it."""

    conn: CursorConnection
    path: Path
    problems: Problems
    tables: set[str]
    projects: Projects
    headers: dict[str, _Header]
    #: Whether subagents' threads are read as sessions of their own.
    subagents: bool = True
    #: The chats other chats list as their subagents' threads (``subagentComposerIds``), each with its parent.
    listed_subagents: dict[str, str] = {}
    #: Each parent chat's folder, found once for all its subagents' threads (read only when those are).
    parent_projects: dict[str, Found] = {}

    def value(self, table: str, key: str) -> tuple[bool, bytes | None]:
        """``(found, value as bytes or None)`` for one key of a key-value table."""
        row = self.conn.execute(f"SELECT CAST(value AS BLOB) FROM {table} WHERE key = ?", (key,)).fetchone()
        return (row is not None, row[0] if row else None)


# --- public API -----------------------------------------------------------


def read_ide_database(
    path: Path,
    *,
    only_ids: set[str] | None = None,
    problems: Problems | None = None,
    projects: Projects | None = None,
    subagents: bool = True,
) -> Iterator[Session]:
    """Yield one session per chat with at least one message in the ``state.vscdb`` at ``path``, and one with none
    per named chat whose messages are kept where deja does not read (``_session``'s ``kept_elsewhere``).

    With ``only_ids`` only those chats are read (no other composer's bubbles are touched, bar a subagent thread's
    parent's when the thread has no folder of its own: ``_parent_project``). Without ``subagents``,
    the threads a chat's subagents ran are left out: a composer naming a ``subagentInfo.parentComposerId`` in its
    data or its header, or listed in another's ``subagentComposerIds`` (``tests/test_editor_subagent_marks.py``).
    ``projects`` is what the whole install says about where chats belong; pass one
    catalog to every read of a pass, so each part of it is read once.
    """
    problems = problems if problems is not None else Counter()
    db = _open(path, problems, projects or Projects.around(path, problems))
    if db is None:
        return
    db.subagents = subagents
    try:
        db.headers = _composer_headers(db, only_ids)
        db.listed_subagents = _listed_subagents(db)
        composer_ids: set[str] = set()
        for composer_id in _composer_ids(db, only_ids):
            composer_ids.add(composer_id)
            session = _read_composer(db, composer_id)
            if session is not None:
                yield session
        for chat_id, chat, is_tab in _legacy_chats(db):
            if chat_id in composer_ids or (only_ids is not None and chat_id not in only_ids):
                continue
            session = _tab_session(db, chat_id, chat) if is_tab else _legacy_composer_session(db, chat_id, chat)
            if session is not None:
                yield session
        if not db.conn.still_whole():  # sessions already given: the next refresh's prints see the change
            problems[CHANGED_WHILE_READ] += 1
    except sqlite3.Error as error:
        count_database_error(error, problems, db.path)
    finally:
        db.conn.close()


def composer_fingerprints(path: Path, problems: Problems | None = None) -> dict[str, str]:
    """For every chat in the database, a cheap string that changes when the chat changes.

    A ``cursorDiskKV`` composer's print is its ``lastUpdatedAt``, the length of its
    ``composerData`` value, and the count and highest rowid of its bubble rows
    (Cursor's tables replace a row on write, which gives it a new rowid), all
    computed in SQL without reading a bubble, and the rows of the same database
    that place it in a project (its ``composerHeaders`` workspace, its glass
    project), so a chat moved to another project is read again. A legacy ItemTable
    chat's print is a hash of its part of the value, ``LISTED`` first when that part
    holds no conversation (a head only lists the chat). Only database-level problems
    are counted here; the values themselves are judged (and counted) by
    :func:`read_ide_database`.
    """
    problems = problems if problems is not None else Counter()
    projects = Projects.around(path)
    for _ in range(READ_ATTEMPTS):
        db = _open(path, problems, projects)
        if db is None:
            return {}
        db.problems = Counter()  # row-level problems are read_ide_database's to count
        try:
            prints = _fingerprints(db)
            if db.conn.still_whole():
                return prints
        except sqlite3.Error as error:
            count_database_error(error, problems, path)
            return {}
        finally:
            db.conn.close()
    problems["ide: database locked"] += 1
    return {}


class ChatCensus(NamedTuple):
    """A database's chats as a person counts them (``deja doctor``), apart from the composers that are no chat."""

    #: Chats that hold a message, or name one kept where deja does not read (each is a session).
    chats: set[str]
    #: Empty drafts (no name, no message: Cursor makes one per new chat tab), and subagents' threads unless read.
    others: int


def chat_census(path: Path, subagents: bool, problems: Problems | None = None) -> ChatCensus:
    """Which of the database's composers a user would call chats: the count beside ``deja stats``' sessions.

    In SQL without reading a bubble, as :func:`composer_fingerprints`: a composer is a chat when it has a bubble row,
    a name or listed bubbles (as ``_session`` keeps it), and is not a subagent's thread left unread; a legacy
    composer or tab when it holds its conversation inline (a ``head`` entry only points at a composer)."""
    problems = problems if problems is not None else Counter()
    db = _open(path, problems, Projects.around(path))
    if db is None:
        return ChatCensus(set(), 0)
    try:
        return _census(db, subagents)
    except sqlite3.Error as error:
        count_database_error(error, problems, db.path)
        return ChatCensus(set(), 0)
    finally:
        db.conn.close()


def _census(db: _Db, subagents: bool) -> ChatCensus:
    chats: set[str] = set()
    others = 0
    if "cursorDiskKV" in db.tables:
        with_rows = _bubble_stats(db)
        threads = {} if subagents else _listed_subagents(db)
        lo, hi = _prefix_range(_COMPOSER_PREFIX)
        for composer_id, named, listed, parent in db.conn.execute(
            "SELECT substr(key, ?), trim(coalesce(json_extract(v, '$.name'), '')) != '',"
            " coalesce(json_array_length(v, '$.fullConversationHeadersOnly'), 0) > 0,"
            " coalesce(json_extract(v, '$.subagentInfo.parentComposerId'), '')"
            " FROM (SELECT key, CASE WHEN json_valid(CAST(value AS TEXT)) THEN CAST(value AS TEXT) END AS v"
            " FROM cursorDiskKV WHERE key >= ? AND key < ?)",
            (len(_COMPOSER_PREFIX) + 1, lo, hi),
        ):
            thread = not subagents and (parent or composer_id in threads)
            if (composer_id in with_rows or named or listed) and not thread:
                chats.add(composer_id)
            else:
                others += 1
    for chat_id, chat, is_tab in _legacy_chats(db):
        if chat_id not in chats and _holds_messages(chat, is_tab):
            chats.add(chat_id)
    return ChatCensus(chats, others)


def _fingerprints(db: _Db) -> dict[str, str]:
    prints: dict[str, str] = {}
    if "cursorDiskKV" in db.tables:
        bubbles = _bubble_stats(db)
        places = _project_rows(db)
        lo, hi = _prefix_range(_COMPOSER_PREFIX)
        for composer_id, updated, length in db.conn.execute(
            "SELECT substr(key, ?), CASE WHEN json_valid(CAST(value AS TEXT))"
            " THEN json_extract(CAST(value AS TEXT), '$.lastUpdatedAt') END, length(value)"
            " FROM cursorDiskKV WHERE key >= ? AND key < ?",
            (len(_COMPOSER_PREFIX) + 1, lo, hi),
        ):
            prints[composer_id] = f"{updated}:{length}:{bubbles.get(composer_id, '0:0')}{places.get(composer_id, '')}"
    for chat_id, chat, is_tab in _legacy_chats(db):
        if chat_id not in prints:
            listed = "" if _holds_messages(chat, is_tab) else LISTED
            prints[chat_id] = listed + blake2b(_dumps(chat), digest_size=12).hexdigest()
    return prints


def listed_only(fingerprint: str) -> bool:
    """Whether a print is of a chat the database only lists (``LISTED``), whose messages another database holds."""
    return fingerprint.startswith(LISTED)


# --- opening --------------------------------------------------------------


def _open(path: Path, problems: Problems, projects: Projects) -> _Db | None:
    try:
        conn = connect_read_only(path)
    except sqlite3.Error as error:
        count_database_error(error, problems, path)
        return None
    try:
        tables = table_names(conn)
    except sqlite3.Error as error:
        conn.close()
        count_database_error(error, problems, path)
        return None
    if not tables & {"cursorDiskKV", "ItemTable"}:
        conn.close()
        if tables:  # an empty database (a new window's 0-byte state.vscdb) holds no chats, and nothing is wrong
            problems["ide: no chat tables"] += 1
        return None
    return _Db(conn, path, problems, tables, projects, {})


def _prefix_range(prefix: str) -> tuple[str, str]:
    """Bounds ``lo <= key < hi`` matching every key that starts with ``prefix``, served by the key index."""
    return prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)


# --- values ---------------------------------------------------------------


def _dumps(value: Any) -> bytes:
    """``orjson.dumps(value)``, orjson imported when an editor chat is read or fingerprinted, not with the readers
    (a refresh of one transcript's turn needs none of it: ``jsonvalue``)."""
    import orjson

    return orjson.dumps(value)


def _load(raw: bytes | None, what: str, problems: Problems) -> dict[str, Any] | None:
    """A JSON object from a stored value, or None (counted) when it is NULL or not an object."""
    if raw is None:
        problems[f"ide: null {what}"] += 1
        return None
    try:
        data = jsonvalue.loads(raw)
    except jsonvalue.NotJson:
        data = None
    if not isinstance(data, dict):
        problems[f"ide: malformed {what}"] += 1
        return None
    return data


def _item_json(db: _Db, key: str, what: str) -> dict[str, Any] | None:
    if "ItemTable" not in db.tables:
        return None
    found, raw = db.value("ItemTable", key)
    return _load(raw, what, db.problems) if found else None


def _lenient_json(value: Any) -> Any:
    """``value`` parsed when it is a JSON string, else unchanged (params and results come both ways)."""
    if isinstance(value, str):
        import orjson

        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
    return value


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


# --- cursorDiskKV composers -----------------------------------------------


#: Composer ids are read from the database this many at a time: a part of a big build reads its share of them
#: (``only_ids``), and holds those, not every id of a database of 40,000 chats.
_ID_BATCH = 1024


def _composer_ids(db: _Db, only_ids: set[str] | None) -> Iterator[str]:
    """The database's composer ids (``only_ids``' when given) in order, a batch of short queries at a time: a
    statement left open for a whole build would hold one read snapshot of a database Cursor is writing."""
    if "cursorDiskKV" not in db.tables:
        return
    lo, hi = _prefix_range(_COMPOSER_PREFIX)
    after = ">="
    while True:
        rows = db.conn.execute(
            f"SELECT key, substr(key, ?) FROM cursorDiskKV WHERE key {after} ? AND key < ? ORDER BY key LIMIT ?",
            (len(_COMPOSER_PREFIX) + 1, lo, hi, _ID_BATCH),
        ).fetchall()
        yield from (composer_id for _, composer_id in rows if only_ids is None or composer_id in only_ids)
        if len(rows) < _ID_BATCH:
            return
        lo, after = rows[-1][0], ">"


def _bubble_rows(db: _Db, composer_id: str) -> dict[str, tuple[int, bytes | None]]:
    """``{bubble id: (rowid, raw value)}`` for one composer, by key range rather than a LIKE scan."""
    prefix = f"bubbleId:{composer_id}:"
    lo, hi = _prefix_range(prefix)
    rows = db.conn.execute(
        "SELECT substr(key, ?), rowid, CAST(value AS BLOB) FROM cursorDiskKV WHERE key >= ? AND key < ?",
        (len(prefix) + 1, lo, hi),
    )
    return {bubble_id: (rowid, raw) for bubble_id, rowid, raw in rows}


def _bubble_stats(db: _Db) -> dict[str, str]:
    """``{composer id: "count:max rowid"}`` over all bubble keys, reading no values."""
    lo, hi = _prefix_range("bubbleId:")
    rows = db.conn.execute(
        "SELECT substr(key, 10, instr(substr(key, 10), ':') - 1) AS composer, count(*), max(rowid)"
        " FROM cursorDiskKV WHERE key >= ? AND key < ? GROUP BY composer",
        (lo, hi),
    )
    return {composer_id: f"{count}:{top}" for composer_id, count, top in rows}


def _read_composer(db: _Db, composer_id: str) -> Session | None:
    found, raw = db.value("cursorDiskKV", _COMPOSER_PREFIX + composer_id)
    composer = _load(raw, "composer", db.problems) if found else None  # gone since listed: deleted
    header = db.headers.get(composer_id, _Header())
    if composer is None or (not db.subagents and _subagent_thread(db, composer_id, composer, header)):
        return None
    created = _ms_time(composer.get("createdAt"))
    bubbles = _ordered_bubbles(db, composer_id, composer, created)
    project = _project(db, composer_id, composer, bubbles, header)
    if not project.folder and (parent_id := _parent_id(db, composer_id, composer, header)):
        project = _parent_project(db, parent_id)
    name = _str(composer.get("name")) or header.name
    return _session(
        db,
        composer_id,
        name=name,
        bubbles=bubbles,
        created=created,
        last_updated=_newest(_ms_time(composer.get("lastUpdatedAt")), header.last_updated),
        project=project,
        kept_elsewhere=not bubbles and _kept_elsewhere(db, composer_id, composer, name),
        accepted=_accepted_blocks(composer),
    )


def _kept_elsewhere(db: _Db, composer_id: str, composer: dict[str, Any], name: str) -> bool:
    """Whether a composer none of whose bubbles deja read keeps its messages where deja does not read (Cursor's
    newer ``agentKv:`` rows): it is named or lists bubbles, and has no bubble row at all. Rows Cursor damaged (NULL,
    not JSON) are counted as such, and such a chat is not said to be kept elsewhere."""
    listed = name.strip() or _dicts(composer.get("fullConversationHeadersOnly"))
    return bool(listed) and not composer.get("conversation") and not _bubble_rows(db, composer_id)


def _parent_project(db: _Db, parent_id: str) -> Found:
    """The folder of the chat whose subagent ran a thread with no folder of its own: the thread is that chat's work,
    so ``--project``, sessionStart and ``wip`` see it there, as a cursor-agent subagent's transcript is
    (the parent's own signals only: a parent that is itself a thread gives what it says, not its parent's)."""
    if parent_id not in db.parent_projects:
        found, raw = db.value("cursorDiskKV", _COMPOSER_PREFIX + parent_id)
        parent = _load(raw, "composer", db.problems) if found else None
        if parent is None:
            db.parent_projects[parent_id] = Found()
        else:
            bubbles = _ordered_bubbles(db, parent_id, parent, _ms_time(parent.get("createdAt")))
            header = db.headers.get(parent_id) or _composer_headers(db, {parent_id}).get(parent_id, _Header())
            db.parent_projects[parent_id] = _project(db, parent_id, parent, bubbles, header)
    return db.parent_projects[parent_id]


def _ordered_bubbles(
    db: _Db, composer_id: str, composer: dict[str, Any], created: datetime | None
) -> list[dict[str, Any]]:
    """The composer's bubbles in conversation order.

    ``fullConversationHeadersOnly`` is the only authoritative order; bubbles it
    does not list are leftovers of edits and regenerations, and a header whose
    bubble row is gone is skipped. Composers without headers keep an inline
    ``conversation[]`` (older Cursor) or are ordered by bubble time, then by
    rowid (insertion order).
    """
    headers = _dicts(composer.get("fullConversationHeadersOnly"))
    if headers:
        rows = _bubble_rows(db, composer_id)
        ordered = []
        for header in headers:
            row = rows.get(_str(header.get("bubbleId")))
            if row is not None and (bubble := _load(row[1], "bubble", db.problems)) is not None:
                ordered.append(bubble)
        return ordered
    inline = composer.get("conversation")
    if isinstance(inline, list) and inline:
        return _inline_bubbles(inline, db.problems)
    timed = []
    for rowid, raw in _bubble_rows(db, composer_id).values():
        if (bubble := _load(raw, "bubble", db.problems)) is not None:
            when = _bubble_time(bubble) or created or datetime.min.replace(tzinfo=UTC)
            timed.append((when, rowid, bubble))
    timed.sort(key=lambda item: item[:2])
    return [bubble for _, _, bubble in timed]


def _inline_bubbles(conversation: Any, problems: Problems) -> list[dict[str, Any]]:
    """The bubble objects of an inline list, counting any entry that is not one."""
    bubbles = _dicts(conversation)
    if isinstance(conversation, list) and len(bubbles) < len(conversation):
        problems["ide: malformed bubble"] += len(conversation) - len(bubbles)
    return bubbles


# --- the global composer index ---------------------------------------------


def _subagent_thread(db: _Db, composer_id: str, composer: dict[str, Any], header: _Header) -> bool:
    """Whether a composer is the thread of another chat's subagent: it names its parent
    (``subagentInfo.parentComposerId``, in its data or its header), or a parent lists it."""
    return bool(_parent_id(db, composer_id, composer, header))


def _parent_id(db: _Db, composer_id: str, composer: dict[str, Any], header: _Header) -> str:
    """The chat whose subagent ran this composer's thread ("" when it is a chat of its own)."""
    return _named_parent(composer) or header.parent_id or db.listed_subagents.get(composer_id, "")


def _named_parent(entry: dict[str, Any]) -> str:
    info = entry.get("subagentInfo")
    parent = info.get("parentComposerId") if isinstance(info, dict) else None
    return parent if isinstance(parent, str) else ""


def _listed_subagents(db: _Db) -> dict[str, str]:
    """The composer ids chats list as their subagents' threads (``subagentComposerIds``), each with its parent.

    One query over every ``composerData`` value, in SQL (a child may be read before its parent, or, in a refresh,
    without it); only values with a non-empty list (Cursor writes compact JSON) are parsed.
    """
    if "cursorDiskKV" not in db.tables:
        return {}
    lo, hi = _prefix_range(_COMPOSER_PREFIX)
    rows = db.conn.execute(
        "SELECT substr(c.key, ?), j.value"
        " FROM cursorDiskKV AS c, json_each(CAST(c.value AS TEXT), '$.subagentComposerIds') AS j"
        ' WHERE c.key >= ? AND c.key < ? AND instr(c.value, \'"subagentComposerIds":["\') > 0'
        " AND json_valid(CAST(c.value AS TEXT))",
        (len(_COMPOSER_PREFIX) + 1, lo, hi),
    )
    return {child: parent for parent, child in rows if isinstance(child, str)}


def _composer_headers(db: _Db, only_ids: set[str] | None) -> dict[str, _Header]:
    """Name and workspace per composer id from the global index (``only_ids``' when given: a part of a big
    build keeps its share of them).

    Older globals keep it in ``ItemTable["composer.composerHeaders"]``, newer ones
    in the ``composerHeaders`` table, which wins where both name a composer.
    """
    headers: dict[str, _Header] = {}
    index = _item_json(db, _HEADERS_KEY, "composer header") or {}
    for entry in _dicts(index.get("allComposers")):
        if (composer_id := _str(entry.get("composerId"))) and (only_ids is None or composer_id in only_ids):
            headers[composer_id] = _header(entry, workspace_id="")
    if "composerHeaders" in db.tables:
        times = [column for column in _RECENCY_COLUMNS if column in _columns(db, "composerHeaders")]
        rows = db.conn.execute(
            f"SELECT composerId, workspaceId, CAST(value AS BLOB){''.join(f', {c}' for c in times)} FROM composerHeaders"
        )
        for composer_id, workspace_id, raw, *stamps in rows:
            if only_ids is not None and composer_id not in only_ids:
                continue
            loaded = _load(raw, "composer header", db.problems) if raw is not None else None
            headers[composer_id] = _header(loaded or {}, workspace_id=_str(workspace_id), stamps=stamps)
    return headers


def _header(entry: dict[str, Any], *, workspace_id: str, stamps: Iterable[Any] = ()) -> _Header:
    """One composer's header; ``stamps`` are its row's recency columns, read with the entry's own."""
    identifier = entry.get("workspaceIdentifier")
    identifier = identifier if isinstance(identifier, dict) else {}
    times = [_ms_time(value) for value in (*stamps, *(entry.get(key) for key in _RECENCY_COLUMNS))]
    return _Header(
        name=_str(entry.get("name")),
        workspace_id=workspace_id or _str(identifier.get("id")),
        workspace_dir=folder_dir(identifier.get("uri")),
        parent_id=_named_parent(entry),
        last_updated=_newest(*times),
    )


#: The header columns (and entry keys) that say when a chat was last touched.
_RECENCY_COLUMNS = ("lastUpdatedAt", "recency")


def _columns(db: _Db, table: str) -> set[str]:
    """The column names of ``table`` (a header table of an older build may lack ``recency``)."""
    return {row[1] for row in db.conn.execute(f"PRAGMA table_info({table})")}


def _newest(*times: datetime | None) -> datetime | None:
    return max((when for when in times if when is not None), default=None)


# --- legacy ItemTable chats -----------------------------------------------


def _legacy_chats(db: _Db) -> Iterator[tuple[str, dict[str, Any], bool]]:
    """``(id, chat, is_tab)`` for every ItemTable composer and old Chat panel tab."""
    composers = _item_json(db, _LEGACY_COMPOSERS_KEY, "legacy chat") or {}
    for composer in _dicts(composers.get("allComposers")):
        if composer_id := _str(composer.get("composerId")):
            yield composer_id, composer, False
    chat_panel = _item_json(db, _LEGACY_CHAT_KEY, "legacy chat") or {}
    for tab in _dicts(chat_panel.get("tabs")):
        if tab_id := _str(tab.get("tabId")):
            yield tab_id, tab, True


def _holds_messages(chat: dict[str, Any], is_tab: bool) -> bool:
    """Whether a legacy entry holds its conversation inline: a ``type: "head"`` entry only points at a composer."""
    return bool(_dicts(chat.get("bubbles" if is_tab else "conversation")))


def _legacy_composer_session(db: _Db, composer_id: str, composer: dict[str, Any]) -> Session | None:
    """A whole composer kept inline; ``type: "head"`` entries hold no conversation and give None."""
    bubbles = _inline_bubbles(composer.get("conversation"), db.problems)
    header = db.headers.get(composer_id, _Header())
    return _session(
        db,
        composer_id,
        name=_str(composer.get("name")) or header.name,
        bubbles=bubbles,
        created=_ms_time(composer.get("createdAt")),
        last_updated=_newest(_ms_time(composer.get("lastUpdatedAt")), header.last_updated),
        project=_project(db, composer_id, composer, bubbles, header),
        accepted=_accepted_blocks(composer),
    )


def _tab_session(db: _Db, tab_id: str, tab: dict[str, Any]) -> Session | None:
    """An old Chat panel tab: its bubbles carry no time, and the tab's ``lastSendTime`` is when it was last sent to,
    so it is the session's last time alone. Its messages and its start have none: stamped with it, a chat begun the
    day before showed all its 32 messages at 04:37 and ``04:37 → 04:37`` (trial43 F11)."""
    bubbles = _inline_bubbles(tab.get("bubbles"), db.problems)
    return _session(
        db,
        tab_id,
        name=_str(tab.get("chatTitle")),
        bubbles=bubbles,
        created=None,
        last_updated=_ms_time(tab.get("lastSendTime")),
        project=_project(db, tab_id, {}, bubbles, _Header()),
    )


# --- sessions and messages -------------------------------------------------


def _session(
    db: _Db,
    chat_id: str,
    *,
    name: str,
    bubbles: list[dict[str, Any]],
    created: datetime | None,
    last_updated: datetime | None,
    project: Found,
    kept_elsewhere: bool = False,
    accepted: set[BlockPlace] | None = None,
) -> Session | None:
    """The chat as a session; None when no bubble gives a message, unless ``kept_elsewhere``: a chat that is no
    empty draft (it has a name or lists its bubbles: cursor-drift-2026 §3) with no bubble row at all is kept
    where deja does not read (Cursor's newer generation writes its messages to ``agentKv:blob:`` rows, never
    scanned: §6), and is a session with no messages, so its name, project and dates are still found. With
    ``accepted`` (``_accepted_blocks``), an answer's accepted code blocks are its edits."""
    messages: list[Message] = []
    own_times = False
    untimed_lead = 0  # (the messages before the first with a time of its own: stamped, they claim no day)
    for bubble in bubbles:
        own_time = _bubble_time(bubble)
        message = _message(bubble, own_time or created, db.problems, accepted)
        if message is not None:
            messages.append(message)
            own_times = own_times or own_time is not None
            untimed_lead += not own_times
    if not messages and not kept_elsewhere:
        return None
    first_user = next((m.text for m in messages if m.role == "user" and m.text), "")
    session = project.apply(
        Session(
            id=chat_id,
            source=SOURCE,
            title=" ".join(name.split()) or first_line(first_user),
            origin=str(db.path),
            messages=messages,
        )
    )
    if own_times:
        fill_times(session)
        session.untimed_lead = untimed_lead
    else:
        session.started, session.updated = created, last_updated or created
    return session


def _message(
    bubble: dict[str, Any], when: datetime | None, problems: Problems, accepted: set[BlockPlace] | None = None
) -> Message | None:
    """One bubble as a message; None for a streaming leftover with no text and no tool call. With ``accepted``, an
    answer's accepted code blocks are its tool calls (``_block_edits``)."""
    role = _role(bubble.get("type"))
    if role is None:
        problems["ide: malformed bubble"] += 1
        return None
    text = _str(bubble.get("text")).strip() or _str(bubble.get("rawText")).strip() or _rich_text(bubble.get("richText"))
    tool_call = _tool_call(bubble.get("toolFormerData"), problems)
    calls = [tool_call] if tool_call else []
    if accepted is not None and role == "assistant" and not calls:
        calls = _block_edits(bubble, accepted)
    if not text and not calls:
        return None
    return Message(role=role, text=cap_text(text), timestamp=when, tool_calls=calls)


#: A code block's place in its composer's ``codeBlockData``: its file's URI (``external``) and its version.
BlockPlace = tuple[str, int]
#: The tool call an accepted code block is read as: the editor's own edit tool, which later Cursor edits through.
BLOCK_EDIT = "edit_file"


def _accepted_blocks(composer: dict[str, Any]) -> set[BlockPlace] | None:
    """The code blocks the user accepted (``codeBlockData`` status ``accepted``), for a composer of the generation
    that edited through code blocks, holding its conversation inline (Cursor 0.42 and before: no tool calls); None
    for a later one, whose edits are tool calls and whose code blocks may be no edit at all. Only ``accepted`` says
    the file took the block: ``completed`` is a diff awaiting the user's answer, and a block the user rejected
    through ``userResponsesToSuggestedCodeBlocks`` (type 2) keeps it; ``outdated`` was superseded by a later block
    before being applied; ``rejected`` and ``cancelled`` changed nothing (the real database: 41 accepted
    (chat, file) pairs, 17 rejected, 31 only outdated, 5 left ``completed`` with no answer)."""
    if composer.get("fullConversationHeadersOnly") or not _dicts(composer.get("conversation")):
        return None
    data = composer.get("codeBlockData")
    return {
        (uri, block["version"])
        for uri, blocks in (data.items() if isinstance(data, dict) else ())
        for block in _dicts(blocks)
        if isinstance(block.get("version"), int) and block.get("status") == "accepted"
    }


def _block_edits(bubble: dict[str, Any], accepted: set[BlockPlace]) -> list[ToolCall]:
    """An answer's accepted code blocks (``_accepted_blocks``) as the edits they made, one ``BLOCK_EDIT`` call per
    file: ``deja files`` and ``deja blame`` found nothing in these chats, whose edits were code blocks naming their
    file (``codeBlocks[].uri``) applied by the editor (trial23 F7.8)."""
    files: dict[str, None] = {}
    for block in _dicts(bubble.get("codeBlocks")):
        uri = block.get("uri")
        place = (_str(uri.get("external")) if isinstance(uri, dict) else _str(uri), block.get("version", 0))
        if place in accepted and _names_a_file(uri) and (path := uri_dir(uri)):
            files[path] = None
    return [ToolCall(name=BLOCK_EDIT, args={"target_file": path}) for path in files]


#: The URI schemes of a code block that edited a file on a disk, this machine's or a remote one's.
_FILE_SCHEMES = frozenset({"file", "vscode-remote"})


def _names_a_file(uri: Any) -> bool:
    """Whether a code block's URI (an object or a string) names a file: an ``untitled:`` buffer (a new editor tab,
    never saved) is none, and was listed by ``deja files`` as ``<project>/untitled:Untitled-1`` (review43c L6). A
    plain path, a Windows drive's (``c:\\…``) included, is one."""
    import re

    if isinstance(uri, dict):
        scheme = uri.get("scheme")
        if isinstance(scheme, str) and scheme:
            return scheme in _FILE_SCHEMES
        uri = uri.get("external") or uri.get("path")
    found = re.match(r"([A-Za-z][A-Za-z0-9+.-]+):", uri) if isinstance(uri, str) else None
    return found is None or found.group(1).lower() in _FILE_SCHEMES


#: The Lexical nodes that start a line of their own.
_RICH_LINES = frozenset({"paragraph", "heading", "quote", "code", "listitem", "linebreak"})


def _rich_text(value: Any) -> str:
    """The words of a ``richText`` (the Lexical editor's JSON, stored as a string): some user bubbles keep
    the message only there, with ``text`` empty. Each paragraph is a line."""
    try:
        tree = jsonvalue.loads(value) if isinstance(value, str) and value else value
    except jsonvalue.NotJson:
        return ""
    root = tree.get("root") if isinstance(tree, dict) else None
    lines: list[str] = []
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        if node.get("type") in _RICH_LINES:
            lines.append("")
        if isinstance(node.get("text"), str):
            lines[-1:] = [(lines[-1] if lines else "") + node["text"]]
        if isinstance(node.get("children"), list):
            stack.extend(reversed(node["children"]))
    return "\n".join(lines).strip()


def _role(kind: Any) -> Role | None:
    """Bubble ``type`` 1 (or the old panel's "user") is the user; any other number, or "ai", the assistant."""
    if isinstance(kind, bool):
        return None
    if kind == 1 or kind == "user":
        return "user"
    if isinstance(kind, int) or kind == "ai":
        return "assistant"
    return None


def _tool_call(data: Any, problems: Problems) -> ToolCall | None:
    """A ``toolFormerData`` as a tool call; a rejected call keeps ``result`` None. Cursor 3.x's name-less form, which
    holds nothing but ``additionalData`` (``{"additionalData": {"status": "error"}}``, a third of real ones: drift
    §5), names no call and is no damage: it is passed over uncounted."""
    if data is None or (isinstance(data, dict) and data.keys() == {"additionalData"}):
        return None
    if not isinstance(data, dict) or not _str(data.get("name")):
        problems["ide: malformed tool call"] += 1
        return None
    args: dict[str, Any] = {}
    for key in ("params", "rawArgs"):
        value = _lenient_json(data.get(key))
        if value not in (None, "", {}):
            args = value if isinstance(value, dict) else {"input": value}
            break
    raw_result = data.get("result")
    result = _lenient_json(raw_result)
    details = result if isinstance(result, dict) else {}
    exit_code = details.get("exitCode", data.get("exitCode"))
    rejected = data.get("userDecision") == "rejected" or details.get("rejected") is True
    return ToolCall(
        name=data["name"],
        args=args,
        result=None if rejected else _result_text(raw_result, details),
        exit_code=exit_code if isinstance(exit_code, int) and not isinstance(exit_code, bool) else None,
    )


def _result_text(raw: Any, details: dict[str, Any]) -> str | None:
    """Terminal output or file contents where the result has them, else the result as stored."""
    for key in ("output", "contents"):
        if isinstance(details.get(key), str):
            return cap_text(details[key])
    if raw is None or raw == "":
        return None
    return cap_text(raw if isinstance(raw, str) else _dumps(raw).decode())


# --- time -----------------------------------------------------------------


def _bubble_time(bubble: dict[str, Any]) -> datetime | None:
    """A bubble's own time: ``timestamp`` (ms, fixtures), ``createdAt`` (ISO or ms), then ``timingInfo``."""
    for value in (bubble.get("timestamp"), bubble.get("createdAt")):
        if (when := _ms_time(value) or _iso_time(value)) is not None:
            return when
    timing = bubble.get("timingInfo")
    if isinstance(timing, dict):
        for key in ("clientRpcSendTime", "clientSettleTime", "clientEndTime"):
            if (when := _ms_time(timing.get(key))) is not None:
                return when
    return None


def _ms_time(value: Any) -> datetime | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not _MIN_MS <= value <= _MAX_MS:
        return None
    return datetime.fromtimestamp(value / 1000, tz=UTC)


def _iso_time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


# --- project --------------------------------------------------------------


def _project(db: _Db, chat_id: str, chat: dict[str, Any], bubbles: list[dict[str, Any]], header: _Header) -> Found:
    """The chat's folder and the signal that gave it (:meth:`Projects.editor_project` weighs them).

    Every source may be a path, a percent-encoded ``/c%3A/…`` path or a URI, a remote window's among them
    (``projects.folder_dir``).
    """
    identifier = chat.get("workspaceIdentifier")
    repos = _dicts(chat.get("trackedGitRepos"))
    return db.projects.editor_project(
        EditorChat(
            chat_id=chat_id,
            stored_in=db.path.parent,
            bubble_dir=next((d for b in bubbles if (d := folder_dir(b.get("workspaceProjectDir")))), ""),
            identifier_dir=folder_dir(identifier.get("uri")) if isinstance(identifier, dict) else "",
            header_id=header.workspace_id,
            header_dir=header.workspace_dir,
            git_repo=folder_dir(repos[0].get("repoPath")) if repos else "",
            workspace_uri=next((d for b in bubbles if (d := _first_workspace_uri(b))), ""),
            touched=lambda: _touched_paths(chat, bubbles),
        )
    )


def _first_workspace_uri(bubble: dict[str, Any]) -> str:
    uris = bubble.get("workspaceUris")
    return folder_dir(uris[0]) if isinstance(uris, list) and uris else ""


def _touched_paths(chat: dict[str, Any], bubbles: list[dict[str, Any]]) -> Iterator[str]:
    """The files a chat touched: its file selections, its code blocks' URIs and its tool calls' path arguments. A
    remote window's file is spelt as its folder is (``projects.folder_dir``): it lies in no folder of this machine."""
    for holder in (chat, *bubbles):
        context = holder.get("context")
        for selection in _dicts(context.get("fileSelections")) if isinstance(context, dict) else ():
            yield folder_dir(selection.get("uri"))
    for bubble in bubbles:
        for block in _dicts(bubble.get("codeBlocks")):
            yield folder_dir(block.get("uri"))
        tool = bubble.get("toolFormerData")
        if isinstance(tool, dict):
            for key in ("params", "rawArgs"):
                yield from path_values(_lenient_json(tool.get(key)))


def _project_rows(db: _Db) -> dict[str, str]:
    """Per composer, the rows of this database outside its ``composerData`` that place it in a project."""
    marks: dict[str, str] = {}
    if "composerHeaders" in db.tables:
        for composer_id, workspace_id in db.conn.execute("SELECT composerId, workspaceId FROM composerHeaders"):
            marks[composer_id] = f":{workspace_id}"
    found, raw = db.value("ItemTable", GLASS_MEMBERSHIP_KEY) if "ItemTable" in db.tables else (False, None)
    membership = _load(raw, "glass projects", Counter()) if found else None
    for composer_id, project_id in (membership or {}).items():
        marks[composer_id] = f"{marks.get(composer_id, ':')}:{project_id}"
    return marks
