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
            return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
    return ""
