"""Building and refreshing the index: cost follows the change, not the history.

A refresh takes the writer lock, stats every store, and re-reads only what
changed: a transcript that only grew is read from where the last build
stopped, a ``state.vscdb`` only for the composers whose fingerprint moved. The
changed sessions go into one new segment, their old copies are marked deleted,
and the manifest is swapped. Small segments are merged once there are many.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from pathlib import Path

import msgspec

from . import faults, parallel, paths
from .bookkeeping import (
    Bookkeeping,
    ChatState,
    CliState,
    IdeDbState,
    Location,
    Sig,
    State,
    read_record,
    remove_unreferenced,
)
from .history import CliChat, find_cli_chats, locate_cli_chats, merge_transcript_into_ide
from .index import (
    FORMAT_VERSION,
    MANIFEST,
    SEGMENT_GRACE_SECONDS,
    Index,
    IndexUnreadable,
    Manifest,
    Segment,
    SegmentRef,
    SegmentWriter,
    SessionMeta,
    edited_paths,
    index_dir,
    read_manifest,
    remove_stale_segments,
    retire_segments,
    write_manifest,
)
from .keys import EDIT_TOOLS
from .model import Message, Session, ToolCall, cap_text, one_line
from .private import FILE_MODE, private_dir, tighten
from .readers import Projects, Resume, composer_fingerprints, read_cli_chat, read_ide_database
from .redact import mode as redaction_mode
from .redact import redact, redact_value
from .regular_files import open_regular

INDEXED_TEXT_BYTES = 64 * 1024
TOOL_TEXT_BYTES = 16 * 1024
#: A segment being written is closed at this many docs (few segments keep search fast; a writer's memory is
#: bounded by ``index.writer.RUN_DOCS`` whatever a segment's size).
SEGMENT_MAX_DOCS = 2_000_000
#: Refreshes add small segments; past this many, the small ones are merged.
MAX_SEGMENTS = 8
#: A build reading at least this many chats splits them over the cores (``deja.core.parallel``).
PARALLEL_MIN_CHATS = 400
MAX_WORKERS = 4
LOCK_NAME = ".lock"
#: The longest a refresh waits for another writer before giving up with TimeoutError: no wait is unbounded.
WRITER_WAIT_SECONDS = 600.0
_HASH_SPAN = 4096

Progress = Callable[[int, int], None]


class RefreshResult(msgspec.Struct):
    sessions: int
    messages: int
    added: int
    updated: int
    removed: int
    seconds: float
    problems: dict[str, int] = {}
    rebuilt_because: str = ""
    #: Stores and databases that could not be read this time (locked, damaged): their sessions were kept as they were.
    unreadable_kept: int = 0


# --------------------------------------------------------------------------- what goes into the index


def _capped(value: object) -> object:
    """Tool-call arguments with every string capped at 16 KiB (a marker says what was left out)."""
    if isinstance(value, str):
        return cap_text(value, TOOL_TEXT_BYTES)
    if isinstance(value, dict):
        return {k: _capped(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_capped(v) for v in value]
    return value


def indexable(session: Session) -> tuple[SessionMeta, list[Message]]:
    """The session as stored: every text redacted whole, then a message capped at 64 KiB and a tool text at 16 KiB."""
    messages = []
    for m in session.messages:
        calls = [
            ToolCall(
                name=c.name,
                args=_capped(redact_value(c.args)),  # type: ignore[arg-type]
                result=cap_text(redact(c.result), TOOL_TEXT_BYTES) if c.result is not None else None,
                exit_code=c.exit_code,
            )
            for c in m.tool_calls
        ]
        messages.append(
            Message(
                role=m.role, text=cap_text(redact(m.text), INDEXED_TEXT_BYTES), timestamp=m.timestamp, tool_calls=calls
            )
        )
    asked, concluded, files = digest(messages, session.project_dir)
    meta = SessionMeta(
        id=session.id,
        source=session.source,
        project=session.project,
        project_dir=session.project_dir,
        project_from=session.project_from,
        title=redact(session.title),
        started=session.started,
        updated=session.updated,
        origin=session.origin,
        asked=asked,
        concluded=concluded,
        files=files,
    )
    return meta, messages


def digest(messages: list[Message], project_dir: str, max_files: int = 8) -> tuple[str, str, list[str]]:
    """What a session asked first, what it concluded last, and the files it edited, newest first."""
    asked = next((one_line(m.text, 200) for m in messages if m.role == "user" and m.text.strip()), "")
    concluded = next(
        (
            _conclusion(m.text)
            for m in reversed(messages)
            if m.role == "assistant" and m.text.strip() and m.text.strip() != "[REDACTED]"
        ),
        "",
    )
    files: list[str] = []
    for message in reversed(messages):
        for call in message.tool_calls:
            if call.name in EDIT_TOOLS:
                for path in edited_paths(call.args, project_dir)[:1]:
                    if path not in files:
                        files.append(path)
        if len(files) >= max_files:
            break
    return asked, concluded, files[:max_files]


def _conclusion(text: str, limit: int = 300) -> str:
    flat = " ".join(text.replace("[REDACTED]", " ").split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def session_from_index(meta: SessionMeta, messages: list[Message]) -> Session:
    return Session(
        id=meta.id,
        source=meta.source,  # type: ignore[arg-type]
        project=meta.project,
        project_dir=meta.project_dir,
        project_from=meta.project_from,
        title=meta.title,
        started=meta.started,
        updated=meta.updated,
        origin=meta.origin,
        messages=messages,
    )


# --------------------------------------------------------------------------- the refresh


class _Segments:
    """Writes changed sessions into as many new segments as their size needs."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.done: list[SegmentRef] = []
        self.current: SegmentWriter | None = None
        self.where: dict[str, Location] = {}

    def add(self, session: Session) -> None:
        if self.current is None:
            self.current = SegmentWriter(self.directory)
        meta, messages = indexable(session)
        self.current.add(meta, messages)
        self.where[session.id] = Location(self.current.name, self.current.session_count - 1)
        if self.current.doc_count >= SEGMENT_MAX_DOCS:
            self.flush()

    def flush(self) -> None:
        if self.current is not None:
            self.done.append(self.current.finish())
            self.current = None

    def abandon(self) -> None:
        if self.current is not None:
            self.current.abandon()
        for ref in self.done:
            shutil.rmtree(self.directory / ref.name, ignore_errors=True)


def _load(directory: Path, full: bool) -> tuple[Manifest | None, State, Index | None, str]:
    """The live manifest, state and index, or nothing (and why) when they cannot be trusted."""
    if full:
        return None, State(), None, ""
    try:
        manifest = read_manifest(directory)
        if manifest.redaction != redaction_mode():
            return None, State(), None, _redaction_changed(manifest.redaction)
        index = Index(directory, manifest)
        state = read_record(directory / manifest.state, State)
        Bookkeeping(directory, state).check()
        return manifest, state, index, ""
    except IndexUnreadable as exc:
        first_build = not (directory / MANIFEST).exists()
        return None, State(), None, "" if first_build else str(exc)


def _redaction_changed(built_with: str) -> str:
    now = "off (DEJA_NO_REDACT=1)" if redaction_mode() == "off" else "on"
    return f"redaction is now {now}; the index was built with {built_with or 'older rules'}"


def _sig(path: str | Path) -> Sig | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return Sig(st.st_size, st.st_mtime_ns)


def _wal_sigs(db: str | Path) -> list[Sig | None]:
    """A SQLite file's signature with its write-ahead log's: a write may touch only the log."""
    return [_sig(db), _sig(f"{db}-wal")]


def _span_hash(path: str, start: int, end: int) -> str:
    with open_regular(path) as f:
        f.seek(start)
        return hashlib.blake2b(f.read(max(0, end - start)), digest_size=16).hexdigest()


def _hashes(path: str, end: int) -> tuple[str, str]:
    return _span_hash(path, 0, min(end, _HASH_SPAN)), _span_hash(path, max(0, end - _HASH_SPAN), end)


def _cli_state(chat: CliChat, end: int, last_timestamp: datetime | None, store_read: bool = True) -> CliState:
    """What the next refresh compares: the transcript (if any) as read, and the chat folder's files.

    A store that could not be read is recorded with no signature, so the next refresh reads the chat again.
    """
    head, tail = _hashes(chat.transcript, end) if chat.transcript else ("", "")
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
    if not chat.chat_dir:
        return []
    return [*_wal_sigs(os.path.join(chat.chat_dir, "store.db")), _sig(os.path.join(chat.chat_dir, "meta.json"))]


def _unchanged(old: CliState | None, chat: CliChat) -> bool:
    return (
        old is not None
        and old.transcript == chat.transcript
        and old.sig.size == chat.size
        and old.sig.mtime_ns == chat.mtime_ns
        and old.chat_dir == chat.chat_dir
        and old.store_sig == _store_sigs(chat)
    )


def _can_append(old: CliState | None, chat: CliChat) -> bool:
    """The transcript only grew since it was read: same file, same folder, same bytes up to ``end``.

    A read that found no ``<timestamp>`` block gave its turns the file's time, which growing changes: it is read whole.
    """
    if old is None or not chat.transcript or old.end == 0 or chat.size <= old.end:
        return False
    if old.transcript != chat.transcript or old.chat_dir != chat.chat_dir or old.last_timestamp is None:
        return False
    try:
        return _hashes(chat.transcript, old.end) == (old.head_hash, old.tail_hash)
    except OSError:
        return False


def _old_session(index: Index | None, where: Location | None) -> Session | None:
    segment = _segment(index, where)
    if segment is None or where is None:
        return None
    meta = segment.session(where.ordinal)
    return session_from_index(meta, segment.messages(meta))


def _segment(index: Index | None, where: Location | None) -> Segment | None:
    if index is None or where is None:
        return None
    return next((s for s in index.segments if s.ref.name == where.segment), None)


#: A database-level failure: the database was there but could not be read this time.
_DATABASE_FAILURES = frozenset({"ide: not a database", "ide: database locked", "ide: unreadable database"})


class _Plan(msgspec.Struct):
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


class _IdePlan(msgspec.Struct):
    dbs: dict[str, IdeDbState]
    owners: dict[str, str]
    changed: set[str]
    gone: set[str]
    unreadable: int = 0


def _plan_ide(book: Bookkeeping, state: State, problems: Counter[str]) -> _IdePlan:
    """IDE databases: fingerprints say which composers changed and which are gone.

    A database that exists but cannot be read this time (locked, damaged) keeps
    its chats as they were, and is checked again next time; only a database that
    is gone, or read and empty, gives up its chats.
    """
    plan = _IdePlan(dbs={}, owners={}, changed=set(), gone=set())
    current = [str(db) for db in paths.ide_databases()]
    for db in current:
        sigs = _wal_sigs(Path(db))
        old = state.ide.get(db)
        if old is not None and old.sigs == sigs:
            plan.dbs[db] = old
            continue
        found: Counter[str] = Counter()
        now = composer_fingerprints(Path(db), problems=found)
        problems.update(found)
        if found.keys() & _DATABASE_FAILURES:
            plan.unreadable += 1
            if old is not None:
                plan.dbs[db] = IdeDbState(sigs=[], fingerprints=old.fingerprints)
            continue
        before = book.fingerprints(db)
        book.set_fingerprints(db, now)
        plan.dbs[db] = IdeDbState(sigs=sigs)
        for cid, fingerprint in now.items():
            if before.get(cid) != fingerprint:
                plan.changed.add(cid)
                plan.owners.setdefault(cid, db)
        plan.gone |= before.keys() - now.keys()
    for db in state.ide.keys() - set(current):
        plan.gone |= book.fingerprints(db).keys()
    return plan


def _plan(book: Bookkeeping, state: State, targets: set[str] | None, problems: Counter[str]) -> _Plan:
    ide = _plan_ide(book, state, problems)
    owners = ide.owners

    # cursor-agent chats: unchanged, grown, rewritten, new or gone.
    found: dict[str, CliChat] = {}
    for chat in find_cli_chats() if targets is None else locate_cli_chats(targets, book):
        found.setdefault(chat.id, chat)
    cli_changed: dict[str, CliChat] = {}
    for sid, chat in found.items():
        record = book.chat(sid)
        if not _unchanged(record.cli if record else None, chat):
            cli_changed[sid] = chat
    if targets is None:
        cli_gone = {sid for sid, record in book.items() if record.cli and sid not in found}
    else:
        cli_gone = {sid for sid in targets if (r := book.chat(sid)) is not None and r.cli and sid not in found}

    ide_reads: dict[str, set[str]] = {}
    cli_reads: dict[str, CliChat] = {}
    cli_appends: dict[str, CliChat] = {}
    removed: set[str] = set()
    for sid in ide.changed | set(cli_changed) | cli_gone | ide.gone:
        record = book.chat(sid)
        owner = owners.get(sid) or (record.ide_db if record and sid not in ide.gone else None)
        located = found.get(sid) or (None if sid in cli_gone else _recorded_chat(sid, record))
        if owner is None and located is None:
            removed.add(sid)
            continue
        if owner is not None:
            owners[sid] = owner
            ide_reads.setdefault(owner, set()).add(sid)
        if located is not None:
            # A chat the editor also holds is merged, so both sides are read whole.
            if owner is None and sid in cli_changed and record and record.where and _can_append(record.cli, located):
                cli_appends[sid] = located
            else:
                cli_reads[sid] = located
    return _Plan(ide_reads, cli_reads, cli_appends, removed, ide.dbs, owners, ide.unreadable)


def _recorded_chat(session_id: str, record: ChatState | None) -> CliChat | None:
    """The transcript (or store) a record names, if it is still there (a merged chat whose editor side changed)."""
    if record is None or record.cli is None:
        return None
    if not record.cli.transcript:
        folder = record.cli.chat_dir
        present = folder is not None and os.path.isfile(os.path.join(folder, "store.db"))
        return CliChat(id=session_id, transcript="", chat_dir=folder) if present else None
    sig = _sig(record.cli.transcript)
    if sig is None:
        return None
    return CliChat(
        id=session_id,
        transcript=record.cli.transcript,
        chat_dir=record.cli.chat_dir,
        size=sig.size,
        mtime_ns=sig.mtime_ns,
    )


class _Read(msgspec.Struct):
    """A chat the refresh read: its session (None: read and empty) and, for a cursor-agent chat, what it recorded."""

    id: str
    session: Session | None
    cli: CliState | None = None


class _Written(msgspec.Struct):
    """What reading and writing (a part of) a plan gave: new segments, where each session went, what to record."""

    segments: list[SegmentRef] = []
    where: dict[str, Location] = {}
    #: Every chat read, empty ones included: what the bookkeeping records of it (``where`` is set later).
    chats: dict[str, ChatState] = {}
    #: Chats the index keeps as they were: their store could not be read this time.
    kept: set[str] = set()
    #: Databases that failed between the plan and the read -> the chats asked of them.
    unread_dbs: dict[str, set[str]] = {}
    #: Chat stores found unreadable on the way.
    unreadable: int = 0
    #: Problems counted on the way (a part's own count, added to the parent's).
    problems: dict[str, int] = {}


def _write_part(
    plan: _Plan,
    book: Bookkeeping,
    index: Index | None,
    problems: Counter[str],
    projects: Projects,
    directory: Path,
    report: Callable[[int], None],
) -> _Written:
    """Read what ``plan`` names and write it into new segments, flushed as they fill (memory stays bounded)."""
    out = _Written()
    writer = _Segments(directory)
    try:
        for read in _read_changes(plan, book, index, problems, out, projects):
            if read.session is not None:  # read as empty: recorded, not indexed
                writer.add(projects.settle(read.session))
            out.chats[read.id] = ChatState(ide_db=plan.owners.get(read.id), cli=read.cli)
            report(1)
        writer.flush()
    except BaseException:
        writer.abandon()
        raise
    out.segments, out.where = writer.done, writer.where
    return out


def _split(plan: _Plan, parts: int) -> list[_Plan]:
    """``plan`` cut into ``parts`` by chat id; a chat the editor and cursor-agent both hold stays in one part."""

    def part_of(chat_id: str) -> int:
        return zlib.crc32(chat_id.encode("utf-8", "surrogatepass")) % parts

    cut = [msgspec.structs.replace(plan, ide_reads={}, cli_reads={}, cli_appends={}) for _ in range(parts)]
    for db, ids in plan.ide_reads.items():
        for chat_id in ids:
            cut[part_of(chat_id)].ide_reads.setdefault(db, set()).add(chat_id)
    for name in ("cli_reads", "cli_appends"):
        for chat_id, chat in getattr(plan, name).items():
            getattr(cut[part_of(chat_id)], name)[chat_id] = chat
    return cut


def _write_changes(
    plan: _Plan,
    book: Bookkeeping,
    index: Index | None,
    problems: Counter[str],
    projects: Projects,
    directory: Path,
    progress: Progress | None,
) -> _Written:
    """Read and write what the plan names: on every core when it is big enough, else in this process."""
    total = len(set().union(*plan.ide_reads.values(), plan.cli_reads, plan.cli_appends))  # a merged chat counts once
    done = 0

    def report(chats: int) -> None:
        nonlocal done
        done += chats
        if progress:
            progress(done, total)

    workers = min(parallel.cores(), MAX_WORKERS)
    if total < PARALLEL_MIN_CHATS or workers < 2 or not parallel.can_fork():
        return _write_part(plan, book, index, problems, projects, directory, report)
    parts = _split(plan, workers)

    def work(number: int, tell: Callable[[int], None]) -> _Written:
        before = Counter(problems)
        written = _write_part(parts[number], book, index, problems, projects, directory, tell)
        written.problems = dict(Counter(problems) - before)
        return written

    # A part that fails stops the others; what they wrote is named by no manifest and goes as a killed build's would.
    return _joined(parallel.run_parts(work, workers, report), problems)


def _joined(parts: list[_Written], problems: Counter[str]) -> _Written:
    """The parts' results as one, their problems added to ``problems``."""
    out = _Written()
    for part in parts:
        out.segments += part.segments
        out.where.update(part.where)
        out.chats.update(part.chats)
        out.kept |= part.kept
        out.unread_dbs.update(part.unread_dbs)
        out.unreadable += part.unreadable
        problems.update(part.problems)
    return out


def _read_changes(
    plan: _Plan, book: Bookkeeping, index: Index | None, problems: Counter[str], out: _Written, projects: Projects
) -> Iterator[_Read]:
    """Read what the plan says changed, with the same readers a full build uses.

    A grown transcript is read from where the last read stopped (the reader's
    ``resume``), continuing the session the index holds. A chat or database that
    cannot be read this time is not yielded: its id goes into ``kept`` and the
    index keeps it as it was; a database that fails is noted in ``out.unread_dbs``.
    """
    pending: dict[str, Session] = {}
    for db, ids in plan.ide_reads.items():
        found: Counter[str] = Counter()
        sessions = list(read_ide_database(Path(db), only_ids=ids, problems=found, projects=projects))
        problems.update(found)
        if found.keys() & _DATABASE_FAILURES:
            out.unread_dbs[db] = set(ids)
            out.kept |= ids
            continue
        for session in sessions:
            if session.id in plan.cli_reads:
                pending[session.id] = session  # merged below with its transcript
            else:
                yield _Read(session.id, session)
    for sid, chat in [*plan.cli_appends.items(), *plan.cli_reads.items()]:
        record = book.chat(sid)
        old = _old_session(index, record.where) if record and sid in plan.cli_appends else None
        resume = None
        if old is not None and record is not None and record.cli and record.cli.last_timestamp is not None:
            resume = Resume(old.messages, record.cli.end, record.cli.last_timestamp)
        read = read_cli_chat(chat.transcript_path, chat.chat_dir_path, problems, resume=resume)
        ide = pending.pop(sid, None)
        if read.store_unreadable and ide is None:
            out.unreadable += 1
            if record is not None and record.where is not None:
                out.kept.add(sid)  # the index keeps the session as it was
                continue
            if not chat.transcript:
                continue  # nothing to index until the store can be read
        cli = _cli_state(chat, read.end, read.last_timestamp, store_read=not read.store_unreadable)
        merged = merge_transcript_into_ide(ide, read.session) if read.session and ide else read.session or ide
        yield _Read(sid, merged, cli)
    for waiting in pending.values():
        yield _Read(waiting.id, waiting)


def _keep_unread_database(plan: _Plan, book: Bookkeeping, db: str, ids: set[str]) -> None:
    """A database that failed between the plan and the read: keep its chats, and make the next refresh read them."""
    plan.unreadable += 1
    prints = dict(book.fingerprints(db))
    for sid in ids:
        prints[sid] = "unread"
    book.set_fingerprints(db, prints)
    if db in plan.ide_dbs:
        plan.ide_dbs[db] = msgspec.structs.replace(plan.ide_dbs[db], sigs=[])


def refresh(
    home: Path | None = None,
    *,
    full: bool = False,
    only_chat_ids: Iterable[str] | None = None,
    progress: Progress | None = None,
    lock_timeout: float = WRITER_WAIT_SECONDS,
    verify: bool = False,
) -> RefreshResult:
    """Bring the index up to date with the stores on disk; see the module docstring.

    ``only_chat_ids`` limits the CLI side to those chats (the session-end
    hook's path: no walk over every transcript); the IDE databases are always
    checked, cheaply. ``verify`` reads every byte of the index against its
    checksums first (``deja index``). Whatever damage is found, before or on
    the way, the index is rebuilt whole and ``rebuilt_because`` says why.
    """
    home = home or paths.deja_home()
    why = "" if full or not verify else _damage(index_dir(home))
    try:
        result = _refresh(home, full or bool(why), only_chat_ids, progress, lock_timeout)
    except IndexUnreadable as exc:  # a damaged file met on the way: the live index cannot be built upon
        if full or why:
            raise
        why = str(exc)
        result = _refresh(home, True, only_chat_ids, progress, lock_timeout)
    result.rebuilt_because = result.rebuilt_because or why
    return result


def _damage(directory: Path) -> str:
    """What is wrong with the index's files, read whole ("" when nothing is, or there is no index yet)."""
    if not (directory / MANIFEST).exists():
        return ""
    try:
        index = Index(directory, read_manifest(directory))
        index.verify()
        book = Bookkeeping(directory, read_record(directory / index.manifest.state, State))
        book.verify()
    except IndexUnreadable as exc:
        return str(exc)
    return ""


# C901: one lock-held sequence of plan, read, write and swap; split with the planning/records step of the index split.
def _refresh(  # noqa: C901
    home: Path,
    full: bool,
    only_chat_ids: Iterable[str] | None,
    progress: Progress | None,
    lock_timeout: float,
) -> RefreshResult:
    from filelock import FileLock  # only writers pay for it

    started = time.perf_counter()
    directory = index_dir(home)
    private_dir(directory)
    tighten(home)
    with FileLock(str(directory / LOCK_NAME), timeout=lock_timeout, mode=FILE_MODE):
        manifest, state, index, why = _load(directory, full)
        book = Bookkeeping(directory, state)
        problems: Counter[str] = Counter()
        plan = _plan(book, state, set(only_chat_ids) if only_chat_ids is not None else None, problems)
        projects = Projects.of_this_machine(problems)
        out = _write_changes(plan, book, index, problems, projects, directory, progress)
        for db, ids in out.unread_dbs.items():
            _keep_unread_database(plan, book, db, ids)
        plan.unreadable += out.unreadable
        written = out.chats
        # Read-as-empty IDE chats drop out of the index too; record their owner so they are not re-read.
        for ids in plan.ide_reads.values():
            for sid in ids - written.keys() - out.kept:
                written[sid] = ChatState(ide_db=plan.owners.get(sid))

        segments = [
            msgspec.structs.replace(ref, deleted=list(ref.deleted)) for ref in (manifest.segments if manifest else [])
        ]
        by_name = {ref.name: ref for ref in segments}
        added = updated = removed = 0
        for sid in written.keys() | plan.removed:
            record = book.chat(sid)
            was = record.where if record else None
            if was is not None and was.segment in by_name:
                ref = by_name[was.segment]
                ref.deleted.append(was.ordinal)
                ref.deleted_messages += _message_count(index, was)
            new = out.where.get(sid)
            if sid in plan.removed:
                book.put(sid, None)
            else:
                book.put(sid, msgspec.structs.replace(written[sid], where=new))
            if new is not None:
                added += was is None
                updated += was is not None
            elif was is not None:
                removed += 1
        live = [ref for ref in segments if len(ref.deleted) < ref.sessions] + out.segments
        changed = manifest is None or out.segments or removed or book.changed or plan.ide_dbs != state.ide
        merged_problems = dict(Counter(state.problems) | problems)
        if changed:
            live = _compact(directory, live, book)
            _swap(directory, manifest or _live_manifest(directory), live, book, plan.ide_dbs, merged_problems)
        return RefreshResult(
            sessions=sum(ref.sessions - len(ref.deleted) for ref in live),
            messages=sum(ref.messages - ref.deleted_messages for ref in live),
            added=added,
            updated=updated,
            removed=removed,
            seconds=round(time.perf_counter() - started, 3),
            problems=merged_problems,
            rebuilt_because=why,
            unreadable_kept=plan.unreadable,
        )


def _live_manifest(directory: Path) -> Manifest | None:
    """The manifest a full rebuild replaces, if it can be read (its generation and segments carry on)."""
    try:
        return read_manifest(directory)
    except IndexUnreadable:
        return None


def _swap(
    directory: Path,
    previous: Manifest | None,
    live: list[SegmentRef],
    book: Bookkeeping,
    ide: dict[str, IdeDbState],
    problems: dict[str, int],
) -> None:
    """Make ``live`` and the bookkeeping describing it current in one ``os.replace`` of the manifest.

    Everything is written under new names first, so a kill at any point leaves
    the previous manifest, its segments and its bookkeeping whole. The
    segments the swap retires stay a grace period for readers that have just
    read the previous manifest; the previous bookkeeping goes at once (only
    writers read it, under the lock).
    """
    generation = (previous.generation + 1) if previous else 1
    state_file = book.save(f"{generation}-{os.urandom(4).hex()}", ide, problems)
    faults.point("before-manifest-swap")
    names = [ref.name for ref in live]
    retire_segments(directory, [ref.name for ref in previous.segments] if previous else [], names)
    manifest = Manifest(
        version=FORMAT_VERSION,
        generation=generation,
        built_at=time.time(),
        segments=live,
        state=state_file,
        redaction=redaction_mode(),
    )
    write_manifest(directory, manifest)
    faults.point("after-manifest-swap")
    remove_unreferenced(directory, book.state, state_file)
    # Segments written before redaction was turned on hold what it now hides: they go at once, not after a grace.
    unredacted = previous is not None and previous.redaction != manifest.redaction
    remove_stale_segments(directory, names, grace_seconds=0 if unredacted else SEGMENT_GRACE_SECONDS)


def _message_count(index: Index | None, where: Location) -> int:
    segment = _segment(index, where)
    return segment.session(where.ordinal).messages if segment else 0


def _live_docs(ref: SegmentRef) -> float:
    return ref.docs * (1 - len(ref.deleted) / ref.sessions) if ref.sessions else 0


def _compact(directory: Path, segments: list[SegmentRef], book: Bookkeeping) -> list[SegmentRef]:
    """Merge the smallest segments once there are too many small ones.

    A segment a build filled (about ``SEGMENT_MAX_DOCS``, fewer as its sessions are
    replaced) is left as it is: merging it would only write the same segment again.
    """
    small = [ref for ref in segments if _live_docs(ref) < SEGMENT_MAX_DOCS // 2]
    if len(small) <= MAX_SEGMENTS:
        return segments
    merge = sorted(small, key=_live_docs)[: len(small) - MAX_SEGMENTS // 2]
    keep = [ref for ref in segments if ref not in merge]
    writer = _Segments(directory)
    opened = Index(directory, Manifest(version=FORMAT_VERSION, generation=0, built_at=0, segments=merge))
    try:
        for segment in opened.segments:
            for _, meta in segment.live_sessions():
                writer.add(session_from_index(meta, segment.messages(meta)))
        writer.flush()
    except BaseException:
        writer.abandon()
        raise
    for sid, where in writer.where.items():
        record = book.chat(sid)
        if record is not None:
            book.put(sid, msgspec.structs.replace(record, where=where))
    return keep + writer.done
