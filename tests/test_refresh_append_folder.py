"""A turn appended to a chat filed under the folder another store names keeps that folder, without the refresh
listing every folder the stores name (every chat's ``meta.json``): the session is the one a full rebuild gives."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from deja.core import paths
from deja.core.index import Index
from deja.core.indexer import refresh
from deja.core.readers import chat_cwds, slug_of
from deja.core.writers.cursor_agent import assistant_turn, chat_dir_for, user_turn, write_chat_store, write_transcript

pytestmark = pytest.mark.unit

CHAT = "00000000-0000-4000-8000-0000000000e1"
TURNS = [
    user_turn("Why does the uploader retry forever?", datetime(2026, 5, 1, 9, 0, tzinfo=UTC)),
    assistant_turn("Its backoff never grows."),
]
MORE = [
    user_turn("And the zeppelin queue?", datetime(2026, 5, 1, 9, 5, tzinfo=UTC)),
    assistant_turn("It drains once the backoff grows."),
]


def _transcript(root: Path, folder: str) -> Path:
    return root / "projects" / slug_of(folder) / "agent-transcripts" / CHAT / f"{CHAT}.jsonl"


def _session(home: Path) -> tuple[str, str, list[str]]:
    """The chat's folder, the signal that gave it, and its messages' texts, as the index holds them."""
    ((segment, _, meta),) = Index.open(home).find(CHAT)
    return meta.project_dir, meta.project_from, [message.text for message in segment.messages(meta)]


def test_an_appended_turn_keeps_the_folder_another_store_named(
    fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = fake_home / ".cursor"
    gone = str(fake_home / "code" / "gone")  # not on disk: only the other chat's meta.json names it
    write_chat_store(chat_dir_for(root, gone, "with-store"), cwd=gone, messages=[])
    transcript = write_transcript(_transcript(root, gone), TURNS)
    home = paths.deja_home()
    refresh(home)
    assert _session(home)[:2] == (gone, "transcript folder")

    write_transcript(transcript, [*TURNS, *MORE])

    def listed(*_: object) -> None:
        raise AssertionError("an appended turn listed every chat's meta.json")

    with monkeypatch.context() as patched:
        patched.setattr(chat_cwds, "chat_cwds", listed)
        assert refresh(home, only_chat_ids={CHAT}).updated == 1
    appended = _session(home)
    assert appended[:2] == (gone, "transcript folder")
    assert "It drains once the backoff grows." in appended[2]

    refresh(home, full=True)
    assert _session(home) == appended
