"""What a big build does to hold less writes the same index: a part is handed only its own chats (the editor's
included), the editor's composer ids are read in batches, a word's postings are read from each run only as
its term is merged, and its tail is deflated a block at a time. Each is checked against the build that holds everything, byte for byte or session for session.
"""

from __future__ import annotations

import struct
import tracemalloc
from array import array
from collections import Counter
from pathlib import Path

import pytest
from harness import Sample
from test_build import _split_build, many  # noqa: F401  (the fixture)

from deja.core import paths
from deja.core.bookkeeping import Bookkeeping, ChatState, State
from deja.core.index import format as index_format
from deja.core.index import index_dir, read_manifest
from deja.core.index import writer as segment_writer
from deja.core.indexer import refresh
from deja.core.indexer.plan import plan_refresh
from deja.core.readers import ide, read_ide_database
from deja.core.writers.ide import composer_data, write_state_vscdb


def _segment_bytes(home: Path) -> list[dict[str, bytes]]:
    """Every file of every segment, in the manifest's order (segment names differ from build to build)."""
    directory = index_dir(home)
    return [
        {name: (directory / ref.name / name).read_bytes() for name in sorted(ref.files)}
        for ref in read_manifest(directory).segments
    ]


def test_a_merge_reading_run_entries_and_doc_lengths_from_their_files_writes_the_same_segments(
    many: Sample,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _split_build(monkeypatch, run_docs=3)
    refresh(many.home, full=True)
    held = _segment_bytes(many.home)
    monkeypatch.setattr(segment_writer, "_EAGER_BYTES", 0)  # every run entry read only when its term is merged
    monkeypatch.setattr(segment_writer, "_DOC_CHUNK", 3)  # docs' lengths written and read back a few at a time
    refresh(many.home, full=True)
    assert _segment_bytes(many.home) == held
    assert len(held) == 2 and all(files["postings.bin"] for files in held)
    assert not list(index_dir(many.home).glob("seg-*/*.tmp"))  # runs and doc lengths are gone once merged


def _sessions(db: Path, only_ids: set[str] | None = None) -> list[tuple[str, str, int]]:
    return [(s.id, s.title, len(s.messages)) for s in read_ide_database(db, only_ids=only_ids)]


def test_editor_chats_read_a_few_ids_at_a_time_are_the_chats_read_at_once(
    sample: Sample, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = next(iter(paths.ide_databases()))
    whole = _sessions(db)
    assert len(whole) >= 3
    monkeypatch.setattr(ide, "_ID_BATCH", 2)
    assert _sessions(db) == whole
    some = {whole[0][0], whole[-1][0]}
    assert _sessions(db, some) == [s for s in whole if s[0] in some]


def test_a_plan_moved_to_a_file_reads_back_the_same_chats(sample: Sample, tmp_path: Path) -> None:
    book = Bookkeeping(tmp_path, State())
    plan = plan_refresh(book, State(), None, Counter())
    ide_reads, cli_reads = plan.ide_reads, dict(plan.cli_reads)
    assert ide_reads and cli_reads
    plan.move_reads(tmp_path / "reads")
    assert plan.ide_reads == {}  # the process that forks the parts holds none of them
    plan.load_ide_reads()
    assert plan.ide_reads == ide_reads
    assert dict(plan.all_cli_reads()) == cli_reads


def test_a_split_build_records_the_editor_chats_it_found_without_a_message(
    many: Sample,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A part forgets each editor chat as it reads it, holding no set of the chats it read to the end; those left
    over, found without a message, are still recorded with their database, so no later refresh reads them again."""
    db = many.history.ide_root / "globalStorage" / "state.vscdb"
    empty = [f"empty-{n}" for n in range(6)]
    write_state_vscdb(db, composers={cid: composer_data(cid, [], created_at=1_700_000_000_000) for cid in empty})
    _split_build(monkeypatch)
    refresh(many.home, full=True)
    directory = index_dir(many.home)
    book = Bookkeeping.recorded(directory, read_manifest(directory).state)
    assert [book.chat(cid) for cid in empty] == [ChatState(ide_db=str(db))] * len(empty)
    assert all(book.chat(cid) is not None for cid in ("chat00", "chat23"))


def _tail_peak(postings: int) -> float:
    """The most memory ``_tail`` held writing a word's tail of ``postings`` (every doc of a segment of that many)."""
    own = array("H", [0x3800] * postings)  # (each doc's own impact: the segment's, made before the tail)
    impacts = ((0.5 + doc % 7 / 8, doc) for doc in range(postings))
    tracemalloc.start()
    try:
        segment_writer._tail(impacts, [], own)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_word_s_tail_is_written_in_memory_that_does_not_grow_with_its_postings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A word said in every doc of a part of a 100k build has over a million postings past its head: held whole as
    docs and impacts, 12 bytes each (3.6 MB more for 300,000 more here); deflated a block at a time, none more."""
    monkeypatch.setattr(segment_writer, "_TAIL_CHUNK", 4096)
    assert _tail_peak(400_000) - _tail_peak(100_000) < 300_000 * 0.5


def test_a_tail_taken_a_few_postings_at_a_time_writes_the_same_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks cut across the chunks the postings come in (a chunk of 5, blocks of 3) are the blocks cut at once."""
    own = array("H", [0x3800, 0x3A00] * 20)
    impacts = [(0.5 + doc % 7 / 8, doc) for doc in range(0, 40, 2)]
    monkeypatch.setattr(index_format, "TAIL_BLOCK", 3)
    whole = segment_writer._tail(iter(impacts), impacts[:2], own)
    monkeypatch.setattr(segment_writer, "_TAIL_CHUNK", 5)
    assert segment_writer._tail(iter(impacts), impacts[:2], own) == whole
    assert segment_writer._tail(iter(impacts[:4]), impacts[:4], own) == b""  # a tail of none: no block


def test_each_doc_s_own_impact_is_made_in_about_the_bytes_it_takes() -> None:
    """Each doc's own impact is 2 bytes (float16 bits); made from an argument a doc, it briefly took 16 (a tuple of
    pointers, copied as it grew): 34 MB more at the peak of a part of a 100k build. A chunk of docs at a time, it
    takes the array and a chunk's arguments (under 5 bytes a doc here)."""
    at_one = [0.25 + shape / 3 for shape in range(300)]
    shapes = array("H", (doc * 7 % 300 for doc in range(400_000)))
    tracemalloc.start()
    try:
        own = segment_writer._own_impacts(at_one, shapes)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * len(shapes)
    assert own[:3] == array("H", struct.pack("<3e", at_one[0], at_one[7], at_one[14]))
