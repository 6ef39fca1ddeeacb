"""Building and refreshing the index: cost follows the change, not the history.

A refresh takes the writer lock, finds what changed (``plan``), re-reads only
that (``reads``): a transcript that only grew is read from where the last
build stopped, a ``state.vscdb`` only for the composers whose fingerprint
moved. The changed sessions become records in new segments (``records``),
their old copies are marked deleted and the manifest is swapped (``driver``).
Reads ask ``catch_up``, which refreshes what ``freshness`` finds changed cheaply.
This module is the front the rest of deja imports from; each name loads the
driver when first asked for, so a read that imports only ``glance`` (the cheap
check) never loads the readers, the writers nor msgspec.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own, without importing typing; type checkers know it
if TYPE_CHECKING:
    from typing import Any

    from .driver import LOCK_NAME, MAX_SEGMENTS, WRITER_WAIT_SECONDS, Progress, RefreshResult, catch_up, refresh

__all__ = [
    "LOCK_NAME",
    "MAX_SEGMENTS",
    "WRITER_WAIT_SECONDS",
    "Progress",
    "RefreshResult",
    "catch_up",
    "refresh",
]


def __getattr__(name: str) -> Any:
    """A name of the package, imported from ``driver`` when first asked for."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import driver

    return getattr(driver, name)
