"""The readers of Cursor's stores, one module per store; the rest of deja uses only what this module exports.

- :mod:`.ide`: the editor's ``state.vscdb`` databases;
- :mod:`.transcripts`: cursor-agent's JSONL transcripts;
- :mod:`.chatstore` and :mod:`.conversation`: cursor-agent's per-chat ``store.db`` and ``meta.json``;
- :mod:`.cursor_agent`: a cursor-agent chat as a session, from its transcript, its store, or both;
- :mod:`.projects`: the folder each chat belongs to, from every store that records one.

:mod:`.ide`'s names are imported when first asked for: a refresh of a turn to a cursor-agent chat, while the editor's
databases are as they were, reads none of them (what a ``deja search`` right after a turn would import for nothing).
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
from .projects import SIGNALS, Projects, slug_of
from .transcripts import (
    is_subagent,
    outermost,
    project_slug_of,
    scan_transcripts,
    session_id_of,
    slug_folders,
)

TYPE_CHECKING = False  # typing's own, without importing typing; type checkers know it
if TYPE_CHECKING:
    from typing import Any

    from .ide import ChatCensus, chat_census, composer_fingerprints, read_ide_database

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

#: The names :mod:`.ide` gives, imported from it when first asked for (``__getattr__``).
_IDE_NAMES = frozenset({"ChatCensus", "chat_census", "composer_fingerprints", "read_ide_database"})


def __getattr__(name: str) -> Any:
    """One of :mod:`.ide`'s names, imported from it when first asked for and kept as the package's own."""
    if name not in _IDE_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import ide

    value = globals()[name] = getattr(ide, name)
    return value
