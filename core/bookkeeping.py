"""The index writer's record of what it read, so the next refresh reads only what changed.

Per chat: where its session lives in the index, which ``state.vscdb`` holds it,
and for a transcript its size, modification time, how far it was read and the
hashes that prove it only grew. Chats are spread over ``SHARDS`` files by id,
so a refresh that touches one chat loads and rewrites one small file, not a
record of the whole history. Every file is immutable and named by the build
that wrote it (its generation and a random tag, so not even a full rebuild
reuses a name); the manifest names the top-level ``State``, which names the
rest, so a new record becomes current in the same ``os.replace`` as the index
it describes, and a build killed before that leaves the current record whole.
"""

import os
import zlib
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from . import faults
from .index import IndexUnreadable
from .lean_msgspec import msgspec
from .private import private_dir, remove, write_private

SHARDS = 64
FOLDER = "state"


class Sig(msgspec.Struct, array_like=True, gc=False):
    size: int
    mtime_ns: int


class CliState(msgspec.Struct, gc=False):
    transcript: str
    sig: Sig
    #: Byte offset after the last line read: where an append resumes.
    end: int
    head_hash: str
    tail_hash: str
    last_timestamp: datetime | None = None
    chat_dir: str | None = None
    store_sig: list[Sig | None] = []


class Location(msgspec.Struct, array_like=True, gc=False):
    segment: str
    ordinal: int


class ChatState(msgspec.Struct, omit_defaults=True, gc=False):
    where: Location | None = None
    #: The ``state.vscdb`` that holds this chat, if the editor does.
    ide_db: str | None = None
    cli: CliState | None = None


class IdeDbState(msgspec.Struct):
    sigs: list[Sig | None]
    #: The file (in ``state/``) holding this database's {composer id: fingerprint}.
    fingerprints: str = ""
    #: The device and inode of the file its fingerprints were taken from (None: not recorded, as by a deja before
    #: stop 56): a database replaced by another file (another inode) is read whole again (``plan._replaced``).
    file: tuple[int, int] | None = None


class State(msgspec.Struct):
    ide: dict[str, IdeDbState] = {}
    #: One file name per shard ("" for an empty shard).
    shards: list[str] = []
    #: Records skipped as unreadable, by reason: the most any refresh since the last full build counted
    #: (a refresh re-reads only what changed, so one that skipped nothing does not clear them), less the stores
    #: read whole again since (``unread``); a walk's count of the stores it could not read replaces it. Doctor
    #: shows them.
    problems: dict[str, int] = {}
    #: The cursor-agent chats that could not be read (kept as they were) -> the reason counted in ``problems``: a
    #: refresh of some chats that reads one of them whole again takes its count off.
    unread: dict[str, str] = {}


def shard_of(session_id: str) -> int:
    return zlib.crc32(session_id.encode("utf-8", "surrogatepass")) % SHARDS


class BookkeepingDamaged(IndexUnreadable):
    """A bookkeeping file is missing, cut short or not what was written: the next refresh rebuilds the index."""


#: A decoder for each kind of bookkeeping file, made once at import (see ``index.records._MANIFEST``).
_DECODERS: dict[Any, msgspec.msgpack.Decoder[Any]] = {
    kind: msgspec.msgpack.Decoder(kind) for kind in (State, dict[str, ChatState], dict[str, str])
}


def read_record(path: Path, kind: Any) -> Any:
    """A bookkeeping file decoded as ``kind`` (``State``, a shard's ``dict[str, ChatState]`` or a database's
    fingerprints, ``dict[str, str]``), or BookkeepingDamaged naming it."""
    try:
        return _DECODERS[kind].decode(path.read_bytes())
    except FileNotFoundError:
        raise BookkeepingDamaged(f"{path} is missing") from None
    except OSError as exc:
        raise BookkeepingDamaged(f"{path} is unreadable: {exc.strerror or exc}") from None
    except msgspec.DecodeError as exc:
        raise BookkeepingDamaged(f"{path} is damaged ({exc})") from None


class Bookkeeping:
    """Lazy access to a ``State``'s shards, and the writing of the next one."""

    def __init__(self, directory: Path, state: State):
        self.folder = directory / FOLDER
        self.state = state
        self._shards: dict[int, dict[str, ChatState]] = {}
        self._dirty: set[int] = set()
        #: Shards recorded and set aside on disk until ``save`` names them (None: the shard is empty).
        self._parked: dict[int, Path | None] = {}
        #: Database -> its new fingerprints, set aside on disk until ``save`` names them (a big history's are many).
        self._new_fingerprints: dict[str, Path] = {}
        #: The files ``save`` wrote, for the manifest that names them to sync with its own (``write_manifest``).
        self.unsynced: list[Path] = []

    @classmethod
    def recorded(cls, directory: Path, state_file: str) -> "Bookkeeping":
        """The bookkeeping a manifest names (its ``state`` file in ``directory``); raises IndexUnreadable."""
        return cls(directory, read_record(directory / state_file, State))

    def _files(self) -> list[tuple[str, type[Any]]]:
        """Every file the state names, with what it holds."""
        shards = [(n, dict[str, ChatState]) for n in self.state.shards if n]
        return shards + [(db.fingerprints, dict[str, str]) for db in self.state.ide.values() if db.fingerprints]

    def check(self) -> None:
        """Raise BookkeepingDamaged if a file the state names is missing (cheap: what every refresh does)."""
        for name, _ in self._files():
            if not (self.folder / name).is_file():
                raise BookkeepingDamaged(f"{self.folder / name} is missing")

    def verify(self, skip: Callable[[Path], bool] = lambda _: False) -> None:
        """Decode every file the state names but those ``skip`` vouches for (``deja index``, doctor); raise
        BookkeepingDamaged."""
        for name, kind in self._files():
            if not skip(self.folder / name):
                read_record(self.folder / name, kind)

    def _shard(self, number: int) -> dict[str, ChatState]:
        shard = self._shards.get(number)
        if shard is None:
            shard = self._shards[number] = self._read_shard(number)
        return shard

    def _read_shard(self, number: int) -> dict[str, ChatState]:
        """Shard ``number`` as last written: set aside by ``park``, else as the state names it."""
        if number in self._parked:
            parked = self._parked[number]
            return read_record(parked, dict[str, ChatState]) if parked else {}
        name = self.state.shards[number] if number < len(self.state.shards) else ""
        return read_record(self.folder / name, dict[str, ChatState]) if name else {}

    def park(self, number: int) -> None:
        """Set shard ``number`` aside on disk until ``save`` (a refresh that has recorded it): a full build of a
        big history holds one shard of records at a time, not a record of every chat.

        The file is named as every temp of the index is (``.<name>.<pid>.tmp``), so a killed build's is swept.
        """
        shard = self._shards.pop(number, None)
        if shard is None or number not in self._dirty:
            return
        parked = self.folder / f".shard-{number:02d}.{os.getpid()}.tmp" if shard else None
        if parked is not None:
            private_dir(self.folder)
            write_private(parked, msgspec.msgpack.encode(shard))
        self._parked[number] = parked

    def chat(self, session_id: str) -> ChatState | None:
        return self._shard(shard_of(session_id)).get(session_id)

    def put(self, session_id: str, chat: ChatState | None) -> None:
        number = shard_of(session_id)
        shard = self._shard(number)
        if chat is None:
            if shard.pop(session_id, None) is None:
                return
        elif shard.get(session_id) == chat:
            return
        else:
            shard[session_id] = chat
        self._dirty.add(number)

    def every_chat(self) -> dict[str, ChatState]:
        """Every chat on record in one dict, each shard loaded and kept (``items`` keeps none): a walk asks for
        every chat in turn, and one look-up in a dict costs a third of ``chat``'s, which hashes the id to find its
        shard. A snapshot: a ``put`` afterwards changes the shards, not it."""
        chats: dict[str, ChatState] = {}
        for number in range(SHARDS):
            chats.update(self._shard(number))
        return chats

    def items(self) -> Iterator[tuple[str, ChatState]]:
        """Every chat on record (loads every shard: the full refresh's path)."""
        for number in range(SHARDS):  # a shard not loaded already is read, not kept: one at a time in memory
            shard = self._shards.get(number)
            yield from list((shard if shard is not None else self._read_shard(number)).items())

    def fingerprints(self, db: str) -> dict[str, str]:
        if db in self._new_fingerprints:
            return read_record(self._new_fingerprints[db], dict[str, str])
        old = self.state.ide.get(db)
        if old is None or not old.fingerprints:
            return {}
        return read_record(self.folder / old.fingerprints, dict[str, str])

    def set_fingerprints(self, db: str, fingerprints: dict[str, str]) -> None:
        """Record a database's new fingerprints: written aside at once (a temp, swept if the refresh is killed) and
        named by ``save``, so a build does not hold, nor hand its forked parts, a print of every editor chat."""
        parked = self.folder / f".fingerprints-{zlib.crc32(db.encode()):08x}.{os.getpid()}.tmp"
        private_dir(self.folder)
        write_private(parked, msgspec.msgpack.encode(fingerprints))
        self._new_fingerprints[db] = parked

    @property
    def changed(self) -> bool:
        return bool(self._dirty or self._new_fingerprints)

    def save(self, tag: str, ide: dict[str, IdeDbState], problems: dict[str, int], unread: dict[str, str]) -> str:
        """Write the shards and fingerprints that changed and the ``State`` naming every file, all under new names.

        ``tag`` names this build's files; the result is the ``State`` file's path
        relative to the index folder, for the manifest to name. The files are not synced here: ``unsynced``
        lists them for the manifest's write to make durable with its own, in one wait, before its rename.
        """
        private_dir(self.folder)
        written: list[Path] = []  # synced together at the end, before any manifest names them
        shards = list(self.state.shards) + [""] * (SHARDS - len(self.state.shards))
        for number in sorted(self._dirty):
            shard = self._shards.get(number)
            parked = self._parked.pop(number, None)
            name = f"shard-{tag}-{number:02d}.msgpack" if (shard if shard is not None else parked) else ""
            if name:
                written.append(self.folder / name)
                if shard is not None:
                    write_private(written[-1], msgspec.msgpack.encode(shard))
                elif parked is not None:
                    os.replace(parked, written[-1])
                faults.point("bookkeeping-shard")
            if parked is not None and parked.exists():  # loaded again after it was set aside: written above
                parked.unlink()
            shards[number] = name
        ide = dict(ide)
        for db, parked in self._new_fingerprints.items():
            if db in ide:
                name = f"fingerprints-{tag}-{zlib.crc32(db.encode()):08x}.msgpack"
                written.append(self.folder / name)
                os.replace(parked, written[-1])
                ide[db] = msgspec.structs.replace(ide[db], fingerprints=name)
            else:
                parked.unlink(missing_ok=True)
        self._new_fingerprints = {}  # the state below names them now
        self.state = State(ide=ide, shards=shards, problems=problems, unread=unread)
        name = f"state-{tag}.msgpack"
        written.append(self.folder / name)
        write_private(written[-1], msgspec.msgpack.encode(self.state))
        self.unsynced = written
        return f"{FOLDER}/{name}"


def remove_strays(directory: Path) -> None:
    """Delete the temp files a killed writer left in the bookkeeping folder (parked shards, fingerprints).

    Called under the writer lock, where no other writer is at work, so every temp there is a dead one's; a
    refresh that then finds nothing changed would otherwise keep them until one does.
    """
    for name in _names(directory / FOLDER):
        if name.startswith(".") and name.endswith(".tmp") and len(name) >= 5:  # ``glob(".*.tmp")``
            remove(os.path.join(directory, FOLDER, name))


def remove_unreferenced(directory: Path, state: State, state_file: str) -> None:
    """Delete the bookkeeping no longer named (only writers read it, under the lock, so no grace is needed)."""
    for path in unreferenced(directory, state, state_file):
        remove(path)


def unreferenced(directory: Path, state: State, state_file: str) -> list[str]:
    """The bookkeeping files ``state`` does not name: a previous state and its shards, which a read's refresh leaves
    for the next refresh nobody waits on to remove (``indexer.refresh``'s ``sweep``; ``deja doctor`` counts them
    apart). ``state_file`` is the manifest's, naming ``state``; the state files of earlier formats lived beside the
    manifest and are among them."""
    keep = {n for n in state.shards if n} | {db.fingerprints for db in state.ide.values() if db.fingerprints}
    keep.add(Path(state_file).name)
    old = [os.path.join(directory, n) for n in _names(directory) if n.startswith("state-") and n.endswith(".msgpack")]
    return old + [os.path.join(directory, FOLDER, name) for name in _names(directory / FOLDER) if name not in keep]


def _names(folder: Path) -> list[str]:
    """The names in ``folder`` (none when it is not there): listed without ``glob``, whose patterns (``fnmatch``,
    ``re``) a refresh after a turn would compile for this listing alone."""
    try:
        return os.listdir(folder)
    except OSError:
        return []
