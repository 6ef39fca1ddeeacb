"""``deja index`` reads an index file whole against its checksums once: the record of what passed (``checked``),
written and read without msgspec, in the bytes msgspec wrote for it before."""

from __future__ import annotations

import msgspec
import pytest
from harness import Sample

from deja.core.index import index_dir
from deja.core.index.reader import Segment
from deja.core.indexer import refresh
from deja.core.indexer.checked import RECORD, Checked

pytestmark = pytest.mark.unit


def _segments_read_whole(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    read: list[str] = []
    real = Segment.verify

    def verify(segment: Segment) -> None:
        read.append(segment.ref.name)
        real(segment)

    monkeypatch.setattr(Segment, "verify", verify)
    return read


def test_a_file_read_whole_once_is_not_read_again_until_it_moves(
    indexed_sample: Sample, monkeypatch: pytest.MonkeyPatch
) -> None:
    read = _segments_read_whole(monkeypatch)
    refresh(indexed_sample.home, verify=True)
    assert read  # the first deja index reads every segment
    record = (index_dir(indexed_sample.home) / RECORD).read_bytes()
    assert msgspec.msgpack.decode(record, type=dict[str, list[int]]) == Checked(index_dir(indexed_sample.home)).before
    read.clear()
    refresh(indexed_sample.home, verify=True)
    assert read == []


@pytest.mark.parametrize("record", [b"", b"\xc1", b"\x81\xa1a\xa1b", b"\x91\x01", b"\x81\xa1a\x92\x01\xa1x"])
def test_a_damaged_or_foreign_record_vouches_for_nothing(
    indexed_sample: Sample, monkeypatch: pytest.MonkeyPatch, record: bytes
) -> None:
    refresh(indexed_sample.home, verify=True)
    (index_dir(indexed_sample.home) / RECORD).write_bytes(record)
    assert Checked(index_dir(indexed_sample.home)).before == {}
    read = _segments_read_whole(monkeypatch)
    refresh(indexed_sample.home, verify=True)
    assert read  # every segment is read whole again, and the record written anew
    assert Checked(index_dir(indexed_sample.home)).before
