"""A filtered search answers what the unfiltered search answers, filtered.

A search with ``--project``, ``--source``, ``--since`` or ``--session`` (and the MCP tool's ``project`` and
``since``) groups its candidates apart (``search._group_filtered``): each segment's docs are mapped to their
sessions and each session is checked once against ``sessions.idx``'s columns, or, for a project naming fewer
sessions than there are scored docs, its sessions are found from their hashes and their docs from where each
session's docs start. On an index read whole, with fewer candidates than a search ranks in full, every hit
(score, snippets, the terms it matched), their order and the total must be those of the unfiltered search, kept
to the sessions the filter lets through: over two segments, a session replaced since its segment was written, and
every filter alone and together.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from harness import index_chats

from deja.core import search as search_module
from deja.core.index import Index
from deja.core.index.format import name_hash
from deja.core.indexer import refresh
from deja.core.search import Filters, Hit, search
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

WORDS = [
    "deploy",
    "cache",
    "locale",
    "retry",
    "uploader",
    "postgres",
    "migration",
    "flaky",
    "socket",
    "timeout",
    "release",
    "branch",
    "docker",
]
QUERIES = ["deploy cache", "flaky retry uploader", "postgres migration timeout", "socket", "docker release branch", "7"]
#: Where the chats ran (folders that are not on disk: their projects are named from their slugs, ``work-shop``): one
#: project holds most of them, so that a project filter takes both ways of grouping.
PROJECTS = ["/work/shop"] * 5 + ["/work/api", "/work/web", "/work/infra"]
START = datetime(2026, 3, 1, tzinfo=UTC)
NOW = (START + timedelta(days=70)).timestamp()
SINCE = START + timedelta(days=30)


def _write_chat(cli: Path, rng: random.Random, n: int) -> None:
    chat_id = f"00000000-0000-4000-8000-{n:012d}"
    texts = [" ".join(rng.choices(WORDS, k=rng.randint(3, 20))) + f" number {n}" for _ in range(rng.randint(2, 5))]
    when = START + timedelta(days=rng.randint(0, 60), minutes=n)
    records = [user_turn(texts[0], when), *(assistant_turn(t) for t in texts[1:])]
    write_transcript(transcript_path(cli, rng.choice(PROJECTS), chat_id), records)


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Index:
    rng = random.Random(15)
    cli = tmp_path / "cli"
    for n in range(35):
        _write_chat(cli, rng, n)
    index_chats(tmp_path, monkeypatch, {})
    for n in (4, *range(35, 50)):  # a session replaced (its old row deleted), and new ones: a second segment
        _write_chat(cli, rng, n)
    refresh(tmp_path / "deja")
    opened = Index.open(tmp_path / "deja")
    assert len(opened.segments) == 2 and any(segment.deleted for segment in opened.segments)
    assert opened.session_count < search_module.RERANK  # every candidate is ranked in full, filtered or not
    return opened


def _admits(filters: Filters, hit: Hit) -> bool:
    """What each filter says of a hit, from what the hit shows."""
    if filters.project and name_hash(filters.project) not in (name_hash(hit.project), name_hash(hit.project_dir)):
        return False
    if filters.source and hit.source != filters.source:
        return False
    if filters.since and (hit.updated is None or hit.updated < filters.since):
        return False
    return not filters.session_id or hit.session_id.startswith(filters.session_id)


FILTERS = {
    "a project": Filters(project="work-shop"),
    "a small project": Filters(project="Work-Web"),  # (names compare case-insensitively)
    "a project deja does not know": Filters(project="nowhere"),
    "since": Filters(since=SINCE),
    "a project and since": Filters(project="work-shop", since=SINCE),
    "a source": Filters(source="cursor-cli"),
    "the other source": Filters(source="cursor-ide"),
    "a session": Filters(session_id="00000000-0000-4000-8000-00000000001"),
    "everything": Filters(project="work-api", source="cursor-cli", since=START),
}


@pytest.mark.parametrize("name", list(FILTERS))
def test_a_filtered_search_is_the_unfiltered_search_filtered(index: Index, name: str) -> None:
    filters = FILTERS[name]
    kept_some = False
    for query in QUERIES:
        everything = search(index, query, limit=200, now=NOW)
        assert everything.total == len(everything.hits)
        expected = [hit for hit in everything.hits if _admits(filters, hit)]
        found = search(index, query, filters=filters, limit=5, now=NOW)
        assert found.hits == expected[:5], query
        assert found.total == len(expected), query
        kept_some = kept_some or 0 < len(expected) < len(everything.hits)
    assert kept_some or name in ("a project deja does not know", "a source", "the other source")


def test_a_project_filter_takes_both_ways_of_grouping(index: Index, monkeypatch: pytest.MonkeyPatch) -> None:
    """A project naming fewer sessions than there are scored docs is found from its hashes; one naming more, from
    the candidates: both ways are checked above."""
    answers: list[bool] = []
    named = search_module._project_sessions

    def noted(*args: object) -> dict[int, int] | None:
        found = named(*args)  # type: ignore[arg-type]
        answers.append(found is not None)
        return found

    monkeypatch.setattr(search_module, "_project_sessions", noted)
    search(index, "7", filters=Filters(project="work-shop"), now=NOW)  # the few docs of chat 7
    search(index, "deploy cache", filters=Filters(project="work-web"), now=NOW)
    assert answers == [False, True]
