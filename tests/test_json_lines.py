"""A stored line is read by the standard library's scanner exactly as orjson reads it, and by orjson wherever the two
readings may differ: a refresh of one turn reads its few lines without importing orjson (``readers.jsonvalue``)."""

from __future__ import annotations

import struct
import subprocess
import sys
from typing import Any

import orjson
import pytest

from deja.core.readers import jsonvalue

#: Lines orjson reads, and lines it refuses: numbers at every edge orjson reads otherwise than Python's ``json``,
#: escapes, bytes that are not UTF-8, raw control characters, nesting, text that is not one value.
LINES = [
    b'{"role":"user","message":{"content":[{"type":"text","text":"<user_query>\\nhi \\"you\\"\\n</user_query>"}]}}',
    b' {"a": [1, 2.5, -0.0, 0.0, 1e5, 1E-5, -7, true, false, null, {}, []]} \n',
    b'"caf\\u00e9 \\/ \\\\ \\b\\f\\n\\r\\t"',
    '{"k":"é 🚀 \u2028"}'.encode(),
    b'{"n": 9223372036854775807}',
    b'{"n": 9223372036854775808}',
    b'{"n": 18446744073709551615}',
    b'{"n": 18446744073709551616}',
    b'{"n": -9223372036854775808}',
    b'{"n": -9223372036854775809}',
    b'{"n": 1' + b"0" * 400 + b"}",
    b'{"n": 1' + b"0" * 30 + b"}",
    b'{"f": 1e400}',
    b'{"f": -1e400}',
    b'{"f": 1.7976931348623157e308}',
    b'{"f": 5e-324}',
    b'{"f": 1e-400}',
    b'{"f": 2.2250738585072011e-308}',
    b'{"f": 0.1}',
    b'{"f": 123456789012345678901234567890.5}',
    b'{"f": 9007199254740993.0}',
    b"NaN",
    b'{"x": Infinity}',
    b'{"x": -Infinity}',
    b'{"s": "\\ud83d\\ude80"}',
    b'{"s": "\\ud83d"}',
    b'{"s": "\\uDE80 x"}',
    b'{"s": "a\\\\ud83d"}',
    b'{"s": "tab\there"}',
    b'{"s": "nul\x00"}',
    b"caf\xe9",
    b'{"s": "caf\xe9"}',
    b'{"s": "\xed\xa0\xbd"}',
    b"",
    b"   ",
    b'{"a":1} x',
    b'{"a":1}{"b":2}',
    b"[1,]",
    b'{"a":1,}',
    b"01",
    b"-",
    b"1.",
    b".5",
    b"-0",
    b'"\\x41"',
    b'{"a":1,"a":2,"b":3}',
    b"[" * 500 + b"]" * 500,
    b"[" * 1100 + b"]" * 1100,
    b'"\\u0000"',
]


def _typed(value: Any) -> Any:
    """``value`` with every number's type and every float's bits spelt out, so equal readings compare equal only
    when orjson would have made the very same objects (``1`` is not ``1.0``, ``-0.0`` is not ``0.0``)."""
    if isinstance(value, dict):
        return {key: _typed(item) for key, item in value.items()}, list(value)
    if isinstance(value, list):
        return [_typed(item) for item in value]
    if isinstance(value, float):
        return "float", struct.pack("<d", value)
    return type(value).__name__, value


def _same(read: Any, expected: Any) -> bool:
    try:
        return bool(_typed(read) == _typed(expected))
    except RecursionError:  # (the lines nested hundreds deep hold no number)
        return bool(read == expected)


@pytest.mark.parametrize("line", LINES, ids=range(len(LINES)))
def test_a_line_the_scanner_reads_is_read_as_orjson_reads_it(line: bytes) -> None:
    try:
        expected = orjson.loads(line)
    except orjson.JSONDecodeError:
        with pytest.raises((ValueError, RecursionError, StopIteration, SystemError)):
            jsonvalue._scanned(line)  # left to orjson and the loose reading after it, as before
        return
    try:
        read = jsonvalue._scanned(line)
    except (ValueError, RecursionError, StopIteration, SystemError):
        assert line.count(b"[") > 900 or b"\\ud" in line  # (left to orjson: nested deep, or an escaped UTF-16 half)
        assert _same(jsonvalue.loads(line), expected)
        return
    assert _same(read, expected)


def test_a_line_nested_deeper_than_orjson_reads_is_refused_by_the_scanner_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """Python 3.12's scanner reads thousands deep, past orjson's limit (3.11's stops short of it, unless the recursion
    limit is raised, as here): a hook read such a line, and the build, reading with orjson, refused it (pyver53)."""
    monkeypatch.setattr(jsonvalue, "_scanner_reads", 0)
    deep = b"[" * (jsonvalue.ORJSON_DEPTH + 1) + b"]" * (jsonvalue.ORJSON_DEPTH + 1)
    wide = b"[" + b",".join([b"[{}]"] * 1500) + b"]"  # (many brackets, two deep: orjson reads it)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20 * jsonvalue.ORJSON_DEPTH)
    try:
        with pytest.raises(jsonvalue.NotJson, match="depth"):
            jsonvalue.strict_loads(deep)
        assert jsonvalue.strict_loads(wide) == orjson.loads(wide)
    finally:
        sys.setrecursionlimit(limit)
    assert jsonvalue._scanner_reads == 2  # (both were the scanner's to read)


@pytest.mark.parametrize("line", LINES, ids=range(len(LINES)))
def test_the_strict_reading_is_orjsons(line: bytes) -> None:
    """``strict_loads`` (the editor's stored values) reads what orjson reads, as orjson does, and refuses the rest."""
    try:
        expected = orjson.loads(line)
    except orjson.JSONDecodeError:
        with pytest.raises(jsonvalue.NotJson):
            jsonvalue.strict_loads(line)
        return
    assert _same(jsonvalue.strict_loads(line), expected)


def test_an_ordinary_line_is_read_by_the_scanner() -> None:
    """The lines a transcript is made of are read without orjson."""
    for line in LINES[:7]:
        assert _typed(jsonvalue._scanned(line)) == _typed(orjson.loads(line))


def test_what_is_not_json_even_loosely_is_refused_with_orjsons_reason() -> None:
    for line in (b"", b"{", b'{"a":1} x', b"NaN", b'{"s": "nul\x00" x}'):
        with pytest.raises(jsonvalue.NotJson):
            jsonvalue.loads(line)
    assert jsonvalue.loads(b'{"s": "nul\x00"}') == {"s": "nul\x00"}  # (a raw control character: read loosely)
    assert jsonvalue.loads(b'{"s": "\\ud83d"}') == {"s": "\ufffd"}
    assert jsonvalue.loads(b'{"s": "caf\xe9"}') == {"s": "caf\ufffd"}


def test_a_process_reads_its_first_lines_without_orjson_and_the_rest_with_it() -> None:
    """A refresh of a few turns never imports orjson; a build, which reads millions of lines, reads with it."""
    code = (
        "import sys\n"
        "from deja.core.readers import jsonvalue\n"
        'line = b\'{"role": "user", "n": [1, 2.5]}\'\n'
        "read = [jsonvalue.loads(line) for _ in range(jsonvalue.SCANNER_READS)]\n"
        "print('orjson' in sys.modules, read[-1])\n"
        "print(jsonvalue.loads(line), 'orjson' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out == ["False {'role': 'user', 'n': [1, 2.5]}", "{'role': 'user', 'n': [1, 2.5]} True"]


#: Tool arguments as a transcript or a chat store gives them, some equal but for their keys' order.
ARGS = [
    {"command": "cat .env", "cwd": "/work/shop"},
    {"cwd": "/work/shop", "command": "cat .env"},
    {"command": "cat .env"},
    {"n": 1, "m": [1.0, -0.0, 1e16, 2.5e-8, True, None]},
    {"m": [1.0, -0.0, 1e16, 2.5e-8, True, None], "n": 1},
    {"n": 1.0, "m": [1, 0.0, 1e16, 2.5e-8, 1, None]},
    {"path": "café/🚀\u2028", "text": 'line\nnext\t\x00\x1f"\\/'},
    {"nested": {"b": {"d": 1, "c": 2}, "a": []}},
    {"nested": {"a": [], "b": {"c": 2, "d": 1}}},
    {"big": 18446744073709551615, "small": -9223372036854775808},
    {},
]


def test_tool_arguments_are_keyed_alike_exactly_when_orjson_keyed_them_alike() -> None:
    """``canonical_args`` (the pairing of a store's tool results with a transcript's calls) gives equal keys to the
    arguments orjson's sorted text called equal, and only to those, and each key reads back to its arguments."""
    from deja.core.readers.conversation import canonical_args

    for one in ARGS:
        for other in ARGS:
            by_orjson = orjson.dumps(one, option=orjson.OPT_SORT_KEYS) == orjson.dumps(
                other, option=orjson.OPT_SORT_KEYS
            )
            assert (canonical_args(one) == canonical_args(other)) == by_orjson, (one, other)
        before = orjson.loads(orjson.dumps(one, option=orjson.OPT_SORT_KEYS))  # (what the key was read back as)
        assert _same(jsonvalue.strict_loads(canonical_args(one).encode()), before)
