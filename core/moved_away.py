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
from .readers.cursor_agent import read_cli_session

#: What a store moved away takes with it when a transcript holds the chat's turns: all its own.
_ONLY_ITS_OWN = "its tool output and title, not its session, which its transcript holds"
#: The same where the store held messages its transcript lacks (later turns, a turn's later answers), or where the
#: index cannot say it did not.
_MESSAGES_TOO = "its tool output, its title and the messages its transcript lacks (its transcript keeps the rest)"


def dropped_with(path: str, home: Path, cli_roots: list[str]) -> str:
    """What the index under ``home`` drops once the damaged file ``path`` is moved away: an editor database's
    sessions; a chat's ``store.db``'s session, or, when a transcript under ``cli_roots`` holds the chat, what only
    the store gave: its tool output, its title, and the messages the transcript lacks, when the index holds more of
    the chat than the transcript read alone gives (``cursor_agent.with_store_turns`` takes them from the store). ""
    when the index holds nothing read from it. Where the index cannot be read, the most it may hold."""
    read, messages = _held(path, home) or (True, None)
    if not read:
        return ""
    if path.endswith(".vscdb"):
        return "its sessions"
    transcript = transcript_of(path, cli_roots)
    if transcript is None:
        return "its session"
    left = read_cli_session(transcript, None)
    if messages is None or left is None or messages > len(left.messages):
        return _MESSAGES_TOO
    return _ONLY_ITS_OWN


def _held(path: str, home: Path) -> tuple[bool, int | None] | None:
    """What the index under ``home`` holds of the store ``path``: whether it read anything from it, and how many
    messages it holds of a chat's (None: no session of that id); None when the index cannot be read."""
    try:
        index = Index.open(home)
        state = read_record(index_dir(home) / index.manifest.state, State)
        if path.endswith(".vscdb"):
            return path in state.ide, None
        chat_id = os.path.basename(os.path.dirname(path))
        chat = Bookkeeping(index_dir(home), state).chat(chat_id)
        messages = next((meta.messages for _, _, meta in index.find(chat_id) if meta.id == chat_id), None)
    except (IndexUnreadable, OSError):
        return None
    return _store_read(chat), messages


def _store_read(chat: ChatState | None) -> bool:
    """Whether the index holds what a chat's store gave: its session, recorded once its store was read."""
    return chat is not None and chat.where is not None and chat.cli is not None and bool(chat.cli.store_sig)


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
