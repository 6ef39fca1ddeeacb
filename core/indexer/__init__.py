"""Building and refreshing the index: cost follows the change, not the history.

A refresh takes the writer lock, finds what changed (``plan``), re-reads only
that (``reads``): a transcript that only grew is read from where the last
build stopped, a ``state.vscdb`` only for the composers whose fingerprint
moved. The changed sessions become records in new segments (``records``),
their old copies are marked deleted and the manifest is swapped (``driver``).
Reads ask ``catch_up``, which refreshes what ``freshness`` finds changed cheaply.
This module is the front the rest of deja imports from.
"""

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
