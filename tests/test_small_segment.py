"""A segment that never spills (every refresh after a turn writes one) is merged from the postings and doc
lengths in memory, without run or doc-length files: byte for byte the segment the spilling writer makes."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import Sample

from deja.core.index import index_dir, read_manifest
from deja.core.index import writer as segment_writer
from deja.core.indexer import refresh
from deja.core.private import open_private


def _segment_bytes(home: Path) -> list[dict[str, bytes]]:
    directory = index_dir(home)
    return [
        {name: (directory / ref.name / name).read_bytes() for name in sorted(ref.files)}
        for ref in read_manifest(directory).segments
    ]


def _temporary_files(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the temporary files the segment writer makes from now on."""
    made: list[str] = []

    def recording(path: Path, *args: object, **kwargs: object) -> object:
        if str(path).endswith(".tmp") and "/seg-" in str(path):
            made.append(Path(path).name)
        return open_private(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(segment_writer, "open_private", recording)
    return made


def test_a_segment_merged_in_memory_is_the_segment_merged_from_its_files(
    sample: Sample, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = _temporary_files(monkeypatch)
    refresh(sample.home, full=True)
    in_memory = _segment_bytes(sample.home)
    assert in_memory and all(files["postings.bin"] for files in in_memory)
    assert made == []

    monkeypatch.setattr(segment_writer, "RUN_DOCS", 1)  # every session's postings to a run file
    monkeypatch.setattr(segment_writer, "_DOC_CHUNK", 3)  # docs' lengths written and read back a few at a time
    refresh(sample.home, full=True)
    assert _segment_bytes(sample.home) == in_memory
    assert "doc-lengths.tmp" in made and any(name.startswith("run-") for name in made)
    assert not list(index_dir(sample.home).glob("seg-*/*.tmp"))
