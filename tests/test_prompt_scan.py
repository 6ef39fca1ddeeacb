"""The prompt hook's matchers without ``re`` find exactly what its regular expressions found: a prompt's words and
where they start, which of them read as identifiers, its years, the frames of deja's own it holds, and the values assigned in it."""

from __future__ import annotations

import random
import re

import pytest

from deja.core.search import query_terms
from deja.hooks import prompt
from deja.hooks.call import FRAME_CLOSE, FRAME_OPEN

pytestmark = pytest.mark.unit

#: The patterns the matchers stand for, as the hook had them.
WORD = re.compile(r"[^\W\d_][\w./:#-]*")
IDENTIFIER = re.compile(r"[_./:#-]|\d|[a-z][A-Z]")
YEAR = re.compile(r"(?:19|20)\d\d")
OWN_FRAME = re.compile(re.escape(FRAME_OPEN) + r".*?" + re.escape(FRAME_CLOSE), re.S)
#: A quoted span, with the ``=`` right before it that makes it a value (``_values_unquoted``).
QUOTED_SPAN = re.compile(r'(=?)"([^"]*)"')
ALPHABET = list("aZbY019_./:#-@ ,;!?\t\n'\"()") + list("éßΩж中²٣\u0301\u00a0—’😀ǅⅫ\u0660\x1c\u212a")


def _texts(count: int, seed: int, alphabet: list[str] = ALPHABET) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24))) for _ in range(count)]


def _every_code_point(around: str) -> str:
    return "".join(around.format(chr(c)) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)


def test_words_and_their_starts_are_what_the_pattern_finds() -> None:
    for text in [*_texts(20_000, seed=21), _every_code_point("a{0}1{0}_{0}.{0}{0}b ")]:
        assert prompt._words(text) == [(m.start(), m.group()) for m in WORD.finditer(text)], repr(text)[:200]


def test_identifiers_are_what_the_pattern_finds() -> None:
    words = [*_texts(20_000, seed=22), "fetchUser", "HTTP", "Kafka", "per_customer", "v2", "x²", "a\u212a", "ǅa"]
    words += [f"a{chr(c)}" for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    for word in words:
        assert prompt._identifier(word) == bool(IDENTIFIER.search(word)), repr(word)


def test_years_are_what_the_pattern_finds() -> None:
    for term in [*_texts(20_000, seed=23, alphabet=list("0129٣²a")), "2023", "1999", "2100", "20٣٣", "202", "20233"]:
        assert prompt._year(term) == bool(YEAR.fullmatch(term)), repr(term)


def test_own_frames_are_taken_out_as_the_pattern_takes_them_out() -> None:
    parts = [FRAME_OPEN, FRAME_CLOSE, "a", "\n", " ", FRAME_OPEN[:-1], "<", ">"]
    rng = random.Random(24)
    for _ in range(20_000):
        text = "".join(rng.choice(parts) for _ in range(rng.randint(0, 12)))
        assert prompt._without_frames(text) == OWN_FRAME.sub(" ", text), repr(text)


def test_values_assigned_lose_their_quotes_as_the_pattern_takes_them_off() -> None:
    texts = [*_texts(20_000, seed=25, alphabet=list('=="" a-\n')), 'slot="icon-only"', 'a="x" b="y" "kept"', '=""']
    for text in texts:
        unquoted = QUOTED_SPAN.sub(lambda m: f"= {m[2]} " if m[1] else m[0], text)
        assert prompt._values_unquoted(text) == unquoted, repr(text)


def test_a_quoted_phrase_ending_in_an_equals_sign_keeps_the_next_phrase_apart() -> None:
    """``"--color=" fails with "unknown option"``: the ``="`` closing the first phrase opened a value that ran to the
    next phrase's opening quote, and the hook asked one phrase no chat holds (review52d F1)."""
    asked = 'why does "--color=" fail with "unknown option" again'
    assert prompt._values_unquoted(asked) == asked
    assert "unknown option" in query_terms(prompt._values_unquoted(asked))[1]
