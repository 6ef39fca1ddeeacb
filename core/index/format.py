"""The index on disk: its layout, its constants, the records it holds, and the manifest that names it.

Layout under ``<DEJA_HOME>/index/``::

    manifest.msgpack        format version, generation, the live segments and what is deleted in each
    seg-<id>/               one immutable segment
        records.bin         msgpack Messages, redacted, back to back
        docs.bin            per doc: record offset, length, session ordinal, kind
        sessions.bin/.idx   msgpack SessionMeta records and their offsets
        terms.bin/.idx      sorted terms and, per term, where its postings are
        postings.bin        per term: (doc, impact) pairs, highest impact first

A writer builds new segments beside the live ones and then replaces
``manifest.msgpack`` with ``os.replace``; a reader opens the manifest once and
sees a whole index, old or new, without ever taking the lock.
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
FORMAT_VERSION = 6
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

DOC_ROW = struct.Struct("<QIIB3x")  # record offset, record length, session ordinal, kind
SESSION_ROW = struct.Struct("<QIIIBxxxd")  # record offset, record length, project hash, dir hash, source, updated
TERM_ROW = struct.Struct("<QHQI2x")  # term offset, term length, postings offset, postings count
POSTING = struct.Struct("<IIf")  # doc, its session ordinal, impact


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
