"""``index.pack`` writes the bytes msgspec writes for the same values, and ``index.light`` reads them back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deja.core.index.light import Stamp, unpackb
from deja.core.index.pack import packb

pytestmark = pytest.mark.unit

INTS = st.integers(min_value=-(2**63), max_value=2**64 - 1)
TIMES = st.datetimes(
    min_value=datetime(1, 1, 2),
    max_value=datetime(9999, 12, 30),
    timezones=st.sampled_from([UTC, timezone(timedelta(hours=-7)), timezone(timedelta(hours=5, minutes=30))]),
)
SCALARS = (
    st.none()
    | st.booleans()
    | INTS
    | st.integers(min_value=-300, max_value=70_000)  # every boundary of the small forms
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()  # unicode of every plane, no lone surrogates (neither writer can write one)
    | st.binary()
    | TIMES
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner) | st.tuples(inner, inner) | st.dictionaries(st.text(), inner) | st.dictionaries(INTS, inner)
    ),
    max_leaves=40,
)


@settings(max_examples=2000, deadline=None, derandomize=True)
@given(VALUES)
def test_pack_writes_what_msgspec_writes(value: object) -> None:
    assert packb(value) == msgspec.msgpack.encode(value)


@pytest.mark.parametrize(
    "value",
    [
        "",
        "a" * 31,
        "a" * 32,
        "é" * 128,
        "🦀" * 64,
        "x" * 65_535,
        "x" * 65_536,
        b"",
        b"\x00" * 255,
        b"\x00" * 256,
        b"\x00" * 65_536,
        [],
        list(range(15)),
        list(range(16)),
        list(range(65_536)),
        {},
        {str(i): i for i in range(15)},
        {str(i): i for i in range(16)},
        {str(i): [i] for i in range(65_536)},
        [-(2**63), 2**64 - 1, -33, -32, 127, 128, 255, 256, 65_535, 65_536, 2**32 - 1, 2**32],
        [0.0, -0.0, 1e308, float("inf")],
        datetime(1970, 1, 1, tzinfo=UTC),
        datetime(2106, 2, 7, 6, 28, 15, tzinfo=UTC),  # the last second of the 32-bit form
        datetime(2106, 2, 7, 6, 28, 16, tzinfo=UTC),
        datetime(2514, 5, 30, 1, 53, 3, 999_999, tzinfo=UTC),  # the last of the 64-bit form
        datetime(2514, 5, 30, 1, 53, 4, tzinfo=UTC),
        datetime(1969, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC),
    ],
)
def test_every_size_boundary_is_written_as_msgspec_writes_it(value: object) -> None:
    assert packb(value) == msgspec.msgpack.encode(value)


@settings(max_examples=500, deadline=None, derandomize=True)
@given(
    st.recursive(
        SCALARS.filter(lambda v: not isinstance(v, datetime | float)),
        lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
        max_leaves=30,
    )
)
def test_light_reads_back_what_pack_writes(value: object) -> None:
    assert unpackb(packb(value)) == value


def test_a_time_reads_back_as_its_instant() -> None:
    when = datetime(2026, 12, 2, 3, 4, 5, 678_000, tzinfo=timezone(timedelta(hours=3)))
    read = unpackb(packb(when))
    assert isinstance(read, Stamp)
    assert datetime.fromtimestamp(read.seconds, UTC) + timedelta(microseconds=read.nanoseconds // 1000) == when


@pytest.mark.parametrize("value", [2**64, -(2**63) - 1])
def test_an_integer_out_of_range_is_refused_as_msgspec_refuses_it(value: int) -> None:
    with pytest.raises(OverflowError):
        msgspec.msgpack.encode(value)
    with pytest.raises(OverflowError):
        packb(value)


def test_what_neither_writes_is_refused() -> None:
    for value in ("\ud800", {"key": "\udfff"}):
        with pytest.raises(UnicodeEncodeError):
            msgspec.msgpack.encode(value)
        with pytest.raises(UnicodeEncodeError):
            packb(value)
    with pytest.raises(TypeError):
        packb(object())
