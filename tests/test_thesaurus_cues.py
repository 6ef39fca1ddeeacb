"""A query holding none of a phrase's cues skips its pattern: the cues never change what ``related`` finds."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deja.core import thesaurus
from deja.core.search import query_terms

PIECES = ["let", "me", "in", "signed", "out", "log", "on", "back", "office", "read-only", "copies", "bad", "gateway"]
PIECES += ["money", "no", "room", "space", "left", "of", "memory", "timed", "time", "kicked", "the", "deploy"]


def _found(query: str) -> tuple[dict[str, list[tuple[str, float]]], list[str]]:
    return thesaurus.related(query, query_terms(query)[0])


@pytest.mark.unit
@settings(max_examples=300, deadline=None)
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
    [("I got logged out again", "logout"), ("the back office page", "admin"), ("no space left", "disk")],
)
def test_a_phrase_still_stands_for_its_term(query: str, term: str) -> None:
    others, gained = _found(query)
    assert term in gained or any(term == t for alternatives in others.values() for t, _ in alternatives)
