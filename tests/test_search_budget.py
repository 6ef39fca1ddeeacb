"""How far a search reads a term's postings in a small index: a budget unfiltered, everything with a filter."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import index_chats

from deja.core import search as search_module
from deja.core.index import Index
from deja.core.search import Filters, search

#: Every chat says the common word once; more chats than the smallest share a segment reads (64).
CHATS = 80


@pytest.fixture
def deploys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Index:
    chats = {
        f"00000000-0000-4000-8000-{n:012d}": [f"How do I deploy service number {n}?", f"Run the deploy job {n}."]
        for n in range(CHATS)
    }
    return index_chats(tmp_path, monkeypatch, chats)


def test_a_small_index_within_the_budget_is_read_whole(deploys: Index) -> None:
    assert deploys.total_docs <= search_module.FULL_READ_DOCS
    assert search(deploys, "deploy").total == CHATS


def test_a_common_word_reads_only_its_best_postings_past_the_budget(
    deploys: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_module, "SMALL_INDEX_BUDGET", 64)
    found = search(deploys, "deploy")
    assert 0 < found.total < CHATS
    assert len(found.hits) == 10


def test_a_filtered_search_of_a_small_index_reads_every_posting(
    deploys: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_module, "SMALL_INDEX_BUDGET", 64)
    assert search(deploys, "deploy", filters=Filters(source="cursor-cli")).total == CHATS


def test_a_regular_expression_search_of_a_small_index_reads_every_posting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``deja search deploy --re 'prod-eu-\\d'``: the one match is a low-impact session (one long message among many
    short ones), past the head of the list a budget reads."""
    chats = {
        f"00000000-0000-4000-8000-{n:012d}": [f"How do I deploy service number {n}?", f"Run the deploy job {n}."]
        for n in range(CHATS)
    }
    rambling = " ".join(f"note{n} about the weather and lunch plans" for n in range(60))
    chats["00000000-0000-4000-8000-999999999999"] = [f"{rambling} deploy to prod-eu-3 {rambling}", "Noted."]
    index = index_chats(tmp_path, monkeypatch, chats)
    monkeypatch.setattr(search_module, "SMALL_INDEX_BUDGET", 64)

    assert "999999999999" not in {hit.session_id[-12:] for hit in search(index, "deploy", limit=100).hits}
    found = search(index, "deploy", filters=Filters(pattern=r"prod-eu-\d"))
    assert [hit.session_id[-12:] for hit in found.hits] == ["999999999999"]
