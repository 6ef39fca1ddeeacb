"""How a recalled session is named in hook output: one line a model can cite and a person can follow."""

from __future__ import annotations

import time
from datetime import datetime


def ago(when: datetime | None, now: float | None = None) -> str:
    if when is None:
        return "unknown date"
    days = int(((now or time.time()) - when.timestamp()) // 86400)
    date = when.astimezone().strftime("%Y-%m-%d")
    if days <= 0:
        return f"{date}, today"
    return f"{date}, {days} day{'s' if days != 1 else ''} ago"


def heading(title: str, project: str, updated: datetime | None, session_id: str) -> str:
    """``- "Fix cache" (api, 2026-07-26, 3 days ago, `deja show <id>`)`` for a session or a search hit.

    The id is whole: sibling chats can share a long prefix.
    """
    where = f"{project}, " if project else ""
    return f'- "{(title or "(untitled)")[:80]}" ({where}{ago(updated)}, `deja show {session_id}`)'
