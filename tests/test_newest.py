"""``Index.newest`` reads a key's postings only as far as it needs, and still finds its newest live docs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from deja.core.index import Index, Segment
from deja.core.indexer import refresh
from deja.core.keys import project_key
from deja.core.library import newest_sessions
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

CHATS = 60


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Index, str]:
    """Sixty chats in one project, a day apart; the index and the project's key."""
    root = tmp_path_factory.mktemp("newest")
    (root / "shop").mkdir()
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for n in range(CHATS):
        when = start + timedelta(days=n)
        write_transcript(
            transcript_path(root / "cli", str(root / "shop"), f"{n:08d}-0000-4000-8000-000000000000"),
            [user_turn(f"step {n} of the release", when), assistant_turn(f"Done with step {n}.")],
        )
    (root / "no-ide").mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DEJA_CURSOR_CLI_ROOT", str(root / "cli"))
        patch.setenv("DEJA_CURSOR_ROOT", str(root / "no-ide"))
        refresh(root / "home")
    return Index.open(Path(root / "home")), project_key(str(root / "shop"))


def _ids(found: list[tuple[float, Segment, int]]) -> list[str]:
    return [segment.session(segment.doc(doc).ordinal).id[:8] for _, segment, doc in found]


@pytest.mark.unit
def test_newest_gives_the_newest_sessions_newest_first(indexed: tuple[Index, str]) -> None:
    index, key = indexed
    assert _ids(index.newest(key, limit=3)) == ["00000059", "00000058", "00000057"]


@pytest.mark.unit
def test_newest_reads_on_past_deleted_sessions_to_find_live_ones(indexed: tuple[Index, str]) -> None:
    index, key = indexed
    segment = index.segments[0]
    newest = [segment.doc(doc).ordinal for _, _, doc in index.newest(key, limit=40)]
    kept = segment.deleted
    segment.deleted = frozenset(newest[:30])  # the thirty newest were replaced by later builds
    try:
        assert _ids(index.newest(key, limit=3)) == ["00000029", "00000028", "00000027"]
    finally:
        segment.deleted = kept


@pytest.mark.unit
def test_a_period_reads_the_postings_of_that_period_not_the_whole_list(
    indexed: tuple[Index, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full page of ``deja sessions --since 10d`` counts the sessions of the period it left out: that reads the
    period's postings, not those of the whole history (every one of 100k sessions, for a period of ten)."""
    index, key = indexed
    since = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(days=50)
    read: list[int] = []
    postings = Segment.postings
    monkeypatch.setattr(Segment, "postings", lambda s, *at: read.append(len(found := postings(s, *at))) or found)
    project = index.segments[0].session(0).project_dir
    chosen = newest_sessions(index, project=project, limit=1_000_000, since=since.timestamp())
    assert [meta.id[:8] for meta in chosen] == [f"{n:08d}" for n in range(59, 49, -1)]
    assert sum(read) == 10
    assert (
        newest_sessions(index, project=project, limit=1_000_000, since=since.timestamp() + 1)[-1].id[:8] == "00000051"
    )
