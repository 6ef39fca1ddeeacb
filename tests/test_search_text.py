"""Word forms: Snowball stems, accents folded on both sides, identifiers whole before their parts."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import Sample, index_chats

from deja.core.index import Index
from deja.core.sample import API_CACHE_CHAT, WEB_COMPOSER
from deja.core.search import search
from deja.core.text import terms

WHOLE = "00000000-0000-4000-8000-00000000000a"
PARTS = "00000000-0000-4000-8000-00000000000b"
PERSON = "00000000-0000-4000-8000-00000000000c"


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Index:
    chats = {
        WHOLE: [
            "The nightly export job is slow and the dashboard times out while it runs.",
            "Found it: the export reads every row twice, and per_customer_limit is checked on each of them.",
        ],
        # Says each part, apart, in one short message.
        PARTS: ["Customer limit per customer?", "The customer limit is per customer."],
        PERSON: ["Séverine from support reported the export bug.", "Thanks, I will ask Séverine for the file."],
    }
    return index_chats(tmp_path, monkeypatch, chats)


def _ids(index: Index, query: str) -> list[str]:
    return [hit.session_id for hit in search(index, query, snippets=0).hits]


def test_a_name_without_its_accent_finds_it_and_the_other_way_round(index: Index) -> None:
    assert _ids(index, "severine") == [PERSON]
    assert _ids(index, "SÉVERINE") == [PERSON]


def test_a_whole_identifier_outranks_a_chat_that_says_its_parts_apart(index: Index) -> None:
    assert _ids(index, "per_customer_limit")[:2] == [WHOLE, PARTS]


def test_word_forms_meet_through_the_stemmer(index: Index) -> None:
    assert _ids(index, "supporting reports") == [PERSON]


def test_locale_does_not_find_local_storage(indexed_sample: Sample) -> None:
    found = _ids(Index.open(indexed_sample.home), "locale")
    assert found[0] == API_CACHE_CHAT
    assert WEB_COMPOSER not in found


def test_short_forms_meet_their_long_forms() -> None:
    assert terms("db prod repo") == terms("database production repository")
    assert terms("production") != terms("product")
