"""A filtered search finds every session it admits that holds a word, where a common word's list was cut.

In a segment of more than ``WHOLE_LISTS_DOCS`` docs a word's best ``WORD_POSTINGS_KEPT`` postings come first (its
head), the only ones an unfiltered search reads. A project's chats that say the word less than big chats of other
projects have their postings past the head (in its tail): a filter to the project found none of them and said to
drop the filter to see the others' (the defect). The tail is kept, in doc order, and a filter admitting few docs
reads its own docs' postings in it (``Segment.tail``). Here the head is cut to a handful (``WORD_POSTINGS_KEPT``
monkeypatched, as ``tests/test_build.py`` does) so that it holds none, some or all of the project's docs.
"""

from __future__ import annotations

import struct
from array import array
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from harness import index_chats

from deja.core import search as search_module
from deja.core import search_filters
from deja.core.index import Index, IndexUnreadable
from deja.core.index import format as index_format
from deja.core.index import writer as segment_writer
from deja.core.index.reader import Segment
from deja.core.search import Filters, search
from deja.core.text import terms
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

#: Chats of other projects, each saying "deploy" twice in a short question: the word's highest impacts.
LOUD = 12
#: The project's chats, each saying "deploy" once in a long answer (its lowest impacts), and the newest.
QUIET = 4
START = datetime(2026, 3, 1, tzinfo=UTC)
NOW = (START + timedelta(days=LOUD + QUIET + 5)).timestamp()
CHATTER = " ".join(f"note{n} about the weather and the lunch plans" for n in range(30))


def _quiet_ids(loud: int = LOUD) -> set[str]:
    return {f"00000000-0000-4000-8000-{n:012d}" for n in range(loud, loud + QUIET)}


def _build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, head: int, loud: int = LOUD, quiet_first: bool = False
) -> Index:
    """``loud`` chats and the project's, indexed as one segment taken for a large one whose words keep ``head``
    postings first; the project's the newest, or with ``quiet_first`` the oldest."""
    cli = tmp_path / "cli"
    for n in range(loud + QUIET):
        when = START + timedelta(days=(n + QUIET) % (loud + QUIET) if quiet_first else n)
        if n < loud:
            folder, records = f"/work/big{n % 3}", [user_turn("deploy deploy now?", when), assistant_turn("Done.")]
        else:  # (chatter of its own length: each its own impact, below every loud one)
            said = f"{CHATTER[: 100 * (n - loud)]} then deploy it {CHATTER}"
            folder, records = "/work/p0", [user_turn("What next?", when), assistant_turn(said)]
        write_transcript(transcript_path(cli, folder, f"00000000-0000-4000-8000-{n:012d}"), records)
    monkeypatch.setattr(segment_writer, "WORD_POSTINGS_KEPT", head)
    monkeypatch.setattr(segment_writer, "WHOLE_LISTS_DOCS", 0)  # as if the segment were large
    index = index_chats(tmp_path, monkeypatch, {})
    monkeypatch.setattr(search_module, "FULL_READ_DOCS", 0)  # and the index too large to read whole
    return index


#: How many of the project's docs the head holds -> the head's length: the loud chats' docs, and that many more.
HELD = {"none": 0, "some": 2, "all": QUIET}

FILTERS = {
    "project": Filters(project="work-p0"),
    "project and since": Filters(project="work-p0", since=START),
    "since": Filters(since=START + timedelta(days=LOUD)),
}


@pytest.mark.parametrize("held", list(HELD))
@pytest.mark.parametrize("name", list(FILTERS))
def test_a_filter_finds_every_session_it_admits_holding_a_cut_word(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, held: str, name: str
) -> None:
    index = _build(tmp_path, monkeypatch, LOUD + HELD[held])
    kept, holding = index.segments[0].lookup(terms("deploy")[0])[1:]
    assert (kept, holding) == (LOUD + HELD[held], LOUD + QUIET)
    plain = search(index, "deploy", limit=50, now=NOW)
    assert {hit.session_id for hit in plain.hits} & _quiet_ids() == set(sorted(_quiet_ids())[: HELD[held]])
    found = search(index, "deploy", filters=FILTERS[name], limit=10, now=NOW)
    assert {hit.session_id for hit in found.hits} == _quiet_ids()
    assert found.total == QUIET


def test_an_until_alone_finds_the_older_sessions_a_cut_list_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """review48c M1: ``--until`` alone read only a word's head, where ``--since`` with it read the tail too: the
    project's four chats, the oldest and the least loud, were found by neither its head nor the filter."""
    index = _build(tmp_path, monkeypatch, LOUD, quiet_first=True)
    found = search(index, "deploy", filters=Filters(until=START + timedelta(days=QUIET, hours=-12)), limit=10, now=NOW)
    assert {hit.session_id for hit in found.hits} == _quiet_ids()
    assert found.total == QUIET


def test_a_filter_reads_past_its_budget_in_a_list_not_cut(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A list its head holds whole, longer than a filtered search's budget lets it read (at least 64 postings a
    segment): the project's docs, its last, are read all the same."""
    loud = 70
    index = _build(tmp_path, monkeypatch, loud + QUIET, loud)
    monkeypatch.setattr(search_filters, "FILTERED_BUDGET", 1)
    found = search(index, "deploy", filters=Filters(project="work-p0"), limit=10, now=NOW)
    assert {hit.session_id for hit in found.hits} == _quiet_ids(loud)


@pytest.mark.parametrize("held", list(HELD))
@pytest.mark.parametrize("block", [1, 3])
def test_a_tail_cut_into_blocks_of_a_few_postings_finds_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, held: str, block: int
) -> None:
    """The tail is cut into deflated blocks of 4,096 postings; here of one or three, so that the project's postings
    lie in the first block, the last (three: one of a single posting) and those between, as in a segment of millions."""
    monkeypatch.setattr(index_format, "TAIL_BLOCK", block)
    index = _build(tmp_path, monkeypatch, LOUD + HELD[held])
    found = search(index, "deploy", filters=Filters(project="work-p0"), limit=10, now=NOW)
    assert {hit.session_id for hit in found.hits} == _quiet_ids()
    assert found.total == QUIET


def test_a_run_of_docs_across_blocks_reads_what_one_block_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run of docs crossing blocks (the segment's every doc; a span before the first tail doc; one past the last)
    reads the same docs and impacts from blocks of one, two or three postings as from one block of them all."""
    word = terms("deploy")[0]
    read = {}
    for block in (4096, 1, 2, 3):
        monkeypatch.setattr(index_format, "TAIL_BLOCK", block)
        segment = _build(tmp_path / str(block), monkeypatch, 2).segments[0]
        p_off, kept, holding = segment.lookup(word)
        spans = [(0, segment.ref.docs)], [(0, 1), (3, 9), (segment.ref.docs - 3, segment.ref.docs + 5)]
        read[block] = [segment.tail(p_off, kept, holding, runs) for runs in spans]
    assert len(read[4096][0][0]) == LOUD + QUIET - 2  # every doc saying it but the head's two
    assert read[4096][1][0]
    assert read[1] == read[2] == read[3] == read[4096]


def test_a_damaged_tail_is_named_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tail whose first block's end points past its postings (bytes overwritten on disk) makes the search say which
    file is damaged, as any other damaged posting does, where reading it would name docs of other sessions."""
    index = _build(tmp_path, monkeypatch, LOUD)
    segment = index.segments[0]
    p_off, kept, _ = segment.lookup(terms("deploy")[0])
    postings = Path(segment.path, "postings.bin")
    data = bytearray(postings.read_bytes())
    runs = int.from_bytes(data[p_off : p_off + 4], "little")
    tail_at = p_off + 4 + 3 * runs + kept * 2  # (a segment this small numbers its docs in 2 bytes)
    data[tail_at + 4 : tail_at + 8] = b"\xff" * 4  # where the first block's bytes end: past the tail
    postings.write_bytes(bytes(data))
    with pytest.raises(IndexUnreadable, match=r"postings\.bin is damaged"):
        search(Index.open(tmp_path / "deja"), "deploy", filters=Filters(project="work-p0"), now=NOW)


def test_a_damaged_table_of_own_impacts_is_named_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The table of each doc's own impact ends postings.bin; its length overwritten (past the file's start) makes a
    filtered search name the file, where reading it would weigh the tail's postings by other bytes."""
    index = _build(tmp_path, monkeypatch, LOUD)
    postings = Path(index.segments[0].path, "postings.bin")
    data = bytearray(postings.read_bytes())
    data[-4:] = b"\xff" * 4
    postings.write_bytes(bytes(data))
    with pytest.raises(IndexUnreadable, match=r"postings\.bin is damaged"):
        search(Index.open(tmp_path / "deja"), "deploy", filters=Filters(project="work-p0"), now=NOW)


@pytest.mark.parametrize("docs", [[5, 6, 7, 200, 454], [5, 6, 260, 515, 516, 100_000, 100_254, 100_509]])
def test_a_tail_block_reads_back_its_docs_whatever_their_gaps(docs: list[int]) -> None:
    """A block's docs are byte gaps, a 255 adding 255 more: gaps of 254 and 255 and one of 99,484 (a sparse word
    in a segment of millions, which no test home here is) read back as written, the flagged impact with them."""
    own = array("H", bytes(2 * (docs[-1] + 1)))  # every doc's own impact 0.0: each posting's 1.0 is flagged
    gaps, impacts = segment_writer._tail_block(
        array("I", docs), array("H", struct.pack(f"<{len(docs)}e", *[1.0] * len(docs))), own
    )
    read, flags, others = Segment._tail_block(gaps, impacts, docs[0], len(docs))
    assert (read, list(flags), others) == (docs, [1] * len(docs), (1.0,) * len(docs))
