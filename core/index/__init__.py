"""The on-disk index: immutable segments under one atomically swapped manifest.

``format`` is the layout and reads the manifest, ``records`` the msgspec
records it stores, ``writer`` builds a segment, ``reader`` maps segments and
reads one generation of them, ``light`` decodes records without msgspec (for
hooks). This module is the front the rest of deja imports from; each name
loads its module when first asked for, so a hook that reads the index never
imports the writer, nor msgspec.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    from typing import Any

    from ..fields import doc_text
    from .format import (
        FORMAT_VERSION,
        KIND_ASSISTANT,
        KIND_TITLE,
        KIND_USER,
        MANIFEST,
        SOURCE_CODES,
        WHOLE_LISTS_DOCS,
        WORD_POSTINGS_KEPT,
        Codec,
        Doc,
        IndexForbidden,
        IndexKeptOut,
        IndexNewerFormat,
        IndexOtherFormat,
        IndexUnreadable,
        SessionKeys,
        asked_paths,
        check_readable,
        edited_paths,
        filed_paths,
        forbidden_fix,
        in_project,
        index_dir,
        name_hash,
        read_manifest,
    )
    from .reader import Index, Segment
    from .records import FileSum, Manifest, SegmentRef, SessionMeta, write_manifest
    from .writer import (
        SEGMENT_GRACE_SECONDS,
        SegmentWriter,
        remove_failed_writes,
        remove_left,
        remove_segments,
        remove_stale_segments,
        retire_segments,
        segments_and_temporaries,
        stale_segments,
    )

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
    "IndexForbidden",
    "IndexKeptOut",
    "IndexNewerFormat",
    "IndexOtherFormat",
    "IndexUnreadable",
    "Manifest",
    "Segment",
    "SegmentRef",
    "SegmentWriter",
    "SessionKeys",
    "SessionMeta",
    "WHOLE_LISTS_DOCS",
    "WORD_POSTINGS_KEPT",
    "asked_paths",
    "check_readable",
    "doc_text",
    "edited_paths",
    "forbidden_fix",
    "filed_paths",
    "in_project",
    "index_dir",
    "name_hash",
    "read_manifest",
    "remove_failed_writes",
    "remove_segments",
    "remove_left",
    "remove_stale_segments",
    "stale_segments",
    "retire_segments",
    "segments_and_temporaries",
    "write_manifest",
]


def __getattr__(name: str) -> Any:
    """A name of the package, imported from its module when first asked for (``import`` statements, not
    ``importlib``, so ``python -X importtime`` reports them)."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from .. import fields
    from . import format, reader  # what a hook reads the index with: no msgspec

    for module in (format, reader, fields):
        if hasattr(module, name):
            break
    else:
        from . import records, writer

        module = records if hasattr(records, name) else writer
    # kept as the package's own: the next import of it finds it there (each ask here cost a hook 60k instructions)
    value = globals()[name] = getattr(module, name)
    return value
