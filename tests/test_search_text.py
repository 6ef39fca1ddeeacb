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
SHARP = "00000000-0000-4000-8000-00000000000d"
DOUBLE = "00000000-0000-4000-8000-00000000000e"
CHINESE = "00000000-0000-4000-8000-00000000000f"
JAPANESE = "00000000-0000-4000-8000-000000000010"


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
        SHARP: ["Die Größe des Puffers ist falsch.", "Setze die maximale Größe auf 4 MB."],
        DOUBLE: ["Die Grösse im Schweizer Handbuch stimmt nicht.", "Dann die Grösse dort korrigieren."],
        CHINESE: ["支付接口返回超时错误，怎么修复", "把超时时间调大。"],
        JAPANESE: ["ログイン画面でエラーが出ます", "セッションの期限切れです。"],
    }
    return index_chats(tmp_path, monkeypatch, chats)


def _ids(index: Index, query: str) -> list[str]:
    return [hit.session_id for hit in search(index, query, snippets=0).hits]


def test_a_name_without_its_accent_finds_it_and_the_other_way_round(index: Index) -> None:
    assert _ids(index, "severine") == [PERSON]
    assert _ids(index, "SÉVERINE") == [PERSON]


def test_sharp_s_and_double_s_find_each_other(index: Index) -> None:
    """``grosse`` missed ``Größe`` (trial48 F10): the index keeps the ß, so the query looks for both spellings."""
    assert sorted(_ids(index, "grosse")) == sorted(_ids(index, "Größe")) == sorted([SHARP, DOUBLE])
    assert _ids(index, "password") == []  # (an English word's ß spelling is no term of an index: nothing more)


def test_a_word_inside_a_chinese_or_japanese_run_finds_it(index: Index) -> None:
    """Text written without spaces is indexed a run at a time: ``超时`` found nothing inside "支付接口返回超时错误"
    (trial48 F10). A word of the query is looked for inside the runs the index holds."""
    assert _ids(index, "超时") == [CHINESE]
    assert _ids(index, "支付接口返回超时错误") == [CHINESE]
    assert _ids(index, "エラー") == [JAPANESE]
    assert _ids(index, "退款") == []


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
