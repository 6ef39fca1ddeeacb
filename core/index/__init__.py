"""The on-disk index: immutable segments under one atomically swapped manifest.

``format`` is the layout and reads the manifest, ``records`` the msgspec
records it stores, ``writer`` builds a segment, ``reader`` maps segments and
reads one generation of them, ``light`` decodes records without msgspec (for
hooks). This module is the front the rest of deja imports from; each name
loads its module when first asked for, so a hook that reads the index never
imports the writer, nor msgspec.
"""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    from typing import Any

    from .format import (
        FORMAT_VERSION,
        KIND_ASSISTANT,
        KIND_TITLE,
        KIND_USER,
        MANIFEST,
        SOURCE_CODES,
        Codec,
        Doc,
        IndexUnreadable,
        SessionKeys,
        doc_text,
        edited_paths,
        index_dir,
        name_hash,
        read_manifest,
    )
    from .reader import Index, Segment
    from .records import FileSum, Manifest, SegmentRef, SessionMeta, write_manifest
    from .writer import SEGMENT_GRACE_SECONDS, SegmentWriter, remove_stale_segments, retire_segments

__all__ = [
    "FORMAT_VERSION",
    "KIND_ASSISTANT",
    "KIND_TITLE",
    "KIND_USER",
    "MANIFEST",
    "SEGMENT_GRACE_SECONDS",
    "SOURCE_CODES",
    "Codec",
    "Doc",
    "FileSum",
    "Index",
    "IndexUnreadable",
    "Manifest",
    "Segment",
    "SegmentRef",
    "SegmentWriter",
    "SessionKeys",
    "SessionMeta",
    "doc_text",
    "edited_paths",
    "index_dir",
    "name_hash",
    "read_manifest",
    "remove_stale_segments",
    "retire_segments",
    "write_manifest",
]
#: Where the names are looked for, in this order: the first two need no msgspec, the last two import it.
_MODULES = ("format", "reader", "records", "writer")


def __getattr__(name: str) -> Any:
    if name in __all__:
        for module in _MODULES:
            found = import_module(f".{module}", __name__)
            if hasattr(found, name):
                return getattr(found, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
