"""``core.cjson``'s lenient reading (deja's own files: the freshness record) is ``json.loads``'s, whatever the text;
its strict reading (the hooks' payloads) is tested in test_hook_json.py. Both run in a process without ``json``."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deja.core.cjson import load_json, load_json_head

TEXTS = st.text(alphabet=' \t\n\r{}[]":,0123456789.eE+-abcdefnulltrsuINaNfiy\\\ufeff\ud800\udc80') | st.text()


def _read(reader: Any, text: str) -> tuple[str, str]:
    try:
        return "read", repr(reader(text))
    except ValueError:
        return "refused", ""


@pytest.mark.unit
@settings(max_examples=500, deadline=None, derandomize=True)
@given(TEXTS)
def test_the_lenient_reading_is_json_loads(text: str) -> None:
    assert _read(lambda t: load_json(t, strict=False), text) == _read(json.loads, text)


@pytest.mark.unit
@pytest.mark.parametrize(
    ("text", "value"),
    [('{"path": "/home/me/caf\\udce9"}', {"path": "/home/me/caf\udce9"}), ("[NaN, -Infinity]", [math.nan, -math.inf])],
)
def test_the_lenient_reading_takes_what_the_strict_one_refuses(text: str, value: Any) -> None:
    """A path that is not UTF-8 (kept with lone surrogates) in deja's own record; NaN as ``json`` writes it."""
    assert repr(load_json(text.encode(), strict=False)) == repr(value)
    with pytest.raises(ValueError):
        load_json(text)


def test_damaged_text_is_refused_by_the_lenient_reading_in_a_process_without_json() -> None:
    """What the scanner cannot read goes to ``json.loads``, which says why (imported then, not before)."""
    code = (
        "import sys\nfrom deja.core.cjson import load_json\n"
        "print(load_json(b' {\"a\": [1, 2.5]} ', strict=False), 'json' in sys.modules)\n"
        "try:\n    load_json(b'{\"a\": 1', strict=False)\nexcept ValueError as error:\n"
        "    print(type(error).__name__, str(error).split(':')[0])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert done.stdout.decode().splitlines() == ["{'a': [1, 2.5]} False", "JSONDecodeError Expecting ',' delimiter"]


@pytest.mark.unit
@pytest.mark.parametrize(
    ("text", "head"),
    [
        ('{"a":[1,"x"],"hot":{"p":{"q":1},"r":2,"s":3}}', {"a": [1, "x"], "hot": {"p": {"q": 1}, "r": 2}}),
        ('{"hot":{"p":1}}', {"hot": {"p": 1}}),
        (' { "a" : 1 ,\n "hot" : { "p" : 1 , "r" : 2 } } ', {"a": 1, "hot": {"p": 1, "r": 2}}),
        ('{"a": 1, "hot": {"p": 1}}', {"a": 1, "hot": {"p": 1}}),
        ('{"a":1,"hot":{}}', {"a": 1, "hot": {}}),
        ('{"a":1,"hot":{"p":1,"r":2} , "b":2', {"a": 1, "hot": {"p": 1, "r": 2}}),  # (what follows: never read)
    ],
)
def test_an_object_is_read_as_far_as_the_first_members_of_its_last_one(text: str, head: dict[str, Any]) -> None:
    assert load_json_head(text, "hot", 2) == head


@pytest.mark.unit
@pytest.mark.parametrize(
    "text",
    [
        '{"a":1,"b":2}',  # no such member
        '{"a":1,"hot":[1,2]}',  # not an object
        '[{"hot":{"p":1}}]',
        '{"a":1,"hot":{"p":1,"r":}}',
        '{"a":NaX,"hot":{}}',
        '{1:2,"hot":{}}',
        "",
    ],
)
def test_text_laid_out_otherwise_is_left_to_the_whole_reading(text: str) -> None:
    assert load_json_head(text, "hot", 2) is None
