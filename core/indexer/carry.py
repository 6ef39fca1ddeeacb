"""A rebuild deja starts on its own never loses what it could not read this time.

deja rebuilds the index by itself when its redaction rules change, when
redaction is turned on, and when it finds the index damaged. Such a rebuild
reads every store again; one that is there but cannot be read right now (a
chat folder at mode 000, a locked database, a FIFO in a store's place) would
drop the sessions the index read from it before, though only a store gone from
disk may give them up. So the sessions the index it replaces holds of those
stores are carried over: read back from the old index, redacted again under
the rules of now (redacting redacted text changes nothing more), with their
bookkeeping, so the next refresh reads the store again and ``deja index
--full`` still refuses to rebuild without it.

When the index it replaces cannot be read at all (or a session of such a store
is in a damaged segment), its files are kept aside, in a folder beside it, and
the rebuild says where.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from pathlib import Path

from ..bookkeeping import FOLDER, Bookkeeping, ChatState, IdeDbState, Sig, shard_of
from ..index import MANIFEST, IndexUnreadable, Manifest, Segment, SegmentRef, read_manifest
from ..lean_msgspec import msgspec
from ..private import private_dir
from ..readers.chatstore import UNREADABLE_STORE
from ..readers.cursor_agent import UNREADABLE_TRANSCRIPT
from ..regular_files import gone
from .plan import THIS_TIME_FAILURES, Plan, blocked_chat, transcript_unread
from .records import NewSegments, session_from_index

#: What names a kept index's folder, after the index folder's own name: ``index-kept-<time>``.
KEPT = "-kept-"
#: A transcript's recorded signature no file has: the next refresh reads a carried chat's transcript whole.
_NEVER_SEEN = Sig(-1, -1)


class Carried(msgspec.Struct):
    """What a rebuild carried over from the index it replaces."""

    #: The segments holding the carried sessions.
    segments: list[SegmentRef] = []
    #: One line for the person, when the index it replaces could not be read: where its files are kept.
    note: str = ""
    #: Sessions of a store it could not read may be missing from the rebuild (the index it replaces could not be
    #: read, or they were in a damaged segment of it): only ``kept`` may hold them.
    uncarried: bool = False
    #: The folder that index's files were kept in ("" when keeping them failed).
    kept: str = ""
    #: The sessions of the index it replaces that the rebuild gave up (their sources gone): its "removed" count,
    #: which the rebuild's own tally, starting from nothing, cannot see (review49e L1: "0 removed" as it dropped 3).
    removed: int = 0
    #: The sessions of the index it replaces that the rebuild read again: "updated", not "added", in its counts
    #: (its tally, starting from nothing, counted every session it wrote as added: "7 added" of an unchanged index).
    again: int = 0


class _Unread(msgspec.Struct):
    """Why a chat's session is carried: the source the rebuild could not read."""

    #: The database, or the chat (its transcript or store): what counts as one store kept unread.
    source: str
    #: What the rebuild missed of it, for doctor ("" when the rebuild's own read counted it).
    problem: str = ""
    #: The transcript or store is the source: the next refresh reads the chat again (not for a database: a chat
    #: read again while its database still cannot be read would come back without the database's side).
    cli: bool = False


def carry_unread(
    directory: Path, book: Bookkeeping, plan: Plan, problems: Counter[str], mode: str, written: list[SegmentRef]
) -> Carried:
    """Carry into a rebuild (``book``, as it recorded what it read; ``written``, its new segments) the sessions of
    the index it replaces whose stores it could not read this time, redacted again as ``mode`` says (the
    rebuild's ``redaction.mode``); count them as kept unread."""
    new = {ref.name for ref in written}
    live, before = _replaced(directory)
    try:
        lost, removed, again = _lost(before, book, plan) if before is not None else (None, 0, 0)
    except IndexUnreadable:  # a shard of its bookkeeping is damaged
        lost = None
    if live is None or lost is None:
        return _keep_unreadable(directory, plan, problems, new)
    if not lost:
        return Carried(removed=removed, again=again)
    writer = NewSegments(directory, mode != "off")
    damaged = _copy_sessions(directory, live, {sid: chat for sid, (chat, _) in lost.items()}, writer)
    for sid, where in writer.where.items():
        _drop_new_copy(directory, written, book.chat(sid))
        chat, unread = lost[sid]
        _record(book, plan, sid, msgspec.structs.replace(chat, where=where), unread)
    _count(plan, problems, [lost[sid][1] for sid in writer.where])
    why = f"a session of a store it could not read is in a damaged segment ({damaged})"
    aside = _keep_aside(directory, why, new | {ref.name for ref in writer.done}) if damaged else Carried()
    return msgspec.structs.replace(aside, segments=writer.done, removed=removed, again=again)


def _lost(before: Bookkeeping, book: Bookkeeping, plan: Plan) -> tuple[dict[str, tuple[ChatState, _Unread]], int, int]:
    """The chats of the index being replaced (``before``) whose sessions the rebuild (``book``) lost because it
    could not read a source still there, and why; how many more it gave up, their sources gone; and how many of
    its sessions it read again. Raises IndexUnreadable when ``before`` is damaged."""
    lost: dict[str, tuple[ChatState, _Unread]] = {}
    removed = again = 0
    looked_at = -1  # the rebuild's shard last looked into, set aside again once passed (``Bookkeeping.park``)
    for sid, chat in before.items():  # (shard by shard)
        if shard_of(sid) != looked_at:
            book.park(looked_at)
            looked_at = shard_of(sid)
        now = book.chat(sid)
        read = now is not None and now.where is not None  # (its tally counted it as added)
        again += chat.where is not None and read
        if (unread := _unread(sid, chat, now, plan)) is not None:
            lost[sid] = (chat, unread)
        elif chat.where is not None and not read:
            removed += 1
    book.park(looked_at)
    return lost, removed, again


def _replaced(directory: Path) -> tuple[Manifest | None, Bookkeeping | None]:
    """The manifest and the bookkeeping of the index being replaced, each None when it cannot be read."""
    try:
        live = read_manifest(directory)
        return live, Bookkeeping.recorded(directory, live.state)
    except IndexUnreadable:
        return None, None


def _unread(sid: str, chat: ChatState, now: ChatState | None, plan: Plan) -> _Unread | None:
    """Why a session the old index holds (``chat``) is carried: the rebuild (``now``) did not read it, or read it
    without a source it had then, because that source is still there but could not be read this time; None when it
    is not. The source: the editor's database, a transcript or store (a store it read and found empty, read again
    next time, gives the session up then), the store beside a transcript (the title and the commands' outputs), the
    transcript beside a store or a database (what only it holds)."""
    if chat.where is None:
        return None
    db = chat.ide_db if _unread_database(chat.ide_db, plan) else None
    if now is None or now.where is None:
        if db is not None:
            return _Unread(db)
        if chat.cli is None or not blocked_chat(sid, chat):
            return None
        return _Unread(sid, UNREADABLE_TRANSCRIPT if chat.cli.transcript else UNREADABLE_STORE, cli=True)
    if chat.cli and chat.cli.store_sig and now.cli and now.cli.chat_dir and not now.cli.store_sig:
        return _Unread(sid, cli=True)  # (its read counted the store)
    if transcript_unread(chat, now):  # (read from its store or its database alone: the walk skipped the transcript)
        return _Unread(sid, UNREADABLE_TRANSCRIPT, cli=True)
    return _Unread(db) if db is not None and now.ide_db is None else None


def _unread_database(db: str | None, plan: Plan) -> bool:
    """An editor database still on disk that the rebuild could not read (it recorded no signature of it)."""
    return db is not None and not gone(db) and not plan.read_database(db)


def _drop_new_copy(directory: Path, written: list[SegmentRef], now: ChatState | None) -> None:
    """Mark deleted the copy the rebuild wrote of a chat it read without one of its sources (the old one is
    carried instead)."""
    where = now.where if now is not None else None
    ref = next((ref for ref in written if where is not None and ref.name == where.segment), None)
    if ref is None or where is None:
        return
    ref.deleted.append(where.ordinal)
    ref.deleted_messages += Segment(directory, ref).session(where.ordinal).messages


def _copy_sessions(directory: Path, live: Manifest, lost: dict[str, ChatState], writer: NewSegments) -> str:
    """Write the ``lost`` sessions, read back from the old index, into new segments; the first damage met, or ""."""
    refs = {ref.name: ref for ref in live.segments}
    opened: dict[str, Segment | None] = {}
    damaged = ""
    try:  # (the flush after a damaged segment is abandoned on failure too: review55b W1)
        try:
            for sid in sorted(lost):
                where = lost[sid].where
                if where is None or where.segment not in refs:
                    continue
                if where.segment not in opened:
                    opened[where.segment], problem = _checked(directory, refs[where.segment])
                    damaged = damaged or problem
                segment = opened[where.segment]
                if segment is not None:
                    meta = segment.session(where.ordinal)
                    writer.add(session_from_index(meta, segment.messages(meta)))
        except IndexUnreadable as exc:  # (a segment that passed its checksums decodes; this is for what cannot)
            damaged = damaged or str(exc)
        writer.flush()
    except BaseException:
        writer.abandon()
        raise
    return damaged


def _checked(directory: Path, ref: SegmentRef) -> tuple[Segment | None, str]:
    """The old segment, opened and read against its checksums; or None and what is wrong with it."""
    try:
        segment = Segment(directory, ref)
        segment.verify()
    except IndexUnreadable as exc:
        return None, str(exc)
    return segment, ""


def _record(book: Bookkeeping, plan: Plan, sid: str, chat: ChatState, unread: _Unread) -> None:
    """A carried chat's record: where its session is now, and its unread source marked so, so the next refresh
    reads it again (a transcript whole, a store, the database's chats) and knows a chat gone from it since. A
    chat's store keeps its signature, which says its turns are in the session (``reads._read_before``,
    ``driver._stores_unread``): emptied, the next rebuild took the store for one nothing was read from and rebuilt
    without it, its title and commands' output gone (review51a); the transcript's signature alone has the chat
    read again."""
    if unread.cli and chat.cli is not None:
        cli = msgspec.structs.replace(chat.cli, sig=_NEVER_SEEN, end=0, head_hash="", tail_hash="")
        chat = msgspec.structs.replace(chat, cli=cli)
    book.put(sid, chat)
    if not unread.cli:
        book.set_fingerprints(unread.source, {**book.fingerprints(unread.source), sid: "unread"})
        plan.ide_dbs[unread.source] = IdeDbState(sigs=[])


def _count(plan: Plan, problems: Counter[str], carried: list[_Unread]) -> None:
    """Count the carried chats' sources as a refresh counts the stores it keeps unread (an editor database once for
    its chats; not twice: what the rebuild's own read counted is counted)."""
    plan.unreadable = max(plan.unreadable, len({unread.source for unread in carried}))
    for kind, count in Counter(unread.problem for unread in carried if unread.problem).items():
        problems[kind] = max(problems[kind], count)


def _keep_unreadable(directory: Path, plan: Plan, problems: Counter[str], new: set[str]) -> Carried:
    """When the index being replaced cannot be read and the rebuild met stores it could not read: keep it aside,
    as it may hold their sessions, and say where (nothing when there is none, or nothing was unread)."""
    if not (directory / MANIFEST).exists() or not (plan.unreadable or problems.keys() & THIS_TIME_FAILURES):
        return Carried()
    return _keep_aside(directory, "the index it replaces could not be read", new)


def _keep_aside(directory: Path, why: str, new: set[str]) -> Carried:
    """Link the old index's files (not the rebuild's ``new`` segments) into a folder beside it, which no rebuild
    touches; the line saying so."""
    kept = directory.parent / f"{directory.name}{KEPT}{time.strftime('%Y%m%d-%H%M%S')}"
    try:
        _link_tree(directory, kept, _old_files(directory, new))
    except OSError as exc:
        return Carried(note=f"{why}, and keeping it aside in {kept} failed ({exc.strerror or exc})", uncarried=True)
    note = (
        f"{why} and some Cursor stores could not be read either: it is kept in {kept}, as it may hold their "
        "sessions (delete it once they can be read and `deja index --full` has run)"
    )
    return Carried(note=note, uncarried=True, kept=str(kept))


def kept_indexes(directory: Path) -> list[Path]:
    """The folders rebuilds kept an index they could not carry every session from in (``_keep_aside``), oldest
    first: they stay until the person deletes them, so doctor and every refresh that cannot read a store name them."""
    prefix = f"{directory.name}{KEPT}"
    try:
        names = sorted(entry.name for entry in os.scandir(directory.parent) if entry.name.startswith(prefix))
    except OSError:
        return []
    return [directory.parent / name for name in names]


def _old_files(directory: Path, new: set[str]) -> list[Path]:
    """The old index's files: its manifest, its segments (every one but the rebuild's ``new`` ones) and its
    bookkeeping (the rebuild's own is still in temp files, left out)."""
    segments = [
        entry.name for entry in os.scandir(directory) if entry.name.startswith("seg-") and entry.name not in new
    ]
    return [directory / name for name in [MANIFEST, FOLDER, *segments] if (directory / name).exists()]


def _link_tree(directory: Path, kept: Path, paths: list[Path]) -> None:
    import shutil  # only a rebuild that keeps the old index pays for it (with bz2 and lzma: 2 ms a refresh)

    private_dir(kept)
    for path in paths:
        target = kept / path.relative_to(directory)
        if path.is_dir():
            shutil.copytree(path, target, copy_function=_link_or_copy, ignore=shutil.ignore_patterns(".*"))
        else:
            _link_or_copy(str(path), str(target))


def _link_or_copy(source: str, target: str) -> None:
    """A hard link (no bytes copied), or a copy where the file system has none."""
    try:
        os.link(source, target)
    except OSError:
        import shutil

        shutil.copy2(source, target)
