"""cursor-agent chats as sessions: a transcript's turns with its store's results and turns, or the store alone.

A chat with a transcript (one JSONL file) is that transcript, to which the chat
folder ``chats/<md5 of cwd>/<id>`` adds the tool results and the turns the
transcript lacks (``store.db``: :func:`with_store_turns`), the title and the
project directory (``meta.json``), which is the directory ``deja`` tells
``cursor-agent --resume`` to run in. A chat folder with a ``store.db`` and no
transcript anywhere (pruned transcripts, builds and remote runs that write only
the store, ``acp-sessions/<id>``) is read from the store alone.

One reader serves a full build and a refresh: reading a transcript from where
the last read stopped is its ``resume`` parameter.
"""

import os
from collections import Counter
from collections.abc import Hashable
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

from ..lean_msgspec import msgspec
from ..model import Message, Session, ToolCall, fill_times
from ..regular_files import forbidden, gone
from .chatstore import (
    STORE_DB,
    ChatMeta,
    StoreChat,
    attach_tool_results,
    chat_title,
    find_chat_dirs,
    newest_chat_dir,
    preamble_folder,
    read_chat_meta,
    read_store,
    store_problem,
)
from .conversation import normalise_tool_name
from .pairing import target_of, text_key, whole_call
from .projects import Found, cli_folder, path_values
from .transcripts import (
    chat_id_of,
    is_subagent,
    project_slug_of,
    read_transcript,
    session_id_of,
)
from .unreadable import MOVED_AWAY

UNREADABLE_TRANSCRIPT = "unreadable transcript"
NO_STORE = "no store.db and no transcript"


class Resume(NamedTuple):
    """Where a previous read of the same, since grown, transcript stopped."""

    #: The session's messages as that read gave them (extended in place by a tool-only record that continues them).
    messages: list[Message]
    #: Its ``end`` and ``last_timestamp`` (a resume needs a known time: an undated read is read again whole).
    end: int
    last_timestamp: datetime


class CliRead(msgspec.Struct):
    """One chat read: its session (None when it holds no turn) and where the transcript read stopped."""

    session: Session | None
    #: Byte offset after the last transcript line read (0 for a chat read from its store alone).
    end: int = 0
    #: The last ``<timestamp>`` block read, if any: a later read resumes with it.
    last_timestamp: datetime | None = None
    #: The chat's transcript or store.db is there but could not be read this time (locked, damaged, a FIFO in its
    #: place, a folder above it this user cannot search): the session lacks what it holds.
    unreadable: bool = False
    #: The file that could not be read ("" when every file was), which a message names.
    unreadable_file: str = ""


def read_cli_session(
    transcript: Path | None, chat_dir: Path | None, problems: Counter[str] | None = None
) -> Session | None:
    """One chat as a session, or None when it is unreadable or holds no turn (see :func:`read_cli_chat`)."""
    return read_cli_chat(transcript, chat_dir, problems).session


def read_cli_chat(
    transcript: Path | None,
    chat_dir: Path | None,
    problems: Counter[str] | None = None,
    *,
    resume: Resume | None = None,
    decoded: dict[str, list[Path]] | None = None,
) -> CliRead:
    """One chat: from its transcript (read from ``resume`` on when given), else from its store alone.

    ``chat_dir`` is the chat's folder (``find_all_chat_dirs()[chat id]``); ``decoded``, the project slugs a
    caller reading many chats has decoded so far (``projects.cli_folder``).
    Project directory: meta.json's ``cwd``, else the encoded project folder
    decoded against the disk; when even that fails, ``project`` is the encoded
    folder name and ``project_dir`` is empty.

    A subagent transcript is its own session, ``<parent id>/<child stem>``: it
    takes its parent chat's project, but not its title, times or tool results
    (the parent's store pairs the parent's calls).
    """
    problems = Counter() if problems is None else problems
    if transcript is None:
        return _read_store_chat(chat_dir, problems) if chat_dir else CliRead(None)
    # (counted before the read, which may append a tool-only record's calls to the last stored message)
    stored_calls = sum(len(message.tool_calls) for message in resume.messages) if resume else 0
    try:
        read = read_transcript(
            transcript,
            start=resume.end if resume else 0,
            carry=resume.last_timestamp if resume else None,
            after=resume.messages if resume else (),
            problems=problems,
        )
    except OSError:  # there, but not readable this time (a FIFO in its place, a folder above it at mode 000)
        problems[UNREADABLE_TRANSCRIPT] += 1
        return _store_instead(transcript, chat_dir, problems)
    messages = resume.messages + read.messages if resume else read.messages
    stamp = read.last_timestamp or (resume.last_timestamp if resume else None)
    if not messages:
        return CliRead(None, read.end, stamp)
    subagent = is_subagent(transcript)
    meta = read_chat_meta(chat_dir) if chat_dir else None
    store: StoreChat | None = None
    end = read.end
    if chat_dir and not subagent and not gone(chat_dir / STORE_DB):  # (read_store counts one it cannot read)
        store = read_store(chat_dir / STORE_DB, problems)
        attach_tool_results(messages, store.tool_results, stored_calls)
        whole = with_store_turns(messages, store.messages)
        if whole is not messages:  # the session is no longer the transcript up to ``end``: the next read is whole
            messages, end = whole, 0

    slug = project_slug_of(transcript)
    touched = (path for message in messages for call in message.tool_calls for path in path_values(call.args))
    said = (message.text for message in messages)
    session = cli_folder(meta.cwd if meta else "", slug, decoded, touched, said).apply(
        Session(
            id=session_id_of(transcript),
            source="cursor-cli",
            project=slug,
            title=chat_title(store, None if subagent else meta, messages),
            origin=str(transcript),
            messages=messages,
        )
    )
    set_session_times(session, stamp is not None, None if subagent else meta)
    unread = bool(store and store.unreadable)
    return CliRead(session, end, stamp, unread, str(chat_dir / STORE_DB) if unread and chat_dir else "")


def with_store_turns(transcript: list[Message], store: list[Message]) -> list[Message]:
    """The transcript's messages with what only the chat's store holds; ``transcript`` itself when that is nothing.

    The store holds the whole conversation (cursor-drift-2026 §10) and the
    transcript may hold less: a chat continued where only the store is written,
    a transcript pruned or written by a build that lags. There is no shared
    message id, so turns (a question and its answers) are paired by the
    question's text, in order (cursor-formats.md §3.6). A store with more
    questions than the transcript is taken whole, each turn both hold as the
    transcript's (its tool calls carry what the store's lack); else the store's
    turns after the last paired one are added when that is the transcript's last
    turn, with what that turn's store version holds beyond it (:func:`_turn_with_store`).
    """
    ours, theirs = _turns(transcript), _turns(store)
    pairs = _paired_turns(ours, theirs)
    answers = {at: _dated_by_store(ours[ours_at], theirs[at]) for at, ours_at in pairs.items()}
    if sum(1 for turn in theirs if turn[0].role == "user") > sum(1 for turn in ours if turn[0].role == "user"):
        return [
            message
            for at, turn in enumerate(theirs)
            for message in (_turn_with_store(ours[pairs[at]], turn, answers[at]) if at in pairs else turn)
        ]
    last, ours_at = max(pairs.items(), default=(0, -1))
    if ours_at != len(ours) - 1:  # nothing pairs, or the transcript goes on past the last turn both hold
        return transcript
    turn = _turn_with_store(ours[ours_at], theirs[last], answers[last])
    later = [message for step in theirs[last + 1 :] for message in step]
    if turn is ours[ours_at] and not later:
        return transcript
    return transcript[: len(transcript) - len(ours[ours_at])] + turn + later


def _turns(messages: list[Message]) -> list[list[Message]]:
    """The messages cut before each question: a turn is a user message and the answers after it (answers before
    the first question are a turn of their own)."""
    turns: list[list[Message]] = []
    for message in messages:
        if message.role == "user" or not turns:
            turns.append([message])
        else:
            turns[-1].append(message)
    return turns


def _paired_turns(ours: list[list[Message]], theirs: list[list[Message]]) -> dict[int, int]:
    """Store turn -> transcript turn asking the same question, each the first unpaired one after the last pair."""
    pairs: dict[int, int] = {}
    start = 0
    questions = [_key(turn[0]) for turn in ours]  # (each keyed once, not once a store turn)
    for at, turn in enumerate(theirs):
        key = _key(turn[0]) if turn[0].role == "user" else None
        found = next((i for i in range(start, len(ours)) if key and questions[i] == key), None)
        if found is not None:
            pairs[at], start = found, found + 1
    return pairs


def _dated_by_store(ours: list[Message], theirs: list[Message]) -> dict[int, int]:
    """Give a transcript turn's answers the times of their store copies, and return its answers' pairs
    (:func:`_paired_answers`).

    A transcript dates a message by the last ``<timestamp>`` block before it, its question's: every answer of a
    turn has the minute it was asked. The store dates each node (trial20 F2). The question keeps its own block's
    time, and an answer the store lacks, or whose copy has no time, the transcript's. In place: the list stays the
    transcript read up to its end."""
    answers = _paired_answers(ours, theirs)
    for mine, stored in answers.items():
        if theirs[stored].timestamp is not None:
            ours[mine].timestamp = theirs[stored].timestamp
    return answers


def _turn_with_store(ours: list[Message], theirs: list[Message], pairs: dict[int, int]) -> list[Message]:
    """A turn as the transcript holds it, with the store's answers after the last answer both hold (answers the
    transcript was never written); ``ours`` itself when the store adds nothing. All the store's answers when the
    transcript's turn is the question alone; none when no answer pairs (``pairs``, :func:`_dated_by_store`'s: the
    two spell the turn differently, and adding it would show it twice).

    Both records join a step's textless calls to the answer before them, so a transcript that stops after the
    first of a message's calls (or after its text) holds the start of the store's message: that message is the
    store's then, its calls joined as a transcript read to the end joins them (trial14 F1: the failed call was
    there, the fix and the rerun that succeeded were not)."""
    if len(ours) == 1:
        return ours + theirs[1:] if len(theirs) > 1 else ours
    if not pairs:
        return ours
    last = max(pairs.values())
    if pairs.get(len(ours) - 1) == last and _gone_on(ours[-1], theirs[last]):
        calls = ours[-1].tool_calls + theirs[last].tool_calls[len(ours[-1].tool_calls) :]
        return [*ours[:-1], msgspec.structs.replace(ours[-1], tool_calls=calls), *theirs[last + 1 :]]
    return ours + theirs[last + 1 :] if last + 1 < len(theirs) else ours


def _paired_answers(ours: list[Message], theirs: list[Message]) -> dict[int, int]:
    """Transcript answer -> store answer of one turn: the first store answer after the last pair with the same
    key (for the transcript's last answer, also one that is it gone on, :func:`_gone_on`). The transcript's turn
    is the start of the store's, so an answer pairs by its place, not by its text alone: an agent that says
    "Running the migration" again before the rerun would otherwise have the transcript's first one paired with
    the rerun's, the calls between dropped (review24 R24-1), or, its transcript ahead of the store, its rerun
    grown with the store's first message's calls (R24-2)."""
    keys = [_key(message) for message in theirs]
    pairs: dict[int, int] = {}
    start = 1
    for at, answer in enumerate(ours[1:], 1):
        key, final = _key(answer), at == len(ours) - 1
        found = next(
            (i for i in range(start, len(theirs)) if keys[i] == key or (final and _gone_on(answer, theirs[i]))),
            None,
        )
        if found is not None:
            pairs[at], start = found, found + 1
    return pairs


def _gone_on(answer: Message, theirs: Message) -> bool:
    """Whether the store's message is ``answer`` gone on: the same text, and calls that start with ``answer``'s
    and go on. It is the message the transcript stopped writing after ``answer``'s calls, or after its text,
    before the calls the store joined to it."""
    calls = answer.tool_calls
    return (
        answer.role == "assistant"
        and text_key(theirs) == text_key(answer)
        and len(theirs.tool_calls) > len(calls)
        and [_call_key(call) for call in theirs.tool_calls[: len(calls)]] == [_call_key(call) for call in calls]
    )


def _call_key(call: ToolCall) -> Hashable:
    """A call by what it acted on, else its whole arguments: the two records' arguments for one call can differ in
    the others (Shell's ``description``…)."""
    return target_of(call) or whole_call(call)


def _key(message: Message) -> tuple[str, str]:
    """What pairs a message of the transcript with the store's: its role and text, or the tools a textless answer
    called."""
    role, text = text_key(message)
    return role, text or " ".join(normalise_tool_name(call.name) for call in message.tool_calls)


def _store_instead(transcript: Path, chat_dir: Path | None, problems: Counter[str]) -> CliRead:
    """A chat whose transcript cannot be read this time, from its store: the store holds the whole conversation
    (drift §10), as for a chat that never had a transcript. It is still ``unreadable``: the index keeps a session
    it read from the transcript before, and the next refresh reads the chat again. A subagent's transcript has no
    store of its own."""
    if chat_dir is None or is_subagent(transcript) or gone(chat_dir / STORE_DB):
        return CliRead(None, unreadable=True, unreadable_file=str(transcript))
    read = _read_store_chat(chat_dir, problems)
    return CliRead(read.session, unreadable=True, unreadable_file=str(transcript))


def _read_store_chat(chat_dir: Path, problems: Counter[str]) -> CliRead:
    """A chat with no transcript, from its store: project from meta.json's trusted ``cwd``, else its preamble's
    ``Workspace Path:`` line (``_store_folder``).

    Times: the messages' own (``<timestamp>`` blocks, node times); with none,
    meta.json's ``createdAtMs``/``updatedAtMs``, else the store's ``createdAt``,
    else the store file's modification time.
    """
    store_db = chat_dir / STORE_DB
    store = read_store(store_db, problems)
    if store.unreadable:
        return CliRead(None, unreadable=True, unreadable_file=str(store_db))
    if not store.messages:
        return CliRead(None)
    meta = read_chat_meta(chat_dir)
    session = _store_folder(chat_dir, meta, store).apply(
        Session(
            id=chat_dir.name,
            source="cursor-cli",
            title=chat_title(store, meta, store.messages),
            origin=str(store_db),
            messages=store.messages,
        )
    )
    if store.dated:
        fill_times(session)
        return CliRead(session)
    created = (meta.created if meta else None) or store.created or _mtime(store_db)
    updated = (meta.updated if meta else None) or created
    for message in session.messages:
        message.timestamp = created
    session.started, session.updated = created, max(created, updated)
    return CliRead(session)


def _store_folder(chat_dir: Path, meta: ChatMeta | None, store: StoreChat) -> Found:
    """A store-only chat's folder: meta.json's trusted ``cwd``, else the store's ``Workspace Path:`` line
    (``preamble_folder``): ``cwd`` is missing on some chats (cursor-formats §3.2), the preamble never is."""
    if meta and meta.project_dir:
        return Found(meta.project_dir, "meta.json cwd")
    folder = preamble_folder(chat_dir, store.workspace)
    return Found(folder, "Workspace Path") if folder else Found()


def _mtime(path: Path) -> datetime:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
    except OSError:
        return datetime.fromtimestamp(0, tz=UTC)


def chat_id_of_origin(origin: str) -> str:
    """The chat id of a cursor-agent session's origin: a transcript, or a chat's ``store.db``."""
    if os.path.basename(origin) == STORE_DB:
        return os.path.basename(os.path.dirname(origin))
    return chat_id_of(origin)


def set_session_times(session: Session, stamped: bool, meta: ChatMeta | None) -> None:
    """From the messages' times (``<timestamp>`` blocks, the store's node times), as a chat read from its store
    alone; a transcript without any block uses meta.json's times, else its mtime."""
    if not stamped and meta and meta.created:
        session.started = meta.created
        session.updated = max(meta.updated or meta.created, meta.created)
    else:
        fill_times(session)


def find_all_chat_dirs(roots: list[Path]) -> dict[str, Path]:
    """Chat id -> chat folder over every root (``all_chat_folders``), as a ``Path``."""
    return {chat_id: Path(folder) for chat_id, folder in all_chat_folders(roots).items()}


def all_chat_folders(roots: list[Path]) -> dict[str, str]:
    """Chat id -> chat folder over every root (a chat's folder may sit under another root than its transcript); a
    chat under two roots is its copy written last (``newest_chat_dir``). Strings: the walk's path."""
    chat_dirs: dict[str, str] = {}
    for root in roots:
        for chat_id, chat_dir in find_chat_dirs(root).items():
            kept = chat_dirs.setdefault(chat_id, chat_dir)
            if kept is not chat_dir:
                chat_dirs[chat_id] = str(newest_chat_dir(Path(kept), Path(chat_dir)))
    return chat_dirs


def store_only_chats(chat_dirs: dict[str, Path], transcribed: set[str]) -> dict[str, Path]:
    """The chats read from their store alone: a ``store.db`` and no transcript under any root.

    A store with something else in its place (a folder, a FIFO) is one: its read says it cannot be read this time,
    so what was read from it before is kept (an upgrade rebuild keeps the older index aside and says so), where
    left out of the walk it was dropped with no word (review7b #8); as ``locate_cli_chats`` and doctor see it."""
    return {
        chat_id: chat_dir
        for chat_id, chat_dir in chat_dirs.items()
        if chat_id not in transcribed and not gone(chat_dir / STORE_DB)
    }


#: Why a chat's store cannot be read when this user lacks the permission (doctor names the file and the fix).
FORBIDDEN_STORE = "store.db this user may not read"


class ChatSurvey(msgspec.Struct):
    """deja doctor's look at the chat folders that have no transcript."""

    #: Read from their store alone.
    store_only: int = 0
    #: Chats deja cannot read, by why.
    unreadable: dict[str, int] = {}


def survey_chats(roots: list[Path], transcribed: set[str]) -> ChatSurvey:
    """How many chats without a transcript are read from their store, and why the others cannot be.

    A folder without a ``store.db`` whose meta.json says it never had a
    conversation is not a chat yet, and not counted. Each store is opened for its
    meta row and root only.
    """
    survey = ChatSurvey()
    why: Counter[str] = Counter()
    for chat_id, chat_dir in find_all_chat_dirs(roots).items():
        if chat_id in transcribed:
            continue
        if gone(chat_dir / STORE_DB):
            meta = read_chat_meta(chat_dir)
            # (a damaged store moved away as deja said: no problem left, review47f L1)
            if (meta is None or meta.has_conversation) and gone(chat_dir / f"{STORE_DB}{MOVED_AWAY}"):
                why[NO_STORE] += 1
            continue
        problem = FORBIDDEN_STORE if forbidden(chat_dir / STORE_DB) else store_problem(chat_dir / STORE_DB)
        if problem:
            why[problem] += 1
        else:
            survey.store_only += 1
    survey.unreadable = dict(why)
    return survey
