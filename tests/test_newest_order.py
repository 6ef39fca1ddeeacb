"""Newest first means newest first, also for two chats a refresh apart that the index's day stamps cannot tell apart.

A key's postings carry their time as float32 days since the epoch: about three minutes apart at today's dates, so
two chats updated within them tie, and a chat indexed by a later refresh (a later segment) is the newer one.
"""

from __future__ import annotations

import struct
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
from harness import run_deja

from deja.core.index.format import read_manifest
from deja.core.indexer.driver import MAX_SEGMENTS
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

CWD = "/work/shop"


def _float32_days(when: datetime) -> float:
    return struct.unpack("<f", struct.pack("<f", when.timestamp() / 86400))[0]


def _tied_pair() -> tuple[datetime, datetime]:
    """Two whole minutes, one apart (a transcript's stamp tells minutes), that float32 days cannot tell apart."""
    when = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
    while _float32_days(when) != _float32_days(when + timedelta(minutes=1)):
        when += timedelta(minutes=1)
    return when, when + timedelta(minutes=1)


def _chat(root: Path, chat_id: str, question: str, when: datetime) -> None:
    write_transcript(transcript_path(root, CWD, chat_id), [user_turn(question, when), assistant_turn("done")])


def test_a_chat_indexed_by_a_later_refresh_is_listed_first(cli_root: Path) -> None:
    earlier, later = _tied_pair()
    _chat(cli_root, "aaaaaaaa-0000-4000-8000-000000000001", "the earlier question", earlier)
    assert run_deja("index").returncode == 0
    _chat(cli_root, "11111111-0000-4000-8000-00000000000c", "the newest question", later)
    assert run_deja("index").returncode == 0
    listed = orjson.loads(run_deja("sessions", "--json").stdout)["sessions"]
    assert [s["id"][:8] for s in listed] == ["11111111", "aaaaaaaa"]
    plain = run_deja("sessions").stdout.splitlines()
    assert plain[0].startswith("11111111")


def test_the_order_holds_after_compaction_merged_the_older_segments(cli_root: Path) -> None:
    """Compaction writes the segments it merges as a new one at the end of the list, where a segment's place said
    "newer": the earlier chat came first again (a stranger review's find). Ties go by the sessions' exact times."""
    earlier, later = _tied_pair()
    _chat(cli_root, "aaaaaaaa-0000-4000-8000-000000000001", "the earlier question", earlier)
    assert run_deja("index").returncode == 0
    _chat(cli_root, "11111111-0000-4000-8000-00000000000c", "the newest question", later)
    _chat(cli_root, "22222222-0000-4000-8000-00000000000c", "an old question", datetime(2025, 1, 1, tzinfo=UTC))
    assert run_deja("index").returncode == 0
    for day in range(2, 12):
        _chat(
            cli_root,
            f"3333333{day % 10}-{day:04d}-4000-8000-00000000000c",
            "filler",
            datetime(2025, 1, day, tzinfo=UTC),
        )
        assert run_deja("index").returncode == 0
    assert len(read_manifest(cli_root.parent / "deja" / "index").segments) <= MAX_SEGMENTS, "compacted"
    listed = orjson.loads(run_deja("sessions", "--json").stdout)["sessions"]
    assert [s["id"][:8] for s in listed[:2]] == ["11111111", "aaaaaaaa"]
