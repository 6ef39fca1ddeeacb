"""The thesaurus's table is built from its words' terms as the index makes them: each word is one token, so reading
it with ``token_terms`` (no pattern, no cache: a hook builds the table on every search) gives what ``terms`` gives."""

from __future__ import annotations

import pytest

from deja.core import thesaurus
from deja.core.text import terms, token_terms

WORDS = [word for group in thesaurus.FORMS + thesaurus.RELATED for word in group.split()]


def _table_through_terms() -> dict[str, list[tuple[str, float]]]:
    """The table as it was built before: every word through ``terms``."""
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
def test_the_table_is_the_one_terms_would_build() -> None:
    thesaurus._TABLE.clear()
    assert thesaurus._table() == _table_through_terms()


@pytest.mark.unit
@pytest.mark.parametrize("text", ["fetchUserProfile", "per_customer_limit", "src/app.py", "Séverine", "the", "502s"])
def test_a_token_alone_has_the_terms_terms_gives_it(text: str) -> None:
    assert token_terms(text) == terms(text)
