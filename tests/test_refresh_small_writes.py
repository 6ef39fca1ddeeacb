"""A refresh of one grown chat writes each file once: its bookkeeping shard goes straight to its new name (no
copy set aside and renamed, as a full build's are), and what it records is what the next refresh reads."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from harness import index_chats

from deja.core.index import Index
from deja.core.indexer import refresh
from deja.core.search import search
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript

pytestmark = pytest.mark.unit

CHAT = "00000000-0000-4000-8000-0000000000f1"
FIRST = ["Why does the uploader retry forever?", "Its backoff never grows."]


def test_a_refresh_of_one_grown_chat_renames_no_shard_into_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index_chats(tmp_path, monkeypatch, {CHAT: FIRST})
    more = [user_turn("And the zeppelin queue?"), assistant_turn("It drains once the backoff grows.")]
    write_transcript(
        transcript_path(tmp_path / "cli", "/work/shop", CHAT),
        [user_turn(FIRST[0]), assistant_turn(FIRST[1]), *more],
    )
    renamed: list[str] = []
    real_replace = os.replace

    def replace(src: str | Path, dst: str | Path) -> None:
        renamed.append(os.path.basename(src))
        real_replace(src, dst)

    with monkeypatch.context() as patched:
        patched.setattr(os, "replace", replace)
        assert refresh(tmp_path / "deja", only_chat_ids={CHAT}).updated == 1
    assert not [name for name in renamed if name.startswith(".shard-")]
    home = tmp_path / "deja"
    assert [hit.session_id for hit in search(Index.open(home), "zeppelin").hits] == [CHAT]
    assert refresh(home, only_chat_ids={CHAT}).updated == 0  # the shard written holds the chat as read
