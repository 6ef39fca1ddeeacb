"""The prompt hook reads only the head of each term's postings (``prompt.POSTINGS_READ``, a common term's
``prompt.COMMON_POSTINGS_READ``), at any index size.

A whole read of a 1k-session index cost the hook about 60 ms; capped, its cost stays flat. What a capped search
finds: the sessions holding a term's highest-impact postings, and every session holding a rare one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deja.core.index import Index
from deja.core.indexer import refresh
from deja.core.search import search
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript
from deja.hooks import prompt

CHATS = 300


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Index:
    """Three hundred chats about a deploy, one of which is about the flaky kafka consumer."""
    root = tmp_path_factory.mktemp("budget")
    cli_root = root / "cli"
    for n in range(CHATS):
        topic = "the kafka consumer lags behind" if n == 7 else f"step {n} of the release"
        write_transcript(
            transcript_path(cli_root, "/work/shop", f"{n:08d}-0000-4000-8000-000000000000"),
            [user_turn(f"the deploy broke at {topic}"), assistant_turn(f"The deploy failed: {topic}.")],
        )
    (root / "no-ide").mkdir()
    env = {"DEJA_CURSOR_CLI_ROOT": str(cli_root), "DEJA_CURSOR_ROOT": str(root / "no-ide")}
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        refresh(root / "home")
    return Index.open(Path(root / "home"))


@pytest.mark.unit
def test_a_budget_reads_a_common_terms_head_and_a_whole_search_every_posting(index: Index) -> None:
    assert search(index, "deploy", limit=1).total == CHATS
    capped = search(index, "deploy", limit=1, budget=64)
    assert 0 < capped.total < CHATS
    assert capped.idf == search(index, "deploy", limit=1).idf  # how rare a term is counts every doc all the same


@pytest.mark.unit
def test_a_budget_still_finds_every_session_holding_a_rare_term(index: Index) -> None:
    found = search(index, "deploy kafka consumer", limit=3, budget=64)
    assert found.hits[0].session_id.startswith("00000007")
    assert {"kafka", "consum"} <= set(found.hits[0].matched)


@pytest.mark.unit
def test_a_common_budget_reads_less_of_a_common_term_only(index: Index) -> None:
    """A budget reads a quarter of itself of a common term (1,024 here: all 600 docs saying "deploy"); a common
    budget, the prompt hook's, reads less of it, and a rare term as far as the budget says."""
    assert search(index, "deploy", limit=1, budget=4096).total == CHATS
    capped = search(index, "deploy", limit=1, budget=4096, common_budget=64)
    assert 0 < capped.total < CHATS
    found = search(index, "deploy kafka consumer", limit=3, budget=4096, common_budget=64)
    assert found.hits[0].session_id.startswith("00000007")
    assert {"kafka", "consum"} <= set(found.hits[0].matched)


@pytest.mark.unit
def test_the_prompt_hook_recalls_through_its_budget(index: Index, monkeypatch: pytest.MonkeyPatch) -> None:
    budgets: list[tuple[object, object]] = []
    real = prompt.search

    def spy(*args: object, **kwargs: object) -> object:
        budgets.append((kwargs.get("budget"), kwargs.get("common_budget")))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(prompt, "search", spy)
    recall = prompt.recall_for(index, "why does the kafka consumer lag behind?", "safe", set(), set())
    assert budgets == [(prompt.POSTINGS_READ, prompt.COMMON_POSTINGS_READ)]
    assert [s[:8] for s in recall.session_ids] == ["00000007"]
