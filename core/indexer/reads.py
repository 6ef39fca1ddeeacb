"""Reading what a refresh plan names, with the same readers a full build uses."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from itertools import chain
from pathlib import Path

from .. import paths
from ..bookkeeping import Bookkeeping, ChatState, CliState, Location
from ..history import merge_transcript_into_ide
from ..index import Index, IndexUnreadable, Segment, read_manifest
from ..lean_msgspec import msgspec
from ..model import Message, Session
from ..readers import Projects, Resume, read_cli_chat
from ..readers.chatstore import UNREADABLE_STORE
from ..readers.cursor_agent import UNREADABLE_TRANSCRIPT
from .plan import DATABASE_FAILURES, UNREADABLE_NAMED, Plan, cli_state
from .records import session_from_index


class ChatRead(msgspec.Struct):
    """A chat the refresh read: its session (None: read and empty) and, for a cursor-agent chat, what it recorded."""

    id: str
    session: Session | None
    cli: CliState | None = None
    #: How many of the session's first messages are as the index stores them (redacted and capped) but for their
    #: time: a grown transcript's earlier messages, read back from the index and left as they were by the read, or
    #: read again raw and equal to their stored form (``_as_stored``).
    stored: int = 0


def segment_at(index: Index | None, where: Location | None) -> Segment | None:
    """The live segment a bookkeeping location points into, if the index still has it."""
    if index is None or where is None:
        return None
    return next((s for s in index.segments if s.ref.name == where.segment), None)


def _old_session(index: Index | None, where: Location | None) -> Session | None:
    segment = segment_at(index, where)
    if segment is None or where is None:
        return None
    meta = segment.session(where.ordinal)
    return session_from_index(meta, segment.messages(meta))


class Placements:
    """The projects the index being refreshed (or replaced by a rebuild) placed its chats in: what a chat read again
    with no project signal at all keeps (trial14 F2).

    Most signals of an editor chat's project live in files Cursor prunes while the chat stays in the global database
    (a workspace's storage: its ``workspace.json`` and legacy ``allComposers`` heads; an editor transcript folder).
    Only the chat's content came from those files, and README says a folder is one project even once it is gone: a
    chat must not leave its project because Cursor's folder was gone at the last read. So the decision belongs where
    the chat is written again, with its old copy at hand, not in the readers (which see only what is on disk now) nor
    in a rebuild's carry-over (which carries only chats it could not read): a chat read again with a signal takes
    it (a chat moved to another folder), one with none keeps the project, folder and signal its old copy had.
    It costs one session record of the old index per chat read with no project (none for the others).
    """

    def __init__(self, book: Bookkeeping | None = None, index: Index | None = None) -> None:
        self.book, self.index = book, index

    @classmethod
    def replaced(cls, directory: Path) -> Placements:
        """A rebuild's: those of the live index it replaces, when it can be read (none otherwise)."""
        try:
            manifest = read_manifest(directory)
            return cls(Bookkeeping.recorded(directory, manifest.state), Index(directory, manifest))
        except IndexUnreadable:
            return cls()

    def keep(self, session: Session, shared: Callable[[Session], list[str]]) -> Session:
        """``session``, or a copy of it with the project its old copy had when it has none now (``session`` itself
        is left as read). Not one its transcript folder gave it among the several folders that folder's slug
        encodes (``shared``, ``Projects.shared_folders``): an earlier deja's guess, which the chat does not bear out
        (trial17 F5). Nor onto a remote window's chat, which has a project and no folder here (``readers.remote``);
        but a remote window's old project is kept as the rest are, its workspace's storage pruned by Cursor or its
        ``workspace.json`` unreadable (review57d F1: it became "(no project)" on a rebuild)."""
        if session.project_dir or session.project_from or self.book is None:
            return session
        try:
            record = self.book.chat(session.id)
            where = record.where if record else None
            segment = segment_at(self.index, where)
            old = segment.session(where.ordinal) if segment and where else None
        except IndexUnreadable:  # a damaged shard or segment of the index it replaces: nothing to keep
            return session
        if old is None or not (old.project_dir or old.project_from):  # (a remote window's has no folder here)
            return session
        if old.project_from == "transcript folder" and old.project_dir in shared(session):
            return session
        return msgspec.structs.replace(
            session, project=old.project, project_dir=old.project_dir, project_from=old.project_from
        )


class Unread(msgspec.Struct):
    """What could not be read this time (the index keeps it as it was), noted on the way for the refresh to record."""

    #: Chats the index keeps as they were.
    kept: set[str] = set()
    #: Databases that failed between the plan and the read -> the chats asked of them.
    databases: dict[str, set[str]] = {}
    #: Chat stores found unreadable.
    stores: int = 0
    #: Those of them the index held nothing of (a new chat's, or a store beside a transcript never read before).
    new: int = 0
    #: The cursor-agent chats among them -> the reason counted (``State.unread``).
    chats: dict[str, str] = {}
    #: The first of them (``plan.UNREADABLE_NAMED``), for a message to name.
    files: list[str] = []


def read_changes(
    plan: Plan, book: Bookkeeping, index: Index | None, problems: Counter[str], unread: Unread, projects: Projects
) -> Iterator[ChatRead]:
    """Read what the plan says changed.

    A grown transcript is read from where the last read stopped (the reader's
    ``resume``), continuing the session the index holds. A chat or database that
    cannot be read this time is not yielded: it goes into ``unread`` and the
    index keeps it as it was (``keep_unread_database`` records a database's).
    Nothing here changes ``plan`` or ``book``, so a part of a build can read in
    a process of its own.
    """
    pending: dict[str, Session] = {}
    decoded: dict[str, list[Path]] = {}  # project slugs decoded on disk, for this read's chats
    subagents = paths.include_subagents()
    for db, ids in plan.ide_reads.items():
        from ..readers.ide import read_ide_database  # (loaded only where an editor's database changed)

        found: Counter[str] = Counter()
        given: set[str] = set()
        # One chat at a time, as read: a build holds no more than a chat of the database at once.
        for session in read_ide_database(
            Path(db), only_ids=ids, problems=found, projects=projects, subagents=subagents
        ):
            if session.id in plan.cli_reads:
                pending[session.id] = session  # merged below with its transcript
            else:
                given.add(session.id)
                yield ChatRead(session.id, session)
        problems.update(found)
        if found.keys() & DATABASE_FAILURES:  # failed on the way: what was not read yet is kept as it was
            unread.databases[db] = set(ids)
            unread.kept |= ids - given
            for sid in ids:
                pending.pop(sid, None)
    for sid, chat in chain(list(plan.cli_appends.items()), plan.all_cli_reads()):
        record = book.chat(sid)
        old = _old_session(index, record.where) if record and sid in plan.cli_appends else None
        resume = None
        # (encoded before the read, which may extend them in place)
        stored = [_undated(message) for message in old.messages] if old is not None else []
        if old is not None and record is not None and record.cli and record.cli.last_timestamp is not None:
            resume = Resume(old.messages, record.cli.end, record.cli.last_timestamp)
        transcripts_unread = problems[UNREADABLE_TRANSCRIPT]
        read = read_cli_chat(chat.transcript_path, chat.chat_dir_path, problems, resume=resume, decoded=decoded)
        ide = pending.pop(sid, None)
        if read.unreadable:
            grew = problems[UNREADABLE_TRANSCRIPT] > transcripts_unread
            unread.chats[sid] = UNREADABLE_TRANSCRIPT if grew else UNREADABLE_STORE
        if read.unreadable and ide is None:
            unread.stores += 1
            unread.new += not _read_before(record, unread.chats[sid] == UNREADABLE_STORE)
            if len(unread.files) < UNREADABLE_NAMED:
                unread.files.append(read.unreadable_file or chat.transcript or str(chat.chat_dir))
            if record is not None and record.where is not None:
                unread.kept.add(sid)  # the index keeps the session as it was
                continue
            if read.session is None:
                continue  # nothing to index until its files can be read
        cli = cli_state(chat, read.end, read.last_timestamp, store_read=not read.unreadable)
        merged = merge_transcript_into_ide(ide, read.session) if read.session and ide else read.session or ide
        yield ChatRead(sid, merged, cli, _as_stored(merged, stored))
    for waiting in pending.values():
        yield ChatRead(waiting.id, waiting)


_ENCODE = msgspec.msgpack.Encoder().encode


def _undated(message: Message) -> bytes:
    """``message`` encoded with its time left out: what redaction and the caps read of it."""
    return _ENCODE(msgspec.structs.replace(message, timestamp=None))


def _as_stored(session: Session | None, stored: list[bytes]) -> int:
    """How many of ``session``'s first messages are still, but for their time, the index's ``stored`` ones (encoded
    before the read, ``_undated``): redacting and capping such a message gives it back as it is.

    A transcript with no ``<timestamp>`` dates its messages by the file's modification time, which each turn moves,
    and is read whole again (there is no time to resume from): its earlier messages, read raw, still equal their
    stored form unless redaction or a cap changed it, and are not redacted again either."""
    if session is None:
        return 0
    count = 0
    for message, before in zip(session.messages, stored, strict=False):  # (the read may have added more)
        if _undated(message) != before:
            break
        count += 1
    return count


def _read_before(record: ChatState | None, store: bool) -> bool:
    """Whether the index holds what a chat's file that could not be read gave before: the chat's session, and its
    store's turns when the file is its ``store.db`` (``store_sig``, recorded once the store was read)."""
    if record is None or record.where is None:
        return False
    return not store or bool(record.cli and record.cli.store_sig)


def keep_unread_database(plan: Plan, book: Bookkeeping, db: str, ids: set[str]) -> None:
    """A database that failed between the plan and the read: keep its chats, and make the next refresh read them."""
    plan.note_unreadable([db])
    prints = dict(book.fingerprints(db))
    for sid in ids:
        prints[sid] = "unread"
    book.set_fingerprints(db, prints)
    if db in plan.ide_dbs:
        plan.ide_dbs[db] = msgspec.structs.replace(plan.ide_dbs[db], sigs=[])
