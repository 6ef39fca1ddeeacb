"""A person's whole Cursor history as one stream of sessions, one per chat id.

The IDE agent also writes CLI transcripts named after its composer id; such a
chat comes out once, as a ``cursor-ide`` session to which the transcript adds
what the database lacks.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

from . import paths
from .bookkeeping import Bookkeeping
from .index.format import edited_paths, in_project
from .keys import EDIT_TOOLS, resolved_folder
from .lean_msgspec import msgspec
from .model import Message, Session, ToolCall, fill_times
from .readers import Projects, all_chat_folders, read_cli_chat, scan_transcripts, store_only_chats
from .readers.chatstore import chat_folders, is_acp_chat, newest_chat_dir
from .readers.conversation import normalise_tool_name
from .readers.pairing import Pass, pair_calls, target_of, text_key, whole_call
from .regular_files import check_regular, gone


class CliChat(msgspec.Struct, gc=False):
    """A cursor-agent chat found on disk. Paths stay strings: a refresh finds every chat on every run."""

    #: The session id: the chat id, or ``<parent>/<child>`` for a subagent transcript.
    id: str
    #: The transcript; "" for a chat read from its store alone.
    transcript: str
    chat_dir: str | None = None
    #: The transcript's size and modification time when it was found (0 without one).
    size: int = 0
    mtime_ns: int = 0

    @property
    def transcript_path(self) -> Path | None:
        return Path(self.transcript) if self.transcript else None

    @property
    def chat_dir_path(self) -> Path | None:
        return Path(self.chat_dir) if self.chat_dir else None


def find_cli_chats(unsearchable: list[str] | None = None) -> Iterator[CliChat]:
    """Every transcript under the cursor-agent roots, with its chat folder where one exists; then every chat
    that has a ``store.db`` and no transcript. ``unsearchable`` gets the transcripts' chat folders this user may not
    search (``scan_transcripts``)."""
    roots = paths.cli_roots()
    # Folders as strings, one per chat, which its CliChat shares: a full build's plan holds every chat's (at 100k
    # chats a Path and a copy of its string each took about 9 MB more).
    chat_dirs = all_chat_folders(roots)
    include = paths.include_subagents()
    transcribed: set[str] = set()
    for root in roots:
        for found in scan_transcripts(root, include, unsearchable):
            if found.session_id == found.chat_id:
                transcribed.add(found.chat_id)
            yield CliChat(
                id=found.session_id,
                transcript=found.path,
                chat_dir=chat_dirs.get(found.chat_id),
                size=found.stat.st_size,
                mtime_ns=found.stat.st_mtime_ns,
            )
    untranscribed = {chat_id: Path(folder) for chat_id, folder in chat_dirs.items() if chat_id not in transcribed}
    for chat_id, folder in store_only_chats(untranscribed, transcribed).items():
        yield CliChat(id=chat_id, transcript="", chat_dir=str(folder))


def locate_cli_chats(session_ids: set[str], book: Bookkeeping) -> Iterator[CliChat]:
    """The transcripts (or stores) of just these sessions: where the index last saw them, else found by name.

    The session-end hook's path and a read's after the cheap check, which must not walk every transcript: a
    chat still where it was recorded costs a few ``stat`` calls; only one that moved, or a store not seen
    before, is looked for in every project (``_named_transcripts``, ``_chat_dir``).
    """
    roots = paths.cli_roots()
    for session_id in sorted(session_ids):
        record = book.chat(session_id)
        cli = record.cli if record else None
        chat_id, _, child = session_id.partition("/")
        recorded = cli.chat_dir if cli and cli.chat_dir and os.path.isdir(cli.chat_dir) else None
        chat_dir = _recorded_or_newer(roots, recorded) if recorded else _chat_dir(roots, chat_id)
        known = [Path(cli.transcript)] if cli and cli.transcript else []
        found = next(_stat_transcripts(session_id, known, chat_dir), None)
        if found is None:
            found = next(_stat_transcripts(session_id, _named_transcripts(roots, chat_id, child), chat_dir), None)
        if found is None and not child and chat_dir and not gone(os.path.join(chat_dir, "store.db")):
            found = CliChat(id=session_id, transcript="", chat_dir=chat_dir)
        if found is not None:
            yield found


def _named_transcripts(roots: list[Path], chat_id: str, child: str) -> Iterator[Path]:
    """Every transcript named for ``chat_id`` (or its subagent ``child``) in any project, in the walk's order."""
    for root in roots:
        folder = root / "projects"
        if child:
            yield from _glob(folder, f"*/agent-transcripts/{chat_id}/subagents/{child}.jsonl")
        else:
            yield from _glob(folder, f"*/agent-transcripts/{chat_id}/{chat_id}.jsonl")
            yield from _glob(folder, f"*/agent-transcripts/{chat_id}.jsonl")


def _glob(folder: Path, pattern: str) -> list[Path]:
    """``folder.glob(pattern)``, or what it found before a folder it cannot search (``Path.glob`` raises there)."""
    found: list[Path] = []
    with contextlib.suppress(OSError):
        found.extend(folder.glob(pattern))
    return found


def _chat_dir(roots: list[Path], chat_id: str) -> str | None:
    """The chat folder of ``chat_id`` under any root, looked for in every bucket as a walk finds it
    (``find_chat_dirs``: the buckets by name, then ``acp-sessions``), one ``stat`` a bucket (a ``glob`` over 500
    buckets took three times the CPU); under two roots, the copy written last (``newest_chat_dir``)."""
    if chat_id in ("", ".", ".."):
        return None
    found = [chat_dir for root in roots if (chat_dir := _chat_dir_under(root, chat_id))]
    return str(newest_chat_dir(*found)) if found else None


def _recorded_or_newer(roots: list[Path], recorded: str) -> str:
    """The chat folder a walk recorded, or its copy in the same place under another root when that one was written
    later (``newest_chat_dir``: the chat resumed after its root moved), one ``stat`` a root. The same place is
    ``chats/<hash>/<id>`` (or ``acp-sessions/<id>``) below each root: the hash is the chat's folder's md5."""
    chat_dir = Path(recorded)
    tail = chat_dir.relative_to(chat_dir.parents[1 if is_acp_chat(chat_dir) else 2])
    copies = [copy for root in roots if (copy := root / tail) != chat_dir and os.path.isdir(copy)]
    return str(newest_chat_dir(chat_dir, *copies))


def _chat_dir_under(root: Path, chat_id: str) -> Path | None:
    """The first folder of ``root`` holding the chat, as ``find_chat_dirs`` takes it."""
    found = (os.path.join(folder, chat_id) for folder in chat_folders(root))
    return next((Path(candidate) for candidate in found if os.path.isdir(candidate)), None)


def _stat_transcripts(session_id: str, candidates: Iterable[Path], chat_dir: str | None) -> Iterator[CliChat]:
    for transcript in candidates:
        try:
            stat = check_regular(transcript)  # a FIFO under a transcript's name would block its reader
        except OSError:
            continue
        yield CliChat(
            id=session_id, transcript=str(transcript), chat_dir=chat_dir, size=stat.st_size, mtime_ns=stat.st_mtime_ns
        )


def ide_composer_owners(problems: Counter[str] | None = None) -> dict[str, Path]:
    """Chat id -> the database that holds it (global storage first, then each workspace); a database that only lists
    a chat (``listed_only``) holds none of it."""
    from .readers.ide import composer_fingerprints, listed_only  # (a refresh of the chats a check names needs none)

    owners: dict[str, Path] = {}
    for db in paths.ide_databases():
        for chat_id, fingerprint in composer_fingerprints(db, problems=problems).items():
            if not listed_only(fingerprint):
                owners.setdefault(chat_id, db)
    return owners


def read_ide_session(
    db: Path, chat_id: str, problems: Counter[str] | None = None, projects: Projects | None = None
) -> Session | None:
    from .readers.ide import read_ide_database

    return next(read_ide_database(db, only_ids={chat_id}, problems=problems, projects=projects), None)


def merge_transcript_into_ide(ide: Session, cli: Session) -> Session:
    """Add the transcript's turns and tool calls that the IDE database lacks, in place.

    Turns are matched by their text; an unmatched transcript turn goes right
    after the last matched one. A transcript call is added unless the database
    recorded it (:func:`_calls_the_database_lacks`): a Write kept only in the
    transcript is the one record of the file's lines, and no call appears twice.
    """
    lacking = _calls_the_database_lacks(ide, cli)
    by_text: dict[tuple[str, str], int] = {}
    for i, message in enumerate(ide.messages):
        key = text_key(message)
        if key[1]:
            by_text.setdefault(key, i)
    merged: list[Message] = list(ide.messages)
    position = 0
    for message in cli.messages:
        calls = [call for call in message.tool_calls if id(call) in lacking]
        key = text_key(message)
        found = by_text.get(key) if key[1] else None
        if found is not None:
            target = ide.messages[found]
            target.tool_calls = [*target.tool_calls, *calls]
            position = next(i for i, m in enumerate(merged) if m is target) + 1
            continue
        if not message.text and not calls:
            continue
        merged.insert(position, msgspec.structs.replace(message, tool_calls=calls))
        position += 1
    ide.messages = merged
    if not ide.project_dir and not ide.project_from:  # (a remote window's chat has no folder here: ``readers.remote``)
        ide.project, ide.project_dir, ide.project_from = cli.project or ide.project, cli.project_dir, cli.project_from
    ide.title = ide.title or cli.title
    fill_times(ide)
    return ide


def _calls_the_database_lacks(ide: Session, cli: Session) -> set[int]:
    """The ``id`` of each transcript call the database did not record.

    Paired as the chat store's calls are with a transcript's (:func:`~deja.core.readers.pairing.pair_calls`): by
    tool and arguments, the earliest unused database call first, then a call left over by tool and what it acted
    on (the editor's arguments carry fields the transcript's lack), then an edit left over by the file it changed,
    however the two spell the tool and its path (:func:`_edited_file`: the database's ``app.py`` is the transcript's
    ``/…/project/app.py``). Each pass pairs greedily: only how many
    calls the database holds matters here, not which is whose. A transcript call nothing pairs with is one the
    database lacks.
    """
    left = [call for message in cli.messages for call in message.tool_calls]
    recorded = [call for message in ide.messages for call in message.tool_calls]
    folder = ide.project_dir or cli.project_dir

    def edited(call: ToolCall) -> tuple[str, str] | None:
        return _edited_file(call, folder)

    passes = (Pass(whole_call, whole_call), Pass(target_of, target_of), Pass(edited, edited))
    paired = pair_calls(left, recorded, passes)
    return {id(call) for at, call in enumerate(left) if at not in paired}


def _edited_file(call: ToolCall, project_dir: str) -> tuple[str, str] | None:
    """An edit's kind (a deletion, else a change) and the file it changed, relative to the session's project folder
    when inside it: the editor writes ``search_replace {file_path}`` and ``edit_file {target_file}`` where the
    transcript has ``StrReplace {path}`` and ``Write {path}`` for the same edit (cursor-drift-2026 §16), and may name
    the file relative to its workspace (``app.py``) where the transcript names it absolutely; None for a call that
    is no edit or names no file."""
    if call.name not in EDIT_TOOLS:
        return None
    changed = edited_paths(call.args, "")
    kind = "Delete" if normalise_tool_name(call.name) == "Delete" else "edit"
    return (kind, _in_folder(changed[0], project_dir)) if changed else None


def _in_folder(path: str, project_dir: str) -> str:
    """``path`` relative to ``project_dir`` when inside it, as the folder was opened or where its links lead (the
    editor keeps a folder as opened, cursor-agent as resolved); else as given."""
    if not project_dir.startswith("/"):
        return path
    folder = posixpath.normpath(project_dir)
    for place in (folder, resolved_folder(folder)):
        path = in_project(path, place)
    return path


def read_history(problems: Counter[str] | None = None) -> Iterator[Session]:
    """Every session on this machine, streamed: one chat in memory at a time."""
    from .readers.ide import read_ide_database

    owners = ide_composer_owners(problems)
    projects = Projects.of_this_machine(problems)
    merged: set[str] = set()
    for chat in find_cli_chats():
        if chat.id in merged:
            continue
        session = read_cli_chat(chat.transcript_path, chat.chat_dir_path, problems).session
        if session is None:
            continue
        owner = owners.get(session.id)
        ide = read_ide_session(owner, session.id, problems, projects) if owner else None
        if ide is not None:
            merged.add(session.id)
            session = merge_transcript_into_ide(ide, session)
        yield projects.settle(session)
    seen: set[str] = set(merged)
    subagents = paths.include_subagents()
    for db in paths.ide_databases():
        for session in read_ide_database(db, problems=problems, projects=projects, subagents=subagents):
            if session.id not in seen:
                seen.add(session.id)
                yield session
