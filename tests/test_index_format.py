"""Format 9's encodings read back what was written: a segment's session metas and records deflated against its
dictionary (one stream a session since format 22), a word's postings as impact runs and 2-, 3- or 4-byte docs
(``deja.core.index.format``).

The sample holds fewer sessions than a segment needs to make dictionaries (``DICT_SESSIONS``) and fewer docs
than need 3-byte doc numbers, so each test lowers a threshold and compares with the index built without it.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest
from harness import Sample
from test_build import _everything, many  # noqa: F401  # the fixture, and every session as `deja show` reads it

from deja.core.index import Index, index_dir, read_manifest
from deja.core.index import reader as segment_reader
from deja.core.index import writer as segment_writer
from deja.core.index.format import RECORDS_LEVEL, SESSION_ROW, TERM_ROW, WBITS, term_row
from deja.core.index.light import LIGHT
from deja.core.indexer import refresh
from deja.core.text import terms
from deja.core.writers.cursor_agent import transcript_path, user_turn, write_transcript

Postings = dict[tuple[int, bytes], list[tuple[int, int, float]]]


def _segment_file(home: Path, name: str) -> Path:
    directory = index_dir(home)
    return directory / read_manifest(directory).segments[0].name / name


def _postings(home: Path) -> Postings:
    """Every term's postings in every segment, each list checked to read the same whole as a head at a time."""
    found: Postings = {}
    for number, segment in enumerate(Index.open(home).segments):
        for i in range(segment.n_terms):
            term, p_off, count, _ = segment._term_at(i)
            whole = found[(number, term)] = segment.postings(p_off, 0, count)
            assert [segment.postings(p_off, 0, stop) for stop in range(count + 1)] == [
                whole[:stop] for stop in range(count + 1)
            ]
    return found


@pytest.fixture
def alike(many: Sample) -> Sample:  # noqa: F811
    """``many`` and 30 chats asking the same one word, which sorts after every other term: its postings are one
    run and end the segment's postings (the least room any list of as many postings takes)."""
    cwd = str(many.history.projects["api"])
    for i in range(30):
        write_transcript(transcript_path(many.history.cli_root, cwd, f"alike{i:02d}"), [user_turn("zyzzyva")])
    return many


def test_sessions_deflated_against_the_segments_dictionaries_read_back_whole(
    many: Sample,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    refresh(many.home, full=True)
    whole = _everything(many.home)
    metas = {meta.id: meta for _, _, meta in Index.open(many.home).sessions()}
    assert _segment_file(many.home, "dicts.bin").stat().st_size == 0  # too few sessions: no dictionary

    monkeypatch.setattr(segment_writer, "DICT_SESSIONS", 4)
    refresh(many.home, full=True)
    assert _segment_file(many.home, "dicts.bin").stat().st_size > 1000
    assert _everything(many.home) == whole
    assert {meta.id: meta for _, _, meta in Index.open(many.home).sessions()} == metas
    light = Index.open(many.home, LIGHT)  # what a hook reads, without msgspec
    assert {
        meta.id: (meta.title, [(m.role, m.text, len(m.tool_calls)) for m in segment.messages(meta)])
        for segment, _, meta in light.sessions()
    } == whole


def test_a_sessions_records_deflate_after_its_meta_in_fewer_bytes_than_alone(
    many: Sample,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Format 22: a session's records continue its meta's deflate stream, so the ask, the answer and the title its
    meta repeats cost references (issue 15's size): fewer bytes than the same records deflated alone against the
    same dictionary, as format 21 did."""
    monkeypatch.setattr(segment_writer, "DICT_SESSIONS", 4)
    refresh(many.home, full=True)
    stored = alone = 0
    for segment in Index.open(many.home).segments:
        zdict = Path(segment.path, "dicts.bin").read_bytes()
        rows = Path(segment.path, "sessions.idx").read_bytes()
        for ordinal in range(segment.ref.sessions):
            packer = zlib.compressobj(RECORDS_LEVEL, zlib.DEFLATED, WBITS, zdict=zdict)
            alone += len(packer.compress(segment.inflating(ordinal).whole()) + packer.flush())
            stored += SESSION_ROW.unpack_from(rows, ordinal * SESSION_ROW.size)[7]
    assert 0 < stored < 0.95 * alone


def test_a_words_postings_read_back_in_runs_of_any_length_and_with_wide_docs(
    alike: Sample, monkeypatch: pytest.MonkeyPatch
) -> None:
    refresh(alike.home, full=True)
    written = _postings(alike.home)
    # The 24 questions of ``many`` are alike: one impact, one run, for a word all of them hold.
    index = Index.open(alike.home)
    p_off, count, _ = index.segments[0].lookup(terms("pinning")[0])
    assert count >= 24 and len({impact for *_, impact in index.segments[0].postings(p_off, 0, count)}) < count

    monkeypatch.setattr(segment_writer, "MAX_RUN", 2)
    refresh(alike.home, full=True)
    assert _postings(alike.home) == written

    narrower = _segment_file(alike.home, "postings.bin").stat().st_size  # 2-byte docs: the sample's are few
    for width in (3, 4):  # as in a segment of more than 65,536 docs, or of more than 16M
        for module in (segment_writer, segment_reader):
            monkeypatch.setattr(module, "doc_width", lambda docs, width=width: width)
        refresh(alike.home, full=True)
        assert _segment_file(alike.home, "postings.bin").stat().st_size > narrower
        narrower = _segment_file(alike.home, "postings.bin").stat().st_size
        assert _postings(alike.home) == written


@pytest.mark.unit
def test_a_term_rows_postings_offset_past_4_gib_reads_back_from_its_19_bytes() -> None:
    """Format 22 keeps a term's postings offset in 5 bytes, not 8 (terms.idx was 6% of the index at 10k sessions): an
    offset past 4 GiB keeps its bits above the 32nd."""
    row = term_row(3, 4, (5 << 32) + 7, 8, 9)
    t_off, t_len, low, high, kept, holding = TERM_ROW.unpack(row)
    assert (len(row), t_off, t_len, low | high << 32, kept, holding) == (19, 3, 4, (5 << 32) + 7, 8, 9)
