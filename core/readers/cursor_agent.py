"""cursor-agent CLI chats as sessions: a transcript's turns plus, from its chat folder, results and project.

The transcript is the session (one per JSONL file). The chat folder
``chats/<md5 of cwd>/<id>`` adds the tool results (``store.db``), the title, and
the project directory (``meta.json``), which is the directory ``deja`` tells
``cursor-agent --resume`` to run in.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from ..model import Session, fill_times
from ..projects import cli_folder
from .chatstore import (
    ChatMeta,
    StoreChat,
    attach_tool_results,
    chat_title,
    find_chat_dirs,
    read_chat_meta,
    read_store,
)
from .transcripts import (
    chat_id_of,
    find_transcripts,
    is_subagent,
    project_slug_of,
    read_transcript,
    session_id_of,
)

UNREADABLE_TRANSCRIPT = "unreadable transcript"


def read_cli_session(transcript: Path, chat_dir: Path | None, problems: Counter[str] | None = None) -> Session | None:
    """One CLI chat as a session, or None when the transcript is unreadable or holds no turn.

    ``chat_dir`` is the chat's folder (``find_chat_dirs()[chat_id_of(transcript)]``).
    Project directory: meta.json's ``cwd`` (verified by its md5 folder or not),
    else the encoded project folder decoded against the disk; when even that
    fails, ``project`` is the encoded folder name and ``project_dir`` is empty.

    A subagent transcript is its own session, ``<parent id>/<child stem>``: it
    takes its parent chat's project, but not its title, times or tool results
    (the parent's store pairs the parent's calls).
    """
    try:
        read = read_transcript(transcript, problems=problems)
    except OSError:
        if problems is not None:
            problems[UNREADABLE_TRANSCRIPT] += 1
        return None
    if not read.messages:
        return None
    subagent = is_subagent(transcript)
    meta = read_chat_meta(chat_dir) if chat_dir else None
    store: StoreChat | None = None
    if chat_dir and not subagent and (chat_dir / "store.db").is_file():
        wants_results = any(m.tool_calls for m in read.messages)
        store = read_store(chat_dir / "store.db", problems, with_results=wants_results)
        attach_tool_results(read.messages, store.tool_results)

    slug = project_slug_of(transcript)
    session = cli_folder(meta.cwd if meta else "", slug).apply(
        Session(
            id=session_id_of(transcript),
            source="cursor-cli",
            project=slug,
            title=chat_title(store, None if subagent else meta, read.messages),
            origin=str(transcript),
            messages=read.messages,
        )
    )
    set_session_times(session, read.last_timestamp is not None, None if subagent else meta)
    return session


def set_session_times(session: Session, stamped: bool, meta: ChatMeta | None) -> None:
    """From the turns' ``<timestamp>`` blocks; a transcript without any uses meta.json's times, else its mtime."""
    if not stamped and meta and meta.created:
        session.started = meta.created
        session.updated = max(meta.updated or meta.created, meta.created)
    else:
        fill_times(session)


def find_all_chat_dirs(roots: list[Path]) -> dict[str, Path]:
    """Chat id -> chat folder over every root (a chat's folder may sit under another root than its transcript)."""
    chat_dirs: dict[str, Path] = {}
    for root in roots:
        for chat_id, chat_dir in find_chat_dirs(root).items():
            chat_dirs.setdefault(chat_id, chat_dir)
    return chat_dirs


def chats_without_transcript(roots: list[Path]) -> int:
    """Chats with a ``store.db`` but no transcript under any root: deja doctor's drift alarm.

    Every such chat had one so far; a count above zero means cursor-agent may have
    stopped writing agent-transcripts.
    """
    transcribed = {chat_id_of(t) for root in roots for t in find_transcripts(root, include_subagents=False)}
    return sum(
        1
        for chat_id, chat_dir in find_all_chat_dirs(roots).items()
        if chat_id not in transcribed and (chat_dir / "store.db").is_file()
    )
