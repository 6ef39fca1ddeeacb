"""``Record``: fields given by position, then by name in the order given, then the defaults of those not given (a
mutable one copied); a wrong call is named as it was before the names were checked at once."""

from __future__ import annotations

import pytest

from deja.core.record import Record


class _Step(Record):
    command: str
    exit_code: int | None = None
    tags: list[str] = []


def test_fields_come_by_position_then_by_name_as_given() -> None:
    step = _Step("make", tags=["x"], exit_code=2)
    assert repr(step) == "_Step(command='make', tags=['x'], exit_code=2)"
    assert _Step(tags=["x"], command="make", exit_code=2) == step
    assert repr(_Step(tags=["x"], command="make")) == "_Step(tags=['x'], command='make', exit_code=None)"


def test_a_field_not_given_takes_its_default_a_mutable_one_copied() -> None:
    first, second = _Step("make"), _Step(command="test")
    first.tags.append("changed")
    assert repr(second) == "_Step(command='test', exit_code=None, tags=[])"
    assert _Step.__dict__["tags"] == []


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (("make",), {"command": "test"}, "_Step: unexpected or repeated field 'command'"),
        ((), {"command": "make", "exit": 1}, "_Step: unexpected or repeated field 'exit'"),
        (("make", 0, [], "more"), {}, "_Step takes at most 3 positional arguments"),
        ((), {"exit_code": 1}, "_Step: missing field 'command'"),
    ],
)
def test_a_wrong_call_says_what_is_wrong(args: tuple, kwargs: dict, message: str) -> None:
    with pytest.raises(TypeError) as raised:
        _Step(*args, **kwargs)
    assert str(raised.value) == message
