"""A source or since filter reads as deep as the share of sessions it admits calls for
(``search_filters.filtered_budget``).

On an index too large to be read whole, a plain search reads ``POSTINGS_BUDGET`` postings a term. A since or source
filter admitting every session read ``FILTERED_BUDGET`` instead, so that ``--since`` reaching back past the first
chat ranked differently from the same search without it; it now answers what the plain search answers. A filter
admitting few sessions still reads as far as ``FILTERED_BUDGET``, where their low-impact postings are.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from harness import index_chats

from deja.core import search as search_module
from deja.core.index import Index
from deja.core.search import Filters, search
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

CHATS = 150
#: The newest chats, the only ones the narrow filter admits: each says "deploy" once, in a long message, the lowest
#: impact of the word's postings, which a plain search's budget never reaches.
NEWEST = 5
START = datetime(2026, 3, 1, tzinfo=UTC)
NOW = (START + timedelta(days=CHATS + 10)).timestamp()
RAMBLING = " ".join(f"note{n} about the weather and lunch plans" for n in range(40))
FILLER = "and then check the logs of the service once it is up again after the restart of the cluster " * 3


@pytest.fixture
def deploys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Index:
    """``CHATS`` chats a day apart, each saying "deploy" twice (the last ``NEWEST`` once, buried in chatter), searched
    as an index too large to read whole: a plain search reads a quarter of ``POSTINGS_BUDGET`` of the word's 295
    postings (it is in every chat: a common word), a filtered one up to a quarter of ``FILTERED_BUDGET``, all of them."""
    cli = tmp_path / "cli"
    for n in range(CHATS):
        # (messages of many lengths: postings of many impacts, so that a budget cuts a word's list where it says)
        if n < CHATS - NEWEST:
            said, answered = f"How do I deploy {FILLER[: n % 37]}?", f"Run the deploy job {FILLER[: n % 23]}"
        else:
            said, answered = f"{RAMBLING} deploy {RAMBLING}", "Noted."
        records = [user_turn(said, START + timedelta(days=n)), assistant_turn(answered)]
        write_transcript(transcript_path(cli, "/work/shop", f"00000000-0000-4000-8000-{n:012d}"), records)
    index = index_chats(tmp_path, monkeypatch, {})
    monkeypatch.setattr(search_module, "FULL_READ_DOCS", 0)
    return index


#: Filters that every chat of the fixture passes (each a cursor-agent chat).
ADMITTING_ALL = {
    "since before the first chat": Filters(since=START - timedelta(days=1)),
    "the chats' source": Filters(source="cursor-cli"),
}


@pytest.mark.parametrize("name", list(ADMITTING_ALL))
def test_a_filter_admitting_every_session_answers_what_the_plain_search_answers(deploys: Index, name: str) -> None:
    plain = search(deploys, "deploy", limit=10, now=NOW)
    assert plain.total < CHATS  # the budget cut the word's postings: reading further would rank others
    filtered = search(deploys, "deploy", filters=ADMITTING_ALL[name], limit=10, now=NOW)
    assert filtered.hits == plain.hits
    assert filtered.total == plain.total


def test_a_since_filter_admitting_few_sessions_reads_far_enough_to_find_them(deploys: Index) -> None:
    newest = START + timedelta(days=CHATS - NEWEST)
    assert not [hit for hit in search(deploys, "deploy", limit=CHATS, now=NOW).hits if hit.updated >= newest]
    found = search(deploys, "deploy", filters=Filters(since=newest), limit=10, now=NOW)
    assert found.total == NEWEST
    assert {hit.session_id for hit in found.hits} == {
        f"00000000-0000-4000-8000-{n:012d}" for n in range(CHATS - NEWEST, CHATS)
    }
