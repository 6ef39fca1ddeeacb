"""How a recalled session is named in hook output: one line a model can cite and a person can follow.

A time comes as seconds since the epoch (what ``sessions.idx`` and a key's postings hold: a hook that names
sessions reads their times there, and never loads ``datetime``), or as a datetime (a search hit's).
"""

from __future__ import annotations

import time

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    from datetime import datetime


def ago(when: datetime | float | None, now: float | None = None) -> str:
    """``2026-07-26, 3 days ago`` (the date in local time); ``unknown date`` for None or 0 (the index's "no time")."""
    if not when:
        return "unknown date"
    seconds = when if isinstance(when, int | float) else when.timestamp()
    days = int(((now or time.time()) - seconds) // 86400)
    date = time.strftime("%Y-%m-%d", time.localtime(seconds))
    if days <= 0:
        return f"{date}, today"
    return f"{date}, {days} day{'s' if days != 1 else ''} ago"


def heading(title: str, project: str, updated: datetime | float | None, session_id: str) -> str:
    """``- "Fix cache" (api, 2026-07-26, 3 days ago, `deja show <id>`)`` for a session or a search hit.

    The id is whole: sibling chats can share a long prefix.
    """
    where = f"{project}, " if project else ""
    return f'- "{(title or "(untitled)")[:80]}" ({where}{ago(updated)}, `deja show {session_id}`)'
