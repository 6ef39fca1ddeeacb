"""Freshness: what changed since the last refresh, found without walking every chat.

A full refresh stats every transcript and chat folder (121k ``stat`` calls at
100k sessions, 1-2 s). What a read checks instead, every time, in a few
thousand ``stat`` calls at that size:

- every IDE database and its write-ahead log (size and modification time);
- the folders new chats appear in: each root's ``projects/``, every project's
  ``agent-transcripts/``, ``chats/``, every ``chats/<hash>/`` and
  ``acp-sessions/``. Creating a chat adds an entry to one of them, which
  changes that folder's times; appending to a transcript changes no folder,
  which is why there is also
- the ``HOT_CHATS`` chats written most recently: their transcript, ``store.db``
  (and its log) and ``meta.json``, so a new turn in a chat in use is seen at once.

The rest (an old chat resumed outside Cursor's hooks, a deleted chat) is found
by the full walk, run when the last one started more than ``WALK_SECONDS`` ago:
inline by ``deja index``, in a detached process for a search or the MCP server,
which answer from the index as it stands meanwhile. The session-end hook reads
the chat that ended itself. What this module compares against is the
``freshness`` record in the index folder, rewritten under the writer lock by
every refresh.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import msgspec

from .. import paths
from ..bookkeeping import Bookkeeping, CliState, Sig
from ..history import CliChat
from ..index import IndexUnreadable, Manifest, read_manifest
from ..private import replace_private, write_private
from ..redact import mode as redaction_mode
from .plan import Plan, unchanged, wal_sigs

#: How many of the most recently written chats every read checks one by one.
HOT_CHATS = 256
#: The longest a change outside the hot chats and the folders (an old chat resumed) waits for a full walk.
WALK_SECONDS = 60.0
RECORD = "freshness"
#: Touched when a detached walk starts, so that reads arriving meanwhile start no other.
WALK_STAMP = "walk-started"

_TRANSCRIPTS = "agent-transcripts"
_SUBAGENTS = "subagents"


class Folder(msgspec.Struct, array_like=True):
    """A folder new chats appear in: what it holds (``kind``) and its change time (-1: not there)."""

    kind: str
    ctime_ns: int


class Freshness(msgspec.Struct):
    #: When the last full walk started (``time.time()``); 0: never.
    walked_at: float = 0.0
    #: IDE database -> its and its log's signatures as last read.
    ide: dict[str, list[Sig | None]] = {}
    folders: dict[str, Folder] = {}
    #: The chats checked one by one, as the bookkeeping last recorded them.
    hot: dict[str, CliState] = {}


class Check(msgspec.Struct):
    """What the cheap check found."""

    #: The index the record describes; None without a record of a full walk, when only a full refresh can tell.
    manifest: Manifest | None
    #: Something changed: a refresh of ``targets`` (and of the IDE databases, always checked) is due.
    changed: bool = False
    targets: set[str] = set()
    #: The folders as they are now, for the refresh that reads ``targets`` to record.
    folders: dict[str, Folder] = {}
    walk_due: bool = False


def check(directory: Path) -> Check:
    """Compare the stores with the record: cheap signals only, nothing read, nothing written."""
    record = load(directory)
    manifest = _current_manifest(directory)
    if record is None or not record.walked_at or manifest is None:
        return Check(manifest=None)
    ide_now = {str(db): wal_sigs(db) for db in paths.ide_databases()}
    folders = {path: Folder(old.kind, _ctime(path)) for path, old in record.folders.items()}
    targets: set[str] = set()
    for path, old in record.folders.items():
        now = folders[path]
        if now.ctime_ns != old.ctime_ns and now.ctime_ns != -1:
            targets |= _new_entries(path, old, folders)
    targets |= {sid for sid, old in record.hot.items() if not unchanged(old, _as_found(sid, old))}
    changed = bool(targets) or ide_now != record.ide or folders != record.folders
    due = _walk_due(directory, record)
    return Check(manifest=manifest, changed=changed, targets=targets, folders=folders, walk_due=due)


def load(directory: Path) -> Freshness | None:
    try:
        return msgspec.msgpack.decode((directory / RECORD).read_bytes(), type=Freshness)
    except (OSError, msgspec.DecodeError):
        return None


def _current_manifest(directory: Path) -> Manifest | None:
    """The index's manifest if it is there, readable and built under today's redaction rule (else a full refresh
    decides what to do)."""
    try:
        manifest = read_manifest(directory)
    except IndexUnreadable:
        return None
    return manifest if manifest.redaction == redaction_mode() else None


def _ctime(path: str) -> int:
    try:
        return os.stat(path).st_ctime_ns
    except OSError:
        return -1


def _entries(folder: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as found:
            return list(found)
    except OSError:
        return []


def _new_entries(path: str, old: Folder, folders: dict[str, Folder]) -> set[str]:
    """The session ids behind the entries added to ``path`` since it was recorded (change time not before it).

    A folder found inside a new one (a new project's ``agent-transcripts``, a new
    ``chats/<hash>``) joins ``folders`` and is read whole.
    """
    since = old.ctime_ns
    fresh = [e for e in _entries(path) if _entry_ctime(e) >= since]
    if old.kind == "projects":
        ids: set[str] = set()
        for project in fresh:
            inner = os.path.join(project.path, _TRANSCRIPTS)
            if inner not in folders:  # a known project's folder is checked on its own
                folders[inner] = Folder("transcripts", _ctime(inner))
                ids |= _new_entries(inner, Folder("transcripts", -1), folders)
        return ids
    if old.kind == "chats":
        ids = set()
        for bucket in fresh:
            if bucket.path not in folders:
                folders[bucket.path] = Folder("bucket", _ctime(bucket.path))
                ids |= {e.name for e in _entries(bucket.path)}
        return ids
    if old.kind == "transcripts":
        return set(_transcript_ids(fresh))
    if old.kind == "subagents":
        parent = os.path.basename(os.path.dirname(path))
        return {f"{parent}/{e.name[: -len('.jsonl')]}" for e in fresh if e.name.endswith(".jsonl")}
    return {e.name for e in fresh}  # a chat bucket or acp-sessions: one folder per chat


def _entry_ctime(entry: os.DirEntry[str]) -> int:
    try:
        return entry.stat(follow_symlinks=False).st_ctime_ns
    except OSError:
        return -1


def _transcript_ids(entries: Iterable[os.DirEntry[str]]) -> Iterator[str]:
    """``<id>.jsonl`` and ``<id>/`` entries of an ``agent-transcripts`` folder, with subagents when they are read."""
    include = paths.include_subagents()
    for entry in entries:
        if entry.name.endswith(".jsonl"):
            yield entry.name[: -len(".jsonl")]
        else:
            yield entry.name
            if include:
                children = _entries(os.path.join(entry.path, _SUBAGENTS))
                yield from (f"{entry.name}/{c.name[: -len('.jsonl')]}" for c in children if c.name.endswith(".jsonl"))


def _as_found(session_id: str, old: CliState) -> CliChat:
    """The chat as a full walk would find it now, from the paths its record names."""
    if not old.transcript:
        return CliChat(id=session_id, transcript="", chat_dir=old.chat_dir)
    try:
        st = os.stat(old.transcript)
    except OSError:
        return CliChat(id=session_id, transcript="", chat_dir=old.chat_dir)  # gone: differs from the record
    return CliChat(
        id=session_id, transcript=old.transcript, chat_dir=old.chat_dir, size=st.st_size, mtime_ns=st.st_mtime_ns
    )


def _walk_due(directory: Path, record: Freshness) -> bool:
    now = time.time()
    if now - record.walked_at < WALK_SECONDS:
        return False
    try:
        return now - (directory / WALK_STAMP).stat().st_mtime >= WALK_SECONDS
    except OSError:
        return True


def start_walk(directory: Path) -> None:
    """Start a full refresh in a detached process; the caller answers from the index as it stands meanwhile."""
    write_private(directory / WALK_STAMP, b"")
    subprocess.Popen(
        [sys.executable, "-m", "deja.core.indexer"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


# --------------------------------------------------------------------------- what a refresh records


def snapshot_folders(roots: Iterable[Path]) -> dict[str, Folder]:
    """Every folder new chats appear in, as it is now: taken before a full walk reads anything."""
    folders: dict[str, Folder] = {}
    for root in roots:
        projects = os.path.join(root, "projects")
        folders[projects] = Folder("projects", _ctime(projects))
        for project in _entries(projects):
            inner = os.path.join(project.path, _TRANSCRIPTS)
            folders[inner] = Folder("transcripts", _ctime(inner))
        chats = os.path.join(root, "chats")
        folders[chats] = Folder("chats", _ctime(chats))
        for bucket in _entries(chats):
            folders[bucket.path] = Folder("bucket", _ctime(bucket.path))
        acp = os.path.join(root, "acp-sessions")
        folders[acp] = Folder("bucket", _ctime(acp))
    return folders


def _recency(state: CliState) -> int:
    return max([state.sig.mtime_ns, *(sig.mtime_ns for sig in state.store_sig if sig is not None)])


def _hottest(chats: Iterable[tuple[str, CliState]]) -> dict[str, CliState]:
    chosen = sorted(chats, key=lambda item: _recency(item[1]), reverse=True)[:HOT_CHATS]
    return dict(chosen)


def _subagent_folders(hot: dict[str, CliState]) -> dict[str, Folder]:
    """With subagents read, the ``subagents/`` folder of each hot chat's nested transcript (new children show there)."""
    if not paths.include_subagents():
        return {}
    folders = {}
    for state in hot.values():
        parent = os.path.dirname(state.transcript)
        if state.transcript and os.path.basename(os.path.dirname(parent)) == _TRANSCRIPTS:
            inner = os.path.join(parent, _SUBAGENTS)
            folders[inner] = Folder("subagents", _ctime(inner))
    return folders


def record_walk(directory: Path, book: Bookkeeping, plan: Plan, started: float, folders: dict[str, Folder]) -> None:
    """After a full refresh: everything was looked at as of ``started``."""
    hot = _hottest((sid, chat.cli) for sid, chat in book.items() if chat.cli is not None)
    ide = {db: state.sigs for db, state in plan.ide_dbs.items()}
    _save(directory, Freshness(started, ide, {**folders, **_subagent_folders(hot)}, hot))


def record_targets(
    directory: Path, book: Bookkeeping, plan: Plan, targets: set[str], folders: dict[str, Folder] | None
) -> None:
    """After a refresh of some chats: they join the hot chats, and the folders the check looked at are current."""
    record = load(directory)
    if record is None:
        return  # no full walk recorded: the next read walks, and records everything
    hot = dict(record.hot)
    for sid in targets:
        chat = book.chat(sid)
        if chat is not None and chat.cli is not None:
            hot[sid] = chat.cli
        else:
            hot.pop(sid, None)
    hot = _hottest(hot.items())
    merged = {**record.folders, **(folders or {}), **_subagent_folders(hot)}
    ide = {db: state.sigs for db, state in plan.ide_dbs.items()}
    _save(directory, Freshness(record.walked_at, ide, merged, hot))


def _save(directory: Path, record: Freshness) -> None:
    replace_private(directory / RECORD, msgspec.msgpack.encode(record))
