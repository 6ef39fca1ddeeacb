"""A text as one line: what a title, an answer or an error shows where there is room for one line.

Apart from ``text.py`` (the index's tokeniser, its tables and caches): the failure hook shows what followed a past
failure on one line, and loads none of those for it.
"""

from __future__ import annotations


def one_line(text: str, limit: int = 80) -> str:
    """The first non-empty line of ``text``, trimmed to ``limit`` characters."""
    for line in text.splitlines():
        line = " ".join(line.split())
        if line:
            return cut(line, limit)
    return ""


def cut(text: str, limit: int | None) -> str:
    """``text`` whole when it fits in ``limit`` characters (or ``limit`` is None), else cut to them ending in ``…``:
    a cut is never taken for the whole (a command copied from it would be a broken one: trial20 F5)."""
    return text if limit is None or len(text) <= limit else text[: limit - 1].rstrip() + "…"
