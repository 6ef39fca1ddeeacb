"""A full build split over processes, with postings spilled to run files, gives the index a one-process build gives.

The benchmarks (bench/bench_index.py) build with every core and small runs only at 10k
sessions and more; here the thresholds are lowered so the sample history takes the same path. A split build
also records every chat as a one-process build does, sets each bookkeeping shard aside once recorded, and
leaves none of its files on the way behind.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import msgspec
import pytest
from harness import Sample

from deja.core import parallel
from deja.core.bookkeeping import Bookkeeping, ChatState, Location, State, read_record, shard_of
from deja.core.index import Index, index_dir, read_manifest
from deja.core.index import writer as segment_writer
from deja.core.indexer import parts, refresh
from deja.core.search import search
from deja.core.text import terms
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

QUERIES = ["websocket reconnect backoff", "flaky retry uploader", "migration", "certificate"]


def _everything(home: Path) -> dict[str, tuple[str, list[tuple[str, str, int]]]]:
    """Every session as `deja show` reads it: title and (role, text, tool calls) per message."""
    index = Index.open(home)
    return {
        meta.id: (meta.title, [(m.role, m.text, len(m.tool_calls)) for m in segment.messages(meta)])
        for segment, _, meta in index.sessions()
    }


def _top_hits(home: Path) -> dict[str, list[str]]:
    index = Index.open(home)
    return {query: [hit.session_id for hit in search(index, query).hits[:3]] for query in QUERIES}


@pytest.fixture
def many(sample: Sample) -> Sample:
    """The sample with enough chats of its own that each part of a split build gets several."""
    cwd = str(sample.history.projects["api"])
    for i in range(24):
        write_transcript(
            transcript_path(sample.history.cli_root, cwd, f"chat{i:02d}"),
            [user_turn(f"question {i} about migration{i} and certificate pinning"), assistant_turn(f"answer {i}")],
        )
    return sample


def _split_build(monkeypatch: pytest.MonkeyPatch, run_docs: int = 5) -> None:
    monkeypatch.setattr(parts, "PARALLEL_MIN_CHATS", 1)
    monkeypatch.setattr(parallel, "cores", lambda: 2)
    # (an MCP test earlier in the same pytest process leaves anyio's worker threads idle, and a build forks only
    # from a process of one thread: these builds must split whatever ran before them)
    monkeypatch.setattr(parallel, "can_fork", lambda: True)
    monkeypatch.setattr(segment_writer, "RUN_DOCS", run_docs)


def test_a_split_build_with_spilled_runs_holds_what_a_one_process_build_holds(
    many: Sample, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    refresh(many.home, full=True)
    whole, hits = _everything(many.home), _top_hits(many.home)
    assert len(read_manifest(index_dir(many.home)).segments) == 1

    _split_build(monkeypatch)
    result = refresh(many.home, full=True)
    assert result.sessions == len(whole)
    assert len(read_manifest(index_dir(many.home)).segments) == 2  # one per part
    assert _everything(many.home) == whole
    assert _top_hits(many.home) == hits
    assert not list(index_dir(many.home).glob("seg-*/run-*"))  # runs are gone once merged


def test_a_split_build_that_spills_every_few_chats_records_every_chat(
    many: Sample, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A part sends its chats' records to a spill file as it goes: lost records would show as chats read again
    by the next refresh, or as sessions no record points at; a spill file left behind would be a stray."""
    refresh(many.home, full=True)
    whole = _everything(many.home)

    _split_build(monkeypatch)
    monkeypatch.setattr(parts, "SPILL_EVERY", 2)
    built = refresh(many.home, full=True)

    assert built.sessions == len(whole) and _everything(many.home) == whole
    again = refresh(many.home)  # every chat recorded where it went: nothing is read again
    assert (again.added, again.updated, again.removed) == (0, 0, 0)
    assert not list(index_dir(many.home).glob(".part-*"))  # the spill files are read and removed


def test_progress_counts_every_chat_of_every_part(many: Sample, monkeypatch: pytest.MonkeyPatch) -> None:
    _split_build(monkeypatch)
    monkeypatch.setattr(parallel, "PROGRESS_EVERY", 1)
    seen: list[tuple[int, int]] = []
    refresh(many.home, full=True, progress=lambda done, total: seen.append((done, total)))
    done, total = seen[-1]
    assert done == total >= len(_everything(many.home))  # chats read as empty count too
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_a_part_killed_half_way_fails_the_build_and_leaves_the_index_whole(
    many: Sample, monkeypatch: pytest.MonkeyPatch
) -> None:
    refresh(many.home)
    before = _everything(many.home)
    _split_build(monkeypatch)
    monkeypatch.setenv("DEJA_FAULT", "segment-session@3")
    with pytest.raises(parallel.PartFailed, match="exit code -9"):
        refresh(many.home, full=True)
    assert _everything(many.home) == before
    monkeypatch.delenv("DEJA_FAULT")
    refresh(many.home, full=True)
    assert _everything(many.home) == before


def test_a_common_word_keeps_its_best_postings_and_its_whole_count(
    many: Sample, monkeypatch: pytest.MonkeyPatch
) -> None:
    refresh(many.home, full=True)
    whole = search(Index.open(many.home), "migration question")
    monkeypatch.setattr(segment_writer, "WORD_POSTINGS_KEPT", 2)
    monkeypatch.setattr(segment_writer, "WHOLE_LISTS_DOCS", 0)  # as if the segment were large
    refresh(many.home, full=True)
    index = Index.open(many.home)
    kept, holding = index.segments[0].lookup(terms("migration")[0])[1:]
    assert kept == 2 and holding >= 24
    cut = search(index, "migration question")
    assert cut.idf == whole.idf  # rarity counts every doc holding the word
    assert cut.hits


_SLEEPING_PARTS = """
import os
import sys
import time
from pathlib import Path
from deja.core import parallel
from deja.core.bookkeeping import Bookkeeping, ChatState, Location, State, read_record, shard_of

def work(number, tell):
    written = Path(sys.argv[1], f"writing-{number}")
    written.write_text(str(os.getpid()))
    written.replace(Path(sys.argv[1], f"part-{number}"))  # whole when the test sees it
    time.sleep(60)

parallel.run_parts(work, 2)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc to see whether a process is alive")
def test_parts_die_with_the_build_that_started_them(tmp_path: Path) -> None:
    builder = subprocess.Popen([sys.executable, "-c", _SLEEPING_PARTS, str(tmp_path)])
    try:
        deadline = time.monotonic() + 30
        while len(list(tmp_path.glob("part-*"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        parts = [int(p.read_text()) for p in tmp_path.glob("part-*")]
        assert len(parts) == 2
    finally:
        builder.kill()  # as a user's kill -9, or the fault tests, would
        builder.wait()
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in parts) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in parts)


def _records(home: Path) -> dict[str, ChatState]:
    """Every chat's record, each ``where`` checked to name that chat's session in the index, then left out."""
    directory = index_dir(home)
    manifest = read_manifest(directory)
    index = Index(directory, manifest)
    segments = {segment.ref.name: segment for segment in index.segments}
    records = {}
    for sid, record in Bookkeeping(directory, read_record(directory / manifest.state, State)).items():
        if record.where is not None:
            assert segments[record.where.segment].session(record.where.ordinal).id == sid
        records[sid] = msgspec.structs.replace(record, where=None)
    return records


def _leftovers(home: Path) -> list[str]:
    directory = index_dir(home)
    return sorted(p.name for p in [*directory.glob(".*.tmp"), *(directory / "state").glob(".*.tmp")])


def test_a_split_build_records_every_chat_as_a_one_process_build_and_leaves_nothing_on_the_way(
    many: Sample, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = refresh(many.home, full=True)
    whole = _records(many.home)
    assert any(r.ide_db for r in whole.values()) and any(r.cli for r in whole.values())

    monkeypatch.setattr(parts, "PARALLEL_MIN_CHATS", 1)
    monkeypatch.setattr(parallel, "cores", lambda: 2)
    monkeypatch.setattr(parallel, "can_fork", lambda: True)  # (as _split_build: whatever threads ran before)
    monkeypatch.setattr(parts, "SPILL_EVERY", 3)
    built = refresh(many.home, full=True)

    assert len(read_manifest(index_dir(many.home)).segments) == 2  # it was split
    assert (built.sessions, built.added, built.updated) == (first.sessions, 0, first.added)  # (read again: updated)
    assert _records(many.home) == whole
    assert _leftovers(many.home) == []  # spill files, the parts' reads, parked shards and fingerprints
    again = refresh(many.home)  # every chat recorded: nothing is read again
    assert (again.added, again.updated, again.removed) == (0, 0, 0)


def _two_chats_of_one_shard() -> tuple[str, str]:
    names = (f"chat-{n}" for n in range(10_000))
    first = next(names)
    return first, next(name for name in names if shard_of(name) == shard_of(first))


def test_a_parked_shard_is_saved_with_what_was_recorded_after_it_was_set_aside(tmp_path: Path) -> None:
    first, second = _two_chats_of_one_shard()
    book = Bookkeeping(tmp_path, State())
    book.put(first, ChatState(where=Location("seg-a", 0)))
    book.park(shard_of(first))
    assert book.chat(first) == ChatState(where=Location("seg-a", 0))  # read back from where it was set aside
    book.put(second, ChatState(ide_db="state.vscdb"))
    book.park(shard_of(first))
    state_file = book.save("1-test", {}, {}, {})

    saved = Bookkeeping(tmp_path, read_record(tmp_path / state_file, State))
    assert saved.chat(first) == ChatState(where=Location("seg-a", 0))
    assert saved.chat(second) == ChatState(ide_db="state.vscdb")
    assert not list((tmp_path / "state").glob(".*.tmp"))


def test_what_a_killed_build_parked_is_swept_by_the_next_refresh_even_when_nothing_changed(sample: Sample) -> None:
    refresh(sample.home, full=True)
    state = index_dir(sample.home) / "state"
    strays = [state / ".shard-00.999999.tmp", state / ".fingerprints-0badf00d.999999.tmp"]
    for stray in strays:  # as a build killed between parking a shard and its swap leaves them
        stray.write_bytes(b"parked")
    again = refresh(sample.home)
    assert (again.added, again.updated, again.removed) == (0, 0, 0)
    assert not [stray.name for stray in strays if stray.exists()]
