"""A big build streams what it records: a split build records every chat as a one-process build does, sets each
bookkeeping shard aside once recorded, and leaves none of its files on the way behind.

The thresholds are lowered (as in test_build.py) so the sample history takes the path a 100k build takes.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from harness import Sample

from deja.core import parallel
from deja.core.bookkeeping import Bookkeeping, ChatState, Location, State, read_record, shard_of
from deja.core.index import Index, index_dir, read_manifest
from deja.core.indexer import parts, refresh
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript


@pytest.fixture
def many(sample: Sample) -> Sample:
    """The sample with enough chats of its own that each part of a split build gets several."""
    cwd = str(sample.history.projects["api"])
    for i in range(24):
        write_transcript(
            transcript_path(sample.history.cli_root, cwd, f"chat{i:02d}"),
            [user_turn(f"question {i} about migration{i}"), assistant_turn(f"answer {i}")],
        )
    return sample


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
    monkeypatch.setattr(parts, "SPILL_EVERY", 3)
    built = refresh(many.home, full=True)

    assert len(read_manifest(index_dir(many.home)).segments) == 2  # it was split
    assert (built.sessions, built.added) == (first.sessions, first.added)
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
    state_file = book.save("1-test", {}, {})

    saved = Bookkeeping(tmp_path, read_record(tmp_path / state_file, State))
    assert saved.chat(first) == ChatState(where=Location("seg-a", 0))
    assert saved.chat(second) == ChatState(ide_db="state.vscdb")
    assert not list((tmp_path / "state").glob(".*.tmp"))
