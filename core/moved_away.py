"""What the index loses once a damaged Cursor store is moved out of deja's way, as the index knows it.

``deja index`` and doctor give the same ``mv`` for a damaged store (``readers.unreadable.move_away``) and say what
goes with it. That depends on what the index read from the store before and on what else holds the chat: a store
never read gave nothing to lose (review47f M2); a transcript beside a chat's store keeps the turns it holds, not
the turns only the store held (review47f M1: a chat continued where only the store is written).
"""

from __future__ import annotations

import os
from pathlib import Path

from .bookkeeping import Bookkeeping, ChatState, State, read_record
from .index.format import IndexUnreadable, index_dir
from .index.reader import Index
from .model import Message
from .readers.cursor_agent import read_cli_session

#: What a store moved away takes with it when a transcript holds the chat's turns: all its own.
_ONLY_ITS_OWN = "its tool output and title, not its session, which its transcript holds"
#: The same where the store held turns its transcript lacks, or where the index cannot say it did not.
_TURNS_TOO = "its tool output, its title and the turns its transcript lacks (its transcript keeps the rest)"


def dropped_with(path: str, home: Path, cli_roots: list[str]) -> str:
    """What the index under ``home`` drops once the damaged file ``path`` is moved away: an editor database's
    sessions; a chat's ``store.db``'s session, or, when a transcript under ``cli_roots`` holds the chat, what only
    the store gave (its tool output, its title, and its turns the transcript lacks). "" when the index holds nothing
    read from it. Where the index cannot be read, the most it may hold."""
    try:
        index = Index.open(home)
        state = read_record(index_dir(home) / index.manifest.state, State)
    except (IndexUnreadable, OSError):
        index, state = None, None
    if path.endswith(".vscdb"):
        return "" if state is not None and path not in state.ide else "its sessions"
    chat_id = os.path.basename(os.path.dirname(path))
    if state is not None and not _store_read(Bookkeeping(index_dir(home), state).chat(chat_id)):
        return ""
    transcript = transcript_of(path, cli_roots)
    if transcript is None:
        return "its session"
    held = _questions_held(index, chat_id) if index is not None else None
    left = read_cli_session(transcript, None)
    if held is None or left is None or held > _questions(left.messages):
        return _TURNS_TOO
    return _ONLY_ITS_OWN


def _store_read(chat: ChatState | None) -> bool:
    """Whether the index holds what the chat's store gave: its session, recorded once its store was read."""
    return chat is not None and chat.where is not None and chat.cli is not None and bool(chat.cli.store_sig)


def _questions_held(index: Index, chat_id: str) -> int | None:
    """How many questions the index holds of the chat; None when it holds no session of that id."""
    found = [(segment, meta) for segment, _, meta in index.find(chat_id) if meta.id == chat_id]
    if not found:
        return None
    segment, meta = found[0]
    return _questions(segment.messages(meta))


def _questions(messages: list[Message]) -> int:
    return sum(message.role == "user" for message in messages)


def transcript_of(store: str, cli_roots: list[str]) -> Path | None:
    """The transcript under one of ``cli_roots`` that holds the chat whose ``store.db`` is ``store`` (the chat's
    folder is named by its id, as its transcript is: ``projects/*/agent-transcripts/<id>[/<id>].jsonl``). One
    listing of each root's projects, for a message alone."""
    chat_id = os.path.basename(os.path.dirname(store))
    places = (f"{chat_id}.jsonl", os.path.join(chat_id, f"{chat_id}.jsonl"))  # (the flat layout, the nested one)
    for root in cli_roots:
        try:
            with os.scandir(os.path.join(root, "projects")) as projects:
                folders = [os.path.join(project.path, "agent-transcripts") for project in projects]
        except OSError:  # (no such folder, or one this user may not list)
            continue
        found = next(
            (path for folder in folders for place in places if os.path.isfile(path := os.path.join(folder, place))),
            None,
        )
        if found:
            return Path(found)
    return None
