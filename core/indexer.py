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
from collections import Counter
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path

import msgspec

from . import paths
from .bookkeeping import (
    Bookkeeping,
    ChatState,
    CliState,
    IdeDbState,
    Location,
    Sig,
    State,
    remove_unreferenced,
)
from .history import CliChat, find_cli_chats, locate_cli_chats, merge_transcript_into_ide
from .index import (
    FORMAT_VERSION,
    MANIFEST,
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
    write_manifest,
)
from .keys import EDIT_TOOLS
from .model import Message, Session, ToolCall, cap_text, one_line
from .readers.chatstore import attach_tool_results, chat_title, read_chat_meta, read_store
from .readers.cursor_agent import read_cli_session, set_session_times
from .readers.ide import composer_fingerprints, read_ide_database
from .readers.transcripts import read_transcript, session_id_of
from .redact import redact

INDEXED_TEXT_BYTES = 64 * 1024
TOOL_TEXT_CHARS = 16 * 1024
SEGMENT_MAX_DOCS = 1_000_000
MAX_SEGMENTS = 8
LOCK_NAME = ".lock"
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


# --------------------------------------------------------------------------- what goes into the index


def _redact_value(value: object) -> object:
    if isinstance(value, str):
        return redact(value[:TOOL_TEXT_CHARS])
    if isinstance(value, dict):
        return {k: _redact_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact_value(v) for v in value]
    return value


def indexable(session: Session) -> tuple[SessionMeta, list[Message]]:
    """The session as stored: every text redacted, a message cut to 64 KiB."""
    messages = []
    for m in session.messages:
        calls = [
            ToolCall(
                name=c.name,
                args=_redact_value(c.args),  # type: ignore[arg-type]
                result=redact(c.result[:TOOL_TEXT_CHARS]) if c.result is not None else None,
                exit_code=c.exit_code,
            )
            for c in m.tool_calls
        ]
        messages.append(
            Message(
                role=m.role, text=redact(cap_text(m.text, INDEXED_TEXT_BYTES)), timestamp=m.timestamp, tool_calls=calls
            )
        )
    asked, concluded, files = digest(messages, session.project_dir)
    meta = SessionMeta(
        id=session.id,
        source=session.source,
        project=session.project,
        project_dir=session.project_dir,
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
        index = Index(directory, manifest)
        state = msgspec.msgpack.decode((directory / manifest.state).read_bytes(), type=State)
        Bookkeeping(directory, state).check()
        return manifest, state, index, ""
    except IndexUnreadable as exc:
        first_build = not (directory / MANIFEST).exists()
        return None, State(), None, "" if first_build else str(exc)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError) as exc:
        return None, State(), None, f"the index bookkeeping is unreadable ({exc})"


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
    with open(path, "rb") as f:
        f.seek(start)
        return hashlib.blake2b(f.read(max(0, end - start)), digest_size=16).hexdigest()


def _hashes(path: str, end: int) -> tuple[str, str]:
    return _span_hash(path, 0, min(end, _HASH_SPAN)), _span_hash(path, max(0, end - _HASH_SPAN), end)


def _cli_state(chat: CliChat, end: int, last_timestamp: datetime | None) -> CliState:
    head, tail = _hashes(chat.transcript, end)
    return CliState(
        transcript=chat.transcript,
        sig=Sig(chat.size, chat.mtime_ns),
        end=end,
        head_hash=head,
        tail_hash=tail,
        last_timestamp=last_timestamp,
        chat_dir=chat.chat_dir,
        store_sig=_store_sigs(chat),
    )


def _store_sigs(chat: CliChat) -> list[Sig | None]:
    return _wal_sigs(os.path.join(chat.chat_dir, "store.db")) if chat.chat_dir else []


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
    """The transcript only grew since it was read: same file, same folder, same bytes up to ``end``."""
    if old is None or old.end == 0 or chat.size <= old.end or old.transcript != chat.transcript:
        return False
    if old.chat_dir != chat.chat_dir:
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


def _append_to(old: Session, chat: CliChat, state: CliState, problems: Counter[str]) -> tuple[Session, CliState]:
    """The session with the transcript's new lines added, its tool results paired again."""
    read = read_transcript(chat.transcript_path, start=state.end, carry=state.last_timestamp, problems=problems)
    messages = old.messages + read.messages
    store = None
    meta = None
    chat_dir = chat.chat_dir_path
    if chat_dir is not None:
        meta = read_chat_meta(chat_dir)
        store_db = chat_dir / "store.db"
        if store_db.exists():
            store = read_store(store_db, problems=problems)
            attach_tool_results(messages, store.tool_results)
    old.messages = messages
    old.title = chat_title(store, meta, messages) or old.title
    set_session_times(old, (read.last_timestamp or state.last_timestamp) is not None, meta)
    return old, _cli_state(chat, read.end, read.last_timestamp or state.last_timestamp)


class _Plan(msgspec.Struct):
    """What a refresh must re-read, found by the stat pass."""

    #: state.vscdb -> the composers to read from it.
    ide_reads: dict[str, set[str]]
    #: Transcripts to read whole, and those that only grew.
    cli_reads: dict[str, CliChat]
    cli_appends: dict[str, CliChat]
    #: Chats whose every source is gone.
    removed: set[str]
    #: The IDE databases as they are now.
    ide_dbs: dict[str, IdeDbState]
    #: chat id -> the database that holds it now, for the chats the plan touches.
    owners: dict[str, str]


def _plan(book: Bookkeeping, state: State, targets: set[str] | None, problems: Counter[str]) -> _Plan:
    # IDE databases: fingerprints say which composers changed and which are gone.
    ide_dbs: dict[str, IdeDbState] = {}
    owners: dict[str, str] = {}
    ide_changed: set[str] = set()
    ide_gone: set[str] = set()
    current = [str(db) for db in paths.ide_databases()]
    for db in current:
        sigs = _wal_sigs(Path(db))
        old = state.ide.get(db)
        if old is not None and old.sigs == sigs:
            ide_dbs[db] = old
            continue
        before = book.fingerprints(db)
        now = composer_fingerprints(Path(db), problems=problems)
        book.set_fingerprints(db, now)
        ide_dbs[db] = IdeDbState(sigs=sigs)
        for cid, fingerprint in now.items():
            if before.get(cid) != fingerprint:
                ide_changed.add(cid)
                owners.setdefault(cid, db)
        ide_gone |= before.keys() - now.keys()
    for db in state.ide.keys() - set(current):
        ide_gone |= book.fingerprints(db).keys()

    # Transcripts: unchanged, grown, rewritten, new or gone.
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
    for sid in ide_changed | set(cli_changed) | cli_gone | ide_gone:
        record = book.chat(sid)
        owner = owners.get(sid) or (record.ide_db if record and sid not in ide_gone else None)
        transcript = found.get(sid) or (None if sid in cli_gone else _recorded_chat(record))
        if owner is None and transcript is None:
            removed.add(sid)
            continue
        if owner is not None:
            owners[sid] = owner
            ide_reads.setdefault(owner, set()).add(sid)
        if transcript is not None:
            # A chat the editor also holds is merged, so both sides are read whole.
            if owner is None and sid in cli_changed and record and record.where and _can_append(record.cli, transcript):
                cli_appends[sid] = transcript
            else:
                cli_reads[sid] = transcript
    return _Plan(ide_reads, cli_reads, cli_appends, removed, ide_dbs, owners)


def _recorded_chat(record: ChatState | None) -> CliChat | None:
    """The transcript a record names, if it is still there (a merged chat whose editor side changed)."""
    if record is None or record.cli is None:
        return None
    sig = _sig(record.cli.transcript)
    if sig is None:
        return None
    transcript = record.cli.transcript
    return CliChat(
        id=session_id_of(transcript),
        transcript=transcript,
        chat_dir=record.cli.chat_dir,
        size=sig.size,
        mtime_ns=sig.mtime_ns,
    )


# C901: one lock-held sequence of plan, read, write and swap; split with the planning/records step of the index split.
def refresh(  # noqa: C901
    home: Path | None = None,
    *,
    full: bool = False,
    only_chat_ids: Iterable[str] | None = None,
    progress: Progress | None = None,
    lock_timeout: float = -1,
) -> RefreshResult:
    """Bring the index up to date with the stores on disk; see the module docstring.

    ``only_chat_ids`` limits the CLI side to those chats (the session-end
    hook's path: no walk over every transcript); the IDE databases are always
    checked, cheaply.
    """
    from filelock import FileLock  # only writers pay for it

    started = time.perf_counter()
    home = home or paths.deja_home()
    directory = index_dir(home)
    directory.mkdir(parents=True, exist_ok=True)
    with FileLock(str(directory / LOCK_NAME), timeout=lock_timeout):
        manifest, state, index, why = _load(directory, full)
        book = Bookkeeping(directory, state)
        problems: Counter[str] = Counter()
        plan = _plan(book, state, set(only_chat_ids) if only_chat_ids is not None else None, problems)
        total = sum(map(len, plan.ide_reads.values())) + len(plan.cli_reads) + len(plan.cli_appends)
        done = 0
        written: dict[str, ChatState] = {}
        writer = _Segments(directory)

        def write(session: Session, cli: CliState | None) -> None:
            nonlocal done
            writer.add(session)
            written[session.id] = ChatState(ide_db=plan.owners.get(session.id), cli=cli)
            done += 1
            if progress:
                progress(done, total)

        try:
            pending: dict[str, Session] = {}
            for db, ids in plan.ide_reads.items():
                for session in read_ide_database(Path(db), only_ids=ids, problems=problems):
                    if session.id in plan.cli_reads:
                        pending[session.id] = session  # merged below with its transcript
                    else:
                        write(session, None)
            for sid, chat in plan.cli_appends.items():
                record = book.chat(sid)
                old = _old_session(index, record.where if record else None)
                if old is None or record is None or record.cli is None:
                    plan.cli_reads[sid] = chat
                    continue
                write(*_append_to(old, chat, record.cli, problems))
            for sid, chat in plan.cli_reads.items():
                from_cli = read_cli_session(chat.transcript_path, chat.chat_dir_path, problems=problems)
                cli = _cli_state(
                    chat, chat.size, from_cli.messages[-1].timestamp if from_cli and from_cli.messages else None
                )
                ide = pending.pop(sid, None)
                if from_cli is None:
                    if ide is not None:
                        write(ide, cli)
                    else:
                        written[sid] = ChatState(ide_db=plan.owners.get(sid), cli=cli)  # empty: not indexed
                    continue
                write(merge_transcript_into_ide(ide, from_cli) if ide is not None else from_cli, cli)
            for session in pending.values():
                write(session, None)
            writer.flush()
        except BaseException:
            writer.abandon()
            raise

        # Read-as-empty IDE chats drop out of the index too; record their owner so they are not re-read.
        for ids in plan.ide_reads.values():
            for sid in ids - written.keys():
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
            new = writer.where.get(sid)
            if sid in plan.removed:
                book.put(sid, None)
            else:
                book.put(sid, msgspec.structs.replace(written[sid], where=new))
            if new is not None:
                added += was is None
                updated += was is not None
            elif was is not None:
                removed += 1
        live = [ref for ref in segments if len(ref.deleted) < ref.sessions] + writer.done
        changed = manifest is None or writer.done or removed or book.changed or plan.ide_dbs != state.ide
        merged_problems = dict(Counter(state.problems) | problems)
        if changed:
            live = _compact(directory, live, book)
            generation = (manifest.generation + 1) if manifest else 1
            new_state = book.save(generation, plan.ide_dbs, merged_problems)
            state_name = f"state-{generation}.msgpack"
            (directory / state_name).write_bytes(msgspec.msgpack.encode(new_state))
            write_manifest(
                directory,
                Manifest(
                    version=FORMAT_VERSION, generation=generation, built_at=time.time(), segments=live, state=state_name
                ),
            )
            for old_state in directory.glob("state-*.msgpack"):
                if old_state.name != state_name:
                    old_state.unlink(missing_ok=True)
            remove_unreferenced(directory, new_state)
            remove_stale_segments(directory, [ref.name for ref in live], grace_seconds=0 if manifest is None else 60)
        return RefreshResult(
            sessions=sum(ref.sessions - len(ref.deleted) for ref in live),
            messages=sum(ref.messages - ref.deleted_messages for ref in live),
            added=added,
            updated=updated,
            removed=removed,
            seconds=round(time.perf_counter() - started, 3),
            problems=merged_problems,
            rebuilt_because=why,
        )


def _message_count(index: Index | None, where: Location) -> int:
    segment = _segment(index, where)
    return segment.session(where.ordinal).messages if segment else 0


def _compact(directory: Path, segments: list[SegmentRef], book: Bookkeeping) -> list[SegmentRef]:
    """Merge the smallest segments once there are too many."""
    if len(segments) <= MAX_SEGMENTS:
        return segments
    merge = sorted(segments, key=lambda ref: ref.docs)[: len(segments) - MAX_SEGMENTS // 2]
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
