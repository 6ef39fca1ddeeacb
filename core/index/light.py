"""Reading the index's msgpack records without msgspec, for hooks.

A hook decodes a manifest, a handful of sessions and a few messages, and
importing msgspec would cost it more than starting Python does. This decoder
reads the same bytes msgspec wrote (``records.py``) into plain objects with the
same fields, so a hook's code reads ``meta.title`` or ``message.tool_calls``
whichever codec decoded them. Only what msgspec writes for deja's records is
understood: nil, booleans, integers, floats, strings, bytes, arrays, maps and
the timestamp extension.

A time field (``started``, ``updated``, ``timestamp``) becomes a datetime when
it is first read, not as it is decoded: a hook that names sessions takes their
times from ``sessions.idx`` and never loads ``datetime`` at all (about 1 ms).
"""

from __future__ import annotations

import _struct as struct  # (``struct`` is this C module re-exported: one module file fewer to load)

from .format import Codec, IndexUnreadable, check_version

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Any

    from ..model import Message
    from .records import Manifest, SessionMeta

#: The default of every field msgspec leaves out (``omit_defaults``), per record; ``test_light.py`` checks
#: these against the Structs' own defaults. A field in neither a record nor here is a damaged record.
DEFAULTS: dict[str, dict[str, Any]] = {
    "SessionMeta": {
        "project": "",
        "project_dir": "",
        "project_from": "",
        "title": "",
        "started": None,
        "updated": None,
        "origin": "",
        "messages": 0,
        "first_doc": 0,
        "n_docs": 0,
        "asked": "",
        "concluded": "",
        "files": [],
        "untimed_lead": 0,
        "after_part": 0,
    },
    "Message": {"timestamp": None, "tool_calls": []},
    "ToolCall": {"args": {}, "result": None, "exit_code": None},
    "SegmentRef": {"deleted": [], "deleted_messages": 0, "files": {}},
    "Manifest": {"segments": [], "state": "", "redaction": ""},
    "FileSum": {},
}
#: The fields of each record msgspec writes as an array (``array_like``), in order: a record holds the first ones, up
#: to its last that is not its default. ``test_light.py`` checks these against the Structs.
ORDER: dict[str, tuple[str, ...]] = {
    "SessionMeta": (
        "id",
        "source",
        "project",
        "project_dir",
        "project_from",
        "title",
        "started",
        "updated",
        "origin",
        "messages",
        "first_doc",
        "n_docs",
        "asked",
        "concluded",
        "files",
        "untimed_lead",
        "after_part",
    ),
    "Message": ("role", "text", "timestamp", "tool_calls"),
    "ToolCall": ("name", "args", "result", "exit_code"),
    "FileSum": ("size", "crc"),
}


class Stamp:
    """A msgpack timestamp as read, before it is made a datetime (:class:`Time`)."""

    __slots__ = ("seconds", "nanoseconds")

    def __init__(self, seconds: int, nanoseconds: int) -> None:
        self.seconds, self.nanoseconds = seconds, nanoseconds


class Time:
    """A time field of a record, stored as read (a :class:`Stamp`, ISO text or None) and made a datetime, as msgspec
    decodes it, when first read (msgspec writes an aware time as a timestamp, a naive one as ISO text)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, record: Fields | None, owner: type | None = None) -> Any:
        if record is None:
            return self
        try:
            value = record.__dict__[self.name]
        except KeyError:
            raise AttributeError(f"the record has no field {self.name!r}") from None
        if isinstance(value, Stamp | str):
            try:
                value = record.__dict__[self.name] = _datetime(value)
            except (ValueError, OverflowError) as exc:  # read late, so reported as the reader reports damage
                raise IndexUnreadable(f"the index is damaged (a record's {self.name}: {exc})") from None
        return value

    def __set__(self, record: Fields, value: Any) -> None:
        record.__dict__[self.name] = value


def _datetime(value: Stamp | str) -> datetime:
    if TYPE_CHECKING:
        from datetime import UTC, datetime, timedelta
    else:
        try:  # the C module alone: ``datetime`` (Python 3.11) compiles its pure-Python twin first, about 1.5 ms a hook
            from _datetime import UTC, datetime, timedelta
        except ImportError:  # an interpreter without it
            from datetime import UTC, datetime, timedelta

    if isinstance(value, str):
        return datetime.fromisoformat(value)
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    return epoch + timedelta(seconds=value.seconds, microseconds=value.nanoseconds // 1000)


#: The seconds since the epoch a datetime can hold (years 1 to 9999): a stamp outside them is a damaged record.
_SECONDS = range(-62135596800, 253402300800)


def micros(record: Any) -> int | None:
    """A light record's ``timestamp`` in microseconds since the epoch, read from its stamp as :class:`Time` would make
    it a datetime, without making one (a hook comparing two messages' times then loads no ``_datetime``: 0.9 M
    instructions); None where the record holds no undecoded stamp (a msgspec Struct, ISO text, a time already read,
    none, or a damaged one: a datetime then says what it says)."""
    value = getattr(record, "__dict__", {}).get("timestamp")
    if not isinstance(value, Stamp) or value.seconds not in _SECONDS or value.nanoseconds >= 1_000_000_000:
        return None
    return value.seconds * 1_000_000 + value.nanoseconds // 1000


class Fields:
    """A decoded record: its fields as attributes, the Struct's default for each one it left out."""

    started = Time()
    updated = Time()
    timestamp = Time()

    def __init__(self, kind: str, values: dict[str, Any]):
        fields = self.__dict__
        fields.update(DEFAULTS[kind])
        for name, default in fields.items():
            if isinstance(default, list | dict):
                fields[name] = type(default)()
        fields.update(values)

    def __getattr__(self, name: str) -> Any:
        """Only for a field the record lacks (a damaged one): the others are set in ``__init__``."""
        raise AttributeError(f"the record has no field {name!r}")

    def fields(self) -> dict[str, Any]:
        """Every field by name, times as datetimes."""
        return {name: getattr(self, name) for name in vars(self)}

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.fields() == self.fields()

    def __repr__(self) -> str:
        return f"Fields({self.fields()!r})"


def _map(kind: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"a {kind} that is not a map")
    return value


def _fields_of(kind: str, value: Any) -> dict[str, Any]:
    """The fields of a record written as an array, by name (``ORDER``): those it must hold at least, and any after
    its last field ignored, as msgspec ignores them."""
    if not isinstance(value, list):
        raise ValueError(f"a {kind} that is not an array")
    names = ORDER[kind]
    if len(value) < len(names) - len(DEFAULTS[kind]):
        raise ValueError(f"a {kind} of {len(value)} fields")
    return dict(zip(names, value, strict=False))


def _record(kind: str, value: Any) -> Fields:
    return Fields(kind, _fields_of(kind, value))


def session(data: bytes) -> SessionMeta:
    return _record("SessionMeta", unpackb(data))  # type: ignore[return-value]  # the same fields, read alike


def message(data: bytes) -> Message:
    values = _fields_of("Message", unpackb(data))
    if "tool_calls" in values:
        values["tool_calls"] = [_record("ToolCall", call) for call in values["tool_calls"]]
    return Fields("Message", values)  # type: ignore[return-value]


def manifest(data: bytes, path: str) -> Manifest:
    """The manifest in ``data``, or IndexUnreadable: of another format version, or corrupt."""
    try:
        values = _map("Manifest", unpackb(data))
    except _DAMAGE:
        raise IndexUnreadable(f"{path} is corrupt") from None
    check_version(values.get("version"), path)
    try:
        if not isinstance(values["generation"], int) or not isinstance(values["built_at"], float | int):
            raise ValueError("no generation or build time")
        if "segments" in values:
            values["segments"] = [_segment(ref) for ref in values["segments"]]
    except _DAMAGE:
        raise IndexUnreadable(f"{path} is corrupt") from None
    return Fields("Manifest", values)  # type: ignore[return-value]


def _segment(value: Any) -> Fields:
    values = _map("SegmentRef", value)
    missing = {"name", "sessions", "docs", "messages"} - values.keys()
    if missing:
        raise ValueError(f"a segment without {', '.join(sorted(missing))}")
    if "files" in values:
        values["files"] = {name: _record("FileSum", sizes) for name, sizes in _map("files", values["files"]).items()}
    return Fields("SegmentRef", values)


# -- msgpack ------------------------------------------------------------------------------------------------

_FIXED = {
    0xCA: struct.Struct(">f"),
    0xCB: struct.Struct(">d"),
    0xCC: struct.Struct(">B"),
    0xCD: struct.Struct(">H"),
    0xCE: struct.Struct(">I"),
    0xCF: struct.Struct(">Q"),
    0xD0: struct.Struct(">b"),
    0xD1: struct.Struct(">h"),
    0xD2: struct.Struct(">i"),
    0xD3: struct.Struct(">q"),
}
#: type byte -> (what follows, the struct of its length): strings, bytes, arrays, maps, extensions.
_SIZED = {
    0xD9: ("str", struct.Struct(">B")),
    0xDA: ("str", struct.Struct(">H")),
    0xDB: ("str", struct.Struct(">I")),
    0xC4: ("bin", struct.Struct(">B")),
    0xC5: ("bin", struct.Struct(">H")),
    0xC6: ("bin", struct.Struct(">I")),
    0xDC: ("array", struct.Struct(">H")),
    0xDD: ("array", struct.Struct(">I")),
    0xDE: ("map", struct.Struct(">H")),
    0xDF: ("map", struct.Struct(">I")),
    0xC7: ("ext", struct.Struct(">B")),
    0xC8: ("ext", struct.Struct(">H")),
    0xC9: ("ext", struct.Struct(">I")),
}
_FIXEXT = {0xD4: 1, 0xD5: 2, 0xD6: 4, 0xD7: 8, 0xD8: 16}
_CONSTANTS = {0xC0: None, 0xC2: False, 0xC3: True}
#: What a damaged record raises while it is decoded here.
_DAMAGE = (ValueError, TypeError, KeyError, IndexError, struct.error, RecursionError)  # type: ignore[attr-defined]  # (typeshed's _struct lacks the error it defines)


def unpackb(data: bytes) -> Any:
    """The one msgpack value ``data`` holds; ValueError (or another of ``_DAMAGE``) when it is damaged."""
    value, end = _value(data, 0)
    if end != len(data):
        raise ValueError(f"{len(data) - end} bytes after the record")
    return value


def _value(data: bytes, at: int) -> tuple[Any, int]:
    byte = data[at]
    at += 1
    if byte <= 0x7F:
        return byte, at
    if byte >= 0xE0:
        return byte - 0x100, at
    if 0xA0 <= byte <= 0xBF:
        return _sized("str", data, at, byte & 0x1F)
    if 0x90 <= byte <= 0x9F:
        return _sized("array", data, at, byte & 0x0F)
    if 0x80 <= byte <= 0x8F:
        return _sized("map", data, at, byte & 0x0F)
    if byte in _CONSTANTS:
        return _CONSTANTS[byte], at
    if byte in _FIXED:
        fixed = _FIXED[byte]
        return fixed.unpack_from(data, at)[0], at + fixed.size
    if byte in _SIZED:
        kind, length = _SIZED[byte]
        return _sized(kind, data, at + length.size, length.unpack_from(data, at)[0])
    if byte in _FIXEXT:
        return _sized("ext", data, at, _FIXEXT[byte])
    raise ValueError(f"msgpack type 0x{byte:02x} at byte {at - 1}")


def _sized(kind: str, data: bytes, at: int, n: int) -> tuple[Any, int]:
    """A string, bytes, array, map or extension of ``n`` bytes or items, starting at ``at``."""
    if kind == "array":
        return _array(data, at, n)
    if kind == "map":
        pairs = {}
        for _ in range(n):
            key, at = _value(data, at)
            pairs[key], at = _value(data, at)
        return pairs, at
    if kind == "ext":
        code, at = data[at], at + 1
        return _extension(code, data[at : at + n]), at + n
    end = at + n
    if end > len(data):
        raise ValueError(f"a {kind} of {n} bytes runs past the end")
    raw = bytes(data[at:end])
    return (raw.decode("utf-8") if kind == "str" else raw), end


def _array(data: bytes, at: int, n: int) -> tuple[list[Any], int]:
    """An array of ``n`` items. A run of 16-bit unsigned integers, as msgspec writes a segment's deleted session
    ordinals (tens of thousands in a 100k-session index, read by every hook that opens it), is decoded at once."""
    items: list[Any] = []
    while len(items) < n:
        if data[at] == 0xCD:
            marks = bytes(data[at : at + 3 * (n - len(items)) : 3])
            run = len(marks) - len(marks.lstrip(b"\xcd"))
            pairs = bytearray(2 * run)
            pairs[0::2] = data[at + 1 : at + 3 * run : 3]
            pairs[1::2] = data[at + 2 : at + 3 * run : 3]
            items += struct.unpack(f">{run}H", pairs)
            at += 3 * run
            continue
        item, at = _value(data, at)
        items.append(item)
    return items, at


def _extension(code: int, body: bytes) -> Stamp:
    """The timestamp extension (-1), the only one msgspec writes for deja's records (in a time field)."""
    if code != 0xFF:
        raise ValueError(f"msgpack extension {code}")
    if len(body) == 4:
        seconds, nanoseconds = struct.unpack(">I", body)[0], 0
    elif len(body) == 8:
        both = struct.unpack(">Q", body)[0]
        seconds, nanoseconds = both & ((1 << 34) - 1), both >> 34
    elif len(body) == 12:
        nanoseconds, seconds = struct.unpack(">Iq", body)
    else:
        raise ValueError(f"a timestamp of {len(body)} bytes")
    return Stamp(seconds, nanoseconds)


LIGHT = Codec(manifest=manifest, session=session, message=message, damage=_DAMAGE)
