"""The on-disk index: immutable segments under one atomically swapped manifest.

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
sees a whole index, old or new, without ever taking the lock. A build killed
half way leaves stray segment folders that the next build removes.

A lookup binary-searches each segment's term table through ``mmap`` and reads
only the head of each postings list, so its cost does not grow with the index.
"""

from __future__ import annotations

import math
import mmap
import os
import struct
import time
import zlib
from array import array
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path

import msgspec

from . import keys
from .model import Message
from .text import terms as text_terms

FORMAT_VERSION = 5
MANIFEST = "manifest.msgpack"

KIND_USER, KIND_ASSISTANT, KIND_TITLE = 0, 1, 2
SOURCE_CODES = {"cursor-ide": 1, "cursor-cli": 2}
KIND_WEIGHT = {KIND_USER: 1.3, KIND_ASSISTANT: 1.0, KIND_TITLE: 1.5}
K1, B = 0.7, 0.3

_DOC = struct.Struct("<QIIB3x")  # record offset, record length, session ordinal, kind
_SESSION = struct.Struct("<QIIIBxxxd")  # record offset, record length, project hash, dir hash, source, updated
_TERM = struct.Struct("<QHQI2x")  # term offset, term length, postings offset, postings count
_POSTING = struct.Struct("<IIf")  # doc, its session ordinal, impact


class IndexUnreadable(Exception):
    """The index is missing, corrupt or of another format version."""


class SessionMeta(msgspec.Struct, omit_defaults=True):
    id: str
    source: str
    project: str = ""
    project_dir: str = ""
    #: Which signal gave ``project_dir`` (``deja.core.projects.SIGNALS``); "" when none did.
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


class SegmentRef(msgspec.Struct):
    name: str
    sessions: int
    docs: int
    messages: int
    deleted: list[int] = []
    deleted_messages: int = 0


class Manifest(msgspec.Struct):
    version: int
    generation: int
    built_at: float
    segments: list[SegmentRef] = []
    #: The writer's bookkeeping file (per-source sizes, offsets, fingerprints).
    state: str = ""


def name_hash(name: str) -> int:
    """A stable 32-bit key for a project name or directory, compared case-insensitively."""
    return zlib.crc32(name.strip().rstrip("/").lower().encode("utf-8")) if name else 0


def index_dir(home: Path) -> Path:
    return home / "index"


def doc_text(message: Message) -> str:
    """What of a message is searchable: its text and the commands and paths of its tool calls."""
    if not message.tool_calls:
        return message.text
    extra = []
    for call in message.tool_calls:
        for key in ("command", "path", "file_path", "pattern", "query", "glob_pattern"):
            value = call.args.get(key)
            if isinstance(value, str):
                extra.append(value)
    return message.text + "\n" + "\n".join(extra) if extra else message.text


def edited_paths(args: dict, project_dir: str) -> list[str]:
    """The file an edit tool call changed, as given and, when relative, joined to the project."""
    path = args.get("path") or args.get("file_path") or args.get("target_file")
    if not isinstance(path, str) or not path.strip():
        return []
    path = path.strip()
    if project_dir and not path.startswith(("/", "\\")) and ":" not in path[:3]:
        return [path, project_dir.rstrip("/") + "/" + path]
    return [path]


def _derived_title(title: str, messages: list[Message]) -> bool:
    """A title cut from the first question adds nothing to search but a second copy of it."""
    first = next((m.text for m in messages if m.role == "user" and m.text.strip()), "")
    head = title.rstrip("…").strip()
    return bool(head) and " ".join(first.split()).startswith(head)


# --------------------------------------------------------------------------- writing


class SegmentWriter:
    """Builds one segment from sessions given in order; ``finish`` writes it to disk."""

    def __init__(self, parent: Path):
        self.name = f"seg-{time.strftime('%Y%m%d%H%M%S')}-{os.urandom(4).hex()}"
        self.path = parent / self.name
        self.path.mkdir(parents=True)
        # Both stay open across add() calls until finish(); a context manager cannot span them.
        self._records = open(self.path / "records.bin", "wb")  # noqa: SIM115
        self._sessions = open(self.path / "sessions.bin", "wb")  # noqa: SIM115
        self._docs = bytearray()
        self._session_idx = bytearray()
        self._record_off = 0
        self._session_off = 0
        self._doc_lengths = array("I")
        self._doc_kinds = array("B")
        self._doc_sessions = array("I")
        self._tf: dict[str, tuple[array, array]] = {}
        self._keyed: dict[str, tuple[array, array]] = {}
        self._sessions_added = 0
        self.message_count = 0

    @property
    def session_count(self) -> int:
        return self._sessions_added

    @property
    def doc_count(self) -> int:
        return len(self._doc_kinds)

    def _add_doc(self, ordinal: int, kind: int, record: bytes, text: str) -> None:
        doc = self.doc_count
        self._records.write(record)
        self._docs += _DOC.pack(self._record_off, len(record), ordinal, kind)
        self._record_off += len(record)
        counts: dict[str, int] = {}
        for term in text_terms(text):
            counts[term] = counts.get(term, 0) + 1
        self._doc_lengths.append(sum(counts.values()))
        self._doc_kinds.append(kind)
        self._doc_sessions.append(ordinal)
        for term, count in counts.items():
            entry = self._tf.get(term)
            if entry is None:
                entry = self._tf[term] = (array("I"), array("H"))
            entry[0].append(doc)
            entry[1].append(min(count, 65535))

    def _add_key(self, key: str, doc: int, when: float) -> None:
        entry = self._keyed.get(key)
        if entry is None:
            entry = self._keyed[key] = (array("I"), array("f"))
        entry[0].append(doc)
        entry[1].append(when / 86400)

    def _add_tool_keys(self, doc: int, message: Message, when: float, project_dir: str) -> None:
        for call in message.tool_calls:
            if call.name in keys.SHELL_TOOLS:
                command = call.args.get("command")
                if isinstance(command, str):
                    for key in keys.command_keys(command):
                        self._add_key(key, doc, when)
                if call.exit_code and call.result:
                    for key in keys.error_keys(call.result):
                        self._add_key(key, doc, when)
            elif call.name in keys.EDIT_TOOLS:
                for path in edited_paths(call.args, project_dir):
                    self._add_key(keys.path_key(path), doc, when)

    def add(self, meta: SessionMeta, messages: list[Message]) -> None:
        """Add a session whose messages are already redacted and capped."""
        ordinal = self.session_count
        meta.first_doc = self.doc_count
        encode = msgspec.msgpack.encode
        updated = meta.updated.timestamp() if meta.updated else 0.0
        for message in messages:
            kind = KIND_USER if message.role == "user" else KIND_ASSISTANT
            doc = self.doc_count
            self._add_doc(ordinal, kind, encode(message), doc_text(message))
            if message.tool_calls:
                when = message.timestamp.timestamp() if message.timestamp else updated
                self._add_tool_keys(doc, message, when, meta.project_dir)
        self._add_key(keys.ALL_SESSIONS_KEY, meta.first_doc, updated)
        for place in {meta.project_dir, meta.project} - {""}:
            self._add_key(keys.project_key(place), meta.first_doc, updated)
        if meta.title and not _derived_title(meta.title, messages):
            self._add_doc(ordinal, KIND_TITLE, encode(Message(role="user", text=meta.title)), meta.title)
        meta.n_docs = self.doc_count - meta.first_doc
        meta.messages = len(messages)
        self.message_count += len(messages)
        record = encode(meta)
        self._sessions.write(record)
        self._session_idx += _SESSION.pack(
            self._session_off,
            len(record),
            name_hash(meta.project),
            name_hash(meta.project_dir),
            SOURCE_CODES.get(meta.source, 0),
            meta.updated.timestamp() if meta.updated else 0.0,
        )
        self._session_off += len(record)
        self._add_key(keys.session_key(meta.id), meta.first_doc, updated)
        self._sessions_added += 1

    def finish(self) -> SegmentRef:
        self._records.close()
        self._sessions.close()
        (self.path / "docs.bin").write_bytes(self._docs)
        (self.path / "sessions.idx").write_bytes(self._session_idx)
        lengths = self._doc_lengths
        avgdl = (sum(lengths) / len(lengths)) if lengths else 1.0
        norm = [K1 * (1 - B + B * dl / avgdl) for dl in lengths]
        weights = [KIND_WEIGHT[k] for k in self._doc_kinds]
        term_blob = bytearray()
        term_idx = bytearray()
        with open(self.path / "postings.bin", "wb") as postings:
            offset = 0
            for term in sorted(self._tf.keys() | self._keyed.keys()):
                if term in self._keyed:
                    docs, times = self._keyed[term]
                    pairs = sorted(zip(times, docs, strict=True), reverse=True)
                else:
                    docs, tfs = self._tf[term]
                    pairs = sorted(
                        ((weights[d] * tf * (K1 + 1) / (tf + norm[d]), d) for d, tf in zip(docs, tfs, strict=True)),
                        reverse=True,
                    )
                packed = bytearray(len(pairs) * _POSTING.size)
                sessions = self._doc_sessions
                for i, (impact, doc) in enumerate(pairs):
                    _POSTING.pack_into(packed, i * _POSTING.size, doc, sessions[doc], impact)
                postings.write(packed)
                encoded = term.encode("utf-8")[:65535]
                term_idx += _TERM.pack(len(term_blob), len(encoded), offset, len(pairs))
                term_blob += encoded
                offset += len(packed)
        (self.path / "terms.bin").write_bytes(term_blob)
        (self.path / "terms.idx").write_bytes(term_idx)
        self._tf.clear()
        self._keyed.clear()
        return SegmentRef(name=self.name, sessions=self.session_count, docs=self.doc_count, messages=self.message_count)

    def abandon(self) -> None:
        import shutil

        self._records.close()
        self._sessions.close()
        shutil.rmtree(self.path, ignore_errors=True)


def write_manifest(directory: Path, manifest: Manifest) -> None:
    """Swap in a new manifest atomically (temp file, fsync, rename)."""
    tmp = directory / f".{MANIFEST}.{os.getpid()}.tmp"
    with open(tmp, "wb") as f:
        f.write(msgspec.msgpack.encode(manifest))
        f.flush()
        os.fsync(f.fileno())
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
            version = msgspec.msgpack.decode(data).get("version")  # type: ignore[union-attr]
        except Exception:
            version = None
        if version is not None and version != FORMAT_VERSION:
            raise IndexUnreadable(f"{path} is index format {version}, this deja reads {FORMAT_VERSION}") from None
        raise IndexUnreadable(f"{path} is corrupt") from None
    if manifest.version != FORMAT_VERSION:
        raise IndexUnreadable(f"{path} is index format {manifest.version}, this deja reads {FORMAT_VERSION}")
    return manifest


# --------------------------------------------------------------------------- reading


def _map(path: Path) -> mmap.mmap | bytes:
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            return b""
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)


class Segment:
    """One segment opened for reading; every file is mapped, nothing is loaded whole."""

    def __init__(self, directory: Path, ref: SegmentRef):
        self.ref = ref
        self.path = directory / ref.name
        try:
            self._terms = _map(self.path / "terms.bin")
            self._term_idx = _map(self.path / "terms.idx")
            self._postings = _map(self.path / "postings.bin")
            self._docs = _map(self.path / "docs.bin")
            self._records = _map(self.path / "records.bin")
            self._sessions = _map(self.path / "sessions.bin")
            self._session_idx = _map(self.path / "sessions.idx")
        except OSError as exc:
            raise IndexUnreadable(f"segment {self.path} is unreadable: {exc.strerror or exc}") from None
        if len(self._docs) != ref.docs * _DOC.size or len(self._session_idx) != ref.sessions * _SESSION.size:
            raise IndexUnreadable(f"segment {self.path} is truncated")
        self.n_terms = len(self._term_idx) // _TERM.size
        self.deleted = frozenset(ref.deleted)

    def _term_at(self, i: int) -> tuple[bytes, int, int]:
        t_off, t_len, p_off, count = _TERM.unpack_from(self._term_idx, i * _TERM.size)
        return self._terms[t_off : t_off + t_len], p_off, count

    def _lower_bound(self, key: bytes) -> int:
        """The position of the first term not below ``key`` (binary search over the mapped table)."""
        lo, hi = 0, self.n_terms
        while lo < hi:
            mid = (lo + hi) // 2
            if self._term_at(mid)[0] < key:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def lookup(self, term: str) -> tuple[int, int]:
        """(postings offset, count) of ``term``, or (0, 0)."""
        key = term.encode("utf-8")
        i = self._lower_bound(key)
        if i < self.n_terms:
            found, p_off, count = self._term_at(i)
            if found == key:
                return p_off, count
        return 0, 0

    def postings(self, p_off: int, start: int, stop: int) -> Iterator[tuple[int, int, float]]:
        """Entries ``start`` to ``stop`` of a postings list: (doc, session ordinal, impact), best first."""
        begin = p_off + start * _POSTING.size
        return _POSTING.iter_unpack(self._postings[begin : p_off + stop * _POSTING.size])

    def doc(self, doc: int) -> tuple[int, int]:
        """(session ordinal, kind) of a doc."""
        _, _, ordinal, kind = _DOC.unpack_from(self._docs, doc * _DOC.size)
        return ordinal, kind

    def message(self, doc: int) -> Message:
        off, length, _, _ = _DOC.unpack_from(self._docs, doc * _DOC.size)
        return msgspec.msgpack.decode(self._records[off : off + length], type=Message)

    def messages(self, meta: SessionMeta) -> list[Message]:
        """A session's messages in order (its title doc left out)."""
        out = []
        for doc in range(meta.first_doc, meta.first_doc + meta.n_docs):
            if self.doc(doc)[1] != KIND_TITLE:
                out.append(self.message(doc))
        return out

    def session_keys(self, ordinal: int) -> tuple[int, int, int, float]:
        """What filters look at, without decoding the session: (project hash, dir hash, source, updated)."""
        return _SESSION.unpack_from(self._session_idx, ordinal * _SESSION.size)[2:]

    def session(self, ordinal: int) -> SessionMeta:
        off, length = _SESSION.unpack_from(self._session_idx, ordinal * _SESSION.size)[:2]
        return msgspec.msgpack.decode(self._sessions[off : off + length], type=SessionMeta)

    def with_prefix(self, prefix: str) -> Iterator[tuple[str, int, int]]:
        """(term, postings offset, count) of every term starting with ``prefix``, in order."""
        key = prefix.encode("utf-8")
        for i in range(self._lower_bound(key), self.n_terms):
            term, p_off, count = self._term_at(i)
            if not term.startswith(key):
                return
            yield term.decode("utf-8"), p_off, count

    def live_sessions(self) -> Iterator[tuple[int, SessionMeta]]:
        for ordinal in range(self.ref.sessions):
            if ordinal not in self.deleted:
                yield ordinal, self.session(ordinal)


class Index:
    """A read-only view of one generation of the index."""

    def __init__(self, directory: Path, manifest: Manifest):
        self.directory = directory
        self.manifest = manifest
        self.segments = [Segment(directory, ref) for ref in manifest.segments]
        self.total_docs = sum(ref.docs for ref in manifest.segments) or 1

    @classmethod
    def open(cls, home: Path) -> Index:
        directory = index_dir(home)
        try:
            return cls(directory, read_manifest(directory))
        except (msgspec.DecodeError, struct.error, ValueError) as exc:
            raise IndexUnreadable(f"the index at {directory} is corrupt ({exc})") from None

    @property
    def session_count(self) -> int:
        return sum(ref.sessions - len(ref.deleted) for ref in self.manifest.segments)

    @property
    def message_count(self) -> int:
        return sum(ref.messages - ref.deleted_messages for ref in self.manifest.segments)

    def idf(self, df: int) -> float:
        return math.log(1 + (self.total_docs - df + 0.5) / (df + 0.5))

    def sessions(self) -> Iterator[tuple[Segment, int, SessionMeta]]:
        for segment in self.segments:
            for ordinal, meta in segment.live_sessions():
                yield segment, ordinal, meta

    def find(self, prefix: str) -> list[tuple[Segment, int, SessionMeta]]:
        """Live sessions whose id starts with ``prefix`` (an exact id wins outright)."""
        found = []
        key = keys.session_key(prefix)
        for segment in self.segments:
            for term, p_off, count in segment.with_prefix(key):
                for _, ordinal, _ in segment.postings(p_off, 0, count):
                    if ordinal in segment.deleted:
                        continue
                    hit = (segment, ordinal, segment.session(ordinal))
                    if term == key:
                        return [hit]
                    found.append(hit)
        return found

    def newest(self, key: str, limit: int, scan_limit: int = 2000) -> list[tuple[float, Segment, int]]:
        """The newest live docs filed under an exact ``key`` (see ``deja.core.keys``): (days, segment, doc)."""
        found: list[tuple[float, Segment, int]] = []
        for segment in self.segments:
            p_off, count = segment.lookup(key)
            taken = 0
            for doc, ordinal, days in segment.postings(p_off, 0, min(count, scan_limit)):
                if ordinal in segment.deleted:
                    continue
                found.append((days, segment, doc))
                taken += 1
                if taken >= limit:
                    break
        found.sort(key=lambda item: item[0], reverse=True)
        return found[:limit]

    def size_bytes(self) -> int:
        total = 0
        for segment in self.segments:
            total += sum(p.stat().st_size for p in segment.path.iterdir())
        return total


def remove_stale_segments(directory: Path, live: Iterable[str], grace_seconds: float = 60.0) -> None:
    """Delete segment folders no manifest names, once no reader can still be opening them."""
    import shutil

    keep = set(live)
    now = time.time()
    for child in directory.glob("seg-*"):
        if child.name in keep:
            continue
        try:
            if now - child.stat().st_mtime > grace_seconds:
                shutil.rmtree(child, ignore_errors=True)
        except OSError:
            pass
