"""The index on disk: its layout, its constants, the records it holds, and the manifest that names it.

Layout under ``<DEJA_HOME>/index/``::

    manifest.msgpack        format version, generation, the live segments and what is deleted in each
    seg-<id>/               one immutable segment
        records.bin         per session, its redacted messages (and title), msgpack back to back, zlib-compressed
        docs.bin            per doc, three u32: its session ordinal (its kind in the top three bits), where its
                            message starts and ends in its session's records
        sessions.bin/.idx   msgpack SessionMeta records; per session where its meta and its records are
        terms.bin/.idx      sorted terms and, per term, where its postings are
        postings.bin        per term: (doc, impact) pairs, highest impact first; the keyed terms
                            (``deja.core.keys``, sorted first) keep a float32 time, the words a float16 impact
                            and only their best ``WORD_POSTINGS_KEPT``

A writer builds new segments beside the live ones and then replaces
``manifest.msgpack`` with ``os.replace``; a reader opens the manifest once and
sees a whole index, old or new, without ever taking the lock.

Why it is small: a session's messages compress together (they share their
words), a doc costs 12 bytes, a posting 6 (its session is the doc's, read
from ``docs.bin``, not stored again), and no posting is kept that no search reads.
"""

from __future__ import annotations

import os
import struct
import zlib
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

import msgspec

from ..fields import (
    KIND_ASSISTANT,
    KIND_COMMAND,
    KIND_EDIT,
    KIND_ERROR,
    KIND_OUTPUT,
    KIND_TITLE,
    KIND_USER,
)
from ..keys import project_spelling
from ..private import write_private

#: 6: tool output, error-line, edit and command field docs; dates as keys; accent folding; Snowball stems.
#: 7: a session's records compressed together, 12-byte docs, 6-byte postings, a common word's tail not kept.
FORMAT_VERSION = 7
MANIFEST = "manifest.msgpack"

SOURCE_CODES = {"cursor-ide": 1, "cursor-cli": 2}
#: Field weights (KIND_OUTPUT, KIND_ERROR, KIND_EDIT) tuned on the coding benchmark's tuning half
#: (bench/coding_history.py); the message weights on LoCoMo (bench/locomo.py).
KIND_WEIGHT = {
    KIND_USER: 1.3,
    KIND_ASSISTANT: 1.0,
    KIND_TITLE: 1.5,
    KIND_OUTPUT: 0.5,
    KIND_ERROR: 1.6,
    KIND_EDIT: 0.5,
    # Commands already count in their message's doc: this doc is for ``--role command``, and weighs little.
    KIND_COMMAND: 0.2,
}
K1, B = 0.7, 0.3

#: A doc's row in ``docs.bin``: session ordinal | kind << KIND_SHIFT, and where its message starts and ends in
#: its session's records once inflated (a snippet inflates only that far and decodes only its own message; the
#: field docs of a message share its span).
DOC_ROW = struct.Struct("<III")
KIND_SHIFT = 29
ORDINAL_MASK = (1 << KIND_SHIFT) - 1
#: meta offset, meta length, project hash, dir hash, source, updated, records offset, records length, first doc
SESSION_ROW = struct.Struct("<QIIIBxxxdQII")
#: term offset, term length, postings offset, postings kept, postings in all (the docs holding the term: its idf)
TERM_ROW = struct.Struct("<QHQII")
#: A word's postings kept per segment of more than ``WHOLE_LISTS_DOCS`` docs, best first: search never reads
#: further there (``search.FILTERED_BUDGET``), so a common word's long tail would be bytes no query reads.
#: Its count in all is kept for its idf. In an index of at most ``WHOLE_LISTS_DOCS`` docs search reads every list whole.
WORD_POSTINGS_KEPT = 8192
WHOLE_LISTS_DOCS = 65_536
POSTING = struct.Struct("<Ie")  # doc, impact (a word's postings)
KEYED_POSTING = struct.Struct("<If")  # doc, days since the epoch (a key's postings: newest first)
#: zlib level of a session's records: 1 compresses about as well as 6 on chat text (0.37 against 0.35), twice as fast.
RECORDS_LEVEL = 1


class IndexUnreadable(Exception):
    """The index is missing, corrupt or of another format version."""


class Doc(NamedTuple):
    """What ``docs.bin`` says of one doc besides where its record is."""

    ordinal: int
    kind: int


class SessionKeys(NamedTuple):
    """What filters look at, read from ``sessions.idx`` without decoding the session."""

    project_hash: int
    dir_hash: int
    source: int
    updated: float


class SessionMeta(msgspec.Struct, omit_defaults=True):
    id: str
    source: str
    project: str = ""
    project_dir: str = ""
    #: Which signal gave ``project_dir`` (``deja.core.readers.projects.SIGNALS``); "" when none did.
    project_from: str = ""
    title: str = ""
    started: datetime | None = None
    updated: datetime | None = None
    origin: str = ""
    messages: int = 0
    first_doc: int = 0
    n_docs: int = 0
    #: A digest for hooks: the first question, the last answer, the files edited.
    asked: str = ""
    concluded: str = ""
    files: list[str] = []


class FileSum(msgspec.Struct, array_like=True):
    """A segment file's size (checked on every open) and CRC-32 (checked by ``deja index`` and doctor)."""

    size: int
    crc: int


class SegmentRef(msgspec.Struct):
    name: str
    sessions: int
    docs: int
    messages: int
    deleted: list[int] = []
    deleted_messages: int = 0
    #: File name -> its size and checksum as written (empty for segments written before they were kept).
    files: dict[str, FileSum] = {}


class Manifest(msgspec.Struct):
    version: int
    generation: int
    built_at: float
    segments: list[SegmentRef] = []
    #: The writer's bookkeeping file (per-source sizes, offsets, fingerprints).
    state: str = ""
    #: The redaction the index was built with (``redact.mode()``); another one rebuilds it.
    redaction: str = ""


def name_hash(name: str) -> int:
    """A stable 32-bit key for a project name or directory, compared case-insensitively."""
    return zlib.crc32(project_spelling(name).encode("utf-8")) if name else 0


def index_dir(home: Path) -> Path:
    return home / "index"


def edited_paths(args: dict, project_dir: str) -> list[str]:
    """The file an edit tool call changed, as given and, when relative, joined to the project."""
    path = args.get("path") or args.get("file_path") or args.get("target_file")
    if not isinstance(path, str) or not path.strip():
        return []
    path = path.strip()
    if project_dir and not path.startswith(("/", "\\")) and ":" not in path[:3]:
        return [path, project_dir.rstrip("/") + "/" + path]
    return [path]


def write_manifest(directory: Path, manifest: Manifest) -> None:
    """Swap in a new manifest atomically (temp file, fsync, rename)."""
    tmp = directory / f".{MANIFEST}.{os.getpid()}.tmp"
    write_private(tmp, msgspec.msgpack.encode(manifest), sync=True)
    os.replace(tmp, directory / MANIFEST)


def read_manifest(directory: Path) -> Manifest:
    path = directory / MANIFEST
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise IndexUnreadable(f"no index at {directory}") from None
    except OSError as exc:
        raise IndexUnreadable(f"cannot read {path}: {exc.strerror}") from None
    try:
        manifest = msgspec.msgpack.decode(data, type=Manifest)
    except (msgspec.DecodeError, msgspec.ValidationError):
        try:
            version = msgspec.msgpack.decode(data).get("version")
        except Exception:
            version = None
        if version is not None and version != FORMAT_VERSION:
            raise IndexUnreadable(f"{path} is index format {version}, this deja reads {FORMAT_VERSION}") from None
        raise IndexUnreadable(f"{path} is corrupt") from None
    if manifest.version != FORMAT_VERSION:
        raise IndexUnreadable(f"{path} is index format {manifest.version}, this deja reads {FORMAT_VERSION}")
    return manifest
