"""The tokeniser without ``re`` (what a hook runs) finds exactly what its regular expressions find (what a build runs):
the same raw tokens, at the same places, split into the same identifier parts, for every code point and for many
random strings of the characters where the two could part ways."""

from __future__ import annotations

import random
import re

import pytest

from deja.core import text as text_module

pytestmark = pytest.mark.unit

#: The patterns the scanner stands for, as the tokeniser had them.
RAW = re.compile(text_module.RAW_PATTERN)
CHUNK = re.compile(r"[^\W_]+")
CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+|[^\W\d_a-zA-Z]+")
#: Letters, digits, every joiner and separators, and non-ASCII characters of every kind that matters: letters with and
#: without case, a combining mark, digits that are decimal or not, numbers, spaces, punctuation, an emoji, a title-case
#: letter, a letter whose lowercase is ASCII (the Kelvin sign).
ALPHABET = list("aZbY09_./-:#@ ,;!?\t\n'\"()[]{}<>=+*&^%$~`|\\") + list(
    "éßøΩж中文²³½٣\u0301\u00a0\u2028\u2003—…’😀ǅⅫ\u0660\u200b\x1c\x85ſ\u212a"
)


def _random_texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 24))) for _ in range(count)]


def _every_code_point(around: str) -> str:
    """Every code point (surrogates left out) between letters, underscores and joiners, in one text."""
    return "".join(around.format(chr(c)) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)


@pytest.mark.parametrize("around", ["a{0}b ", "_{0}a.{0}{0}_ "])
def test_every_code_point_is_scanned_as_the_pattern_reads_it(around: str) -> None:
    text = _every_code_point(around)
    assert text_module._scan(text) == RAW.findall(text)


def test_random_texts_are_scanned_as_the_pattern_reads_them() -> None:
    for text in _random_texts(20_000, seed=15):
        assert text_module._scan(text) == RAW.findall(text), repr(text)


def test_a_scanned_token_starts_where_the_pattern_finds_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where each token starts, as the text without its marks is cut (``text.unmarked``), in the text as given."""
    for text in _random_texts(5_000, seed=16):
        bare = text_module.unmarked(text)
        kept = [i for i, c in enumerate(text) if c in bare] if bare is not text else list(range(len(text)))
        monkeypatch.setattr(text_module, "_FINDERS", [text_module._scan])
        starts = [start for start, _ in text_module.term_positions(text)]
        assert starts == [kept[match.start()] for match in RAW.finditer(bare)], repr(text)


def test_identifier_parts_are_split_as_the_patterns_split_them() -> None:
    identifiers = [raw for text in _random_texts(20_000, seed=17) for raw in RAW.findall(text)]
    identifiers += ["HTTPServer", "getHTTPResponse2xx", "v2beta", "ABCd", "AbC", "x²y", "ǅemal", "Ⅻb", "ſK\u212a"]
    for raw in identifiers:
        assert text_module.letter_runs(raw) == CHUNK.findall(raw), repr(raw)
        for chunk in CHUNK.findall(raw):
            assert text_module._camel(chunk) == CAMEL.findall(chunk), repr(chunk)


def test_every_code_point_is_split_as_the_patterns_split_it() -> None:
    text = _every_code_point("a{0}B{0}{0}c9{0} ")
    assert text_module.letter_runs(text) == CHUNK.findall(text)
    for c in filter(str.isalnum, map(chr, range(0x110000))):
        chunk = f"a{c}B{c}{c}c9{c}"
        assert text_module._camel(chunk) == CAMEL.findall(chunk), repr(chunk)


def test_a_process_without_re_scans_and_one_with_it_uses_the_pattern(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(text_module, "_FINDERS", [])
    assert text_module._finder().__self__.pattern == text_module.RAW_PATTERN  # (``re`` is loaded here)
    monkeypatch.setattr(text_module, "_FINDERS", [])
    monkeypatch.delitem(__import__("sys").modules, "re")
    assert text_module._finder() is text_module._scan


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGALRM"), reason="the alarm that bounds it is POSIX's")
def test_a_long_run_of_underscores_costs_the_pattern_one_pass() -> None:
    """Tried at every start inside the run, the pattern once backtracked over the rest of it (17 s for 20,000
    underscores, quadratic): a build tokenising such a line, or a hook whose prompt loaded ``re``, hung. Bounded by
    an alarm so the test fails rather than hangs."""
    import signal

    text = "see " + "_" * 200_000 + " then __init__ and __x"

    def too_slow(signum: int, frame: object) -> None:
        raise TimeoutError("the pattern went quadratic on a run of underscores")

    previous = signal.signal(signal.SIGALRM, too_slow)
    signal.alarm(10)
    try:
        found = RAW.findall(text)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert found == text_module._scan(text) == ["see", "then", "__init", "and", "__x"]
