"""A byte flipped in a session's row of sessions.idx reads as written or is refused naming the file, never as
another project or day (review52c F2: a flipped byte of ``updated`` made ``deja sessions --since`` say none)."""

from __future__ import annotations

import random
import resource
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec
import pytest
from harness import ENTRY, Sample

from deja.core.index import MANIFEST, Index, IndexUnreadable, index_dir, read_manifest
from deja.core.index.format import ROW_CRC_BELOW, SESSION_ROW, row_crc
from deja.core.index.writer import session_row
from deja.core.indexer import refresh
from deja.core.library import newest_sessions, sessions_left_out
from deja.core.search import Filters, search

#: Where a row holds its ``updated`` (a little-endian double): its top byte is the row's 31st.
_UPDATED_TOP = 31


@pytest.mark.unit
def test_every_byte_flipped_in_a_row_fails_its_check() -> None:
    """A CRC is linear: whether a flip is seen depends on where and which bits, not on the row's other bytes, so one
    row's every flip stands for every row's."""
    row = session_row(7, 1 << 40, 700, 0xDEADBEEF, 0x12345678, 2, 1.7e9, 3 << 33, 90_000, 4242, 0xCAFEF00D, 0x0BADF00D)
    assert row_crc(row, 7) < ROW_CRC_BELOW
    missed = [
        (at, bits)
        for at in range(SESSION_ROW.size)
        for bits in range(1, 256)
        if row_crc(row[:at] + bytes([row[at] ^ bits]) + row[at + 1 :], 7) < ROW_CRC_BELOW
    ]
    assert missed == []


@pytest.mark.unit
def test_a_rows_padding_brings_its_crc_below_the_mark_whatever_its_fields() -> None:
    """Any bytes as fields (a time that is no number included): the padding is solved for, and the fields are kept
    byte for byte."""
    draw = random.Random(24)
    for _ in range(2000):
        row = draw.randbytes(SESSION_ROW.size)
        ordinal = draw.randrange(1 << 24)
        written = session_row(ordinal, *SESSION_ROW.unpack(row))
        assert row_crc(written, ordinal) < ROW_CRC_BELOW
        assert (written[:21], written[24:]) == (row[:21], row[24:])


@pytest.mark.unit
def test_a_row_read_at_another_place_fails_its_check() -> None:
    """A row is checked where it is (``format.row_crc``): written as session 5's, it is refused as any of the first
    100,000 others' (two rows swapped by a stray write each hold their own check, review53b F1)."""
    row = session_row(5, 1 << 40, 700, 0xDEADBEEF, 0x12345678, 2, 1.7e9, 3 << 33, 90_000, 4242, 0xCAFEF00D, 0x0BADF00D)
    assert [ordinal for ordinal in range(100_000) if row_crc(row, ordinal) < ROW_CRC_BELOW] == [5]


def _newest_row(home: Path) -> tuple[Path, int, str]:
    """sessions.idx of the index in ``home``, where its newest session's row starts, and that session's project."""
    segment = Index.open(home).segments[0]
    newest = max(range(segment.ref.sessions), key=lambda ordinal: segment.session_keys(ordinal).updated)
    path = index_dir(home) / read_manifest(index_dir(home)).segments[0].name / "sessions.idx"
    return path, newest * SESSION_ROW.size, segment.session(newest).project


def _answers(home: Path, since: float, project: str) -> object:
    """What the reads that use a row's fields answer, from an index opened anew (as a new process would)."""
    index = Index.open(home)
    answers: list[object] = [
        [meta.id for meta in newest_sessions(index, since=since)],
        sessions_left_out(index, 1, since=since),
        [meta.id for meta in newest_sessions(index, project=project)],
    ]
    for filters in (None, Filters(since=datetime.fromtimestamp(since, UTC)), Filters(project=project)):
        answers.append([(hit.session_id, hit.score) for hit in search(index, "price", filters=filters).hits])
    index = Index.open(home)
    answers += [
        (tuple(segment.session_keys(ordinal)), segment.messages(meta)) for segment, ordinal, meta in index.sessions()
    ]
    return answers


@contextmanager
def _memory_capped(more: int = 1 << 30) -> Iterator[None]:
    """This process's address space capped at ``more`` bytes past what it holds now: read unchecked, a flipped first
    doc made a project-filtered search map a billion docs to their session (``search_filters._docs_of``), and the test would
    have taken the machine's memory rather than fail with a MemoryError."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as statm:
        held = int(statm.read().split()[0]) * resource.getpagesize()
    resource.setrlimit(
        resource.RLIMIT_AS, (held + more if hard == resource.RLIM_INFINITY else min(hard, held + more), hard)
    )
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def test_each_byte_flipped_in_the_newest_sessions_row_reads_the_same_or_is_refused(sample: Sample) -> None:
    refresh(sample.home, full=True)
    path, start, project = _newest_row(sample.home)
    rows = path.read_bytes()
    since = SESSION_ROW.unpack_from(rows, start)[5] - 86_400
    written = _answers(sample.home, since, project)
    assert all(written[i] for i in (0, 2, 3, 4, 5)), "the newest session is listed and found, filtered or not"
    other: dict[int, str] = {}
    for at in range(start, start + SESSION_ROW.size):
        path.write_bytes(rows[:at] + bytes([rows[at] ^ 0x41]) + rows[at + 1 :])
        try:
            with _memory_capped():
                read = _answers(sample.home, since, project)
        except IndexUnreadable as exc:
            if str(exc) != f"{path} is damaged: its checksum does not match what was written":
                other[at - start] = str(exc)
        else:
            if read != written:
                other[at - start] = "another answer"
    assert other == {}


def _flip_newest_time(home: Path) -> tuple[Path, str]:
    """The newest session's ``updated`` with its top byte flipped (a time decades off), and the day before it."""
    path, start, _ = _newest_row(home)
    rows = bytearray(path.read_bytes())
    day = datetime.fromtimestamp(SESSION_ROW.unpack_from(rows, start)[5], UTC) - timedelta(days=1)
    rows[start + _UPDATED_TOP] ^= 0x01
    path.write_bytes(bytes(rows))
    return path, day.date().isoformat()


@pytest.mark.parametrize("command", [["sessions"], ["search", "price"]])
def test_a_flipped_byte_of_a_sessions_time_is_refused_not_read_as_another_day(
    sample: Sample, command: list[str]
) -> None:
    """As a user sees it: ``deja sessions --since`` said no session was updated then (exit 0), and ``deja search
    --since`` lost its best hit, where only doctor noticed."""
    refresh(sample.home, full=True)
    path, day = _flip_newest_time(sample.home)
    done = subprocess.run(
        [*ENTRY, *command, "--since", day], env=sample.env, capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        f"deja: {path} is damaged: its checksum does not match what was written: run `deja index` to rebuild it\n"
    )


def _refusal(path: Path) -> str:
    return f"deja: {path} is damaged: its checksum does not match what was written: run `deja index` to rebuild it\n"


def test_two_rows_swapped_are_refused_not_shown_as_each_other(sample: Sample) -> None:
    """Each row still held its own check when two rows traded places (a stray write of rows where others were):
    ``deja show`` of the newest session printed the other session's title, id and dates above the newest one's
    messages, and the session-start hook listed the older session as the newest (review53b F1). A row is checked
    where it is now (``format.row_crc``)."""
    refresh(sample.home, full=True)
    path, start, project = _newest_row(sample.home)
    segment = Index.open(sample.home).segments[0]
    newest = start // SESSION_ROW.size
    other = next(o for o in range(segment.ref.sessions) if o != newest and segment.session(o).project == project)
    session_id = segment.session(newest).id
    rows = bytearray(path.read_bytes())
    size = SESSION_ROW.size
    a, b = newest * size, other * size
    rows[a : a + size], rows[b : b + size] = rows[b : b + size], rows[a : a + size]
    path.write_bytes(bytes(rows))
    done = subprocess.run([*ENTRY, "show", session_id], env=sample.env, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", _refusal(path))


def test_a_segment_whose_manifest_lost_the_checksum_of_sessions_idx_still_checks_each_row(sample: Sample) -> None:
    """A manifest entry holding no checksum of sessions.idx checks nothing whole (``_first_damaged`` reads "none
    known" as nothing damaged): taken as checked, it turned each row's own check off too, and with a flipped byte of
    the newest session's time ``deja search --since`` dropped its best hit and exited 0 (review53b F2)."""
    refresh(sample.home, full=True)
    manifest = index_dir(sample.home) / MANIFEST
    fields = msgspec.msgpack.decode(manifest.read_bytes())
    del fields["segments"][0]["files"]["sessions.idx"]
    manifest.write_bytes(msgspec.msgpack.encode(fields))
    path, day = _flip_newest_time(sample.home)
    command = [*ENTRY, "search", "price", "--since", day]
    done = subprocess.run(command, env=sample.env, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", _refusal(path))
