"""``deja search`` with nothing changed prints its page without ``re`` (with ``enum``, ``functools``,
``collections``: about 3 ms of imports) or ``datetime``: the tokeniser and the snippets' scanner are ``str``'s
methods, and ``text.for_terminal`` takes out control characters only from a page that holds one, which it finds
with ``str``'s own search. Taking them out of a page that holds one is what the pattern does, as before."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from harness import Sample, run_deja
from test_layers import _imports_without_site, _installed_as_pip_does

from deja.core.sample import API_CACHE_CHAT
from deja.core.text import for_terminal

NOT_LOADED = {"re", "enum", "functools", "collections", "datetime"}


@pytest.mark.parametrize(
    ("words", "shown"),
    [
        (["stale", "prices", "locale"], API_CACHE_CHAT),
        # a Shell command that failed: its snippet needs no error lines (those match patterns)
        (["infra-web", "--role", "command"], "command: docker build -t infra-web ."),
        # words naming a secret: only a long run (a pasted key) loads the redaction rules (review13 R13-2)
        (["the", "token", "is", "a", "bucket"], "Added a token bucket in api/limits.py"),
    ],
)
def test_a_search_page_loads_no_re_and_no_datetime(
    indexed_sample: Sample, tmp_path: Path, words: list[str], shown: str
) -> None:
    assert run_deja("search", "docker", env=indexed_sample.env).returncode == 0  # any catch-up done first
    folder = _installed_as_pip_does(tmp_path / "site-packages").parents[2]
    code = (
        f"import sys; sys.path.insert(0, {str(folder)!r}); sys.argv = ['deja', 'search', *{words!r}]\n"
        "from deja.interfaces.entry import main; main()"
    )
    loaded, printed = _imports_without_site(["-c", code], b"", indexed_sample.env)
    assert shown.encode() in printed and b"\n" in printed.strip()  # a page of several lines, dated
    assert {name.split(".")[0] for name in loaded} & NOT_LOADED == set()


#: What ``for_terminal`` takes out, as the pattern it once applied: an escape sequence (CSI, a string command up to
#: its terminator or the line's end, a lone ESC and its letter), then any other control it takes out but CR, and the
#: invisible format characters (the directional marks, the word joiner and invisible operators, the deprecated format
#: controls, a byte order mark, the interlinear annotation marks, the tag characters: review45b M5).
_TERMINAL_CONTROLS = (
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b[\]PX^_][^\x07\x1b\n]*(?:\x07|\x1b\\)?"
    r"|\x1b[ -~]?"
    r"|[\x08\x0b\x0c\x85]"
    r"|[\x00-\x07\x0e-\x1f\x7f-\x84\x86-\x9f\u061c\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff"
    r"\ufff9-\ufffb\U000e0000-\U000e007f]"
)


#: What the pattern puts for a control a terminal moves its cursor for (review47i L3).
_MOVED = {"\x0b": "\n", "\x0c": "\n", "\x85": "\n", "\x08": " "}


def _as_the_pattern_does(text: str) -> str:
    """The pattern's output, a control that moves the cursor down a newline and back a blank, each CR left then made a
    newline (CRLF one newline: review44d L5)."""
    moved = re.sub(_TERMINAL_CONTROLS, lambda control: _MOVED.get(control.group(), ""), text)
    return moved.replace("\r\n", "\n").replace("\r", "\n")


@pytest.mark.unit
def test_every_character_a_match_can_start_with_is_looked_for() -> None:
    """A page that holds any one code point loses exactly what the pattern takes out (nothing, but for the
    controls): the page without ``re`` is the page with it."""
    for code in range(0x110000):
        text = f"a page\n\twith {chr(code)}[31m in it"
        assert for_terminal(text) == _as_the_pattern_does(text), hex(code)


@pytest.mark.unit
def test_pages_with_and_without_controls_print_as_the_pattern_says() -> None:
    rng = random.Random(15)
    alphabet = "ab \n\t[]\\;0?/@~PX^_\x07\x1b\x00\x0b\r\x7f\x85\x9b\xa0é漢"
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 24)))
        assert for_terminal(text) == _as_the_pattern_does(text), repr(text)
