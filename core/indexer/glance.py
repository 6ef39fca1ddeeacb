"""The cheap check a read makes before it answers: did anything change since the last refresh?

What it looks at, and why that is enough, is told in ``freshness``, which
writes the record compared here, in JSON: the stdlib's C decoder reads it in a
fraction of a millisecond at 100k sessions (the pure-Python msgpack decoder of
``index.light`` took ten times as long, and msgspec's import costs more than
both). This module imports neither msgspec nor the readers, nor ``json`` itself
(its C half reads the record: ``cjson``), so a ``deja search`` that finds
nothing changed pays for a few hundred ``stat`` calls and little else.
"""

from __future__ import annotations

import os
import time
from itertools import islice

from ..cjson import load_json, load_json_head
from ..folders import GLOBAL_STORAGE, WORKSPACE_JSON, cli_roots, ide_databases, include_subagents, utf8_named
from ..index.format import FRESHNESS_RECORD, INDEX, WHOLE_STAMP, IndexUnreadable, read_manifest
from ..index.light import LIGHT
from ..record import Record
from ..redaction import mode as redaction_mode

TYPE_CHECKING = False  # typing's own, without importing typing; type checkers know it
if TYPE_CHECKING:  # (and pathlib: a ``deja search`` names the index folder as a string)
    from collections.abc import Iterable, Iterator
    from typing import Any

    from _typeshed import StrPath

    from ..index import Manifest

#: The longest a change outside the hot chats and the folders (an old chat resumed) waits for a full walk.
WALK_SECONDS = 60.0
RECORD = FRESHNESS_RECORD  # (named in ``index.format``, where a hook finds its age: ``hooks.call``)
#: Touched when a detached walk starts, so that reads arriving meanwhile start no other.
WALK_STAMP = "walk-started"
#: The newest hot chats and the most recently changed folders, which every check looks at: where a turn or a chat
#: arrives while someone works. The rest of the record is looked at once ``WHOLE_SECONDS`` have passed since it
#: last was (the time ``WHOLE_STAMP``'s modification time keeps), so a change there waits at most that long.
WARM_CHATS = 16
WARM_FOLDERS = 32
WHOLE_SECONDS = 5.0
TRANSCRIPTS = "agent-transcripts"
SUBAGENTS = "subagents"

#: A folder new chats appear in, as the record keeps it: what it holds (its kind) and its change time (-1: not there).
FolderState = tuple[str, int]


class Check(Record):
    """What the cheap check found."""

    #: The index the record describes; None without a record of a full walk, when only a full refresh can tell.
    manifest: Manifest | None
    #: Something changed: a refresh of ``targets`` (and of the IDE databases, always checked) is due.
    changed: bool = False
    targets: set[str] = set()
    #: The folders as they are now, for the refresh that reads ``targets`` to record: the record's, with those
    #: that moved (empty when none did).
    folders: dict[str, FolderState] = {}
    walk_due: bool = False
    #: The hot chats compared one by one (changed or not): those not in ``targets`` are as the index holds them.
    compared: set[str] = set()

    @property
    def unchanged(self) -> bool:
        """The index answers as it stands (a walk that falls due runs meanwhile, detached: ``start_walk``)."""
        return self.manifest is not None and not self.changed


def check(directory: StrPath) -> Check:
    """Compare the stores with the record: cheap signals only, nothing read; written, at most every
    ``WHOLE_SECONDS``, only the time of the last whole comparison (``WHOLE_STAMP``). (``deja index`` walks instead:
    asked to bring everything up to date, it looks at every chat.)"""
    started = time.time()
    looks_whole = _whole_due(directory, started)
    record = load_raw(directory, whole=looks_whole)
    manifest = _current_manifest(directory)
    if not record or not record.get("walked_at") or manifest is None or _new_root(record):
        return Check(manifest=None)
    try:
        return _compare(directory, record, manifest, started, whole=looks_whole)
    except (TypeError, ValueError, KeyError, AttributeError):  # a record of another shape (another deja wrote it)
        return Check(manifest=None)


def _compare(directory: StrPath, record: dict[str, Any], manifest: Manifest, started: float, whole: bool) -> Check:
    """``check``'s comparison of the record with the stores (the whole record, or its warm part); raises on a
    record whose values have another shape."""
    ide_then = {os.path.normpath(db): _sigs(sigs) for db, sigs in record["ide"].items()}  # (paths' spelling)
    ide_now = {os.path.normpath(db): database_sigs(db) for db in ide_databases()}
    recorded: dict[str, list[Any]] = record["folders"]  # path -> [kind, change time]
    looked = recorded.items() if whole else _warm_folders(recorded)
    moved = {path: (kind, now) for path, (kind, then) in looked if (now := ctime(path)) != then}
    folders: dict[str, FolderState] = {}  # (as the record has them, but for those that moved)
    targets: set[str] = set()
    if moved:
        folders = {path: (kind, then) for path, (kind, then) in recorded.items()} | moved
        for path, (kind, now) in moved.items():
            if now != -1:
                targets |= _new_entries(path, (kind, recorded[path][1]), folders)
    hot = record["hot"] if whole else _warm_chats(record["hot"])
    targets |= {sid for sid, old in hot.items() if not _hot_unchanged(old)}
    changed = bool(targets) or bool(moved) or ide_now != ide_then
    if whole:
        _stamp_whole(directory, started)
    due = _walk_due(directory, record["walked_at"])
    return Check(manifest=manifest, changed=changed, targets=targets, folders=folders, walk_due=due, compared=set(hot))


def _new_root(record: dict[str, Any]) -> bool:
    """Whether a cursor-agent root is one the last walk did not look at (``CURSOR_CONFIG_DIR`` or
    ``XDG_CONFIG_HOME`` set since, ``cursor_cli_root`` changed): its chats are read by a walk now, not in a minute."""
    seen = record.get("roots")
    seen = seen if isinstance(seen, list) else []  # (none, or another deja's record: a walk writes it anew)
    return any(root not in seen for root in cli_roots())


def _whole_due(directory: StrPath, now: float) -> bool:
    """Whether this check looks at the whole record: the last whole one is ``WHOLE_SECONDS`` old, or unknown."""
    try:
        return now - os.stat(os.path.join(directory, WHOLE_STAMP)).st_mtime >= WHOLE_SECONDS
    except OSError:
        return True


def _stamp_whole(directory: StrPath, started: float) -> None:
    """Date the last whole check ``started`` (an index folder this user cannot write: every check is whole)."""
    stamp(directory, WHOLE_STAMP, started)


def stamp(directory: StrPath, name: str, when: float) -> None:
    """Date the file ``name`` in the index folder ``when``, made empty if missing. In a folder this user cannot
    write, nothing: no refresh can write there either, and a date kept anyway (an owner may date its file in such a
    folder) made the next checks warm ones, a search silent about a change outside their warm part that the index
    could not take while `deja sessions` a few seconds later said so (trial52)."""
    if not os.access(directory, os.W_OK):
        return
    path = os.path.join(directory, name)
    try:
        os.utime(path, (when, when))
    except FileNotFoundError:
        from ..private import write_private

        try:
            write_private(path, b"")
            os.utime(path, (when, when))
        except OSError:
            return
    except OSError:
        return


def _warm_folders(folders: dict[str, list[Any]]) -> list[tuple[str, list[Any]]]:
    """The roots' ``projects`` and ``chats`` folders (a new project) and the ``WARM_FOLDERS`` changed last."""
    newest = sorted(folders.items(), key=_changed, reverse=True)[:WARM_FOLDERS]  # (``heapq.nlargest``'s definition)
    return [*(item for item in folders.items() if item[1][0] in _ROOTS and item not in newest), *newest]


_ROOTS = ("projects", "chats")


def _changed(item: tuple[str, list[Any]]) -> int:
    return int(item[1][1])


def _warm_chats(hot: dict[str, Any]) -> dict[str, Any]:
    """The ``WARM_CHATS`` hot chats written last: the record's first ones (``freshness`` keeps them newest first)."""
    return dict(islice(hot.items(), WARM_CHATS))


def load_raw(directory: StrPath, whole: bool = True) -> dict[str, Any] | None:
    """The freshness record as plain JSON values (``freshness.Freshness``'s fields), or None if unreadable; when
    not ``whole``, only its first ``WARM_CHATS`` hot chats (what a check that is not whole looks at), the rest of
    them not decoded: they come last in the record (``freshness.Freshness``), and are most of its bytes. A record
    laid out otherwise (written by an earlier deja, ``roots`` after them) is read whole."""
    try:
        data = _read(os.path.join(directory, RECORD))
        record = None if whole else load_json_head(data, "hot", WARM_CHATS)
        if record is None or not record.keys() >= WARM_KEYS:
            record = load_json(data, strict=False)
    except (OSError, ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) and record.keys() >= RECORD_KEYS else None


#: What a record holds, and what a record read as far as its warm chats holds before them.
RECORD_KEYS = frozenset({"walked_at", "ide", "folders", "hot"})
WARM_KEYS = RECORD_KEYS | {"roots"}


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _current_manifest(directory: StrPath) -> Manifest | None:
    """The index's manifest if it is there, readable and built under today's redaction rule (else a full refresh
    decides what to do)."""
    try:
        manifest = read_manifest(directory, LIGHT)
    except IndexUnreadable:
        return None
    return manifest if manifest.redaction == redaction_mode() else None


def _sigs(values: Iterable[Any]) -> list[tuple[int, int] | None]:
    return [None if sig is None else (sig[0], sig[1]) for sig in values]


def stat_sig(path: StrPath, *, unreadable_as_absent: bool = False) -> tuple[int, int] | None:
    """A file's size and modification time, or None when it is not there; with ``unreadable_as_absent``, None too
    for a file this user may not read (``unreadable``)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if unreadable_as_absent and unreadable(st) and not os.access(path, os.R_OK):  # (an access list may grant it)
        return None
    return st.st_size, st.st_mtime_ns


def unreadable(st: os.stat_result) -> bool:
    """Whether this user may not read a file of ``st``, told by its mode as ``access`` tells it (the owner's bits
    for this user's, the group's for a group of this user's, else the others'), with no call: a check judged by the
    owner's bits alone took another user's 0600 file (one ``sudo cursor`` left) for readable, disagreed with the
    refresh's record, and every read refreshed (review58a F1). Where the mode refuses, an access list may still
    grant it (review58c F3): ``stat_sig`` asks ``access`` then, for that rare file alone."""
    if _EUID <= 0:  # (root reads anything; no user ids on Windows)
        return False
    if st.st_uid == _EUID:
        return not st.st_mode & 0o400
    if st.st_gid == _EGID or st.st_gid in os.getgroups():  # (asked only of another user's file: rare)
        return not st.st_mode & 0o040
    return not st.st_mode & 0o004


_EUID = os.geteuid() if hasattr(os, "geteuid") else -1
_EGID = os.getegid() if hasattr(os, "getegid") else -1


def wal_sigs(db: StrPath) -> list[tuple[int, int] | None]:
    """A SQLite file's signature with its write-ahead log's: a write may touch only the log."""
    return [stat_sig(db), stat_sig(f"{db}-wal")]


def database_sigs(db: StrPath) -> list[tuple[int, int] | None]:
    """An editor database's signature (``wal_sigs``) with its folder's ``workspace.json``'s: the file naming the
    folder of a workspace's chats may appear or change with no write to the database (trial14 F4). The global
    database has none (nor does its reader look for one there: ``Projects.editor_project``): its third signature
    is None with no ``stat`` asked, as an index that stat'ed it recorded it."""
    folder = os.path.dirname(db)
    if os.path.basename(folder) == GLOBAL_STORAGE:
        return [*wal_sigs(db), None]
    # (an unreadable one as absent, as a refresh records it: ``plan._unreadable_workspace_json``; the two agree while
    # it stays so, where every read refreshed (review57d F2), and a ``chmod u+r``, which moves no time, is seen)
    return [*wal_sigs(db), stat_sig(os.path.join(folder, WORKSPACE_JSON), unreadable_as_absent=True)]


#: A chat folder's files, as ``store_sigs`` lists them: its store, the store's WAL, and meta.json (title and times).
STORE_FILES = ("/store.db", "/store.db-wal", "/meta.json")


def store_sigs(chat_dir: str | None) -> list[tuple[int, int] | None]:
    """A chat folder's store (with its WAL) and meta.json, which gives the title and times."""
    if not chat_dir:
        return []
    # (joined by hand: ``os.path.join`` cost about 2 µs a call under load, thrice per chat on every walk; a folder's
    # name from a walk or a record never ends with a slash, and a stat reads ``a//b`` as ``a/b`` anyway)
    return [stat_sig(chat_dir + name) for name in STORE_FILES]


def _hot_unchanged(old: dict[str, Any]) -> bool:
    """The chat is as the record (a ``CliState``) describes it: same transcript, folder and store files."""
    transcript = old["transcript"]
    if transcript:
        now = stat_sig(transcript)
        if now is None or (old["sig"][0], old["sig"][1]) != now:
            return False
    elif tuple(old["sig"]) != (0, 0):
        return False
    return _sigs(old["store_sig"]) == store_sigs(old["chat_dir"])


def ctime(path: str) -> int:
    try:
        return os.stat(path).st_ctime_ns
    except OSError:
        return -1


def entries(folder: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as found:
            return [e for e in found if utf8_named(e.path, e.name)]
    except OSError:
        return []


def _new_entries(path: str, old: FolderState, folders: dict[str, FolderState]) -> set[str]:
    """The session ids behind the entries added to ``path`` since it was recorded (change time not before it).

    A folder found inside a new one (a new project's ``agent-transcripts``, a new
    ``chats/<hash>``) joins ``folders`` and is read whole.
    """
    kind, since = old
    fresh = [e for e in entries(path) if _entry_ctime(e) >= since]
    if kind == "projects":
        ids: set[str] = set()
        for project in fresh:
            inner = os.path.join(project.path, TRANSCRIPTS)
            if inner not in folders:  # a known project's folder is checked on its own
                folders[inner] = ("transcripts", ctime(inner))
                ids |= _new_entries(inner, ("transcripts", -1), folders)
        return ids
    if kind == "chats":
        ids = set()
        for bucket in fresh:
            if bucket.path not in folders:
                folders[bucket.path] = ("bucket", ctime(bucket.path))
                ids |= {e.name for e in entries(bucket.path)}
        return ids
    if kind == "transcripts":
        return set(_transcript_ids(fresh))
    if kind == "subagents":
        parent = os.path.basename(os.path.dirname(path))
        return {f"{parent}/{e.name[: -len('.jsonl')]}" for e in fresh if e.name.endswith(".jsonl")}
    return {e.name for e in fresh}  # a chat bucket or acp-sessions: one folder per chat


def _entry_ctime(entry: os.DirEntry[str]) -> int:
    try:
        return entry.stat(follow_symlinks=False).st_ctime_ns
    except OSError:
        return -1


def _transcript_ids(found: Iterable[os.DirEntry[str]]) -> Iterator[str]:
    """``<id>.jsonl`` and ``<id>/`` entries of an ``agent-transcripts`` folder, with subagents when they are read."""
    include = include_subagents()
    for entry in found:
        if entry.name.endswith(".jsonl"):
            yield entry.name[: -len(".jsonl")]
        else:
            yield entry.name
            if include:
                children = entries(os.path.join(entry.path, SUBAGENTS))
                yield from (f"{entry.name}/{c.name[: -len('.jsonl')]}" for c in children if c.name.endswith(".jsonl"))


def check_home(home: str, walk: bool = True) -> Check:
    """What a read does first, with nothing loaded but the cheap check: deja's home kept private, the check, and, when
    it finds nothing changed, a walk that is due started detached (not without ``walk``: a hook's catch-up starts
    none). The CLI's fast path, the MCP server's refresher and a hook's catch-up each ask it before they load the
    indexer, which only a change needs: a hook starts a catch-up every 30 s while prompts come, and most find
    nothing (review41b)."""
    from ..private import tighten

    tighten(home)
    directory = os.path.join(home, INDEX)
    found = check(directory)
    if walk and found.unchanged and found.walk_due:
        start_walk(directory)
    return found


def start_walk(directory: StrPath) -> None:
    """Start a full refresh in a detached process; the caller answers from the index as it stands meanwhile.

    An index folder this user cannot write to (or no process to spare) starts no walk: a read still answers.
    """
    from .. import detached
    from ..private import write_private

    try:
        write_private(os.path.join(directory, WALK_STAMP), b"")
        detached.start(detached.python_module("deja.core.indexer"))
    except OSError:
        return


def _walk_due(directory: StrPath, walked_at: float) -> bool:
    """Whether the last walk that finished is ``WALK_SECONDS`` old and no walk started since (``WALK_STAMP``)."""
    now = time.time()
    if now - walked_at < WALK_SECONDS:
        return False
    try:
        return now - os.stat(os.path.join(directory, WALK_STAMP)).st_mtime >= WALK_SECONDS
    except OSError:
        return True
