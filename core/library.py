"""What the CLI and the MCP server share: a fresh index to read, and a session found by id."""

from __future__ import annotations

from pathlib import Path

from deja.core import paths
from deja.core.index import Index, IndexError_, Segment, SessionMeta
from deja.core.indexer import Progress, refresh


class NotFound(LookupError):
    """No session, or more than one, answers to an id; the message says which."""


def open_index(home: Path | None = None, *, fresh: bool = True, progress: Progress | None = None) -> Index:
    """The index, refreshed first when ``fresh`` (a stat pass when nothing changed).

    If another process holds the writer lock, the index as it stands is read:
    readers never wait for a build.
    """
    home = home or paths.deja_home()
    if fresh:
        try:
            refresh(home, progress=progress, lock_timeout=0)
        except TimeoutError:
            pass
    return Index.open(home)


def find_session(index: Index, prefix: str) -> tuple[Segment, SessionMeta]:
    prefix = prefix.strip()
    if not prefix:
        raise NotFound("an empty session id matches nothing: give an id or a unique prefix (see `deja sessions`)")
    found = index.find(prefix)
    if not found:
        raise NotFound(f"no session has the id {prefix!r}: list ids with `deja sessions` or find one with `deja search`")
    if len(found) > 1:
        ids = ", ".join(sorted(meta.id for _, _, meta in found)[:10])
        more = f" and {len(found) - 10} more" if len(found) > 10 else ""
        raise NotFound(f"the prefix {prefix!r} matches {len(found)} sessions ({ids}{more}): give more of the id")
    segment, _, meta = found[0]
    return segment, meta


__all__ = ["Index", "IndexError_", "NotFound", "find_session", "open_index"]
