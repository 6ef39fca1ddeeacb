"""The thesaurus holds its groups' and compounds' terms rather than stemming their words for every query: they are
what the index makes of those words, and what it finds for a term is what the whole table, built from every word
through ``terms``, holds for that term, in the same order.

Each word is one token, so ``token_terms`` (no pattern, no cache) gives what ``terms`` gives."""

from __future__ import annotations

import pytest

from deja.core import thesaurus
from deja.core.text import terms, token_terms

WORDS = [word for group in [*thesaurus.FORMS, *thesaurus.RELATED] for word in group.split()]


def _whole_table() -> dict[str, list[tuple[str, float]]]:
    """Every group's terms through ``terms``, each term with the others of every group holding it, in order."""
    table: dict[str, list[tuple[str, float]]] = {}
    for groups, weight in ((thesaurus.FORMS, 1.0), (thesaurus.RELATED, thesaurus.RELATED_WEIGHT)):
        for group in groups:
            stems = list(dict.fromkeys(t for word in group.split() for t in terms(word)[:1]))
            for term in stems:
                table.setdefault(term, []).extend((other, weight) for other in stems if other != term)
    return table


@pytest.mark.unit
def test_every_thesaurus_word_is_one_token_whose_terms_are_what_terms_gives() -> None:
    assert [token_terms(word) for word in WORDS] == [terms(word) for word in WORDS]


@pytest.mark.unit
@pytest.mark.parametrize("groups", [thesaurus.FORMS, thesaurus.RELATED], ids=["FORMS", "RELATED"])
def test_each_groups_terms_are_what_the_stemmer_makes_of_its_words(groups: dict[str, tuple[str, ...]]) -> None:
    made = {words: tuple(dict.fromkeys(t for word in words.split() for t in token_terms(word)[:1])) for words in groups}
    assert made == groups


@pytest.mark.unit
def test_a_terms_others_are_what_the_whole_table_holds_for_it() -> None:
    table = _whole_table()
    asked = [*table, *terms("database repository deploy crash the a refund timeout zebra k8s 502 x")]
    assert {term: thesaurus.others(term) for term in asked} == {term: table.get(term, []) for term in asked}


@pytest.mark.unit
@pytest.mark.parametrize("text", ["fetchUserProfile", "per_customer_limit", "src/app.py", "Séverine", "the", "502s"])
def test_a_token_alone_has_the_terms_terms_gives_it(text: str) -> None:
    assert token_terms(text) == terms(text)


@pytest.mark.unit
def test_each_compounds_terms_are_what_the_stemmer_makes_of_its_words() -> None:
    """``COMPOUNDS`` holds its words' terms rather than stemming them for every query: they are the index's, as
    ``token_terms`` makes them (the second's none for a stopword)."""
    made = []
    for words, *_ in thesaurus.COMPOUNDS:
        first, second = words.split()
        made.append((words, token_terms(first)[0], next(iter(token_terms(second)), ""), token_terms(first + second)[0]))
    assert made == thesaurus.COMPOUNDS
