"""Building and refreshing the index: cost follows the change, not the history.

A refresh takes the writer lock, stats every store, and re-reads only what
changed: a transcript that only grew is read from where the last build
stopped, a ``state.vscdb`` only for the composers whose fingerprint moved. The
changed sessions go into one new segment, their old copies are marked deleted,
and the manifest is swapped. Small segments are merged once there are many.
"""

from __future__ import annotations

import hashlib
import shutil
import time
from collections import Counter
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path

import msgspec

from deja.core import paths
from deja.core.history import CliChat, find_cli_chats, merge_transcript_into_ide
from deja.core.index import (
    FORMAT_VERSION,
    MANIFEST,
    Index,
    IndexError_,
    Manifest,
    SegmentRef,
    SegmentWriter,
    SessionMeta,
    edited_paths,
    index_dir,
    read_manifest,
    remove_stale_segments,
    write_manifest,
)
from deja.core.keys import EDIT_TOOLS
from deja.core.model import Message, Session, ToolCall, one_line
from deja.core.readers.chatstore import attach_tool_results, chat_title, read_chat_meta, read_store
from deja.core.readers.ide import composer_fingerprints, read_ide_database
from deja.core.readers.cli import read_cli_session, set_session_times
from deja.core.readers.transcripts import read_transcript
from deja.core.redact import redact

INDEXED_TEXT_BYTES = 64 * 1024
TOOL_TEXT_CHARS = 16 * 1024
SEGMENT_MAX_DOCS = 400_000
MAX_SEGMENTS = 8
LOCK_NAME = ".lock"
_HASH_SPAN = 4096

Progress = Callable[[int, int], None]


class Sig(msgspec.Struct, array_like=True):
    size: int
    mtime_ns: int


class IdeDbState(msgspec.Struct):
    sigs: list[Sig | None]
    fingerprints: dict[str, str]


class CliState(msgspec.Struct):
    chat_id: str
    sig: Sig
    end: int
    head_hash: str
    tail_hash: str
    last_timestamp: datetime | None = None
    chat_dir: str | None = None
    store_sig: list[Sig | None] = []


class Location(msgspec.Struct, array_like=True):
    segment: str
    ordinal: int


class State(msgspec.Struct):
    ide: dict[str, IdeDbState] = {}
    cli: dict[str, CliState] = {}
    where: dict[str, Location] = {}
    #: Records skipped as unreadable, by reason: the most any refresh since the last full build counted
    #: (a refresh re-reads only what changed, so one that skipped nothing does not clear them). Doctor shows them.
    problems: dict[str, int] = {}


class RefreshResult(msgspec.Struct):
    sessions: int
    messages: int
    added: int
    updated: int
    removed: int
    seconds: float
    problems: dict[str, int] = {}
    rebuilt_because: str = ""


def _sig(path: Path) -> Sig | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return Sig(st.st_size, st.st_mtime_ns)


def _wal_sigs(db: Path) -> list[Sig | None]:
    return [_sig(db), _sig(db.with_name(db.name + "-wal"))]


def _span_hash(path: Path, start: int, end: int) -> str:
    with open(path, "rb") as f:
        f.seek(start)
        return hashlib.blake2b(f.read(max(0, end - start)), digest_size=16).hexdigest()


def _hashes(path: Path, end: int) -> tuple[str, str]:
    return _span_hash(path, 0, min(end, _HASH_SPAN)), _span_hash(path, max(0, end - _HASH_SPAN), end)


# --------------------------------------------------------------------------- what goes into the index


def _cut_bytes(text: str, limit: int) -> str:
    if len(text) * 4 <= limit:
        return text
    data = text.encode("utf-8", "surrogatepass")
    return text if len(data) <= limit else data[:limit].decode("utf-8", "ignore")


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
            Message(role=m.role, text=redact(_cut_bytes(m.text, INDEXED_TEXT_BYTES)), timestamp=m.timestamp, tool_calls=calls)
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
        (_conclusion(m.text) for m in reversed(messages) if m.role == "assistant" and m.text.strip() and m.text.strip() != "[REDACTED]"),
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
        self.messages = 0

    def add(self, session: Session) -> None:
        if self.current is None:
            self.current = SegmentWriter(self.directory)
        meta, messages = indexable(session)
        self.current.add(meta, messages)
        self.where[session.id] = Location(self.current.name, self.current.session_count - 1)
        self.messages += len(messages)
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
        return manifest, state, index, ""
    except IndexError_ as exc:
        first_build = not (directory / MANIFEST).exists()
        return None, State(), None, "" if first_build else str(exc)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError) as exc:
        return None, State(), None, f"the index bookkeeping is unreadable ({exc})"


def _old_session(index: Index | None, where: Location | None) -> Session | None:
    if index is None or where is None:
        return None
    for segment in index.segments:
        if segment.ref.name == where.segment:
            meta = segment.session(where.ordinal)
            return session_from_index(meta, segment.messages(meta))
    return None


def _append_to(old: Session, chat: CliChat, state: CliState, problems: Counter[str]) -> tuple[Session, CliState]:
    """The session with the transcript's new lines added, its tool results paired again."""
    read = read_transcript(chat.transcript, start=state.end, carry=state.last_timestamp, problems=problems)
    messages = old.messages + read.messages
    store = None
    meta = None
    if chat.chat_dir is not None:
        meta = read_chat_meta(chat.chat_dir)
        store_db = chat.chat_dir / "store.db"
        if store_db.exists():
            store = read_store(store_db, problems=problems)
            attach_tool_results(messages, store.tool_results)
    old.messages = messages
    old.title = chat_title(store, meta, messages) or old.title
    set_session_times(old, (read.last_timestamp or state.last_timestamp) is not None, meta)
    head, tail = _hashes(chat.transcript, read.end)
    new_state = msgspec.structs.replace(
        state,
        sig=_sig(chat.transcript) or state.sig,
        end=read.end,
        head_hash=head,
        tail_hash=tail,
        last_timestamp=read.last_timestamp or state.last_timestamp,
    )
    return old, new_state


def _cli_state(chat: CliChat, end: int, last_timestamp: datetime | None) -> CliState:
    head, tail = _hashes(chat.transcript, end)
    return CliState(
        chat_id=chat.id,
        sig=_sig(chat.transcript) or Sig(0, 0),
        end=end,
        head_hash=head,
        tail_hash=tail,
        last_timestamp=last_timestamp,
        chat_dir=str(chat.chat_dir) if chat.chat_dir else None,
        store_sig=_wal_sigs(chat.chat_dir / "store.db") if chat.chat_dir else [],
    )


def _can_append(state: CliState | None, chat: CliChat, sig: Sig) -> bool:
    if state is None or sig.size <= state.end or state.end == 0:
        return False
    if (str(chat.chat_dir) if chat.chat_dir else None) != state.chat_dir:
        return False
    try:
        return _hashes(chat.transcript, state.end) == (state.head_hash, state.tail_hash)
    except OSError:
        return False


def refresh(
    home: Path | None = None,
    *,
    full: bool = False,
    only_chat_ids: Iterable[str] | None = None,
    progress: Progress | None = None,
    lock_timeout: float = -1,
) -> RefreshResult:
    """Bring the index up to date with the stores on disk; see the module docstring.

    ``only_chat_ids`` limits the CLI side to those chats (the session-end
    hook's path); the IDE databases are always checked, cheaply.
    """
    from filelock import FileLock  # only writers pay for it

    started = time.perf_counter()
    home = home or paths.deja_home()
    directory = index_dir(home)
    directory.mkdir(parents=True, exist_ok=True)
    with FileLock(str(directory / LOCK_NAME), timeout=lock_timeout):
        manifest, state, index, why = _load(directory, full)
        problems: Counter[str] = Counter()
        new_state = State(ide={}, cli={}, where=dict(state.where))

        # IDE databases: which composers changed, and which are gone.
        ide_owner: dict[str, Path] = {}
        ide_dirty: dict[Path, set[str]] = {}
        for db in paths.ide_databases():
            sigs = _wal_sigs(db)
            old = state.ide.get(str(db))
            if old is not None and old.sigs == sigs:
                fingerprints = old.fingerprints
            else:
                fingerprints = composer_fingerprints(db, problems=problems)
                before = old.fingerprints if old else {}
                changed = {cid for cid, fp in fingerprints.items() if before.get(cid) != fp}
                if changed:
                    ide_dirty[db] = changed
            new_state.ide[str(db)] = IdeDbState(sigs=sigs, fingerprints=fingerprints)
            for cid in fingerprints:
                ide_owner.setdefault(cid, db)
        ide_gone = {cid for db_state in state.ide.values() for cid in db_state.fingerprints} - set(ide_owner)

        # CLI transcripts: unchanged, grown, rewritten, new or gone.
        targets = set(only_chat_ids) if only_chat_ids is not None else None
        chats: dict[str, CliChat] = {}
        cli_dirty: dict[str, CliChat] = {}
        cli_append: dict[str, CliChat] = {}
        for chat in find_cli_chats():
            key = str(chat.transcript)
            if chat.id in chats:
                continue
            chats[chat.id] = chat
            old_cli = state.cli.get(key)
            if targets is not None and chat.id not in targets:
                if old_cli is not None:
                    new_state.cli[key] = old_cli
                continue
            sig = _sig(chat.transcript)
            if sig is None:
                continue
            store_sig = _wal_sigs(chat.chat_dir / "store.db") if chat.chat_dir else []
            chat_dir = str(chat.chat_dir) if chat.chat_dir else None
            if old_cli is not None and old_cli.sig == sig and old_cli.store_sig == store_sig and old_cli.chat_dir == chat_dir:
                new_state.cli[key] = old_cli
            elif chat.id not in ide_owner and _can_append(old_cli, chat, sig) and chat.id in state.where:
                cli_append[chat.id] = chat
            else:
                cli_dirty[chat.id] = chat
        if targets is None:
            known = {s.chat_id for s in state.cli.values()}
            cli_gone = known - set(chats)
        else:
            cli_gone = set()

        dirty_ids = set(cli_dirty) | set(cli_append) | {c for ids in ide_dirty.values() for c in ids}
        # A merged chat is re-read from both sides when either side changed.
        for cid in list(dirty_ids):
            if cid in chats and cid in ide_owner and cid not in cli_dirty:
                cli_dirty[cid] = chats[cid]
                cli_append.pop(cid, None)
            if cid in ide_owner:
                ide_dirty.setdefault(ide_owner[cid], set()).add(cid)
        removed_ids = (ide_gone | cli_gone) - set(ide_owner) - set(chats)

        total = len(dirty_ids)
        done = 0
        writer = _Segments(directory)
        added = updated = 0
        try:
            ide_sessions: dict[str, Session] = {}
            for db, ids in ide_dirty.items():
                ids = {cid for cid in ids if ide_owner.get(cid) == db}
                for session in read_ide_database(db, only_ids=ids, problems=problems):
                    if session.id in chats:
                        ide_sessions[session.id] = session  # merged below with its transcript
                        continue
                    updated += session.id in state.where
                    added += session.id not in state.where
                    writer.add(session)
                    done += 1
                    if progress:
                        progress(done, total)
            for cid, chat in cli_append.items():
                key = str(chat.transcript)
                old = _old_session(index, state.where.get(cid))
                if old is None:
                    cli_dirty[cid] = chat
                    continue
                session, new_state.cli[key] = _append_to(old, chat, state.cli[key], problems)
                updated += 1
                writer.add(session)
                done += 1
                if progress:
                    progress(done, total)
            for cid, chat in cli_dirty.items():
                session = read_cli_session(chat.transcript, chat.chat_dir, problems=problems)
                key = str(chat.transcript)
                if session is None:
                    new_state.cli[key] = _cli_state(chat, 0, None)
                    continue
                ide = ide_sessions.pop(cid, None)
                end = _sig(chat.transcript).size if _sig(chat.transcript) else 0  # type: ignore[union-attr]
                new_state.cli[key] = _cli_state(chat, end, session.messages[-1].timestamp if session.messages else None)
                if ide is not None:
                    session = merge_transcript_into_ide(ide, session)
                updated += cid in state.where
                added += cid not in state.where
                writer.add(session)
                done += 1
                if progress:
                    progress(done, total)
            for session in ide_sessions.values():  # a merged chat whose transcript read came back empty
                writer.add(session)
            writer.flush()
        except BaseException:
            writer.abandon()
            raise

        # Dirty sessions that now read as empty are removed too.
        vanished = {cid for cid in dirty_ids if cid not in writer.where} | removed_ids
        segments = [msgspec.structs.replace(ref, deleted=list(ref.deleted)) for ref in (manifest.segments if manifest else [])]
        by_name = {ref.name: ref for ref in segments}
        for cid in set(writer.where) | vanished:
            old_loc = new_state.where.pop(cid, None)
            if old_loc is not None and old_loc.segment in by_name:
                ref = by_name[old_loc.segment]
                ref.deleted.append(old_loc.ordinal)
                ref.deleted_messages += _message_count(index, old_loc)
        new_state.where.update(writer.where)
        removed = sum(1 for cid in vanished if cid in state.where)
        segments = [ref for ref in segments if ref.deleted is None or len(ref.deleted) < ref.sessions] + writer.done
        new_state.problems = dict(Counter(state.problems) | problems)
        nothing_changed = manifest is not None and not writer.done and not removed and new_state == state
        if not nothing_changed:
            segments = _compact(directory, index, segments, new_state, problems)
            generation = (manifest.generation + 1) if manifest else 1
            state_name = f"state-{generation}.msgpack"
            (directory / state_name).write_bytes(msgspec.msgpack.encode(new_state))
            write_manifest(
                directory,
                Manifest(version=FORMAT_VERSION, generation=generation, built_at=time.time(), segments=segments, state=state_name),
            )
            for old_state in directory.glob("state-*.msgpack"):
                if old_state.name != state_name:
                    old_state.unlink(missing_ok=True)
            remove_stale_segments(directory, [ref.name for ref in segments], grace_seconds=0 if manifest is None else 60)
        live = segments if not nothing_changed else (manifest.segments if manifest else [])
        return RefreshResult(
            sessions=sum(ref.sessions - len(ref.deleted) for ref in live),
            messages=sum(ref.messages - ref.deleted_messages for ref in live),
            added=added,
            updated=updated,
            removed=removed,
            seconds=round(time.perf_counter() - started, 3),
            problems=dict(problems),
            rebuilt_because=why,
        )


def _message_count(index: Index | None, where: Location) -> int:
    for segment in index.segments if index else []:
        if segment.ref.name == where.segment:
            return segment.session(where.ordinal).messages
    return 0


def _compact(
    directory: Path, index: Index | None, segments: list[SegmentRef], state: State, problems: Counter[str]
) -> list[SegmentRef]:
    """Merge the smallest segments once there are too many; drop fully deleted ones."""
    segments = [ref for ref in segments if len(ref.deleted) < ref.sessions]
    if len(segments) <= MAX_SEGMENTS:
        return segments
    ordered = sorted(segments, key=lambda ref: ref.docs - 0)
    merge = ordered[: len(segments) - MAX_SEGMENTS // 2]
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
    state.where.update(writer.where)
    return keep + writer.done
