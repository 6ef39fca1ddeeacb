"""The on-disk index: immutable segments under one atomically swapped manifest.

``format`` is the layout and the manifest, ``writer`` builds a segment,
``reader`` maps segments and reads one generation of them. This module is
the front the rest of deja imports from.
"""

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
    Doc,
    FileSum,
    IndexUnreadable,
    Manifest,
    SegmentRef,
    SessionKeys,
    SessionMeta,
    edited_paths,
    index_dir,
    name_hash,
    read_manifest,
    write_manifest,
)
from .reader import Index, Segment
from .writer import SEGMENT_GRACE_SECONDS, SegmentWriter, remove_stale_segments, retire_segments

__all__ = [
    "FORMAT_VERSION",
    "KIND_ASSISTANT",
    "KIND_TITLE",
    "KIND_USER",
    "MANIFEST",
    "SEGMENT_GRACE_SECONDS",
    "SOURCE_CODES",
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
    "WHOLE_LISTS_DOCS",
    "WORD_POSTINGS_KEPT",
    "doc_text",
    "edited_paths",
    "index_dir",
    "name_hash",
    "read_manifest",
    "remove_stale_segments",
    "retire_segments",
    "write_manifest",
]
