"""A segment whose sessions were mostly replaced is written again without them.

A chat that grows is written anew and its old copy marked deleted in the segment
that held it. Every reader decodes those marks (each hook, on every prompt), so
once a quarter of a segment's sessions are replaced a walk over every chat writes
the rest into a new segment, and the marks go with the old one. A refresh of a
few named chats (a search that found a change) never does: a build's segment can
hold half the history, and someone is waiting.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import index_chats

from deja.core.index import Index
from deja.core.indexer import refresh
from deja.core.indexer.driver import REWRITE_DELETED_SHARE
from deja.core.search import search
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

CHATS = {f"chat{i}": [f"how do I tune the zebrafish{i} parser", f"Set the zebrafish{i} buffer."] for i in range(8)}


def _grow(tmp_path: Path, chat_id: str) -> None:
    first, answer = CHATS[chat_id]
    more = [user_turn(first), assistant_turn(answer), user_turn("and the okapi cache?"), assistant_turn("Warm it.")]
    write_transcript(transcript_path(tmp_path / "cli", "/work/shop", chat_id), more)


def _deleted(index: Index) -> int:
    return sum(len(segment.ref.deleted) for segment in index.segments)


def test_a_segment_is_written_again_once_a_quarter_of_its_sessions_were_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "deja"
    assert len(index_chats(tmp_path, monkeypatch, CHATS).segments) == 1
    grown = int(REWRITE_DELETED_SHARE * len(CHATS))
    for number in range(grown - 1):
        _grow(tmp_path, f"chat{number}")
        assert refresh(home).updated == 1
    assert _deleted(Index.open(home)) == grown - 1  # below the share: the old copies are only marked
    _grow(tmp_path, f"chat{grown - 1}")
    assert refresh(home).updated == 1
    index = Index.open(home)
    assert _deleted(index) == 0 and index.session_count == len(CHATS)
    okapi = {hit.session_id for hit in search(index, "okapi cache", limit=20).hits}
    assert okapi == {f"chat{number}" for number in range(grown)}
    for chat_id in CHATS:
        assert search(index, f"zebrafish{chat_id[4:]}").hits[0].session_id == chat_id


def test_a_refresh_of_named_chats_leaves_the_rewrite_to_the_next_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "deja"
    index_chats(tmp_path, monkeypatch, CHATS)
    grown = [f"chat{number}" for number in range(int(REWRITE_DELETED_SHARE * len(CHATS)))]
    for chat_id in grown:
        _grow(tmp_path, chat_id)
        assert refresh(home, only_chat_ids={chat_id}).updated == 1
    assert _deleted(Index.open(home)) == len(grown)  # past the share, but only named chats were read
    refresh(home)
    index = Index.open(home)
    assert _deleted(index) == 0 and index.session_count == len(CHATS)
