"""An editor database replaced by another file is read again (trial55 F3).

A chat's print (``readers.ide._fingerprints``: ``lastUpdatedAt``, the value's length, the bubble rows' count and
highest rowid) is the same in a copy of the database written the same way with other text: a restore from a
backup, a copy from another machine. Before, ``deja index`` said the chats were updated and kept their old text
until ``deja index --full``. The refresh now records the database's inode, and reads every chat of one that is
another file (or whose modification time went back); one that only changed in place is read as before, for the
chats whose print changed.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
from harness import run_deja

from deja.core.index import MANIFEST, index_dir
from deja.core.writers.ide import composer_data, write_state_vscdb

T0 = 1_780_000_000_000
CHAT = "e5500000-0000-4000-8000-0000000000f3"


def _database(path: Path, word: str) -> Path:
    """A global database holding one chat whose question names ``word`` (five letters: the same lengths)."""
    write_state_vscdb(
        path,
        composers={CHAT: composer_data(CHAT, [("q", 1), ("a", 2)], created_at=T0, name="Deploy key rotation")},
        bubbles={CHAT: {"q": {"type": 1, "text": f"rotate the {word} deploy key"}, "a": {"type": 2, "text": "Done."}}},
    )
    return path


def _index() -> dict:
    indexed = run_deja("index", "--json")
    assert indexed.returncode == 0, indexed.stderr
    return json.loads(indexed.stdout)


def _question() -> str:
    shown = run_deja("show", CHAT, "--json")
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout)["messages"][0]["text"]


def _hits(word: str) -> list[str]:
    found = run_deja("search", word, "--json")
    assert found.returncode == 0, found.stderr
    return [hit["session_id"] for hit in json.loads(found.stdout)["hits"]]


@pytest.fixture
def live(tmp_path: Path, cli_root: Path) -> Path:
    """The editor's global database, indexed with the question naming ``heron``."""
    database = _database(tmp_path / "no-ide" / "globalStorage" / "state.vscdb", "heron")
    _index()
    assert _question() == "rotate the heron deploy key"
    return database


def test_a_database_moved_into_place_is_read_again(tmp_path: Path, live: Path) -> None:
    restored = _database(tmp_path / "backup" / "state.vscdb", "egret")
    os.replace(restored, live)
    assert _index()["updated"] == 1
    assert _question() == "rotate the egret deploy key"
    assert _hits("heron") == [] and _hits("egret") == [CHAT]


def test_a_backup_copied_over_it_with_its_time_kept_is_read_again(tmp_path: Path, live: Path) -> None:
    """``cp -p``: the same file, its modification time set back to the backup's."""
    backup = _database(tmp_path / "backup" / "state.vscdb", "egret")
    earlier = live.stat().st_mtime_ns - 3_600_000_000_000
    os.utime(backup, ns=(earlier, earlier))
    inode = live.stat().st_ino
    shutil.copy2(backup, live)
    assert live.stat().st_ino == inode
    _index()
    assert _question() == "rotate the egret deploy key"


def test_a_database_written_in_place_reads_only_the_chats_that_changed(live: Path) -> None:
    """Cursor writing a row of its own (not a chat's) changes the file, not the chats: none is read again."""
    write_state_vscdb(live, item_table={"workbench.panel.height": "320"})
    assert _index()["updated"] == 0
    assert _question() == "rotate the heron deploy key"


@pytest.mark.xfail(
    strict=True,
    reason="a copy written over the database in place with a new modification time (cp without -p) is the same "
    "file changed as Cursor changes it, and its chats' prints are the same: deja index --full reads it",
)
def test_a_copy_written_over_it_in_place_is_read_again(tmp_path: Path, live: Path) -> None:
    backup = _database(tmp_path / "backup" / "state.vscdb", "egret")
    shutil.copyfile(backup, live)
    _index()
    assert _question() == "rotate the egret deploy key"


def _rewrite_recorded_file(home: Path, database: Path, change: Callable[[dict[str, Any]], object]) -> None:
    """The bookkeeping's record of ``database``, its ``file`` (device, inode) changed by ``change``."""
    index = index_dir(home)
    manifest = msgspec.msgpack.decode((index / MANIFEST).read_bytes())
    state_path = index / manifest["state"]
    state = msgspec.msgpack.decode(state_path.read_bytes())
    record = state["ide"][str(database)]
    assert record.get("file"), record
    change(record)
    state_path.write_bytes(msgspec.msgpack.encode(state))


def test_a_device_renumbered_by_a_reboot_reads_no_chat_again(tmp_path: Path, live: Path) -> None:
    """btrfs subvolumes, NFS and FUSE mounts are numbered at mount: the same file, written in place by Cursor after
    a reboot, is not another file (review56a F1)."""

    def renumbered(record: dict[str, Any]) -> None:
        record["file"] = [record["file"][0] + 1, record["file"][1]]

    inode = live.stat().st_ino
    _rewrite_recorded_file(tmp_path / "deja", live, renumbered)
    write_state_vscdb(live, item_table={"workbench.panel.height": "320"})  # Cursor's own write, in place
    assert live.stat().st_ino == inode
    assert _index()["updated"] == 0


def test_an_older_dejas_record_without_the_file_reads_no_chat_again(tmp_path: Path, live: Path) -> None:
    """An index from before the inode was recorded: an upgrade reads nothing again (review56a F2)."""
    _rewrite_recorded_file(tmp_path / "deja", live, lambda record: record.pop("file"))
    write_state_vscdb(live, item_table={"workbench.panel.height": "320"})
    assert _index()["updated"] == 0
