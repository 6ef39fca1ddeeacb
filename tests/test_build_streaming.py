"""A part of a split build sends its chats' records to a spill file as it goes: the refresh still records every chat.

Lost records would show as chats read again (added or updated) by the next refresh, or as a
session the index holds that no record points at; a spill file left behind would be a stray in
the index folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import Sample

from deja.core import parallel
from deja.core.index import Index, index_dir
from deja.core.indexer import parts, refresh
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript


def _shown(home: Path) -> dict[str, list[tuple[str, str]]]:
    """Every session as `deja show` reads it: (role, text) per message."""
    index = Index.open(home)
    return {meta.id: [(m.role, m.text) for m in segment.messages(meta)] for segment, _, meta in index.sessions()}


@pytest.fixture
def many(sample: Sample) -> Sample:
    cwd = str(sample.history.projects["api"])
    for i in range(20):
        write_transcript(
            transcript_path(sample.history.cli_root, cwd, f"spill{i:02d}"),
            [user_turn(f"question {i} about the spill file {i}"), assistant_turn(f"answer {i}")],
        )
    return sample


def test_a_split_build_that_spills_every_few_chats_records_every_chat(
    many: Sample, monkeypatch: pytest.MonkeyPatch
) -> None:
    refresh(many.home, full=True)
    whole = _shown(many.home)

    monkeypatch.setattr(parts, "PARALLEL_MIN_CHATS", 1)
    monkeypatch.setattr(parallel, "cores", lambda: 2)
    monkeypatch.setattr(parts, "SPILL_EVERY", 2)
    built = refresh(many.home, full=True)

    assert built.sessions == len(whole) and _shown(many.home) == whole
    again = refresh(many.home)  # every chat recorded where it went: nothing is read again
    assert (again.added, again.updated, again.removed) == (0, 0, 0)
    assert not list(index_dir(many.home).glob(".part-*"))  # the spill files are read and removed
