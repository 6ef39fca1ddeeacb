"""The prompt gate's rules, one by one: what lets a session through, and what keeps it out."""

from __future__ import annotations

import pytest

from deja.core.search import Hit, SearchResult
from deja.hooks.prompt import GATES, confident

pytestmark = pytest.mark.unit

IDF = {"bounc": 4.0, "contain": 3.0, "empti": 3.0, "local": 2.5, "databas": 2.5}
ASKED = sum(IDF.values())


def _hit(score: float, matched: list[str]) -> Hit:
    return Hit("s", "cursor-cli", "shop", "/work/shop", "t", None, None, score=score, matched=matched)


def test_a_first_session_that_scores_high_and_stands_out_passes_with_few_words_as_written() -> None:
    """Asked in other words ("bouncing the containers" for "restarted the stack"), the session holds little of the
    prompt as written, yet its score, all fields and related words counted, is high and well ahead of the next."""
    hit = _hit(score=0.5 * ASKED, matched=["empti"])
    result = SearchResult(query="", total=2, hits=[hit], idf=IDF)
    assert confident(hit, result, ASKED, {"empti"}, GATES["safe"], lead=2.0)


@pytest.mark.parametrize(("score_share", "lead"), [(0.5, 1.2), (0.2, 2.0)])
def test_it_stays_out_when_it_scores_low_or_does_not_stand_out(score_share: float, lead: float) -> None:
    hit = _hit(score=score_share * ASKED, matched=["empti"])
    result = SearchResult(query="", total=2, hits=[hit], idf=IDF)
    assert not confident(hit, result, ASKED, {"empti"}, GATES["safe"], lead=lead)


def test_a_session_scoring_under_the_floor_never_passes_even_on_an_identifier() -> None:
    """``node_modules`` alone is an identifier, but a session that matched the prompt this weakly is not an answer."""
    idf = {**IDF, "node_modules": 4.0}
    asked = ASKED + 4.0
    hit = _hit(score=0.1 * asked, matched=["node_modules", "contain"])
    result = SearchResult(query="", total=1, hits=[hit], idf=idf)
    assert not confident(hit, result, asked, {"node_modules"}, GATES["safe"])
    strong = _hit(score=0.2 * asked, matched=["node_modules", "contain"])
    assert confident(strong, result, asked, {"node_modules"}, GATES["safe"])
