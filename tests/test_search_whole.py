"""A small index read whole answers exactly as reading its postings one by one does.

``deja search`` reads every posting of an index of up to ``FULL_READ_DOCS`` docs. A budget larger than any list
makes the same search read through the budgeted path (the one a large index and the hooks take): every hit,
score, snippet and total must be the same, over two segments, a session replaced since its segment was written,
and filters.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from harness import Sample, index_chats, run_deja

from deja.core import search as search_module
from deja.core.index import Index
from deja.core.index.format import RUNS, doc_width
from deja.core.indexer import refresh
from deja.core.search import ROLE_KINDS, Filters, search
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
    "test",
    "socket",
    "timeout",
    "release",
    "branch",
    "memory",
    "webpack",
    "token",
    "dialog",
    "latency",
    "typescript",
    "kubernetes",
    "config",
    "docker",
    "disk",
    "restart",
    "stack",
]
QUERIES = [
    "deploy cache",
    "flaky retry uploader",
    "postgres migration timeout",
    "release branch memory",
    "kubernetes latency",  # with the thesaurus's other words (k8s, slow, lag)
    '"retry uploader"',
    "socket",
    "zeppelinqux deploy",
]
EVERY_POSTING = 10**9


def _chat(rng: random.Random, n: int) -> list[str]:
    return [" ".join(rng.choices(WORDS, k=rng.randint(3, 30))) + f" number {n}" for _ in range(rng.randint(2, 6))]


@pytest.fixture
def two_segments(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Index:
    rng = random.Random(5)
    chats = {f"00000000-0000-4000-8000-{n:012d}": _chat(rng, n) for n in range(60)}
    index_chats(tmp_path, monkeypatch, chats)
    cli = tmp_path / "cli"
    for n in (3, *range(60, 90)):  # a session replaced (its old rows deleted), and new ones: a second segment
        chat_id = f"00000000-0000-4000-8000-{n:012d}"
        first, *rest = _chat(rng, n)
        write_transcript(
            transcript_path(cli, "/work/shop", chat_id), [user_turn(first), *(assistant_turn(t) for t in rest)]
        )
    refresh(tmp_path / "deja")
    index = Index.open(tmp_path / "deja")
    assert len(index.segments) == 2 and any(segment.deleted for segment in index.segments)
    return index


def _filters(index: Index, name: str) -> Filters:
    """One filter of each kind a user can give, each letting some of the sessions through."""
    some = search(index, "deploy cache").hits[1]
    return {
        "none": Filters(),
        "source": Filters(source="cursor-cli"),
        "project": Filters(project=some.project),
        "role": Filters(kinds=ROLE_KINDS["user"]),
        "session": Filters(session_id=some.session_id[:30]),
    }[name]


@pytest.mark.parametrize("name", ["none", "source", "project", "role", "session"])
def test_reading_whole_lists_answers_as_a_budget_past_every_list(two_segments: Index, name: str) -> None:
    assert two_segments.total_docs <= search_module.FULL_READ_DOCS
    filters = _filters(two_segments, name)
    for query in QUERIES:
        whole = search(two_segments, query, filters=filters, limit=15, now=1.8e9)
        budgeted = search(two_segments, query, filters=filters, limit=15, now=1.8e9, budget=EVERY_POSTING)
        assert whole == budgeted, query
    assert search(two_segments, "deploy cache", filters=filters, now=1.8e9).total >= 1, "the filter lets some through"


@pytest.mark.parametrize("past", ["the largest number", "the doc after the last"])
def test_a_whole_list_naming_a_doc_past_the_end_is_reported_as_damage(indexed_sample: Sample, past: str) -> None:
    """A postings list read whole is checked as one read posting by posting is: a doc number past the segment's
    last doc makes ``deja search`` name the damaged file and say to rebuild, in one line. The doc just after the
    last shares the last one's top byte, which the check reads first (``Segment._past_last``)."""
    index = Index.open(indexed_sample.home)
    segment = index.segments[0]
    p_off, count, _ = segment.lookup("pytest")
    assert count
    data = bytearray((Path(segment.path) / "postings.bin").read_bytes())
    runs = RUNS.unpack_from(data, p_off)[0]
    first_doc = p_off + RUNS.size + 3 * runs  # after the runs' impacts (2 bytes each) and lengths (1 byte each)
    width = doc_width(segment.ref.docs)
    named = (1 << 8 * width) - 1 if past == "the largest number" else segment.ref.docs
    assert named >> 8 * (width - 1) == (segment.ref.docs - 1) >> 8 * (width - 1) or past == "the largest number"
    data[first_doc : first_doc + width] = named.to_bytes(width, "little")
    (Path(segment.path) / "postings.bin").write_bytes(bytes(data))
    done = run_deja("search", "pytest", env=indexed_sample.env)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "postings.bin is damaged" in done.stderr and "deja index" in done.stderr


def test_a_manifest_naming_more_docs_than_a_doc_number_holds_is_caught_as_a_truncated_segment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A manifest naming 2**33 docs in a segment is damage like any other count its files do not hold: the segment is
    caught as truncated and the index rebuilt, not a ``ValueError`` on every search (review42b M1)."""
    import msgspec

    index = index_chats(tmp_path, monkeypatch, {"c-huge": ["the beta-gizmo flaps on deploy", "pinned it"]})
    manifest = Path(index.segments[0].path).parent / "manifest.msgpack"
    fields = msgspec.msgpack.decode(manifest.read_bytes())
    fields["segments"][0]["docs"] = 2**33
    manifest.write_bytes(msgspec.msgpack.encode(fields))
    done = run_deja("search", "beta-gizmo")
    assert done.returncode == 0 and "c-huge" in done.stdout, done.stderr
    assert "is truncated" in done.stderr and "ValueError" not in done.stderr, done.stderr
