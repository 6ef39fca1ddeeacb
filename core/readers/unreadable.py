"""Why a Cursor file a refresh could not read cannot be read: what a message tells the person, looked at again.

A refresh counts what it could not read (its readers swallow the error and keep
the sessions as they were); the one file a message names is opened once more,
briefly, when the message is written, to say why in a word the person can act on.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from ..folders import WORKSPACE_JSON, utf8_named
from ..regular_files import forbidden, open_regular, readable_command
from .vscdb import MID_WRITE, failed_read, read_whole, table_names, verdict

TYPE_CHECKING = False  # typing's own, without importing typing (the session-end hook imports this module)
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

#: How long the second look waits for a lock (the refresh already waited its own time).
_LOCK_WAIT_SECONDS = 0.2


def why_unreadable(path: str) -> str:
    """ "permission denied" (mode 000, another user's file, a folder above it this user may not search), "locked",
    "damaged", ``MID_WRITE`` (a hot journal beside it) or "not readable" (a FIFO in its place); "" when it reads now.

    A refresh of this process that failed to read ``path`` said why (``failed_read``): damage it met stays so, and
    a journal Cursor left stays until Cursor opens the file, whatever a second look meets (review49d H1)."""
    if forbidden(path):
        return "permission denied"
    if (said := failed_read(path)) in ("damaged", MID_WRITE):
        return said
    try:
        if path.endswith(".jsonl"):
            with open_regular(path) as transcript:
                transcript.read(1)
            return ""
        read_whole(Path(path), _walk_tables, _LOCK_WAIT_SECONDS)
    except sqlite3.DatabaseError as exc:
        if said := verdict(exc):
            return said
        return "not readable" if "unable to open" in str(exc).lower() else "damaged"
    except (OSError, ValueError):
        return "not readable"
    return ""


#: What mends a database a Cursor crash left mid-write (``MID_WRITE``): deja opens it read-only and cannot roll its
#: journal back; Cursor does when it opens it, and moving it away would throw Cursor's state away (review49d M1).
CURSOR_MENDS = "open Cursor once and it repairs it; deja reads it after"


def _walk_tables(db: sqlite3.Connection) -> None:
    """A count of every table, for a second look in a process that did not read the file itself (the detached
    ingest; doctor reads a chat's store as a refresh does first): it meets damage to the schema and to the trees it walks, but a table with a unique key is
    counted from that key's index, not its own pages (review49d H1), so a refresh's own failed read is asked
    first (``failed_read``). Stops at the first bad page."""
    for name in table_names(db):
        db.execute(f'SELECT count(*) FROM "{name.replace(chr(34), chr(34) * 2)}"').fetchone()


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


#: What ``move_away`` adds to a damaged file's name: doctor takes a chat whose ``store.db`` went so as moved away.
MOVED_AWAY = ".damaged"


def move_away(path: str) -> str:
    """The command that moves a damaged Cursor file out of deja's way, which no read mends: ``mv X X.damaged``,
    quoted for a shell (a store's folder may hold a space). ``deja index``'s lines and doctor's fixes give it alike
    (an SQLite tool opening Cursor's file could write to it)."""
    import shlex  # (a message's alone: it loads ``re``)

    return f"mv {shlex.quote(path)} {shlex.quote(path + MOVED_AWAY)}"


def make_readable(path: str, then: str) -> str:
    """What lets this user read ``path``, which a refresh could not read for want of permission: the chmod of the
    file itself, or of the folder above it that hides it (``regular_files.forbidden``), by its owner, then ``then``.
    The CLI's lines and the session-end hook's log line say it alike (a refresh never mends it). Of a
    ``workspace.json``, ``then`` is a full read (``after_made_readable``)."""
    return f"make it readable: {readable_command([path])}, then `{after_made_readable([path], then)}`"


def after_made_readable(paths: list[str], then: str = "deja index") -> str:
    """What to run once ``paths`` read: ``then``, but ``deja index --full`` where a ``workspace.json`` is among them,
    as a 3.x chat placed by the global database's ``composerHeaders`` alone is placed again only by a full read
    (trial58b B1: the line promised `deja index` would place its chats, which stayed ``(no project)``)."""
    return "deja index --full" if any(os.path.basename(path) == WORKSPACE_JSON for path in paths) else then


#: A transcript's chat folder (``agent-transcripts/<id>``): the walk reads the transcript in it by name (and lists
#: its ``subagents/``), so it must be searched, not listed: one this user may search but not list hides nothing.
_SEARCHED = "searched"
#: The folders of a cursor-agent root and of the editor's ``User`` folder that the walks list to find chats, by name
#: ("*": each folder in it), down to the ones whose files they read: a folder this user may not list (or search)
#: hides every chat below it from the walk, with no error to count. A chat folder (``chats/<hash>/<id>``) is not
#: among them: the walk finds it and counts its store as one it could not read.
_CLI_LAYOUT: dict[str, Any] = {
    "projects": {"*": {"agent-transcripts": {"*": _SEARCHED}}},
    "chats": {"*": {}},
    "acp-sessions": {},
}
#: The same, once a walk has said which chat folders it may not search: down to each ``agent-transcripts``.
_CLI_WALKED: dict[str, Any] = {**_CLI_LAYOUT, "projects": {"*": {"agent-transcripts": {}}}}
_IDE_LAYOUT: dict[str, Any] = {"globalStorage": {}, "workspaceStorage": {"*": {}}}


def unlisted_folders(ide_root: str, cli_roots: list[str], walked: list[str] | None = None) -> list[str]:
    """The folders under Cursor's roots (the roots included) that this user may not list or search (permission
    denied: mode 000, another user's): the chats below them are missing from every walk. The highest one of each
    branch, sorted. One ``scandir`` per folder above the chats' own, one ``access`` per folder holding them.

    ``walked``: the transcripts' chat folders a walk of every transcript under ``cli_roots`` has just found it may
    not search (``scan_transcripts``' ``unsearchable``), taken instead of an ``access`` of each chat folder (60,000
    at 100k sessions, a tenth of a ``deja index`` after a turn)."""
    cli = _CLI_LAYOUT if walked is None else _CLI_WALKED
    found = [*_unlisted(ide_root, _IDE_LAYOUT), *(f for root in cli_roots for f in _unlisted(root, cli))]
    return sorted({*found, *(walked or [])})


def _unlisted(folder: str, layout: dict[str, Any] | str) -> Iterator[str]:
    if isinstance(layout, str):  # (``_SEARCHED``)
        if not os.access(folder, os.X_OK):
            yield folder
        return
    if not layout:  # (a folder whose files the walk reads: whether it may be listed and searched is enough)
        if not os.access(folder, os.R_OK | os.X_OK):
            yield folder
        return
    try:
        with os.scandir(folder) as listed:
            folders = [e for e in listed if (e.name in layout or "*" in layout) and utf8_named(e.path, e.name)]
    except PermissionError:
        yield forbidden(folder) or folder
        return
    except OSError:  # not there, or not a folder
        return
    if not os.access(folder, os.X_OK):  # listed, but its files cannot be opened
        yield folder
        return
    for entry in folders:
        inner = layout.get(entry.name, layout.get("*"))
        if inner is not None and _is_folder(entry):
            yield from _unlisted(entry.path, inner)


def _is_folder(entry: os.DirEntry[str]) -> bool:
    """Whether ``entry`` is a folder, or a link to one (a link loop, or one to nowhere, is none: the walk skips it)."""
    try:
        return entry.is_dir()
    except OSError:
        return False
