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
the chat that ended itself. ``glance`` makes the check before every read,
without msgspec; what it compares against is the ``freshness`` record in the
index folder, which this module writes under the writer lock on every refresh.
"""

import heapq
import os
from collections.abc import Iterable
from pathlib import Path

from .. import paths
from ..bookkeeping import Bookkeeping, CliState, Sig
from ..folders import real_folder
from ..lean_msgspec import msgspec
from ..private import replace_private
from .glance import RECORD, SUBAGENTS, TRANSCRIPTS, WALK_SECONDS, FolderState, ctime, entries
from .plan import Plan

#: How many of the most recently written chats every read checks one by one.
HOT_CHATS = 256
#: The record as an earlier deja kept it (msgpack): the first full walk by this one removes it.
OLD_RECORD = "freshness"

__all__ = [
    "HOT_CHATS",
    "RECORD",
    "WALK_SECONDS",
    "Freshness",
    "load",
    "record_targets",
    "record_walk",
    "save",
]


class Freshness(msgspec.Struct):
    #: When the last full walk started (``time.time()``); 0: never.
    walked_at: float = 0.0
    #: IDE database -> its and its log's signatures as last read.
    ide: dict[str, list[Sig | None]] = {}
    #: The folders new chats appear in: path -> (what it holds, change time), an array ``glance`` reads as it is.
    folders: dict[str, FolderState] = {}
    #: Every cursor-agent root a walk has looked at, kept across walks: a root missing here is new, and read by a
    #: walk at once (``glance``); kept, so that a shell and Cursor that see different roots do not take turns.
    roots: list[str] = []
    #: The chats checked one by one, as the bookkeeping last recorded them, the newest first. Written last: a check
    #: that looks at the newest only reads the record no further (``glance.load_raw``), so no field may follow.
    hot: dict[str, CliState] = {}


#: The record's decoder, made once at import (see ``index.records._MANIFEST``).
_RECORD = msgspec.json.Decoder(Freshness)


def load(directory: Path) -> Freshness | None:
    try:
        return _RECORD.decode((directory / RECORD).read_bytes())
    except (OSError, msgspec.DecodeError):
        return None


# --------------------------------------------------------------------------- what a refresh records


def snapshot_folders(roots: Iterable[str]) -> dict[str, FolderState]:
    """Every folder new chats appear in, as it is now: taken before a full walk reads anything."""
    folders: dict[str, FolderState] = {}
    for root in roots:
        projects = os.path.join(root, "projects")
        folders[projects] = ("projects", ctime(projects))
        for project in entries(projects):
            inner = os.path.join(project.path, TRANSCRIPTS)
            folders[inner] = ("transcripts", ctime(inner))
        chats = os.path.join(root, "chats")
        folders[chats] = ("chats", ctime(chats))
        for bucket in entries(chats):
            folders[bucket.path] = ("bucket", ctime(bucket.path))
        acp = os.path.join(root, "acp-sessions")
        folders[acp] = ("bucket", ctime(acp))
    return folders


def _recency(state: CliState) -> int:
    """The newest modification time of the chat's files (asked of every chat on a walk: a loop, not a generator)."""
    newest = state.sig.mtime_ns
    for sig in state.store_sig:
        if sig is not None and sig.mtime_ns > newest:
            newest = sig.mtime_ns
    return newest


def _hottest(chats: Iterable[tuple[str, CliState]]) -> dict[str, CliState]:
    """The ``HOT_CHATS`` most recent (as ``sorted``'s first ones, ties in order), holding no more than them."""
    return dict(heapq.nlargest(HOT_CHATS, chats, key=lambda item: _recency(item[1])))


def _subagent_folders(hot: dict[str, CliState]) -> dict[str, FolderState]:
    """With subagents read, the ``subagents/`` folder of each hot chat's nested transcript (new children show there)."""
    if not paths.include_subagents():
        return {}
    folders = {}
    for state in hot.values():
        parent = os.path.dirname(state.transcript)
        if state.transcript and os.path.basename(os.path.dirname(parent)) == TRANSCRIPTS:
            inner = os.path.join(parent, SUBAGENTS)
            folders[inner] = ("subagents", ctime(inner))
    return folders


def record_walk(
    directory: Path,
    book: Bookkeeping,
    plan: Plan,
    started: float,
    folders: dict[str, FolderState],
    roots: list[str],
) -> None:
    """After a full refresh of ``roots``: everything was looked at as of ``started``.

    The folders the record holds of the roots this walk did not look at stay: a walk by Cursor's MCP server or a
    hook, which see other roots than the person's shell, dropped them, and the shell's check missed a new chat
    there until its own walk a minute later (trial9 F14). A root on record is taken where its links lead, as
    ``roots`` are (``folders.real_folder``): one an earlier deja recorded through a link is no other root, whose
    folders would be kept, and checked, twice."""
    hot = _hottest((sid, chat.cli) for sid, chat in book.items() if chat.cli is not None)
    ide = {db: state.sigs for db, state in plan.ide_dbs.items()}
    previous = load(directory)
    seen = sorted({*roots, *(real_folder(root) for root in (previous.roots if previous else []))})
    unseen = tuple(os.path.join(root, "") for root in seen if root not in roots)
    kept = {path: state for path, state in previous.folders.items() if path.startswith(unseen)} if previous else {}
    folders = {**kept, **folders, **_subagent_folders(hot)}
    save(directory, Freshness(started, ide, folders, roots=seen, hot=hot))
    (directory / OLD_RECORD).unlink(missing_ok=True)


def record_targets(
    directory: Path,
    book: Bookkeeping,
    plan: Plan,
    targets: set[str],
    folders: dict[str, FolderState] | None,
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
    save(directory, Freshness(record.walked_at, ide, merged, roots=record.roots, hot=hot))


def save(directory: Path, record: Freshness) -> None:
    """Write the record in JSON, which ``glance`` decodes with the stdlib's C decoder before every read."""
    replace_private(directory / RECORD, msgspec.json.encode(record))
