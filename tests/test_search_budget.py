"""A small index is read whole: no posting is cut, so a low-impact session is still found and counted."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import index_chats

from deja.core import search as search_module
from deja.core import search_filters
from deja.core.index import Index
from deja.core.search import Filters, search

#: Every chat says the common word once.
CHATS = 80
#: One long message that says "deploy" once among sixty lines of chatter: the lowest impact of the word's postings.
RAMBLING = " ".join(f"note{n} about the weather and lunch plans" for n in range(60))
BURIED = "00000000-0000-4000-8000-999999999999"


@pytest.fixture
def deploys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Index:
    chats = {
        f"00000000-0000-4000-8000-{n:012d}": [f"How do I deploy service number {n}?", f"Run the deploy job {n}."]
        for n in range(CHATS)
    }
    chats[BURIED] = [f"{RAMBLING} deploy to prod-eu-3 {RAMBLING}", "Noted."]
    return index_chats(tmp_path, monkeypatch, chats)


def test_every_session_that_says_a_word_is_counted_and_the_buried_one_is_listed_last(
    deploys: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert deploys.total_docs <= search_module.FULL_READ_DOCS
    for budget in ("POSTINGS_BUDGET", "FULL_READ"):  # a large index's caps, far below 81 here
        monkeypatch.setattr(search_module, budget, 8)
    monkeypatch.setattr(search_filters, "FILTERED_BUDGET", 8)
    found = search(deploys, "deploy", limit=100)
    assert found.total == CHATS + 1
    assert found.hits[-1].session_id == BURIED


def test_a_regular_expression_finds_the_low_impact_session_that_matches_it(deploys: Index) -> None:
    """``deja search deploy --re 'prod-eu-\\d'``: the one match is the buried session."""
    found = search(deploys, "deploy", filters=Filters(pattern=r"prod-eu-\d"))
    assert [hit.session_id for hit in found.hits] == [BURIED]
