"""The records the index stores, as msgspec Structs, and writing and decoding the manifest with msgspec.

``format.py`` holds the layout these fit in; ``light.py`` reads the same bytes
without msgspec, for hooks.

A session's meta and its messages (with their tool calls) are stored as arrays (``array_like``): their fields in
order, the trailing ones that hold their default left out. Field names were a tenth of the records and a sixth of
the metas before deflate, and 2% of both after it (format 17).
"""

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from ..lean_msgspec import msgspec
from ..model import Message, Role, ToolCall
from ..private import replace_private
from .format import MANIFEST, Codec, IndexUnreadable, check_version


class SessionMeta(msgspec.Struct, omit_defaults=True, array_like=True):
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
    #: How many of its first messages carry its creation time, a reader's stamp, not a time of their own: those
    #: before its first dated one, in a chat begun where Cursor kept no message's time (``passages.Written.own``).
    untimed_lead: int = 0
    #: How many of its last messages follow the part of it ``asked`` and ``concluded`` were read from: the turns about
    #: its title, in a long chat that began and ended on other work (``topic.summarised_part``); 0 for a chat read whole.
    after_part: int = 0


class StoredCall(msgspec.Struct, omit_defaults=True, array_like=True):
    """A ``model.ToolCall`` as the index stores it (``model``'s own Structs stay maps: they are written as JSON too).

    Every ``array_like`` record here (this, ``StoredMessage``, ``SessionMeta``, ``FileSum``) is read by position: a
    field is added at the end, never between two others, or ``FORMAT_VERSION`` goes up (``test_light`` pins the order
    each version was written in)."""

    name: str
    args: dict[str, Any] = {}
    result: str | None = None
    exit_code: int | None = None


class StoredMessage(msgspec.Struct, omit_defaults=True, array_like=True):
    """A ``model.Message`` as the index stores it."""

    role: Role
    text: str
    timestamp: datetime | None = None
    tool_calls: list[StoredCall] = []


def stored(message: Message) -> StoredMessage:
    """``message`` as the index stores it (field by field by name, so a field the two Structs share cannot be left
    behind: ``test_light`` checks they have the same fields)."""
    fields = msgspec.structs.asdict(message)
    fields["tool_calls"] = [StoredCall(**msgspec.structs.asdict(call)) for call in message.tool_calls]
    return StoredMessage(**fields)


_STORED_MESSAGE = msgspec.msgpack.Decoder(StoredMessage)


def decode_message(data: bytes) -> Message:
    """The message stored as ``data``."""
    fields = msgspec.structs.asdict(_STORED_MESSAGE.decode(data))
    fields["tool_calls"] = [ToolCall(**msgspec.structs.asdict(call)) for call in fields["tool_calls"]]
    return Message(**fields)


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
    #: The redaction the index was built with (``redaction.mode()``); another one rebuilds it.
    redaction: str = ""


def write_manifest(directory: Path, manifest: Manifest, sync_along: Sequence[Path] = ()) -> None:
    """Swap in a new manifest atomically (temp file, fsync, rename), the files it names that were written
    unsynced (``sync_along``: the new segments and bookkeeping) made durable in the same wait as the temp file."""
    replace_private(directory / MANIFEST, msgspec.msgpack.encode(manifest), sync=True, sync_along=sync_along)


#: The manifest's and a session's decoders, made once at import, as ``_STORED_MESSAGE`` is: what msgspec works out of a
#: type on its first decode is worked out once in the hook server for every child it forks (each child worked it out
#: again: about 1 ms for the types a search's refresh after a turn decodes, 0.4 of it the manifest's), and no decode
#: looks its type up.
_MANIFEST = msgspec.msgpack.Decoder(Manifest)
_SESSION_META = msgspec.msgpack.Decoder(SessionMeta)


def decode_manifest(data: bytes, path: str) -> Manifest:
    """The manifest in ``data`` (read from ``path``), or IndexUnreadable saying why not."""
    try:
        manifest = _MANIFEST.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        try:
            version = msgspec.msgpack.decode(data).get("version")
        except Exception:
            version = None
        if version is not None:
            check_version(version, path)
        raise IndexUnreadable(f"{path} is corrupt") from None
    check_version(manifest.version, path)
    return manifest


STRUCTS = Codec(
    manifest=decode_manifest,
    session=_SESSION_META.decode,
    message=decode_message,
    damage=(msgspec.DecodeError,),
)
