"""The hooks' msgspec-free reading of the index (``core/index/light.py``) sees what msgspec sees."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import msgspec
import pytest
from harness import Sample

from deja.core.ending import apart, seconds
from deja.core.index import Index, IndexUnreadable, Manifest, SegmentRef, SessionMeta, index_dir, read_manifest
from deja.core.index.format import FORMAT_VERSION, SESSION_ROW, inflate
from deja.core.index.light import DEFAULTS, LIGHT, ORDER, micros, unpackb
from deja.core.index.records import STRUCTS, FileSum, StoredCall, StoredMessage, decode_message, stored
from deja.core.model import Message, ToolCall


def _fields(struct: Any) -> dict[str, Any]:
    """A Struct's (or a light record's) fields, nested records and all, as plain values (a light record's times
    read as a hook reads them: by attribute, which makes them datetimes)."""
    names = (
        [f.name for f in msgspec.structs.fields(type(struct))] if isinstance(struct, msgspec.Struct) else vars(struct)
    )
    values = {name: getattr(struct, name) for name in names}
    return {name: _plain(value) for name, value in values.items()}


def _plain(value: Any) -> Any:
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, msgspec.Struct) or hasattr(value, "__dict__") and not isinstance(value, type):
        return _fields(value)
    return value


@pytest.mark.unit
@pytest.mark.parametrize("struct", [SessionMeta, Message, ToolCall, SegmentRef, Manifest, FileSum])
def test_the_light_defaults_are_the_structs_defaults(struct: type[msgspec.Struct]) -> None:
    defaults = {
        f.name: f.default if f.default is not msgspec.NODEFAULT else f.default_factory()
        for f in msgspec.structs.fields(struct)
        if f.default is not msgspec.NODEFAULT or f.default_factory is not msgspec.NODEFAULT
    }
    assert DEFAULTS[struct.__name__] == defaults


@pytest.mark.unit
@pytest.mark.parametrize(
    ("name", "struct"),
    [("SessionMeta", SessionMeta), ("Message", StoredMessage), ("ToolCall", StoredCall), ("FileSum", FileSum)],
)
def test_the_light_field_order_is_the_stored_structs(name: str, struct: type[msgspec.Struct]) -> None:
    assert struct.__struct_config__.array_like
    assert ORDER[name] == struct.__struct_fields__


#: The order each index format wrote its array records in. An index on disk keeps its version's order, and both
#: readers read by position (the hooks' without any check): a field put between two others would read every existing
#: index wrong. A new field goes at the end (what the pinned order starts the new one), or the version goes up and
#: its order is pinned here.
_ORDER_17 = {
    "SessionMeta": (
        "id", "source", "project", "project_dir", "project_from", "title", "started", "updated", "origin",
        "messages", "first_doc", "n_docs", "asked", "concluded", "files",
    ),
    "Message": ("role", "text", "timestamp", "tool_calls"),
    "ToolCall": ("name", "args", "result", "exit_code"),
    "FileSum": ("size", "crc"),
}  # fmt: skip
#: (18 changed what is filed under a Windows folder's tree keys, 19 and 20 what a session's ``asked`` says, 20 kept
#: a common word's tail of postings too, not the records' order; 21 what a long chat's ``asked`` and ``concluded``
#: say, and the meta's ``untimed_lead`` and ``after_part`` after its ``files``; 22 how a session's meta and records
#: are deflated, not their order; 23 the checksums a session's row holds and how a hashed key is spelt; 24 to 26 what
#: ``concluded`` says, and 25 how an HTTP status line is keyed)
_ORDER_21 = {**_ORDER_17, "SessionMeta": (*_ORDER_17["SessionMeta"], "untimed_lead", "after_part")}
_WRITTEN_ORDER = {
    17: _ORDER_17,
    18: _ORDER_17,
    19: _ORDER_17,
    20: _ORDER_17,
    21: _ORDER_21,
    22: _ORDER_21,
    23: _ORDER_21,
    24: _ORDER_21,
    25: _ORDER_21,
    26: _ORDER_21,
}


@pytest.mark.unit
def test_the_records_keep_the_field_order_their_format_version_was_written_in() -> None:
    assert FORMAT_VERSION in _WRITTEN_ORDER, f"pin the order format {FORMAT_VERSION} writes its records in"
    for kind, written in _WRITTEN_ORDER[FORMAT_VERSION].items():
        assert ORDER[kind][: len(written)] == written, f"{kind}: a field was put before the end"


@pytest.mark.unit
@pytest.mark.parametrize(("model", "kept"), [(Message, StoredMessage), (ToolCall, StoredCall)])
def test_the_stored_records_have_the_models_fields(model: type[msgspec.Struct], kept: type[msgspec.Struct]) -> None:
    assert [(f.name, f.type, f.default) for f in msgspec.structs.fields(model)] == [
        (f.name, f.type if f.name != "tool_calls" else list[ToolCall], f.default) for f in msgspec.structs.fields(kept)
    ]


@pytest.mark.unit
def test_a_message_with_every_field_set_reads_back_whole() -> None:
    call = ToolCall("Shell", {"command": "make"}, "done", 2)
    message = Message("assistant", "ran it", datetime(2026, 3, 1, 9, 5, tzinfo=UTC), [call, ToolCall("Read")])
    assert decode_message(msgspec.msgpack.encode(stored(message))) == message


@pytest.mark.unit
@pytest.mark.parametrize(
    "message",
    [
        Message(role="user", text=""),
        Message(role="assistant", text="x", tool_calls=[ToolCall("Shell")]),
        Message(role="assistant", text="x", timestamp=datetime(2026, 3, 1, tzinfo=UTC), tool_calls=[ToolCall("Read")]),
        Message(role="user", text="x", timestamp=datetime(2026, 3, 1, 12, 30, 5, 7, tzinfo=UTC)),
        Message(
            role="assistant", text="x", tool_calls=[ToolCall("Shell", result="out"), ToolCall("Edit", exit_code=0)]
        ),
        Message(role="assistant", text="x", tool_calls=[ToolCall("Shell", {"command": "ls", "n": [1, None]}, "", 2)]),
    ],
)
def test_a_stored_message_reads_back_as_it_was_with_msgspec_and_without(message: Message) -> None:
    """A stored message is an array, its trailing defaults left out (and a default before a field that is not, kept
    in its place): both readers give back the message, its defaults and all."""
    data = msgspec.msgpack.encode(stored(message))
    assert isinstance(unpackb(data), list)
    assert STRUCTS.message(data) == message
    assert _fields(LIGHT.message(data)) == _fields(message)


@pytest.mark.unit
@pytest.mark.parametrize("fields", [[], ["user"], ["user", "x", None, [[]]], {"role": "user", "text": "x"}])
def test_a_stored_message_missing_a_field_or_not_an_array_is_damage_to_both_readers(fields: Any) -> None:
    data = msgspec.msgpack.encode(fields)
    with pytest.raises(STRUCTS.damage + (msgspec.ValidationError,)):
        STRUCTS.message(data)
    with pytest.raises(LIGHT.damage):
        LIGHT.message(data)


def test_an_index_stores_no_field_names_in_its_records_or_metas(indexed_sample: Sample) -> None:
    """The records and metas are arrays (format 17): no field name is stored, as msgpack would write it as a key."""
    keys = {msgspec.msgpack.encode(name) for kind in ("SessionMeta", "Message", "ToolCall") for name in ORDER[kind]}
    for segment in Index.open(indexed_sample.home).segments:
        folder = Path(segment.path)
        rows, metas = (folder / "sessions.idx").read_bytes(), (folder / "sessions.bin").read_bytes()
        zdict = (folder / "dicts.bin").read_bytes()
        for ordinal in range(segment.ref.sessions):
            off, length = SESSION_ROW.unpack_from(rows, ordinal * SESSION_ROW.size)[:2]
            held = segment._records(ordinal, None)[0] + inflate(metas[off : off + length], zdict)
            assert segment.session(ordinal).n_docs
            assert [key for key in keys if key in held] == []


def test_every_session_and_message_reads_the_same_without_msgspec(indexed_sample: Sample) -> None:
    full, light = Index.open(indexed_sample.home), Index.open(indexed_sample.home, LIGHT)
    assert _fields(light.manifest) == _fields(full.manifest)
    sessions = 0
    for segment, light_segment in zip(full.segments, light.segments, strict=True):
        for ordinal in range(segment.ref.sessions):
            meta = segment.session(ordinal)
            assert _fields(light_segment.session(ordinal)) == _fields(meta)
            for doc in range(meta.first_doc, meta.first_doc + meta.n_docs):
                assert _fields(light_segment.message(doc)) == _fields(segment.message(doc))
            sessions += 1
    assert sessions >= 5


@pytest.mark.unit
@pytest.mark.parametrize(
    "when",
    [
        datetime(2026, 3, 1, 12, 30, tzinfo=UTC),  # whole seconds: the 4-byte timestamp
        datetime(2026, 3, 1, 12, 30, 5, 123456, tzinfo=UTC),  # the 8-byte one
        datetime(1960, 1, 1, 0, 0, 1, 5, tzinfo=UTC),  # before 1970: the 12-byte one
        datetime(2600, 1, 1, tzinfo=UTC),  # past 2514: the 12-byte one
        datetime(2026, 3, 1, 12, 30, tzinfo=timezone(timedelta(hours=2))),
        datetime(2026, 3, 1, 12, 30),  # naive: written as text
    ],
)
def test_times_read_back_as_msgspec_reads_them(when: datetime) -> None:
    data = msgspec.msgpack.encode(
        stored(Message(role="user", text="é ✓", timestamp=when, tool_calls=[ToolCall("Shell")]))
    )
    assert _fields(LIGHT.message(data)) == _fields(STRUCTS.message(data))


_TIMES = [
    datetime(2026, 3, 1, 12, 30, tzinfo=UTC),
    datetime(2026, 3, 1, 18, 30, 0, 1, tzinfo=UTC),
    datetime(2026, 3, 1, 12, 30, 5, 123456, tzinfo=UTC),
    datetime(1960, 1, 1, 0, 0, 1, 5, tzinfo=UTC),
    datetime(2600, 1, 1, tzinfo=UTC),
    datetime(2026, 3, 1, 14, 30, tzinfo=timezone(timedelta(hours=2))),
    datetime(2026, 3, 1, 12, 30),  # naive: written as text, read as a datetime by both
    None,
]


@pytest.mark.unit
@pytest.mark.parametrize("earlier", _TIMES)
@pytest.mark.parametrize("later", _TIMES)
def test_the_seconds_between_two_messages_are_the_same_read_light_or_with_msgspec(
    earlier: datetime | None, later: datetime | None
) -> None:
    """The hooks read the gap between two messages (``ending.apart``) and a failure's time (``ending.seconds``) from
    the light reader's undecoded stamps, so as to load no ``_datetime``: the same seconds as the datetimes give."""
    pair = [msgspec.msgpack.encode(stored(Message(role="user", text="x", timestamp=when))) for when in (earlier, later)]
    light, structs = [LIGHT.message(data) for data in pair], [STRUCTS.message(data) for data in pair]
    # (read before either time is: a time read is a datetime from then on)
    assert [micros(message) is None for message in light] == [
        when is None or when.tzinfo is None for when in (earlier, later)
    ]
    naive = [when is not None and when.tzinfo is None for when in (earlier, later)]
    if naive[0] != naive[1] and None not in (earlier, later):
        with pytest.raises(TypeError):  # (an aware time and a naive one have no gap, read either way)
            apart(structs[1], structs[0])
        with pytest.raises(TypeError):
            apart(light[1], light[0])
    else:
        assert apart(light[1], light[0]) == apart(structs[1], structs[0])
    assert [seconds(message) for message in light] == [seconds(message) for message in structs]


@pytest.mark.unit
def test_every_msgpack_type_deja_writes_reads_back() -> None:
    value = {
        "ints": [
            0,
            1,
            127,
            128,
            255,
            256,
            65535,
            65536,
            2**32,
            2**63,
            -1,
            -32,
            -33,
            -128,
            -129,
            -(2**15) - 1,
            -(2**63),
        ],
        "floats": [0.5, -1e300, 3.0],
        "text": ["", "x" * 31, "y" * 32, "z" * 256, "w" * 65536, "ünï ✓ 😀"],
        "bytes": [b"", b"\x00" * 300, b"\xff" * 70000],
        "nested": [[], {}, [None, True, False], {"a": {"b": [1]}}],
        "long": list(range(20)),
        "wide": {str(i): i for i in range(20)},
    }
    assert unpackb(msgspec.msgpack.encode(value)) == value


@pytest.mark.unit
@pytest.mark.parametrize("damaged", [b"", b"\x81", b"\x92\x01", b"\xc1", b"\xa5abc", b"\x01\x02", b"\xd9\x05\xff\xfe"])
def test_a_damaged_record_raises_what_the_reader_turns_into_index_unreadable(damaged: bytes) -> None:
    with pytest.raises(LIGHT.damage):
        unpackb(damaged)


def test_a_manifest_of_another_version_or_corrupt_is_named_as_such(indexed_sample: Sample) -> None:
    directory = index_dir(indexed_sample.home)
    manifest = directory / "manifest.msgpack"
    original = manifest.read_bytes()
    for data, says in (
        (
            msgspec.msgpack.encode({"version": 999, "generation": 1, "built_at": 0.0}),
            "index format reads 999, which no",
        ),
        (
            msgspec.msgpack.encode({"version": FORMAT_VERSION + 1, "generation": 1, "built_at": 0.0}),
            f"is index format {FORMAT_VERSION + 1}, written by",
        ),
        (original[: len(original) // 2], "is corrupt"),
        (msgspec.msgpack.encode([1, 2]), "is corrupt"),
    ):
        manifest.write_bytes(data)
        for codec in (None, LIGHT):
            with pytest.raises(IndexUnreadable, match=says):
                read_manifest(directory, codec)
    manifest.write_bytes(original)
    assert read_manifest(Path(directory), LIGHT) == read_manifest(Path(directory), LIGHT)


@pytest.mark.unit
def test_a_damaged_time_read_late_is_reported_as_index_damage() -> None:
    """A time is made a datetime when first read, after the reader's own damage handling: a damaged one must still
    be IndexUnreadable (what ``deja search`` turns into its one-line "run `deja index`"), not a bare ValueError."""
    data = msgspec.msgpack.encode(stored(Message(role="user", text="hi", timestamp=datetime(2026, 3, 1, 12, 30))))
    damaged = data.replace(b"2026-03-01T12:30:00", b"2026-13-45T99:00:00")
    assert damaged != data
    message = LIGHT.message(damaged)
    with pytest.raises(IndexUnreadable, match="damaged.*timestamp"):
        _ = message.timestamp
