"""The index on disk: its layout, its constants, and reading the manifest that names it.

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

The records themselves (``SessionMeta``, ``Manifest``…) are msgspec Structs in
``records.py``; a ``Codec`` says how a reader decodes them: into those Structs
(``records.STRUCTS``), or, on a hook's path, into plain objects with the same
fields without importing msgspec at all (``light.LIGHT``). Nothing here
imports msgspec.
"""

from __future__ import annotations

import struct
import zlib
from collections import namedtuple
from collections.abc import Callable
from pathlib import Path

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
from ..record import Record

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    from ..model import Message
    from .records import Manifest, SessionMeta

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


# Plain named tuples: typing's class form compiles each (string) annotation at import, which every hook would pay.
#: What ``docs.bin`` says of one doc besides where its record is: its session's ordinal and its kind (ints).
Doc = namedtuple("Doc", ["ordinal", "kind"])
#: What filters look at, read from ``sessions.idx`` without decoding the session: two name hashes and the source
#: (ints), the time updated (float).
SessionKeys = namedtuple("SessionKeys", ["project_hash", "dir_hash", "source", "updated"])


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


class Codec(Record, frozen=True):
    """How a reader decodes the manifest, a session and a message, and what a damaged record raises."""

    #: The manifest's bytes and its path (for messages) -> the Manifest; raises IndexUnreadable.
    manifest: Callable[[bytes, Path], Manifest]
    session: Callable[[bytes], SessionMeta]
    message: Callable[[bytes], Message]
    damage: tuple[type[Exception], ...]


def default_codec() -> Codec:
    """msgspec Structs: what every reader but a hook's uses."""
    from .records import STRUCTS

    return STRUCTS


def read_manifest(directory: Path, codec: Codec | None = None) -> Manifest:
    path = directory / MANIFEST
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise IndexUnreadable(f"no index at {directory}") from None
    except OSError as exc:
        raise IndexUnreadable(f"cannot read {path}: {exc.strerror}") from None
    return (codec or default_codec()).manifest(data, path)


def check_version(version: object, path: Path) -> None:
    """Raise IndexUnreadable naming ``path`` unless ``version`` is this deja's format."""
    if version != FORMAT_VERSION:
        raise IndexUnreadable(f"{path} is index format {version}, this deja reads {FORMAT_VERSION}")
