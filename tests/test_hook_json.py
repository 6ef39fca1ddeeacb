"""The hooks read and write JSON with ``json``'s C half (``_json``), not ``json`` itself: the same values as
``json.loads`` and the same bytes as ``json.dumps``, and no ``json`` (nor ``re``'s compiled patterns of it) loaded."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deja.core.cjson import dump_json, load_json
from deja.core.config import simple_table

VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def _standard(text: str) -> tuple[str, Any]:
    """What ``json.loads`` makes of ``text`` with deja's rules (no NaN or Infinity, no lone surrogate escaped):
    the hooks' reading when they imported ``json``."""

    def no_constant(name: str) -> Any:
        raise ValueError(name)

    try:
        value = json.loads(text, parse_constant=no_constant)
        if "\\u" in text and re.search(r"\\u[dD][89a-fA-F]", text):
            json.dumps(value, ensure_ascii=False).encode("utf-8")
    except (ValueError, UnicodeEncodeError, RecursionError):
        return "refused", None
    return "read", value


def _ours(text: str) -> tuple[str, Any]:
    try:
        return "read", load_json(text)
    except (ValueError, UnicodeEncodeError):
        return "refused", None


@pytest.mark.unit
@settings(max_examples=300, deadline=None, derandomize=True)
@given(VALUES)
def test_dump_json_writes_what_json_dumps_writes_and_load_json_reads_it_back(value: Any) -> None:
    written = dump_json(value)
    assert written == json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    assert _ours(written.decode()) == _standard(written.decode())


@pytest.mark.unit
@settings(max_examples=500, deadline=None, derandomize=True)
@given(st.text(alphabet=' \t\n\r{}[]":,0123456789.eE+-abcdefnulltrsuINaNfiy\\\ufeff\ud800') | st.text())
def test_load_json_accepts_and_refuses_what_json_loads_does(text: str) -> None:
    assert repr(_ours(text)) == repr(_standard(text))


@pytest.mark.unit
@pytest.mark.parametrize(
    "text",
    ['{"a": NaN}', "[Infinity]", "-Infinity", '{"a": "\\ud800"}', '{"a": 1} {"b": 2}', "", " ", "\ufeff{}", "[1,]"],
)
def test_what_a_host_never_writes_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        load_json(text)


@pytest.mark.unit
def test_a_value_that_is_not_json_is_refused_as_json_dumps_refuses_it() -> None:
    cycle: list[Any] = []
    cycle.append(cycle)
    for bad, error in ((cycle, ValueError), ({"a": object()}, TypeError), ({(1,): 2}, TypeError)):
        with pytest.raises(error):
            dump_json(bad)
    assert dump_json({"a": [1.5, math.inf, None]}) == b'{"a":[1.5,Infinity,null]}'


@pytest.mark.unit
@pytest.mark.parametrize(
    ("line", "table"),
    [
        ('home = "/home/me/deja"', {"home": "/home/me/deja"}),
        ('home = "/home/me/d\u00e9j\u00e0"', {"home": "/home/me/d\u00e9j\u00e0"}),
        ('home = ""', {"home": ""}),
        ('home = "a\\"b"', None),
        ('home = "a"b"', None),
        ('home = "', None),
        ('home = "tab\there"', None),
        ("home = 'single'", None),
    ],
)
def test_the_config_files_strings_read_as_json_read_them(line: str, table: dict[str, str] | None) -> None:
    assert simple_table(line) == table


def test_a_hook_loads_no_json_module() -> None:
    code = (
        "import sys; sys.argv = ['deja', 'hook-prompt']\n"
        "from deja.hooks.run import main; main('hook-prompt', [])\n"
        "print(sorted(m for m in sys.modules if m == 'json' or m.startswith('json.')))"
    )
    payload = b'{"hook_event_name": "beforeSubmitPrompt", "prompt": "", "cursor_version": "2"}'
    done = subprocess.run([sys.executable, "-c", code], input=payload, capture_output=True, timeout=60)
    assert done.stdout.decode().strip().splitlines()[-1] == "[]"


def test_malformed_json_is_refused_in_a_process_that_never_loaded_json() -> None:
    """Python 3.11's scanner can only report a syntax error once ``json.decoder`` is loaded: load_json loads it then."""
    code = (
        "import sys\nfrom deja.core.cjson import load_json\nassert 'json' not in sys.modules\n"
        'for text in [\'{"prompt": "half a payl\', \'{"a": 1\', \'[1,]\', \'{"a": "\\x01"}\']:\n'
        "    try:\n        load_json(text)\n    except ValueError as error:\n        print(str(error).split(':')[0])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    said = []  # (json's own words, which differ by version: 3.13 says "Illegal trailing comma before end of array")
    for text in ['{"prompt": "half a payl', '{"a": 1', "[1,]", '{"a": "\x01"}']:
        with pytest.raises(json.JSONDecodeError) as error:
            json.loads(text)
        said.append(str(error.value).split(":")[0])
    assert said[0] == "Unterminated string starting at" and len(set(said)) == 4
    assert done.stdout.decode().splitlines() == said, done.stderr.decode()[-2000:]
