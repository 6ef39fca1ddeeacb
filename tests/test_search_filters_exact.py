"""A filtered search answers what the unfiltered search answers, filtered.

A search with ``--project``, ``--source``, ``--since`` or ``--session`` (and the MCP tool's ``project`` and
``since``) scores and groups only the docs of the sessions its filters admit: a project's sessions (or a session
id's) are found from their hashes before a word is read, their docs the only ones scored
(``search_filters.known_docs``, kept by the index for the next search); otherwise each segment's scored docs are
mapped to their sessions and each session is checked once against ``sessions.idx``'s columns
(``search_filters._sessions_of``). On an index read whole, with
fewer candidates than a search ranks in full, every hit (score, snippets, the terms it matched), their order and the
total must be those of the unfiltered search, kept to the sessions the filter lets through: over two segments, a
session replaced since its segment was written, and every filter alone and together, each both ways.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from harness import index_chats

from deja.core import search as search_module
from deja.core import search_filters
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
    if filters.project and filters.project_hash not in (name_hash(hit.project), name_hash(hit.project_dir)):
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
    "the root folder, no project's": Filters(project="/"),  # (the CLI and the server refuse it before searching)
    "since": Filters(since=SINCE),
    "a project and since": Filters(project="work-shop", since=SINCE),
    "a project and a since it all passes": Filters(project="work-shop", since=START - timedelta(days=1)),
    "a source": Filters(source="cursor-cli"),
    "the other source": Filters(source="cursor-ide"),
    "a session": Filters(session_id="00000000-0000-4000-8000-00000000001"),
    "everything": Filters(project="work-api", source="cursor-cli", since=START),
}


#: The two ways a filtered search finds the docs it may score: a project's sessions (and a session id's) found before
#: a word is read, their docs the only ones scored (``search_filters.known_docs``); or every candidate session
#: checked once scored (``search_filters._sessions_of``), as for a project naming more than ``NAMED_MOST`` sessions
#: in a segment.
NAMING_NONE = ("a project deja does not know", "the root folder, no project's")
WAYS = {"found before scoring": search_filters.NAMED_MOST, "checked once scored": 0}


@pytest.mark.parametrize("way", list(WAYS))
@pytest.mark.parametrize("name", list(FILTERS))
def test_a_filtered_search_is_the_unfiltered_search_filtered(
    index: Index, name: str, way: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_filters, "NAMED_MOST", WAYS[way])
    filters = FILTERS[name]
    kept_some = False
    for query in QUERIES:  # (from the second on, a project's sessions are those the index kept: ``Index.named``)
        everything = search(index, query, limit=200, now=NOW)
        assert everything.total == len(everything.hits)
        expected = [hit for hit in everything.hits if _admits(filters, hit)]
        found = search(index, query, filters=filters, limit=5, now=NOW)
        assert found.hits == expected[:5], query
        assert found.total == len(expected), query
        kept_some = kept_some or 0 < len(expected) < len(everything.hits)
    assert kept_some or name in (*NAMING_NONE, "a source", "the other source")
    if filters.project:  # the way taken (a project naming no session is found before scoring either way)
        before = way == "found before scoring" or name in NAMING_NONE
        assert (index.named[filters.project_hash] is not None) == before


def test_a_projects_sessions_are_found_once_per_index(index: Index, tmp_path: Path) -> None:
    """A server keeps its index open between calls: a project's sessions are found once for that index, and a chat
    of the project written since is found by the next index a new manifest opens."""
    filters = Filters(project="work-web")
    first = search(index, "deploy cache", filters=filters, now=NOW)
    kept = index.named[filters.project_hash]
    assert kept is not None and search(index, "deploy cache", filters=filters, now=NOW) == first
    assert index.named[filters.project_hash] is kept
    chat_id = "00000000-0000-4000-8000-000000000099"
    records = [user_turn("zebra deploy cache", START + timedelta(days=65)), assistant_turn("zebra")]
    write_transcript(transcript_path(tmp_path / "cli", "/work/web", chat_id), records)
    refresh(tmp_path / "deja")
    assert search(index, "zebra", filters=filters, now=NOW).hits == []  # the index as it stood
    found = search(Index.open(tmp_path / "deja"), "zebra", filters=filters, now=NOW)
    assert [hit.session_id for hit in found.hits] == [chat_id]


def test_each_sessions_docs_run_to_the_next_sessions_first_and_the_last_to_the_segments_end(index: Index) -> None:
    """``Segment.session_docs``, the one rule a filtered search's admitted runs and the failure hook's last-command
    check (``ending._field_docs``) read: in order, the sessions' runs tile each segment, each starting at its first
    message, every doc in it its session's, and the last session's running to the segment's end (the edge where no
    next session's first doc is there to stop it)."""
    for segment in index.segments:
        runs = [segment.session_docs(ordinal) for ordinal in range(segment.ref.sessions)]
        assert [run.start for run in runs] == [segment.session(ordinal).first_doc for ordinal in range(len(runs))]
        assert [run.stop for run in runs[:-1]] == [run.start for run in runs[1:]]
        assert runs[0].start == 0 and runs[-1].stop == segment.ref.docs and runs[-1].stop > runs[-1].start
        assert all(segment.doc(doc).ordinal == ordinal for ordinal, run in enumerate(runs) for doc in run)
