"""A refresh of named chats (a read's after the cheap check, the session-end hook's) finds each chat where its
record says it is, and looks for it by name only when it is no longer there."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from harness import index_chats

from deja.core.index import Index
from deja.core.indexer import refresh
from deja.core.search import search
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

CHAT = "00000000-0000-4000-8000-0000000000c1"
FIRST = ["Why does the uploader retry forever?", "Its backoff never grows."]
MORE = [user_turn("And the zeppelin queue?"), assistant_turn("The zeppelin queue drains once the backoff grows.")]


def _grow(path: Path) -> None:
    records = [user_turn(FIRST[0]), assistant_turn(FIRST[1]), *MORE]
    write_transcript(path, records)


def test_a_turn_in_a_chat_where_it_was_recorded_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index_chats(tmp_path, monkeypatch, {CHAT: FIRST})
    _grow(transcript_path(tmp_path / "cli", "/work/shop", CHAT))
    assert refresh(tmp_path / "deja", only_chat_ids={CHAT}).updated == 1
    assert [hit.session_id for hit in search(Index.open(tmp_path / "deja"), "zeppelin").hits] == [CHAT]


def test_a_chat_whose_transcript_moved_is_found_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index_chats(tmp_path, monkeypatch, {CHAT: FIRST})
    was = transcript_path(tmp_path / "cli", "/work/shop", CHAT)
    now = transcript_path(tmp_path / "cli", "/work/elsewhere", CHAT)
    now.parent.mkdir(parents=True)
    os.replace(was, now)
    _grow(now)
    assert refresh(tmp_path / "deja", only_chat_ids={CHAT}).updated == 1
    assert [hit.session_id for hit in search(Index.open(tmp_path / "deja"), "zeppelin").hits] == [CHAT]
