"""What a damaged index shows a user: the damaged file named (review51c F2, F3), never "no chats" or a bare
IndexError."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from harness import ENTRY, Sample
from test_build import _everything, many  # noqa: F401  # the fixture, and every session as `deja show` reads it

from deja.core.index import IndexUnreadable, index_dir, read_manifest
from deja.core.index.format import SESSION_ROW
from deja.core.indexer import refresh


def _segment(home: Path) -> Path:
    directory = index_dir(home)
    return directory / read_manifest(directory).segments[0].name


def test_a_flipped_byte_in_terms_idx_never_makes_deja_sessions_say_no_chats(many: Sample) -> None:  # noqa: F811
    refresh(many.home, full=True)
    terms_idx = _segment(many.home) / "terms.idx"
    flipped = bytearray(terms_idx.read_bytes())
    flipped[0] ^= 0x10
    terms_idx.write_bytes(flipped)
    result = subprocess.run([*ENTRY, "sessions"], env=many.env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and result.stdout == "", result.stdout  # (it said "no Cursor chats found", exit 0)
    assert (
        result.stderr
        == f"deja: {terms_idx} is damaged: its checksum does not match what was written: run `deja index` to rebuild it\n"
    )


def test_a_session_rows_first_doc_past_the_docs_names_sessions_idx(many: Sample) -> None:  # noqa: F811
    refresh(many.home, full=True)
    sessions_idx = _segment(many.home) / "sessions.idx"
    rows = bytearray(sessions_idx.read_bytes())
    rows[45] ^= 0x41  # the first row's first doc (its u32 at byte 44) grows by 0x41 << 8
    sessions_idx.write_bytes(rows)
    with pytest.raises(IndexUnreadable, match="sessions.idx"):
        _everything(many.home)
