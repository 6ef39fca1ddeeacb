"""Refresh planning: which stores changed since the last refresh, and which chats must be read again.

The bookkeeping remembers each store as it was read: a ``state.vscdb`` (with
its write-ahead log) by size and modification time and its composers by
fingerprint, a cursor-agent transcript by size, modification time and the
hashes of its first and last bytes read. Comparing those with the disk says,
per chat, nothing to do, read the tail that was appended, read it whole, or
drop it; nothing is read to find that out except the fingerprints of a
database whose file moved.
"""

from __future__ import annotations

import os
import struct
from collections import Counter
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from .. import paths
from ..bookkeeping import Bookkeeping, ChatState, CliState, IdeDbState, Sig, State
from ..digests import blake2b
from ..folders import GLOBAL_STORAGE, WORKSPACE_JSON, real_folder
from ..history import CliChat, find_cli_chats, locate_cli_chats
from ..index.format import MANIFEST
from ..lean_msgspec import msgspec
from ..private import open_private
from ..readers.chatstore import UNREADABLE_STORE
from ..readers.cursor_agent import UNREADABLE_TRANSCRIPT
from ..readers.vscdb import CHANGED_WHILE_READ, MID_WRITE_DATABASE
from ..regular_files import blocked, gone, open_regular
from . import glance

_HASH_SPAN = 4096
#: Moved ``cli_reads`` go to their file, after the ``ide_reads``, this many chats a frame, each frame's length first.
_READS_FRAME_CHATS = 1024
_READS_FRAME = struct.Struct("<I")

#: A database-level failure: the database was there but could not be read this time.
UNREADABLE_DATABASE = "ide: unreadable database"
DATABASE_FAILURES = frozenset({"ide: not a database", "ide: database locked", UNREADABLE_DATABASE, MID_WRITE_DATABASE})
#: What a walk reports of a whole store it could not read this time. A walk tries every such store again (a refresh
#: of some chats only the editor's databases), so only its own count is true: a released lock clears it.
THIS_TIME_FAILURES = DATABASE_FAILURES | {UNREADABLE_STORE, UNREADABLE_TRANSCRIPT}
#: What reading again may cure: a whole store that could not be read this time, or a database that changed while it
#: was read. Every other problem is a record Cursor itself left empty or damaged (a NULL bubble, a malformed line),
#: which the next read finds the same (one real 2.5 GB database held 983 NULL bubble rows).
RETRIED = THIS_TIME_FAILURES | {CHANGED_WHILE_READ}
#: How many of the files a refresh could not read it names (the rest are counted).
UNREADABLE_NAMED = 8


class Plan(msgspec.Struct):
    """What a refresh must re-read, found by the stat pass."""

    #: state.vscdb -> the composers to read from it.
    ide_reads: dict[str, set[str]]
    #: Transcripts (or stores) to read whole, and transcripts that only grew.
    cli_reads: dict[str, CliChat]
    cli_appends: dict[str, CliChat]
    #: Chats whose every source is gone.
    removed: set[str]
    #: The IDE databases as they are now.
    ide_dbs: dict[str, IdeDbState]
    #: chat id -> the database that holds it now, for the chats the plan touches.
    owners: dict[str, str]
    #: Databases that could not be read this time: their chats stay as the index has them.
    unreadable: int = 0
    #: The first of the files counted in ``unreadable`` (``note_unreadable``), which the messages name.
    unreadable_files: list[str] = []
    #: Those of ``unreadable`` the index held nothing of: nothing of theirs is kept, since nothing was read before.
    unreadable_new: int = 0
    #: The cursor-agent chats found unreadable before any read (``blocked_chat``) -> the reason counted.
    unread_chats: dict[str, str] = {}
    #: Databases on record that this process's roots do not list but that are still on disk (a file out of sight,
    #: or something there that cannot be read this time, counted in ``unreadable``): kept as recorded.
    ide_unseen: dict[str, IdeDbState] = {}
    #: ``ide_reads`` and ``cli_reads`` moved to a file (``move_reads``), which ``load_ide_reads`` and
    #: ``all_cli_reads`` read back; "" when they are not.
    reads_file: str = ""
    #: The transcripts' chat folders a walk found this user may not search (``scan_transcripts``); None when the
    #: refresh walked none (a refresh of some chats).
    unsearchable: list[str] | None = None
    #: The cursor-agent roots not there this time (``roots_away``) -> how many chats read from them before are kept
    #: as they were: a root that went whole (a disk not mounted) erases none of them (trial49 F8).
    roots_away: dict[str, int] = {}

    def note_unreadable(self, files: list[str], count: int | None = None, new: int = 0) -> None:
        """Count ``count`` more stores that could not be read this time (one for each of ``files`` unless given),
        ``new`` of them never read before, and name the first ones (a message names one, then says how many more)."""
        self.unreadable += len(files) if count is None else count
        self.unreadable_new += new
        named = set(self.unreadable_files)
        for path in files:
            if len(self.unreadable_files) >= UNREADABLE_NAMED:
                break
            if path and path not in named:
                self.unreadable_files.append(path)
                named.add(path)

    def read_database(self, db: str) -> bool:
        """This refresh read the editor database ``db`` (one it could not read has no signature recorded), named as
        the index named it or where its links lead, as the refresh names it (``folders.real_folder``): an index an
        earlier deja built through a link named it through the link, and a chat deleted from it since was kept as
        one of a database not read."""
        found = self.ide_dbs.get(db) or self.ide_dbs.get(real_folder(db))
        return found is not None and bool(found.sigs)

    def only_held(self, files: set[str]) -> None:
        """Name and count, of the stores counted in ``unreadable``, only those among ``files``: a refused rebuild
        names the stores whose sessions it keeps, not a new chat's that held none (review12 R5b), nor counts it
        among "N more" (its sessions are none to lose). Each is taken as the index named it or where its links
        lead, as the refresh names it (``read_database``): an index an earlier deja built through a link named them
        through the link, and the new chat was named first, with a "move it away" fix for the wrong file. The
        stores counted past the named ones (``UNREADABLE_NAMED``) stay counted: their names are not kept."""
        spellings = files | {real_folder(path) for path in files}
        held = [path for path in self.unreadable_files if path in spellings]
        if held:
            self.unreadable -= len(self.unreadable_files) - len(held)
            self.unreadable_files = held

    def chats_to_read(self) -> int:
        """How many chats the plan reads (the total a progress bar counts towards); a merged chat counts once."""
        return len(set().union(*self.ide_reads.values(), self.cli_reads, self.cli_appends))

    def move_reads(self, path: Path) -> None:
        """Write ``ide_reads`` and then ``cli_reads``, in order, to ``path``, and keep in memory only the
        transcripts the editor holds too (``read_changes`` asks which those are): a part of a big build is handed
        its chats, the editor's included, without a process holding every chat of the history (the parts are
        forked, and each would start with a copy of every part's). ``path`` is removed by the caller."""
        ide = set().union(*self.ide_reads.values())
        chats = list(self.cli_reads.values())
        with open_private(path, "wb") as out:
            _write_frame(out, msgspec.msgpack.encode(self.ide_reads))
            for start in range(0, len(chats), _READS_FRAME_CHATS):
                _write_frame(out, msgspec.msgpack.encode(chats[start : start + _READS_FRAME_CHATS]))
        self.cli_reads = {sid: chat for sid, chat in self.cli_reads.items() if sid in ide}
        self.ide_reads = {}
        self.reads_file = str(path)

    def load_ide_reads(self) -> None:
        """Read back the ``ide_reads`` that ``move_reads`` moved (in the part that reads them)."""
        with open(self.reads_file, "rb") as moved:
            self.ide_reads = msgspec.msgpack.decode(_read_frame(moved), type=dict[str, set[str]])

    def all_cli_reads(self) -> Iterator[tuple[str, CliChat]]:
        """``cli_reads`` in plan order, read back from their file a frame at a time when they were moved."""
        if not self.reads_file:
            yield from list(self.cli_reads.items())
            return
        decoder = msgspec.msgpack.Decoder(list[CliChat])
        with open(self.reads_file, "rb") as moved:
            _read_frame(moved)  # the ide_reads
            while frame := _read_frame(moved):
                for chat in decoder.decode(frame):
                    yield chat.id, chat


def _write_frame(out: IO[Any], data: bytes) -> None:
    out.write(_READS_FRAME.pack(len(data)) + data)


def _read_frame(moved: IO[bytes]) -> bytes:
    """The next frame's bytes, or b"" at the end of the file."""
    head = moved.read(_READS_FRAME.size)
    return moved.read(_READS_FRAME.unpack(head)[0]) if head else b""


class _IdePlan(msgspec.Struct):
    dbs: dict[str, IdeDbState]
    owners: dict[str, str]
    changed: set[str]
    gone: set[str]
    unreadable: int = 0
    unseen: dict[str, IdeDbState] = {}
    #: The databases counted in ``unreadable``.
    unreadable_files: list[str] = []
    #: Those of them never read before.
    unreadable_new: int = 0
    #: The databases on record below a root away this time (``roots_away``) -> that root.
    away: dict[str, str] = {}


def stat_sig(path: str | Path) -> Sig | None:
    """A file's size and modification time, or None when it is not there."""
    return _sig(glance.stat_sig(path))


def _sig(found: tuple[int, int] | None) -> Sig | None:
    return None if found is None else Sig(*found)


def database_sigs(db: str | Path) -> list[Sig | None]:
    """An editor database's signature with its write-ahead log's and its ``workspace.json``'s
    (``glance.database_sigs``)."""
    return [_sig(found) for found in glance.database_sigs(db)]


def _unreadable_workspace_json(plan: _IdePlan, db: str, sigs: list[Sig | None], new: bool) -> bool:
    """Whether the ``workspace.json`` beside a workspace database is there and this user may not read it (``sigs``:
    the database's, ``database_sigs``, which gives it as absent then: ``glance.unreadable``, the one judgement the
    cheap check makes too, so the two agree while it stays so); if so it is counted into ``plan`` as an unreadable
    database is (``new``: nothing was placed by it before): once it reads, its chats are placed again
    (``_renamed_folder``). It was counted as malformed, with no word from `deja index` and no fix (trial57 F3)."""
    folder = os.path.dirname(db)
    if sigs[-1] is not None or os.path.basename(folder) == GLOBAL_STORAGE:  # (none is looked for there)
        return False
    workspace_json = os.path.join(folder, WORKSPACE_JSON)
    if not os.path.lexists(workspace_json):
        return False
    plan.unreadable += 1
    plan.unreadable_files.append(workspace_json)
    plan.unreadable_new += new
    return True


def _nothing_placed_before(book: Bookkeeping, state: State) -> bool:
    """Whether no index placed a workspace's chats before this refresh: a refresh that has the workspace on record
    placed them, and a rebuild (which has none on record) keeps the places of the index it replaces
    (``reads.Placements``) unless there is none: a first build."""
    return bool(state.ide) or not (book.folder.parent / MANIFEST).exists()


def _renamed_folder(old: IdeDbState | None, sigs: list[Sig | None]) -> bool:
    """Whether the ``workspace.json`` beside a database on record appeared, changed or went since it was read: each
    chat it holds or lists is then placed again, though none changed (trial14 F4). A record of a deja that did not
    sign it (two signatures) says nothing of it: its chats are not all read again for an upgrade."""
    return old is not None and len(old.sigs) == len(sigs) and old.sigs[-1] != sigs[-1]


def _replaced(old: IdeDbState | None, sigs: list[Sig | None], file: tuple[int, int] | None) -> bool:
    """Whether a database on record is another file now: moved or copied into place (another inode), or copied over
    it with its modification time kept (``cp -p``, ``rsync -a``, a restore from a backup: the time went back, which
    no write of Cursor's does). Its chats may hold other text under the same prints (same rows, same lengths), so
    each is read again (trial55 F3). Neither is seen in a file written over in place with a new time (``cp``) or
    made anew where the file system gives it the inode number of the one it replaced: ``deja index --full`` reads
    those. Costs nothing on the cheap check: the inode is looked up only for a database whose signature changed."""
    if old is None:
        return False
    if old.file is not None and file is not None and old.file[1] != file[1]:  # (the inode: a device's number can
        return True  # change with a reboot or a remount, btrfs's and NFS's among them: review56a F1)
    was, now = (old.sigs[0] if old.sigs else None), sigs[0]
    return was is not None and now is not None and now.mtime_ns < was.mtime_ns


def _hashes(path: str, end: int) -> tuple[str, str]:
    """The hashes of the transcript's first and last ``_HASH_SPAN`` bytes up to ``end`` (one span when it is no
    longer), from one opening of the file."""
    with open_regular(path) as f:
        head = blake2b(f.read(min(end, _HASH_SPAN)), digest_size=16).hexdigest()
        if end <= _HASH_SPAN:
            return head, head
        f.seek(end - _HASH_SPAN)
        return head, blake2b(f.read(_HASH_SPAN), digest_size=16).hexdigest()


def cli_state(chat: CliChat, end: int, last_timestamp: datetime | None, store_read: bool = True) -> CliState:
    """What the next refresh compares: the transcript (if any) as read, and the chat folder's files.

    A store that could not be read is recorded with no signature, so the next refresh reads the chat again.
    """
    head, tail = _hashes(chat.transcript, end) if chat.transcript and end else ("", "")  # (0: none read, none to hash)
    return CliState(
        transcript=chat.transcript,
        sig=Sig(chat.size, chat.mtime_ns),
        end=end,
        head_hash=head,
        tail_hash=tail,
        last_timestamp=last_timestamp,
        chat_dir=chat.chat_dir,
        store_sig=_store_sigs(chat) if store_read else [],
    )


def _store_sigs(chat: CliChat) -> list[Sig | None]:
    """The chat folder's store (with its WAL) and meta.json, which gives the title and times."""
    return [_sig(found) for found in glance.store_sigs(chat.chat_dir)]


def unchanged(old: CliState | None, chat: CliChat) -> bool:
    """The chat is as the record describes it: same transcript size and time, same folder, same store files."""
    return (
        old is not None
        and old.transcript == chat.transcript
        and old.sig.size == chat.size
        and old.sig.mtime_ns == chat.mtime_ns
        and old.chat_dir == chat.chat_dir
        and _store_unchanged(old.store_sig, chat.chat_dir)
    )


def _store_unchanged(recorded: list[Sig | None], chat_dir: str | None) -> bool:
    """The chat folder's files are as ``recorded`` (what ``glance.store_sigs`` found then): compared file by file as
    each is looked at, no further than the first that differs, and with no list or tuple made for them (a walk asks
    this of every chat: 60,000 at 100k sessions)."""
    if not chat_dir:
        return not recorded
    if len(recorded) != len(glance.STORE_FILES):
        return False
    for was, name in zip(recorded, glance.STORE_FILES, strict=True):
        try:  # (``glance.stat_sig`` inline: its call and the tuple it makes cost more than the comparison)
            now = os.stat(chat_dir + name)
        except OSError:
            if was is not None:
                return False
            continue
        if was is None or was.size != now.st_size or was.mtime_ns != now.st_mtime_ns:
            return False
    return True


def _can_append(old: CliState | None, chat: CliChat) -> bool:
    """The transcript only grew since it was read: same file, same folder, same bytes up to ``end``.

    A read that found no ``<timestamp>`` block gave its turns the file's time, which growing changes: such a chat is
    read whole again (``reads``: there is no time to resume from), its earlier messages compared with the index's.
    """
    if old is None or not chat.transcript or old.end == 0 or chat.size <= old.end:
        return False
    if old.transcript != chat.transcript or old.chat_dir != chat.chat_dir:
        return False
    try:
        return _hashes(chat.transcript, old.end) == (old.head_hash, old.tail_hash)
    except OSError:
        return False


def _plan_ide(book: Bookkeeping, state: State, problems: Counter[str]) -> _IdePlan:
    """IDE databases: fingerprints say which composers changed and which are gone.

    A database that exists but cannot be read this time (locked, damaged) keeps
    its chats as they were, and is checked again next time; only a database that
    is gone from disk, or read and empty, gives up its chats. One on record that
    this process does not list but that is still on disk is out of its sight, not
    gone: Cursor starts the hooks and the MCP server with an environment of its own,
    which may name another editor folder (a Snap's ``XDG_CONFIG_HOME``, no
    ``DEJA_CURSOR_ROOT``), and the next refresh from the shell would read every
    chat of it again. A database gives up only the chats it holds: one it only
    lists (``listed_only``) is filed again from its own database (``_settle_owners``).
    """
    plan = _IdePlan(dbs={}, owners={}, changed=set(), gone=set())
    dropped: dict[str, set[str]] = {}  # chat -> the databases that had it on record and have it no more
    refiled: set[str] = set()  # chats whose listing changed in a database that only lists them
    current = [str(db) for db in paths.ide_databases()]
    respelt = _respelt_databases(state, current)
    _respell_owners(book, respelt)
    recorded_as = {now: was for was, now in respelt.items() if now not in state.ide}
    for db in current:
        sigs = database_sigs(Path(db))
        was = recorded_as.get(db, db)
        old = state.ide.get(was)
        unreadable_json = _unreadable_workspace_json(
            plan, db, sigs, old is None and _nothing_placed_before(book, state)
        )
        if old is not None and old.sigs == sigs:
            plan.dbs[db] = old
            if not os.access(db, os.R_OK):  # (made unreadable since it was read: chmod moves no time a stat sees)
                plan.unreadable += 1
                plan.unreadable_files.append(db)
                problems[UNREADABLE_DATABASE] += 1
            continue
        from ..readers.ide import composer_fingerprints, listed_only  # (only a database that changed is read)

        file = _file_id(db)  # (before its prints: a file put in its place meanwhile is seen by the next refresh)
        found: Counter[str] = Counter()
        now = composer_fingerprints(Path(db), problems=found)
        problems.update(found)
        if found.keys() & DATABASE_FAILURES:
            plan.unreadable += 1
            plan.unreadable_files.append(db)
            plan.unreadable_new += old is None
            if old is not None:
                plan.dbs[db] = IdeDbState(sigs=[], fingerprints=old.fingerprints, file=old.file)
            continue
        before = book.fingerprints(was)
        book.set_fingerprints(db, now)
        plan.dbs[db] = IdeDbState(sigs=sigs, file=file)
        renamed = not unreadable_json and _renamed_folder(old, sigs)  # (one it cannot read says nothing new)
        replaced = _replaced(old, sigs, file)
        for cid, fingerprint in now.items():
            unchanged = not replaced and before.get(cid) == fingerprint
            if unchanged and not renamed:
                continue
            # (a chat placed again, unchanged, is read where it was: a migrated one's inline copy here is not the
            # global database's it was read from, review26 R26-5)
            if listed_only(fingerprint) or unchanged:
                refiled.add(cid)
            else:
                plan.changed.add(cid)
                plan.owners.setdefault(cid, db)
        for cid in before.keys() - now.keys():
            dropped.setdefault(cid, set()).add(db)
    vanished = state.ide.keys() - set(current) - respelt.keys()
    plan.away = _below_roots({db: db for db in vanished}, roots_away()) if vanished else {}
    for db in vanished:
        if db in plan.away:  # (its folder away this time: kept as recorded, said as ``roots_away`` says it)
            plan.unseen[db] = state.ide[db]
        elif not gone(db):  # out of sight, or there but not a file it can read (a FIFO, a folder above at mode 000)
            plan.unseen[db] = state.ide[db]
            if not os.path.isfile(db):
                plan.unreadable += 1
                plan.unreadable_files.append(db)
                problems[UNREADABLE_DATABASE] += 1
        else:
            for cid in book.fingerprints(db):
                dropped.setdefault(cid, set()).add(db)
    _settle_owners(book, plan, dropped, refiled)
    return plan


def _settle_owners(book: Bookkeeping, plan: _IdePlan, dropped: dict[str, set[str]], refiled: set[str]) -> None:
    """Which database each chat that changed, moved or went is read from, and which chats are gone.

    A chat belongs to the database that holds its messages (a composer with its bubbles, or a legacy conversation
    inline), never to one that only lists it (a workspace's ``allComposers`` head, ``listed_only``): a workspace
    database is pruned by Cursor with its folder, found locked, or appears later, while the global one holding the
    chat stays as it was and is not read again, so a chat booked to the workspace database went with it (trial13
    F10). A chat whose holding print changed is read where it did (the global database first). Any other chat that
    a database lists anew, lists no more or went with it is filed again from the database on record as holding it
    (its project may have come from the listing), if that one still holds it and is listed. A chat the database on
    record no longer holds (gone, or it dropped the chat) is held by another one too when Cursor migrated a pre-3.0
    chat (whole in the global database and inline in a workspace's ``allComposers``), and the one it was read from
    may be the workspace's (read after the global one: locked at the first build, appeared, its copy changed):
    it moves to the other holder (``_Holders.other``). A chat is gone only when no database on record holds its
    messages any more (a chat deleted in Cursor), or when nothing on record holds it.
    """
    holders = _Holders(book, plan)
    for cid in (refiled | dropped.keys()) - plan.owners.keys():
        record = book.chat(cid)
        holder = record.ide_db if record is not None else None
        lost = dropped.get(cid, set())
        if record is not None and holder in lost:
            holder = holders.other(cid, lost)
            if holder is not None:  # filed there now: a read of it that fails, or a rebuild, keeps it as that one's
                book.put(cid, msgspec.structs.replace(record, ide_db=holder))
        if holder is None:
            if lost:
                plan.gone.add(cid)
        elif holder in plan.dbs:  # (one out of sight, or not readable and never read, keeps the chat as indexed)
            plan.changed.add(cid)
            plan.owners[cid] = holder


class _Holders:
    """Which other database on record holds a chat's messages, for the few chats that the database they were read
    from no longer holds: each database's prints are loaded once, and only when such a chat asks for them (a
    refresh, each hook's included, reads none for the chats that stay where they are)."""

    def __init__(self, book: Bookkeeping, plan: _IdePlan):
        self.book = book
        #: The databases in the order a full build picks a holder (``history.ide_composer_owners``: the global one
        #: first, as ``paths.ide_databases`` lists them), then those out of sight.
        self.order = [*plan.dbs, *plan.unseen]
        self.prints: dict[str, dict[str, str]] = {}

    def other(self, cid: str, lost: set[str]) -> str | None:
        """The first database, but those in ``lost``, whose prints on record hold ``cid``'s messages (not
        ``listed_only``): the chat is read again there, or kept as indexed when it cannot be read this time (locked,
        out of sight); None when there is none, and the chat is gone."""
        from ..readers.ide import listed_only  # (the editor's reader: a database dropped the chat)

        for db in self.order:
            if db in lost:
                continue
            if db not in self.prints:
                self.prints[db] = self.book.fingerprints(db)
            found = self.prints[db].get(cid)
            if found is not None and not listed_only(found):
                return db
        return None


def _respelt_databases(state: State, current: list[str]) -> dict[str, str]:
    """Each database on record under another spelling than ``current``'s that is the same file -> its spelling
    now: an index built before the roots were named where their links lead (``folders.real_folder``) spelt them
    through a link. The record under the old name is the database's (else its chats were read again: 40,000 of
    them, 3.5 minutes of CPU, to find nothing changed), or is dropped where the database is on record under its
    name now too (kept, it was a database out of sight, recorded twice). Compared by device and inode: a copy is another database. A ``stat``
    of each only when a database on record is not listed now (out of sight, gone, or spelt another way)."""
    listed = set(current)
    others = [db for db in state.ide if db not in listed]
    if not others:
        return {}
    now = {found: db for db in current if (found := _file_id(db)) is not None}
    return {db: now[found] for db in others if (found := _file_id(db)) is not None and found in now}


def _file_id(path: str) -> tuple[int, int] | None:
    """The device and inode of the file or folder ``path`` leads to; None when there is none."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def _respell_owners(book: Bookkeeping, respelt: dict[str, str]) -> None:
    """The chats recorded as held by a database spelt another way (``_respelt_databases``) are held by its spelling
    now: the refresh reads them there, and a rebuild that finds the spelling on record among the databases it did
    not read keeps their sessions as those of a database it could not read."""
    for was, now in respelt.items():
        for cid in book.fingerprints(was):
            record = book.chat(cid)
            if record is not None and record.ide_db == was:
                book.put(cid, msgspec.structs.replace(record, ide_db=now))


def _respelt(old: CliState, chat: CliChat) -> CliState:
    """``old`` with ``chat``'s spelling of its transcript and chat folder where they are the same file or folder
    spelt another way (an index built through a link: ``_respelt_databases``), so that the chat is compared as it
    is, not read again for its new name. A copy (another inode) keeps its name, and is read."""
    if old.transcript == chat.transcript and old.chat_dir == chat.chat_dir:  # (nearly every chat a walk finds)
        return old
    transcript = chat.transcript if _spelt_otherwise(old.transcript, chat.transcript) else old.transcript
    chat_dir = chat.chat_dir if _spelt_otherwise(old.chat_dir, chat.chat_dir) else old.chat_dir
    if (transcript, chat_dir) == (old.transcript, old.chat_dir):
        return old
    return msgspec.structs.replace(old, transcript=transcript, chat_dir=chat_dir)


def _spelt_otherwise(recorded: str | None, found: str | None) -> bool:
    """Whether ``recorded`` and ``found`` are two names of one file or folder."""
    if not recorded or not found or recorded == found:
        return False
    same = _file_id(recorded)
    return same is not None and same == _file_id(found)


def _cli_changes(
    book: Bookkeeping, targets: set[str] | None, unsearchable: list[str] | None, away: dict[str, int]
) -> tuple[dict[str, CliChat], dict[str, CliChat], set[str], dict[str, CliState]]:
    """cursor-agent chats as found now, those of them that changed, the recorded ones gone from disk, and the
    recorded ones not found that are still there (``_still_there``: kept as they are). A walk (no ``targets``)
    adds the chat folders it may not search to ``unsearchable``; the chats not found that were read below a root
    away this time are kept as they are, counted in ``away`` by root (``_held_by_roots_away``).

    A transcript found without the chat folder it was read with, whose store is still on disk, keeps it: the roots
    this process sees hold the transcripts but not the chats (``out_of_sight``), and reading the chat without
    its store would drop what only the store holds (the tool results)."""
    found: dict[str, CliChat] = {}
    for chat in find_cli_chats(unsearchable) if targets is None else locate_cli_chats(targets, book):
        found.setdefault(chat.id, chat)
    for sid in [sid for sid, chat in found.items() if not chat.transcript and _transcript_hidden(book, sid)]:
        del found[sid]  # its store is not the chat: its transcript cannot be read this time (kept: ``_still_there``)
    changed: dict[str, CliChat] = {}
    # (a walk asks for every chat: one dict of them all, not ``book.chat``'s hash of each id to find its shard)
    recorded = book.every_chat() if targets is None else {}
    chat_of = recorded.get if targets is None else book.chat
    for sid, chat in found.items():
        record = chat_of(sid)
        if record is None or record.cli is None:
            changed[sid] = chat
            continue
        old = record.cli
        if unchanged(old, chat):  # (nearly every chat a walk finds: none of the steps below would touch it)
            continue
        if chat.chat_dir is None and old.chat_dir and _has_store(old.chat_dir):
            chat = found[sid] = msgspec.structs.replace(chat, chat_dir=old.chat_dir)  # out of sight: see below
        if (respelt := _respelt(old, chat)) is not old:
            book.put(sid, msgspec.structs.replace(record, cli=respelt))
            old = respelt
        if _emptied(old, chat):
            if old.sig != (empty := Sig(0, chat.mtime_ns)):  # seen empty: the check finds it as it is while it stays so
                book.put(sid, msgspec.structs.replace(record, cli=msgspec.structs.replace(old, sig=empty)))
            continue
        if not unchanged(old, chat):
            changed[sid] = chat
    if targets is None:
        roots = paths.cli_roots()
        prefixes = root_prefixes(roots)
        missing = {sid: r.cli for sid, r in recorded.items() if r.cli and sid not in found}
        missing = {sid: cli for sid, cli in missing.items() if not out_of_sight(cli, roots, prefixes)}
    else:
        missing = {sid: r.cli for sid in targets if (r := book.chat(sid)) is not None and r.cli and sid not in found}
    away.update(_held_by_roots_away(missing) if missing else {})
    kept = {sid: cli for sid, cli in missing.items() if _still_there(sid, cli)}
    return found, changed, missing.keys() - kept.keys(), kept


#: The folders of a cursor-agent root and of the editor's ``User`` folder that hold its chats: one a link to
#: nowhere is away as a whole root would be (review49d M2: ``~/.cursor/projects`` alone on a disk not mounted).
_CLI_FOLDERS = ("projects", "chats", "acp-sessions")
_IDE_FOLDERS = ("globalStorage", "workspaceStorage")


def roots_away() -> list[str]:
    """The cursor-agent roots (``paths.cli_roots``) and the editor's ``User`` folder that are no folder this user may
    list this time (a link to a disk not mounted, a folder gone or at mode 000), and the chat folders in one that is
    (``_CLI_FOLDERS``, ``_IDE_FOLDERS``) that are a link leading to none. Sessions read from one are kept as they
    were: a whole root that cannot be read this time is no history deleted (the trust rule), and
    ``deja index --full`` rebuilds without them."""
    roots = [(str(root), _CLI_FOLDERS) for root in paths.cli_roots()]
    return [away for root, inner in [*roots, (str(paths.ide_user_root()), _IDE_FOLDERS)] for away in _away(root, inner)]


def _away(root: str, inner: tuple[str, ...]) -> list[str]:
    if not _listable(root):
        return [root]
    links = [os.path.join(root, name) for name in inner]
    return [link for link in links if os.path.islink(link) and not _listable(link)]


def _listable(folder: str) -> bool:
    try:
        with os.scandir(folder):
            return True
    except OSError:
        return False


def _held_by_roots_away(missing: dict[str, CliState]) -> dict[str, int]:
    """Of the chats on record not found now (``missing``), those read from below a root away this time
    (``roots_away``), taken out of ``missing``; each such root -> how many."""
    below = _below_roots({sid: _source(cli) for sid, cli in missing.items()}, roots_away())
    for sid in below:
        del missing[sid]
    return dict(Counter(below.values()))


def sessions_in_roots_away(book: Bookkeeping) -> dict[str, int]:
    """Each root away this time (``roots_away``) -> how many sessions on record were read from below it: doctor
    says what a refresh says of them."""
    away = roots_away()
    chats = {sid: source_of(chat) for sid, chat in book.items() if chat.where is not None} if away else {}
    return dict(Counter(_below_roots(chats, away).values()))


def _below_roots(sources: dict[str, str], roots: list[str]) -> dict[str, str]:
    """Of ``sources`` (chat, or database, -> the file read), each read from below one of ``roots`` -> that root."""
    prefixes = [(root, os.path.join(root, "")) for root in roots]
    below: dict[str, str] = {}
    for sid, source in sources.items():
        root = next((root for root, prefix in prefixes if source.startswith(prefix)), None)
        if root is not None:
            below[sid] = root
    return below


def _emptied(old: CliState, chat: CliChat) -> bool:
    """A transcript read before with lines in it is empty now: cursor-agent rewrites a resumed chat's transcript whole
    (emptied, then written), and a refresh between the two would drop the session. Its record takes the empty file's
    size and time, and nothing else (where a read resumes, its hashes, its session): so reads meanwhile find nothing
    changed, and once it holds lines again it is read as grown from where it was, or whole. The session goes only
    when its folder does."""
    return chat.size == 0 and old.end > 0 and chat.transcript == old.transcript and chat.transcript != ""


def _transcript_hidden(book: Bookkeeping, sid: str) -> bool:
    """The chat was read from a transcript the walk did not find but that is still there (``_still_there``: a
    folder above it at mode 000): found by its store alone now, it would be read again without the transcript."""
    record = book.chat(sid)
    cli = record.cli if record is not None else None
    return cli is not None and bool(cli.transcript) and _still_there(sid, cli)


def _source(chat: CliState) -> str:
    """The file a cursor-agent chat was read from: its transcript, else its store."""
    return chat.transcript or (os.path.join(chat.chat_dir, "store.db") if chat.chat_dir else "")


def _has_store(chat_dir: str) -> bool:
    """The chat folder still has its store, readable or not this time (read, it is counted and kept if it fails)."""
    return not gone(os.path.join(chat_dir, "store.db"))


def _still_there(sid: str, chat: CliState) -> bool:
    """A chat the walk did not find whose file is still there: something in its place it cannot read
    (``regular_files.blocked``: a FIFO, a folder above it this user cannot search), or a file in a folder it could
    not list (mode 0111). It keeps its session, as a locked store does; but a subagent's transcript, once subagents
    are no longer read, is left out as asked."""
    source = _source(chat)
    if not source:
        return False
    return blocked(source) or (os.path.isfile(source) and ("/" not in sid or paths.include_subagents()))


def blocked_chat(sid: str, chat: ChatState) -> bool:
    """A recorded chat with a file (its transcript or store, its editor database) that is there but that a rebuild
    could not read: losing it would lose a session it may read again."""
    return bool(chat.cli and _still_there(sid, chat.cli)) or bool(chat.ide_db and blocked(chat.ide_db))


def transcript_unread(chat: ChatState, now: ChatState | None) -> bool:
    """``chat`` was read from a transcript that a new read of it (``now``) went without, because something it cannot
    read is in the transcript's place (a folder, a FIFO): the chat came back from its store or its editor database
    alone, without what only the transcript held (a tool call, an answer). The walk skips such a name unread."""
    transcript = chat.cli.transcript if chat.where is not None and chat.cli is not None else ""
    return bool(transcript) and now is not None and not (now.cli and now.cli.transcript) and blocked(transcript)


def out_of_sight_sources(book: Bookkeeping, roots: list[Path]) -> list[str]:
    """The files ``book``'s sessions were read from that lie, still on disk, under none of ``roots``: read while
    another environment's ``CURSOR_DATA_DIR``, ``CURSOR_CONFIG_DIR`` or ``XDG_CONFIG_HOME`` was set."""
    prefixes = root_prefixes(roots)
    return sorted(
        _source(chat.cli)
        for _, chat in book.items()
        if chat.where is not None and chat.cli and out_of_sight(chat.cli, roots, prefixes)
    )


def chat_files(chat: ChatState) -> list[str]:
    """The files a recorded chat was read from, as recorded: its transcript, its store, its editor database."""
    store = os.path.join(chat.cli.chat_dir, "store.db") if chat.cli and chat.cli.chat_dir else ""
    return [path for path in (chat.cli.transcript if chat.cli else "", store, chat.ide_db or "") if path]


def on_disk(chat: ChatState) -> bool:
    """Whether a file a recorded chat was read from is still there, readable or not this time (``gone``): a rebuild
    without the chat loses what that file gave, while one whose files are all gone (a chat folder moved away) loses
    nothing a refused rebuild would keep."""
    return any(not gone(path) for path in chat_files(chat))


def source_of(chat: ChatState) -> str:
    """The file a recorded chat was read from, as a message names it: its transcript or store, else its database."""
    return (_source(chat.cli) if chat.cli else "") or chat.ide_db or ""


def root_prefixes(roots: list[Path]) -> tuple[str, ...]:
    """Each of ``roots`` as a path below it begins (``out_of_sight``'s ``prefixes``), made once for a call that
    asks of every chat on record (doctor, a full refresh's chats not found)."""
    return tuple(os.path.join(root, "") for root in roots)


def out_of_sight(chat: CliState, roots: list[Path], prefixes: tuple[str, ...]) -> bool:
    """A chat the walk did not find that is still on disk outside every root it walked: another environment's
    roots found it (as for an editor database, ``_plan_ide``), so it is not gone. Below a root where the links on
    its way lead counts as below it: an index built before the roots were named so (``folders.real_folder``)
    spelt its files through a link, and ``deja index --full`` was refused for them. ``prefixes`` are the roots'
    ``root_prefixes``."""
    source = _source(chat)
    # (as spelt below a root: no ``stat``, the case of nearly every chat, which doctor asks of each: review25 R25-5)
    if not source or source.startswith(prefixes):
        return False
    if not os.path.isfile(source):
        return False
    return not _below(source, roots) and not _below(real_folder(source), roots)


def _below(path: str, roots: list[Path]) -> bool:
    return any(Path(path).is_relative_to(root) for root in roots)


def plan_refresh(book: Bookkeeping, state: State, targets: set[str] | None, problems: Counter[str]) -> Plan:
    """What changed on disk since ``state`` was recorded: every chat, or only the ``targets`` on the CLI side."""
    ide = _plan_ide(book, state, problems)
    owners = ide.owners
    unsearchable: list[str] | None = [] if targets is None else None
    away: dict[str, int] = {}
    found, cli_changed, cli_gone, cli_blocked = _cli_changes(book, targets, unsearchable, away)
    blocked = {sid: UNREADABLE_TRANSCRIPT if kept.transcript else UNREADABLE_STORE for sid, kept in cli_blocked.items()}
    problems.update(blocked.values())  # (counted as a read that failed would count them: doctor lists them)
    plan = Plan(
        {}, {}, {}, set(), ide.dbs, owners, 0, unread_chats=blocked, ide_unseen=ide.unseen, unsearchable=unsearchable
    )
    if ide.away:  # (the editor's chats kept, counted by root as a refresh counts cursor-agent ones)
        held = (root for _, chat in book.items() if chat.where is not None and (root := ide.away.get(source_of(chat))))
        away.update(Counter(held))
    plan.roots_away = away
    plan.note_unreadable(
        [*ide.unreadable_files, *(_source(kept) for kept in cli_blocked.values())], new=ide.unreadable_new
    )
    # Sorted: the order sessions are read in is the order they are written in, whatever the hash seed.
    for sid in sorted(ide.changed | set(cli_changed) | cli_gone | ide.gone):
        record = book.chat(sid)
        owner = owners.get(sid) or (record.ide_db if record and sid not in ide.gone else None)
        located = found.get(sid) or (None if sid in cli_gone else _recorded_chat(sid, record))
        if owner is None and located is None:
            plan.removed.add(sid)
            continue
        if owner is not None:
            owners[sid] = owner
            plan.ide_reads.setdefault(owner, set()).add(sid)
        if located is not None:
            # A chat the editor also holds is merged, so both sides are read whole.
            if owner is None and sid in cli_changed and record and record.where and _can_append(record.cli, located):
                plan.cli_appends[sid] = located
            else:
                plan.cli_reads[sid] = located
    return plan


def _recorded_chat(session_id: str, record: ChatState | None) -> CliChat | None:
    """The transcript (or store) a record names, if it is still there (a merged chat whose editor side changed)."""
    if record is None or record.cli is None:
        return None
    if not record.cli.transcript:
        folder = record.cli.chat_dir
        present = folder is not None and _has_store(folder)
        return CliChat(id=session_id, transcript="", chat_dir=folder) if present else None
    sig = stat_sig(record.cli.transcript)
    if sig is None:
        return None
    return CliChat(
        id=session_id,
        transcript=record.cli.transcript,
        chat_dir=record.cli.chat_dir,
        size=sig.size,
        mtime_ns=sig.mtime_ns,
    )
