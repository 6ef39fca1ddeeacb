"""A refresh files a transcript the disk cannot place under the folder a chat's ``meta.json`` names, reading only
the ``meta.json`` files its cache (``index/chat-cwds``) cannot vouch for: what a user sees is what reading every
one of them gives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from harness import run_deja

from deja.core import paths
from deja.core.index import index_dir
from deja.core.readers import slug_of
from deja.core.readers.projects import CWD_CACHE as CACHE
from deja.core.writers.cursor_agent import assistant_turn, chat_dir_for, user_turn, write_chat_store, write_transcript

pytestmark = pytest.mark.unit


def bare_transcript(cli: Path, folder: str, chat_id: str) -> None:
    """A transcript with no chat store beside it, in the slug of ``folder`` (which is not on disk)."""
    write_transcript(
        cli / "projects" / slug_of(folder) / "agent-transcripts" / chat_id / f"{chat_id}.jsonl",
        [user_turn(f"question of {chat_id}"), assistant_turn(f"answer of {chat_id}")],
    )


def project_of(chat_id: str) -> tuple[str, str]:
    ran = run_deja("index")
    assert ran.returncode == 0, ran.stderr
    rows = orjson.loads(run_deja("sessions", "--json", "--limit", "100").stdout)["sessions"]
    row: dict[str, Any] = next(row for row in rows if row["id"] == chat_id)
    return row["project_dir"], row["project_from"]


@pytest.fixture
def cli(fake_home: Path) -> Path:
    """cursor-agent's folder with one chat of a folder that is gone and a bare transcript of it, indexed."""
    root = fake_home / ".cursor"
    gone = str(fake_home / "code" / "gone")
    write_chat_store(chat_dir_for(root, gone, "with-store"), cwd=gone, messages=[])
    bare_transcript(root, gone, "bare-1")
    assert project_of("bare-1") == (gone, "transcript folder")
    assert (index_dir(paths.deja_home()) / CACHE).exists()
    return root


def test_a_chat_in_a_new_chat_folder_names_its_folder_for_the_next_refresh(cli: Path, fake_home: Path) -> None:
    moved = str(fake_home / "code" / "moved")
    write_chat_store(chat_dir_for(cli, moved, "new-store"), cwd=moved, messages=[])
    bare_transcript(cli, moved, "bare-2")
    assert project_of("bare-2") == (moved, "transcript folder")


def test_a_chat_folder_whose_meta_json_came_later_is_read_again(fake_home: Path) -> None:
    """cursor-agent creates a chat's folder before its ``meta.json``: a refresh between the two saw no cwd."""
    root = fake_home / ".cursor"
    later = str(fake_home / "code" / "later")
    chat = chat_dir_for(root, later, "meta-later")
    write_chat_store(chat, cwd=later, messages=[])
    meta = (chat / "meta.json").read_bytes()
    (chat / "meta.json").unlink()
    bare_transcript(root, later, "bare-1")
    assert project_of("bare-1") == ("", "")
    (chat / "meta.json").write_bytes(meta)  # in the chat's folder: the folder of chats holding it does not change
    bare_transcript(root, later, "bare-2")
    assert project_of("bare-2") == (later, "transcript folder")


def test_a_damaged_cache_is_read_past(cli: Path, fake_home: Path) -> None:
    (index_dir(paths.deja_home()) / CACHE).write_bytes(b"\xc1 not msgpack")
    gone = str(fake_home / "code" / "gone")
    bare_transcript(cli, gone, "bare-2")
    assert project_of("bare-2") == (gone, "transcript folder")


def test_a_chat_folder_removed_names_its_folder_no_more(cli: Path, fake_home: Path) -> None:
    """What reading every ``meta.json`` now would give: the chat that named the folder is gone."""
    import shutil

    gone = str(fake_home / "code" / "gone")
    shutil.rmtree(chat_dir_for(cli, gone, "with-store"))
    bare_transcript(cli, gone, "bare-2")
    assert project_of("bare-2") == ("", "")
