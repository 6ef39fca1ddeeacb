"""The readers of Cursor's stores, one module per store; the rest of deja uses only what this module exports.

- :mod:`.ide`: the editor's ``state.vscdb`` databases;
- :mod:`.transcripts`: cursor-agent's JSONL transcripts;
- :mod:`.chatstore` and :mod:`.conversation`: cursor-agent's per-chat ``store.db`` and ``meta.json``;
- :mod:`.cursor_agent`: a cursor-agent chat as a session, from its transcript, its store, or both;
- :mod:`.projects`: the folder each chat belongs to, from every store that records one.
"""

from __future__ import annotations

from .chatstore import is_acp_chat, read_chat_meta
from .cursor_agent import (
    FORBIDDEN_STORE,
    STORE_DB,
    ChatSurvey,
    CliRead,
    Resume,
    all_chat_folders,
    chat_id_of_origin,
    find_all_chat_dirs,
    read_cli_chat,
    store_only_chats,
    survey_chats,
)
from .ide import ChatCensus, chat_census, composer_fingerprints, read_ide_database
from .projects import SIGNALS, Projects, slug_of
from .transcripts import (
    is_subagent,
    outermost,
    project_slug_of,
    scan_transcripts,
    session_id_of,
    slug_folders,
)

__all__ = [
    "FORBIDDEN_STORE",
    "SIGNALS",
    "STORE_DB",
    "ChatCensus",
    "ChatSurvey",
    "CliRead",
    "Projects",
    "Resume",
    "all_chat_folders",
    "chat_census",
    "chat_id_of_origin",
    "composer_fingerprints",
    "find_all_chat_dirs",
    "is_acp_chat",
    "is_subagent",
    "project_slug_of",
    "read_chat_meta",
    "read_cli_chat",
    "read_ide_database",
    "scan_transcripts",
    "session_id_of",
    "outermost",
    "slug_folders",
    "slug_of",
    "store_only_chats",
    "survey_chats",
]
