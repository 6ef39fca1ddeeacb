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
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import msgspec

from ..private import replace_private
from ..regular_files import subfolders
from .chatstore import ACP_FOLDER, chat_folders, read_chat_meta

#: How long ago a folder must have changed for its listing to be kept as it is (see ``_bucket``).
SETTLED_NS = 2_000_000_000
#: A chat's ``meta.json`` as the cache keeps it: its ``cwd`` and whether it is filed under that folder's md5.
Cwd = tuple[str, bool]
#: A folder of chats: its change time when read, and each chat's ``Cwd`` (None: no ``meta.json`` read).
Bucket = tuple[int, dict[str, Cwd | None]]


def chat_cwds(roots: list[Path], cache: Path | None) -> list[Cwd]:
    """Every chat's ``(cwd, verified)``, in the order ``find_chat_dirs`` finds the chats (the first folder holding a
    chat id wins) and then each root's ``acp-sessions`` again, as reading each ``meta.json`` in turn gives them."""
    before = _load(cache)
    now: dict[str, Bucket] = {}
    found: list[Cwd] = []
    acp: list[Cwd] = []
    for root in roots:
        seen: set[str] = set()
        for folder in chat_folders(root):
            bucket = now[folder] = _bucket(folder, before.get(folder))
            for name, cwd in bucket[1].items():
                if name not in seen and cwd is not None:
                    found.append(cwd)
                seen.add(name)
        acp += [cwd for cwd in now[os.path.join(root, ACP_FOLDER)][1].values() if cwd is not None]
    if cache is not None and now != before:
        _save(cache, now)
    return found + acp


def _bucket(folder: str, cached: Bucket | None) -> Bucket:
    """``folder``'s chats, read again only where the cache cannot vouch for them."""
    try:
        changed = os.stat(folder).st_ctime_ns
    except OSError:
        return -1, {}
    if cached is not None and cached[0] == changed:
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


def _load(cache: Path | None) -> dict[str, Bucket]:
    if cache is None:
        return {}
    try:
        return msgspec.msgpack.decode(cache.read_bytes(), type=dict[str, Bucket])
    except (OSError, msgspec.DecodeError):
        return {}


def _save(cache: Path, buckets: dict[str, Bucket]) -> None:
    try:
        replace_private(cache, msgspec.msgpack.encode(buckets))
    except OSError:
        return  # a cache: the next refresh reads the chats again
