"""A query holding none of a phrase's cues skips its pattern: the cues never change what ``related`` finds."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deja.core import thesaurus
from deja.core.search import query_terms

PIECES = ["let", "me", "in", "signed", "out", "log", "on", "back", "office", "read-only", "copies", "bad", "gateway"]
PIECES += ["money", "no", "room", "space", "left", "of", "memory", "timed", "time", "kicked", "the", "deploy"]
PIECES += ["about", "without", "layout", "bereft", "\t", "\n", "\u00a0", "\u2003", "(", "-"]
PIECES += ["logs", "logging", "signing", "us", "them", "him", "her", "kick", "thrown", "threw", "cop", "copy", "ok"]
PIECES += ["two", "three", "2", "3", "times", "x2", "twotimes"]


def _found(query: str) -> tuple[dict[str, list[tuple[str, float]]], list[str]]:
    return thesaurus.related(query, query_terms(query)[0])


@pytest.mark.unit
@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(PIECES) | st.text(max_size=5), max_size=8))
def test_the_cues_find_what_every_pattern_finds(pieces: list[str]) -> None:
    query = " ".join(pieces)
    found = _found(query)
    uncued = [(("",), pattern, term) for _, pattern, term in thesaurus.PHRASES]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(thesaurus, "PHRASES", uncued)  # every query through every pattern
        assert _found(query) == found


@pytest.mark.unit
@pytest.mark.parametrize(
    ("query", "term"),
    [
        ("I got logged out again", "logout"),
        ("the back office page", "admin"),
        ("no space left", "disk"),
        ("the job ran two times", "twice"),
        ("sent 3 times", "thrice"),
    ],
)
def test_a_phrase_still_stands_for_its_term(query: str, term: str) -> None:
    others, gained = _found(query)
    assert term in gained or any(term == t for alternatives in others.values() for t, _ in alternatives)


@pytest.mark.unit
def test_a_word_ending_in_a_cue_matches_no_pattern(monkeypatch: pytest.MonkeyPatch) -> None:
    """ "about" holds "out" but is no cue for ``timed out``: a prompt about anything compiles no phrase pattern."""
    monkeypatch.setattr(re, "finditer", lambda *_: pytest.fail("a phrase pattern was compiled"))
    others, gained = _found("write a haiku about autumn leaves, without rhyme, in the layout")
    assert gained == [] and "write" in others  # (its other forms, found without a pattern)


@pytest.mark.unit
def test_a_phrases_words_apart_match_no_pattern(monkeypatch: pytest.MonkeyPatch) -> None:
    """ "out", "time", "left", "only", "log", "let" and "me in" in a prompt, but not as a phrase joins them: no pattern
    is compiled (``re`` with them is half of what starting Python costs a prompt's hook)."""
    monkeypatch.setattr(re, "finditer", lambda *_: pytest.fail("a phrase pattern was compiled"))
    prompt = (
        "work it out any time, only the left pane: the timezone is out of date, log it. Delete the blog, tell me in"
    )
    others, gained = _found(f"{prompt} short, complete the catalog; no memory left, let it on")
    assert gained == [] and "left" in others  # (its other forms, found without a pattern)


@pytest.mark.unit
@pytest.mark.parametrize("query", ["it timed\tout", "the request timed\n  out twice", "kicked\u00a0out"])
def test_a_cue_after_any_whitespace_still_finds_its_phrase(query: str) -> None:
    others, gained = _found(query)
    assert any(term in ("timeout", "logout") for alternatives in others.values() for term, _ in alternatives) or gained
