"""The ``cwd`` every cursor-agent chat's ``meta.json`` names, kept between refreshes folder by folder.

A transcript whose folder the disk cannot decode is given the one folder another
store names for its slug (``Projects.settle``), and the chats' ``meta.json``
files are among those stores: reading every one of them is 30,000 files at 100k
sessions (2.5 s of CPU), for a refresh of one chat. A refresh keeps what it read
in a cache file in the index folder instead, by ``chats/<hash>`` folder (and
``acp-sessions``): a folder whose change time is what the cache holds has the
same chats, so only a folder a chat was added to or removed from is read again,
and a chat whose ``meta.json`` was missing or unreadable is tried again every time
(it may have been written since the folder was). The cache is never a source of
truth for anything else: losing it, or a damaged one, costs one read of them all.

The cache also holds the answer it gave with the change time of every folder it was read from (``Summary``): a
refresh that finds every folder as it was (listed and ``stat``-ed, 500 at 100k) takes that answer without decoding
any chat's entry; decoding the 30,000 entries and going through them was about 40 ms of CPU at 100k, on every
refresh that files a chat by its project's slug.
"""

import os
import time
from pathlib import Path
from typing import Any, TypeVar

from ..lean_msgspec import msgspec
from ..private import replace_private
from ..regular_files import subfolders
from .chatstore import ACP_FOLDER, chat_folders, read_chat_meta

#: How long ago a folder must have changed for its listing to be kept as it is (see ``_bucket``).
SETTLED_NS = 2_000_000_000
#: A chat's ``meta.json`` as the cache keeps it: its ``cwd`` and whether it is filed under that folder's md5.
Cwd = tuple[str, bool]
#: A folder of chats: its change time when read, and each chat's ``Cwd`` (None: no ``meta.json`` read).
Bucket = tuple[int, dict[str, Cwd | None]]
#: The change time recorded for a folder that is not there (``acp-sessions`` is often missing).
MISSING = 0


class Summary(msgspec.Struct):
    """What the buckets gave, and each folder's change time then; empty ``folders`` when a folder had changed too
    recently to be vouched for or a chat had no ``meta.json`` (read again every time): then the buckets decide."""

    folders: dict[str, int] = {}
    cwds: list[Cwd] = []


class Cache(Summary):
    buckets: dict[str, Bucket] = {}


Kept = TypeVar("Kept", Summary, Cache)
#: The cache's decoders, as its summary and whole, made once at import (see ``index.records._MANIFEST``).
_DECODERS: dict[Any, msgspec.msgpack.Decoder[Any]] = {kind: msgspec.msgpack.Decoder(kind) for kind in (Summary, Cache)}


def chat_cwds(roots: list[Path], cache: Path | None) -> list[Cwd]:
    """Every chat's ``(cwd, verified)``, each pair once: in the order ``find_chat_dirs`` finds the chats (the first
    folder holding a chat id wins) and then each root's ``acp-sessions`` again, as reading each ``meta.json`` in
    turn gives them, a pair met before left out (its one use is the set of folders the chats name:
    ``Projects._known_by_slug``; at 100k sessions 30,000 chats name 500 folders).

    Every folder's change time as the cache's summary recorded it: the summary's answer, no chat's entry decoded.
    """
    folders = {folder: _changed(folder) for root in roots for folder in chat_folders(root)}
    summary = _load(cache, Summary)
    if summary.folders and summary.folders == folders:
        return summary.cwds
    before = _load(cache, Cache).buckets
    now: dict[str, Bucket] = {}
    found: dict[Cwd | None, None] = {}
    acp: dict[Cwd | None, None] = {}
    for root in roots:
        seen: set[str] = set()
        for folder in chat_folders(root):
            bucket = now[folder] = _bucket(folder, folders.get(folder, MISSING), before.get(folder))
            chats = bucket[1]
            if seen.isdisjoint(chats):  # (the usual case: no chat id an earlier folder held)
                found.update(dict.fromkeys(chats.values()))
            else:
                found.update(dict.fromkeys(cwd for name, cwd in chats.items() if name not in seen))
            seen.update(chats)
        acp.update(dict.fromkeys(now[os.path.join(root, ACP_FOLDER)][1].values()))
    cwds = [cwd for cwd in {**found, **acp} if cwd is not None]
    if cache is not None and now != before:
        vouched = all(when != -1 and None not in chats.values() for when, chats in now.values())
        _save(cache, Cache(folders if vouched else {}, cwds, now))
    return cwds


def _changed(folder: str) -> int:
    """``folder``'s change time, ``MISSING`` when it is not there."""
    try:
        return os.stat(folder).st_ctime_ns
    except OSError:
        return MISSING


def _bucket(folder: str, changed: int, cached: Bucket | None) -> Bucket:
    """``folder``'s chats (its change time ``changed``), read again only where the cache cannot vouch for them."""
    if changed == MISSING:
        return MISSING, {}
    if cached is not None and cached[0] == changed:
        if None not in cached[1].values():  # (every chat's meta.json was read: the cache's own dict, as it is)
            return cached
        return changed, {name: cwd if cwd is not None else _cwd(folder, name) for name, cwd in cached[1].items()}
    known = cached[1] if cached is not None else {}
    chats = {}
    for entry in subfolders(folder):
        chats[entry.name] = known.get(entry.name) or _cwd(folder, entry.name)
    # A file time moves with a coarse clock: a chat added a moment after the listing could leave the folder's time
    # as it was. A folder changed that recently is listed again next time.
    return (changed if time.time_ns() - changed > SETTLED_NS else -1), chats


def _cwd(folder: str, chat: str) -> Cwd | None:
    meta = read_chat_meta(Path(folder, chat))
    return None if meta is None else (meta.cwd, meta.verified)


def _load(cache: Path | None, kind: type[Kept]) -> Kept:
    """The cache as ``kind`` (``Summary`` skips the buckets); empty when there is none or it cannot be read."""
    if cache is None:
        return kind()
    try:
        return _DECODERS[kind].decode(cache.read_bytes())
    except (OSError, msgspec.DecodeError):
        return kind()


def _save(cache: Path, record: Cache) -> None:
    try:
        replace_private(cache, msgspec.msgpack.encode(record))
    except OSError:
        return  # a cache: the next refresh reads the chats again
