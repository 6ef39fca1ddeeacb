"""The hooks' msgpack reader decodes a run of 16-bit integers (a segment's deleted ordinals) at once, exactly."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deja.core.index import light

ITEMS = st.integers(0, 70_000) | st.integers(-200, 0) | st.text(max_size=3) | st.none()


@pytest.mark.unit
@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(ITEMS, max_size=300))
def test_arrays_decode_as_msgspec_wrote_them(items: list[int | str | None]) -> None:
    assert light.unpackb(msgspec.msgpack.encode(items)) == items
    assert light.unpackb(msgspec.msgpack.encode({"deleted": items, "n": 1})) == {"deleted": items, "n": 1}


@pytest.mark.unit
def test_a_run_cut_short_is_damage_not_a_shorter_list() -> None:
    data = msgspec.msgpack.encode(list(range(300, 1300)))
    with pytest.raises(light._DAMAGE):
        light.unpackb(data[:-1])
