"""A query finds the chat that said it in other words: restarted for bounced, logged out for signed out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from harness import index_chats, run_deja

from deja.core.index import Index
from deja.core.search import search
from deja.core.thesaurus import related
from deja.core.writers.cursor_agent import assistant_turn, tool_use, transcript_path, user_turn, write_transcript

RESTARTED = "00000000-0000-4000-8000-0000000000a1"
LOGGED_OUT = "00000000-0000-4000-8000-0000000000a2"
ROUTINE = "00000000-0000-4000-8000-0000000000a3"
REBOOTED = "00000000-0000-4000-8000-0000000000a4"


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Index:
    chats = {
        RESTARTED: [
            "My local postgres is empty after I restarted the stack.",
            "docker compose down -v removed pgdata.",
        ],
        LOGGED_OUT: ["Users get logged out right after login on api-2.", "Its clock was three minutes ahead."],
        # Shares the query's everyday words, not what it is about.
        ROUTINE: ["Add a container for the local worker.", "The worker came back fine, the queue is empty."],
        REBOOTED: ["The build box rebooted overnight.", "Nothing was lost."],
    }
    return index_chats(tmp_path, monkeypatch, chats)


def test_a_symptom_in_other_words_finds_the_chat(index: Index) -> None:
    hits = search(index, "my local db came back empty after bouncing the containers", snippets=0).hits
    assert hits[0].session_id == RESTARTED


def test_signed_out_finds_logged_out(index: Index) -> None:
    hits = search(index, "people were signed out straight after signing in", snippets=0).hits
    assert hits[0].session_id == LOGGED_OUT


def test_the_word_as_written_outranks_its_related_words(index: Index) -> None:
    assert [hit.session_id for hit in search(index, "rebooted", snippets=0).hits] == [REBOOTED, RESTARTED]
    assert [hit.session_id for hit in search(index, "restart", snippets=0).hits] == [RESTARTED, REBOOTED]


def test_matched_terms_are_the_words_as_written(index: Index) -> None:
    """The prompt gate weighs what a session holds as written: a related word ranks it, but is not a match."""
    hit = search(index, "bouncing postgres", snippets=0).hits[0]
    assert hit.session_id == RESTARTED
    assert hit.matched == ["postgr"]


@pytest.mark.unit
def test_irregular_forms_count_in_full_and_related_words_at_a_share() -> None:
    others, gained = related("ran the job", ["ran", "job"])
    assert ("run", 1.0) in others["ran"]
    assert all(0 < weight < 1 for _, weight in others["job"])
    assert related("it would not let me in", [])[1] == ["login"]
    assert gained == []


#: Where the word asked for is common and a word of its group rare (trial49 F3): the word, and a chat that says only
#: the rare related word.
COMMON_AND_RARE = [
    ("deploy", "Shipping estimate shows NaN"),
    ("primary", "rebase onto master branch"),
    ("server", "node_modules cleanup"),
    ("disk", "trailing space in yaml"),
    ("memory", "ram disk for tests"),
    ("docker", "aws pod identity"),
]


ODD = "00000000-0000-4000-8000-0000000000ff"


def _forty_and_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, word: str, related_only: str) -> Index:
    """Forty chats about ``word`` and one (``ODD``) saying ``related_only`` (the trial's ``ff.py``)."""
    chats = {
        f"00000000-0000-4000-8000-{i:012d}": [f"question {i} about the {word} in module m{i}", f"Fixed the {word}."]
        for i in range(40)
    }
    chats[ODD] = [related_only, "Done."]
    return index_chats(tmp_path, monkeypatch, chats)


@pytest.mark.parametrize(("word", "related_only"), COMMON_AND_RARE)
def test_a_common_word_as_written_outranks_a_rare_related_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, word: str, related_only: str
) -> None:
    """A related word weighs at most its share of the asked word's idf: at its own, a rare "ship" outranked every
    one of forty chats saying "deploy"."""
    hits = search(_forty_and_one(tmp_path, monkeypatch, word, related_only), word, limit=50, snippets=0).hits
    assert len(hits) == 41
    assert hits[-1].session_id == ODD


@pytest.mark.parametrize(("word", "asked"), [("deploy", "release"), ("primary", "leader"), ("server", "host")])
def test_a_word_no_chat_says_finds_its_common_related_word_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, word: str, asked: str
) -> None:
    """No chat says the word asked for: its related words weigh alike (as the commonest of them), so the rarest does
    not come first for being rare (the chats saying the common one twice do)."""
    related_only = dict(COMMON_AND_RARE)[word]
    hits = search(_forty_and_one(tmp_path, monkeypatch, word, related_only), asked, limit=50, snippets=0).hits
    assert len(hits) == 41
    assert hits[-1].session_id == ODD


def test_a_hit_found_through_a_related_word_shows_the_passage_that_says_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chat that says "browser" far into a long answer, found by "safari": its snippet was the answer's first 240
    characters, which hold neither word, so nothing said why it was a hit (trial57b G5). Now the window holds the
    related word, as it holds a word of the query as written; a message that holds the word as written still shows
    that word's passage."""
    opening = "I'll show you two common ways to run a local server for this project from the command line. " * 4
    chats = {
        RESTARTED: ["how do I serve the site locally", f"{opening}Then open your browser and go to localhost:8000."],
        LOGGED_OUT: ["the page is blank in safari", f"{opening}Safari blocks the mixed content; serve it over https."],
    }
    index = index_chats(tmp_path, monkeypatch, chats)
    by_id = {hit.session_id: hit for hit in search(index, "safari", snippets=1).hits}
    assert "open your browser" in by_id[RESTARTED].snippets[0].text, by_id[RESTARTED].snippets
    assert by_id[LOGGED_OUT].snippets[0].text.startswith("the page is blank in safari"), by_id[LOGGED_OUT].snippets


def test_a_message_found_by_its_path_shows_the_path_though_its_words_hold_a_related_word(cli_root: Path) -> None:
    """The message says "browser" (a related word of "safari") and its call wrote src/safari.js: the passage is its
    words and the path, which holds the word as written (review58c F1: near58 showed its words alone)."""
    said = "Patched the browser check."
    edit = tool_use("Write", {"path": "src/safari.js", "contents": "x = 1\n"})
    chat = "0b1c2d3e-0000-4000-8000-0000000000c1"
    write_transcript(
        transcript_path(cli_root, "/home/dev/src/site", chat), [user_turn("fix the quirk"), assistant_turn(said, edit)]
    )
    assert run_deja("index").returncode == 0
    snippets = json.loads(run_deja("search", "safari", "--json").stdout)["hits"][0]["snippets"]
    assert [s["text"] for s in snippets if s["role"] == "assistant"] == [f"{said} · src/safari.js"], snippets
