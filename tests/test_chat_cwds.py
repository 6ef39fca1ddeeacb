"""A refresh files a transcript the disk cannot place under the folder a chat's ``meta.json`` names, reading only
the ``meta.json`` files its cache (``index/chat-cwds``) cannot vouch for: what a user sees is what reading every
one of them gives."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import msgspec
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


def test_the_cache_s_summary_answers_only_while_every_folder_is_as_it_was(
    fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once every folder is settled, the cache's summary answers without the buckets (``chat_cwds.Summary``); a chat
    added in a new folder, or removed, is what reading every ``meta.json`` gives again."""
    import shutil
    import time

    from deja.core.readers import chat_cwds

    monkeypatch.setattr(chat_cwds, "SETTLED_NS", 0)  # (a folder is vouched for at once, not 2 s after it changed)
    root = fake_home / ".cursor"
    cache = fake_home / "chat-cwds"
    for n in range(3):
        write_chat_store(chat_dir_for(root, f"/code/p{n}", f"chat-{n}"), cwd=f"/code/p{n}", messages=[])
    every = chat_cwds.chat_cwds([root], None)  # (in the order of the md5-named folders)
    assert sorted(every) == [(f"/code/p{n}", True) for n in range(3)]
    assert chat_cwds.chat_cwds([root], cache) == every
    summary = msgspec.msgpack.decode(cache.read_bytes(), type=chat_cwds.Summary)
    assert summary.cwds == every and summary.folders  # the next refresh's answer, with what vouches for it
    assert chat_cwds.chat_cwds([root], cache) == every

    time.sleep(0.05)  # (a folder's change time moves with a coarse clock)
    write_chat_store(chat_dir_for(root, "/code/new", "chat-new"), cwd="/code/new", messages=[])
    shutil.rmtree(chat_dir_for(root, "/code/p1", "chat-1"))
    now = chat_cwds.chat_cwds([root], None)
    assert ("/code/new", True) in now and ("/code/p1", True) not in now
    assert chat_cwds.chat_cwds([root], cache) == now


def test_a_cache_of_the_earlier_layout_is_read_past(cli: Path, fake_home: Path) -> None:
    """The cache once held the buckets alone (folder -> change time and chats): it decodes as an empty summary and
    no buckets, so the chats' ``meta.json`` files are read again."""
    from deja.core.readers.chatstore import chat_folders

    gone = str(fake_home / "code" / "gone")
    earlier = {f: (os.stat(f).st_ctime_ns, {"with-store": ("/elsewhere", True)}) for f in chat_folders(cli)[:-1]}
    (index_dir(paths.deja_home()) / CACHE).write_bytes(msgspec.msgpack.encode(earlier))
    bare_transcript(cli, gone, "bare-2")
    assert project_of("bare-2") == (gone, "transcript folder")
