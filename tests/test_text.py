"""The tokeniser and stemmer: what a user relies on when their words meet the words of their history.

These tables state behaviour, not the stemmer's internals (it may be replaced): word forms meet,
identifiers are found by their parts, noise words are dropped, and nothing else is lost.
"""

from __future__ import annotations

import sys

import pytest

from deja.core import text as text_module
from deja.core.text import normalise, phrases, terms

pytestmark = pytest.mark.unit


def _meet(a: str, b: str) -> bool:
    return bool(terms(a)) and terms(a) == terms(b)


@pytest.mark.parametrize(
    ("asked", "written"),
    [
        ("painted", "painting"),
        ("paint", "paints"),
        ("describe", "described"),
        ("run", "running"),
        ("test", "tests"),
        ("test", "testing"),
        ("fix", "fixes"),
        ("fixed", "fixing"),
        ("cache", "caching"),
        ("cache", "cached"),
        ("query", "queries"),
        ("install", "installed"),
        ("migrate", "migrating"),
        ("index", "indexes"),
        ("Pytest", "pytest"),
        ("Server", "servers"),
        ("make", "making"),
    ],
)
def test_word_forms_meet(asked: str, written: str) -> None:
    assert _meet(asked, written), (terms(asked), terms(written))


@pytest.mark.parametrize(
    ("word", "other"), [("class", "clas"), ("status", "statu"), ("process", "proces"), ("bus", "bu")]
)
def test_words_ending_in_s_are_not_cut_into_other_words(word: str, other: str) -> None:
    assert terms(word) == [word]
    assert not _meet(word, other)


@pytest.mark.parametrize(
    ("identifier", "words"),
    [
        ("fetchUser", ["fetch", "user"]),
        ("cache_key", ["cache", "key"]),
        ("src/app.py", ["src", "app", "py"]),
        ("api.cache", ["api", "cache"]),
        ("HTTPServer", ["http", "server"]),
        ("ModuleNotFoundError", ["module", "found", "error"]),
        ("user_id", ["user"]),
        ("__init__", ["init"]),
    ],
)
def test_an_identifier_is_found_by_each_of_its_words(identifier: str, words: list[str]) -> None:
    found = terms(identifier)
    for word in words:
        assert set(terms(word)) <= set(found), (word, found)


@pytest.mark.parametrize("identifier", ["fetchUser", "cache_key", "src/app.py", "api.cache", "v2.3.1"])
def test_an_identifier_is_also_found_whole(identifier: str) -> None:
    assert terms(identifier)[0] == identifier.lower()
    assert terms(identifier.upper() if identifier.islower() else identifier)[0] == identifier.lower()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("the and of to", []),  # noise words say nothing about a session
        ("404", ["404"]),  # numbers stay whole and unstemmed
        ("café", ["cafe"]),  # letters beyond ASCII are letters, accents folded
        ("straße", ["straße"]),
        ("--full", ["full"]),  # a flag is its word
        ("", []),
        ("!!! ... ---", []),
    ],
)
def test_what_a_text_becomes(text: str, expected: list[str]) -> None:
    assert terms(text) == expected


def test_repeats_are_kept_in_order() -> None:
    """Term frequency ranks sessions, so a word said three times counts three times."""
    assert terms("cache miss, cache hit, cache") == ["cach", "miss", "cach", "hit", "cach"]


def test_documents_and_queries_tokenise_alike() -> None:
    document = "Fixed: the api package must be installed with `pip install -e .` before pytest can import `api.cache`."
    query = "pytest can't import api.cache after install"
    assert set(terms("pytest import api.cache install")) <= set(terms(query)) & set(terms(document))


@pytest.mark.parametrize(
    ("query", "quoted", "rest"),
    [
        ('"exact phrase" rest', ["exact phrase"], "rest"),
        ('a "b c" d "e"', ["b c", "e"], "a d"),
        ('unclosed "quote here', [], "unclosed quote here"),  # a quote left open starts no phrase
        ('empty "" quotes', [], "empty quotes"),
        ("no quotes", [], "no quotes"),
        ('File "app.py", line 8\nKeyError: "tier"\n', [], 'File "app.py", line 8 KeyError: "tier"'),  # a paste
        ('"cache key" miss\n', ["cache key"], "miss"),
    ],
)
def test_phrases_split_quoted_parts_from_the_rest(query: str, quoted: list[str], rest: str) -> None:
    found, remainder = phrases(query)
    assert (found, remainder.split()) == (quoted, rest.split())


def test_phrases_are_matched_in_a_folded_form() -> None:
    assert normalise("  Cannot   IMPORT\n api.cache ") == "cannot import api.cache"


def test_a_query_without_quotes_is_its_own_rest_and_compiles_no_pattern(monkeypatch: pytest.MonkeyPatch) -> None:
    """Most prompts hold no quote: the hook that splits them pays for no phrase pattern."""
    query = "why can't pytest  import api.cache?\n"
    monkeypatch.setitem(sys.modules, "re", None)  # importing it fails
    assert phrases(query) == ([], query)


def test_words_and_identifiers_are_split_without_re(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hook loads no ``re``: its prompt's words and identifiers are split all the same."""
    monkeypatch.setattr(text_module, "_FINDERS", [])
    monkeypatch.setattr(text_module, "_CACHE", text_module._TermCache())
    monkeypatch.setattr(text_module, "_PIECES", text_module._PieceCache())
    monkeypatch.delitem(sys.modules, "re")  # as in a hook
    assert terms("Write a haiku about autumn leaves in Lisbon") == ["write", "haiku", "autumn", "leav", "lisbon"]
    assert terms("fetchUserProfile") == ["fetchuserprofile", "fetch", "user", "profil"]
    assert terms("see src/app.py.") == ["see", "src/app.py", "src", "app", "py"]  # a piece the finder splits
    assert text_module._FINDERS[0] is text_module._scan
