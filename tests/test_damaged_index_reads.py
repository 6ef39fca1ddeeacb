"""What a damaged index shows a user: the damaged file named (review51c F2, F3), never "no chats", "no session ran
there" or a bare IndexError."""

from __future__ import annotations

import subprocess
import zlib
from pathlib import Path

import pytest
from harness import ENTRY, Sample
from mcp import ClientSession
from test_build import _everything, many  # noqa: F401  # the fixture, and every session as `deja show` reads it
from test_mcp import History, history, refused, run  # noqa: F401  # the MCP tests' history fixture

from deja.core import keys
from deja.core.index import Index, IndexUnreadable, index_dir, read_manifest
from deja.core.index.format import TERM_ROW
from deja.core.index.records import FileSum, write_manifest
from deja.core.indexer import refresh
from deja.core.keys import ALL_SESSIONS_KEY


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


def _flip_term_row(home: Path, key: str) -> Path:
    """terms.idx with the row of ``key`` pointing one byte past its term: a lookup of it finds none."""
    segment = Index.open(home).segments[0]
    row = segment._lower_bound(key.encode())
    assert segment._term_at(row)[0] == key.encode()
    terms_idx = _segment(home) / "terms.idx"
    flipped = bytearray(terms_idx.read_bytes())
    flipped[row * TERM_ROW.size] ^= 0x01
    terms_idx.write_bytes(flipped)
    return terms_idx


def test_a_flipped_term_row_never_makes_deja_wip_say_no_session_ran_there(many: Sample) -> None:  # noqa: F811
    refresh(many.home, full=True)
    folder = many.history.projects["api"]
    terms_idx = _flip_term_row(many.home, keys.tree_key(str(folder)))
    result = subprocess.run([*ENTRY, "wip", str(folder)], env=many.env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and result.stdout == "", result.stdout
    assert result.stderr == (  # (it said "no session ran in …, below it or in a folder above it")
        f"deja: {terms_idx} is damaged: its checksum does not match what was written: run `deja index` to rebuild it\n"
    )


def test_a_flipped_byte_in_terms_idx_never_makes_the_mcp_recent_say_the_index_is_empty(
    history: History,  # noqa: F811
    tmp_path: Path,
) -> None:
    refresh(history.deja_home, full=True)
    terms_idx = _segment(history.deja_home) / "terms.idx"
    flipped = bytearray(terms_idx.read_bytes())
    flipped[0] ^= 0x10  # (the first term's row: every session's key, ``keys.ALL_SESSIONS_KEY``)
    terms_idx.write_bytes(flipped)
    said: list[str] = []

    async def scenario(session: ClientSession) -> None:
        said.append(await refused(session, "recent"))

    run(history, tmp_path, scenario)
    assert said == [  # (it said "The index is empty: no Cursor chats found in …")
        f"{terms_idx} is damaged: its checksum does not match what was written: run `deja index` to rebuild it"
    ], said


def test_an_index_whose_sessions_key_lists_none_fails_and_says_to_rebuild(many: Sample) -> None:  # noqa: F811
    """Every checksum holds, yet the listing finds none of the index's sessions (a writer's bug, or a file rewritten
    with its checksum): ``deja sessions`` fails (exit 1) and says what mends it, a rebuild; doctor's checks find
    nothing (review51d F3: it printed on stdout, exit 0, and sent the user to doctor)."""
    refresh(many.home, full=True)
    directory = index_dir(many.home)
    manifest = read_manifest(directory)
    ref = manifest.segments[0]
    terms_bin = directory / ref.name / "terms.bin"
    terms = terms_bin.read_bytes()
    key = ALL_SESSIONS_KEY.encode()
    assert terms.count(key) == 1
    terms = terms.replace(key, key[:-1] + b"_")  # (the key every session is filed under, now another's)
    terms_bin.write_bytes(terms)
    ref.files["terms.bin"] = FileSum(len(terms), zlib.crc32(terms))
    write_manifest(directory, manifest)
    for shown in ([], ["--json"]):
        result = subprocess.run([*ENTRY, "sessions", *shown], env=many.env, capture_output=True, text=True, timeout=60)
        assert result.returncode == 1 and result.stdout == "", result.stdout
        assert result.stderr == (
            f"deja: none of the {ref.sessions} sessions in the index could be listed: "
            "run `deja index --full` to rebuild it\n"
        )


@pytest.mark.parametrize("name, at", [("sessions.idx", 0), ("sessions.idx", 32), ("docs.bin", 0)])
def test_a_flipped_offset_is_refused_naming_the_file_it_is_in(sample: Sample, name: str, at: int) -> None:
    """A session's checksums fail alike when the offsets that led to its bytes are the flipped ones: the refusal
    names the file of offsets, not sessions.bin or records.bin, whose bytes are whole (review52c F3)."""
    refresh(sample.home, full=True)
    path = index_dir(sample.home) / read_manifest(index_dir(sample.home)).segments[0].name / name
    data = bytearray(path.read_bytes())
    data[at] ^= 0x41
    path.write_bytes(bytes(data))
    index = Index.open(sample.home)
    with pytest.raises(IndexUnreadable) as refused:
        for segment, _, meta in index.sessions():
            segment.messages(meta)
    assert str(refused.value).startswith(f"{path} is damaged"), str(refused.value)
