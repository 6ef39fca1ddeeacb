"""review53b's findings on format 24's row check (row53): what a session's row still reads as another answer.

Each test is a strict xfail until the finding is fixed: it builds the sample index under a fake HOME with the
project's own writers, damages sessions.idx or the manifest as a disk or a stray write could, and asserts what a
user must see: the answer as written, or the one-line refusal naming sessions.idx."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec
import pytest
from harness import ENTRY, Sample

from deja.core.index import MANIFEST, Index, index_dir, read_manifest
from deja.core.index.format import SESSION_ROW
from deja.core.indexer import refresh

#: Where a row holds its ``updated`` (a little-endian double): its top byte is the row's 31st.
_UPDATED_TOP = 31


def _sessions_idx(home: Path) -> Path:
    return index_dir(home) / read_manifest(index_dir(home)).segments[0].name / "sessions.idx"


def _refusal(path: Path) -> str:
    return f"deja: {path} is damaged: its checksum does not match what was written: run `deja index` to rebuild it\n"


def _newest_and_its_neighbour(home: Path) -> tuple[int, int, str]:
    """The newest session's ordinal, another session of its project, and the newest one's id."""
    segment = Index.open(home).segments[0]
    keys = [segment.session_keys(ordinal) for ordinal in range(segment.ref.sessions)]
    newest = max(range(len(keys)), key=lambda ordinal: keys[ordinal].updated)
    other = next(o for o in range(len(keys)) if o != newest and keys[o].project_hash == keys[newest].project_hash)
    return newest, other, segment.session(newest).id


@pytest.mark.xfail(strict=True, reason="review53b F1: a row's check does not bind where the row is")
def test_two_rows_swapped_are_refused_not_shown_as_each_other(sample: Sample) -> None:
    """Each row still holds its own check when two rows trade places (a stray write of rows where others were):
    ``deja show`` of the newest session printed the other session's title, id and dates above the newest one's
    messages, and the session-start hook listed the older session as the newest."""
    refresh(sample.home, full=True)
    newest, other, session_id = _newest_and_its_neighbour(sample.home)
    written = subprocess.run([*ENTRY, "show", session_id], env=sample.env, capture_output=True, text=True, timeout=60)
    path = _sessions_idx(sample.home)
    rows = bytearray(path.read_bytes())
    size = SESSION_ROW.size
    a, b = newest * size, other * size
    rows[a : a + size], rows[b : b + size] = rows[b : b + size], rows[a : a + size]
    path.write_bytes(bytes(rows))
    done = subprocess.run([*ENTRY, "show", session_id], env=sample.env, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) in [
        (written.returncode, written.stdout, written.stderr),
        (1, "", _refusal(path)),
    ]


@pytest.mark.xfail(strict=True, reason="review53b F2: a whole check that compared nothing turns the row checks off")
def test_a_segment_whose_manifest_lost_the_checksum_of_sessions_idx_still_checks_each_row(sample: Sample) -> None:
    """``Segment._rows_checked`` takes a segment whose manifest entry holds no size and CRC of sessions.idx (as
    ``_first_damaged`` reads "none known": nothing damaged) as checked whole, and from then on ``_row`` checks no row
    either: with a flipped byte of the newest session's time, ``deja search --since`` dropped its best hit and
    exited 0, where the row's own check, which needs no manifest, would have refused it."""
    refresh(sample.home, full=True)
    newest, _, session_id = _newest_and_its_neighbour(sample.home)
    manifest = index_dir(sample.home) / MANIFEST
    fields = msgspec.msgpack.decode(manifest.read_bytes())
    del fields["segments"][0]["files"]["sessions.idx"]
    manifest.write_bytes(msgspec.msgpack.encode(fields))
    path = _sessions_idx(sample.home)
    rows = bytearray(path.read_bytes())
    start = newest * SESSION_ROW.size
    day = (datetime.fromtimestamp(SESSION_ROW.unpack_from(rows, start)[5], UTC) - timedelta(days=1)).date()
    command = [*ENTRY, "search", "price", "--since", day.isoformat()]
    written = subprocess.run(command, env=sample.env, capture_output=True, text=True, timeout=60)
    assert written.returncode == 0 and session_id in written.stdout
    rows[start + _UPDATED_TOP] ^= 0x01
    path.write_bytes(bytes(rows))
    done = subprocess.run(command, env=sample.env, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) in [(written.returncode, written.stdout), (1, "")]
