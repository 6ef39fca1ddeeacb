"""The one line that reopens a cursor-agent chat where it ran: ``cd <project> && cursor-agent --resume <id>``.

cursor-agent lists chats per workspace: ``--resume <id>`` looks the chat up under
``chats/<md5 of the cwd>/<id>``, so the line must ``cd`` into the exact directory
the chat ran in. That directory is the ``cwd`` of the chat's ``meta.json``,
trusted when its md5 is the name of the folder above the chat. Only when
``meta.json`` records no ``cwd`` is the encoded project folder of the transcript
decoded, and only a decoding that names one existing directory, whose md5 is
that folder's name, is used (the encoding blanks dots, spaces and non-ASCII, so
it often cannot be read back); else the folder the index placed the session in,
as strictly.

cursor-agent also looks the chat up under one config root only, the one its
own environment names (``$CURSOR_CONFIG_DIR``, else ``$XDG_CONFIG_HOME/cursor``,
else ``~/.cursor``), and the shell the line is pasted in need not have this
process's environment: so the line names the chat's root as
``CURSOR_CONFIG_DIR=<root>`` before ``cursor-agent`` (``config_dir_to_set``).

Everything else is refused with a line that points at ``deja show``:
``cursor-agent --resume`` given a chat it cannot find lists chats from every
directory instead, which is no way back into this one.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from . import paths
from .bookkeeping import Bookkeeping
from .digests import folder_md5
from .index import Index, IndexUnreadable, SessionMeta
from .readers import (
    chat_id_of_origin,
    find_all_chat_dirs,
    is_acp_chat,
    is_subagent,
    project_slug_of,
    read_chat_meta,
    slug_folders,
)
from .readers.cursor_agent import STORE_DB
from .record import Record
from .text import shell_word


class ResumeRefused(Exception):
    """A session that ``cursor-agent --resume`` cannot reopen; ``str()`` is the one line to show a person."""

    def __init__(self, session_id: str, reason: str):
        self.session_id = session_id
        #: Why, without the id or the suggestion: what the MCP server tells an agent.
        self.reason = reason
        super().__init__(f"{session_id} cannot be resumed: {reason}; read it with `deja show {session_id}`")


class ResumeTarget(Record, frozen=True):
    """What ``cursor-agent --resume`` needs to reopen a chat: where to run, which id, and which config root."""

    directory: Path
    chat_id: str
    #: The ``CURSOR_CONFIG_DIR`` to run it with: the root the chat is filed under.
    config_dir: Path


def resume_target(meta: SessionMeta, index: Index | None = None) -> ResumeTarget:
    """The directory to run ``cursor-agent --resume`` in, the chat id to give it, and the config root to name.

    The chat's folder is where ``index`` read it from, while it is there; only then is it looked for under the
    roots this process's environment names (Cursor starts the MCP server without ``XDG_CONFIG_HOME``, which
    moves cursor-agent's chats). Raises :class:`ResumeRefused` for an editor chat (unless it is also a cursor-agent
    chat whose store is there), a subagent transcript, a chat gone from cursor-agent's store, and a directory that
    is not recorded or gone.
    """
    if meta.source != "cursor-cli":
        store_dir = _continued_in_the_editor(meta, index)
        return ResumeTarget(_directory(meta, store_dir, None), meta.id, config_dir_to_set(store_dir))
    chat_id = chat_id_of_origin(meta.origin) if meta.origin else meta.id
    transcript = Path(meta.origin) if meta.origin.endswith(".jsonl") else None
    if transcript and is_subagent(transcript):
        raise ResumeRefused(meta.id, f"it is a subagent of chat {chat_id}, which `deja resume {chat_id}` reopens")
    chat_dir = _read_from(meta, index) or find_all_chat_dirs(paths.cli_roots()).get(chat_id)
    if chat_dir is None:
        roots = " or ".join(str(root / "chats") for root in paths.cli_roots())
        raise ResumeRefused(meta.id, f"it is no longer in cursor-agent's store (no {chat_id} folder under {roots})")
    return ResumeTarget(_directory(meta, chat_dir, transcript), chat_id, config_dir_to_set(chat_dir))


def _continued_in_the_editor(meta: SessionMeta, index: Index | None) -> Path:
    """The cursor-agent chat folder of an editor session that is also a cursor-agent chat (begun there, continued in
    the editor under the same id: one session, read as the editor's), while its store is on disk (``cursor-agent
    --resume`` reopens it from there: trial14 F5 was refused as an editor chat); any other editor chat is refused."""
    chat_dir = _read_from(meta, index) or find_all_chat_dirs(paths.cli_roots()).get(meta.id)
    if chat_dir is None or not (chat_dir / STORE_DB).is_file():
        raise ResumeRefused(meta.id, "it is a Cursor editor chat, and those reopen only in the editor's chat history")
    return chat_dir


def config_dir_to_set(chat_dir: Path) -> Path:
    """The config root ``chat_dir`` is filed under (``<root>/chats/<md5>/<id>``), which the line sets as
    ``CURSOR_CONFIG_DIR``: ``cursor-agent --resume`` looks the chat up under the one root its own environment names
    (``$CURSOR_CONFIG_DIR``, else ``$XDG_CONFIG_HOME/cursor``, else ``~/.cursor``), and the shell the line is pasted
    in may have another environment than this process (Cursor starts the MCP server without ``XDG_CONFIG_HOME``):
    trial55 F1. Named always, ``~/.cursor`` too: no process of deja's can tell what the shell a line is pasted in sets
    (a bare line for a chat under ``~/.cursor`` did not reopen it in a shell setting ``XDG_CONFIG_HOME``: review55c F2).
    """
    return chat_dir.parent.parent.parent


def _directory(meta: SessionMeta, chat_dir: Path, transcript: Path | None) -> Path:
    """The directory cursor-agent files the chat in ``chat_dir`` under, refused where ``--resume`` cannot reopen it."""
    if is_acp_chat(chat_dir):
        raise ResumeRefused(
            meta.id, "it was started through the Agent Client Protocol, whose chats `--resume` does not list"
        )
    directory = _recorded_directory(meta, chat_dir, transcript)
    if not directory.is_dir():
        raise ResumeRefused(meta.id, f"its directory {directory} is gone")
    return directory


def resume_line(meta: SessionMeta, index: Index | None = None) -> str:
    """``cd <dir> && CURSOR_CONFIG_DIR=<root> cursor-agent --resume <id>`` for a session (the root always named:
    ``config_dir_to_set``); see :func:`resume_target`."""
    return command_line(resume_target(meta, index))


def _read_from(meta: SessionMeta, index: Index | None) -> Path | None:
    """The chat folder the index read this session from (its ``store.db``'s, or the one its bookkeeping names
    beside the transcript), when that folder is still there; else None."""
    recorded = os.path.dirname(meta.origin) if os.path.basename(meta.origin) == STORE_DB else None
    if recorded is None and index is not None and index.manifest.state:
        try:
            chat = Bookkeeping.recorded(Path(index.directory), index.manifest.state).chat(meta.id)
        except IndexUnreadable:
            return None
        recorded = chat.cli.chat_dir if chat is not None and chat.cli is not None else None
    return Path(recorded) if recorded and os.path.isdir(recorded) else None


def command_line(target: ResumeTarget) -> str:
    """The line to paste, each part quoted for a POSIX shell (the directory is absolute, so never read as an option;
    one whose name holds a control character through ``printf``'s octal escapes: ``text.shell_word``), with
    ``CURSOR_CONFIG_DIR=<root>`` before ``cursor-agent`` (:func:`config_dir_to_set`)."""
    setting = f"CURSOR_CONFIG_DIR={shell_word(str(target.config_dir))}"
    return f"cd {shell_word(str(target.directory))} && {setting} cursor-agent --resume {shlex.quote(target.chat_id)}"


def _recorded_directory(meta: SessionMeta, chat_dir: Path, transcript: Path | None) -> Path:
    """meta.json's ``cwd`` when cursor-agent files the chat under it; else the decoded project folder, or the folder
    the index placed the session in (a chat read from its store alone, placed by the md5 its folder is named by:
    trial44 F4), as strictly: its md5 is the name of the folder cursor-agent files the chat under."""
    session_id, bucket = meta.id, chat_dir.parent.name
    chat_meta = read_chat_meta(chat_dir)
    if chat_meta and chat_meta.cwd:
        if not chat_meta.verified or not os.path.isabs(chat_meta.cwd):
            raise ResumeRefused(
                session_id,
                f"the directory its meta.json records ({chat_meta.cwd}) is not the one cursor-agent files it under "
                f"(chats/{bucket})",
            )
        return Path(chat_meta.cwd)
    slugged = slug_folders(project_slug_of(transcript)) if transcript else []  # (of several, the bucket's)
    placed = [Path(meta.project_dir)] if os.path.isabs(meta.project_dir) else []
    decoded = next((folder for folder in [*slugged, *placed] if folder_md5(str(folder)) == bucket), None)
    if decoded is None:
        raise ResumeRefused(session_id, f"its directory is not recorded ({chat_dir / 'meta.json'} has no cwd)")
    return decoded
