"""An editor chat a workspace database lists in its legacy ``allComposers`` never vanishes from the index (trial13 F10).

The chat's composer and bubbles are in the global ``state.vscdb``; a workspace database lists it as a ``type: "head"``
entry, which gives only its project. Before, the chat was booked to the workspace database: deleting that database
(Cursor prunes the storage of gone folders), or reading it for the first time after a build it was locked or absent
for, removed the chat ("1 removed"), for good until ``deja index --full``. A migrated pre-3.0 chat held whole both
inline in a workspace's ``allComposers`` and in the global ``cursorDiskKV`` went the same way. Now the database that
holds a chat's messages owns it: a workspace database that goes, appears or becomes readable only re-files the chats
it lists, and a chat deleted in Cursor is still removed.

Such a migrated chat read from the workspace database (read after the global one: locked at the first build,
appeared later, its inline copy changed) still went when Cursor pruned it, and one whose global composer was deleted
left with a refresh but came back with ``deja index --full`` (review20 R20-5, R20-6). Now a chat the database it was
read from no longer holds is read again from another that holds it (the global one first, as a rebuild picks), or
kept as indexed while that one cannot be read; it goes only when no database holds it any more.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from harness import run_deja

from deja.core.writers.ide import (
    WORKSPACE_COMPOSERS_KEY,
    composer_data,
    write_state_vscdb,
    write_workspace,
    write_workspace_json,
)

T0 = 1_780_000_000_000
CHAT = "e3e3e3e3-0000-4000-8000-00000000e3e3"
WORKSPACE = "5555eeee6666ffff7777aaaa8888bbbb"
BUBBLES = {
    "b1": {"type": 1, "text": "terraform fmt fails in CI on the modules folder", "createdAt": T0 + 1000},
    "b2": {"type": 2, "text": "Run terraform fmt -recursive before the plan step.", "createdAt": T0 + 2000},
}


def _global(user_root: Path) -> Path:
    return write_state_vscdb(
        user_root / "globalStorage" / "state.vscdb",
        composers={CHAT: composer_data(CHAT, [("b1", 1), ("b2", 2)], created_at=T0, name="Terraform fmt in CI")},
        bubbles={CHAT: BUBBLES},
    )


def _workspace(user_root: Path, project: Path) -> Path:
    return write_workspace(user_root, WORKSPACE, folder=str(project), all_composers=[CHAT])


@pytest.fixture
def editor(tmp_path: Path, cli_root: Path) -> tuple[Path, Path]:
    """The editor's ``User`` folder holding the chat in its global database, and the chat's project folder."""
    project = tmp_path / "code" / "infra"
    project.mkdir(parents=True)
    _global(tmp_path / "no-ide")
    return tmp_path / "no-ide", project


def _index(*args: str) -> dict[str, Any]:
    ran = run_deja("index", "--json", *args)
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout)


def _sessions() -> dict[str, dict[str, Any]]:
    listed = run_deja("sessions", "--json")
    assert listed.returncode == 0, listed.stderr
    return {session["id"]: session for session in json.loads(listed.stdout)["sessions"]}


def _found(query: str) -> list[str]:
    ran = run_deja("search", query, "--json")
    assert ran.returncode == 0, ran.stderr
    return [hit["session_id"] for hit in json.loads(ran.stdout)["hits"]]


def _assert_found(project: Path | None) -> None:
    """The chat is listed, with ``project``'s folder (None: none), and search finds it."""
    chat = _sessions()[CHAT]
    assert chat["project_dir"] == (str(project) if project else ""), chat
    assert CHAT in _found("terraform fmt")


def test_a_deleted_workspace_database_keeps_the_chat_it_listed(editor: tuple[Path, Path]) -> None:
    user_root, project = editor
    _workspace(user_root, project)
    _index()
    assert _sessions()[CHAT]["project_from"] == "allComposers"
    shutil.rmtree(user_root / "workspaceStorage" / WORKSPACE)  # Cursor prunes the storage of a gone folder
    assert _index()["removed"] == 0
    _assert_found(project)  # (the project the listing gave stays: trial14 F2)
    assert _index()["removed"] == 0
    _assert_found(project)


@contextmanager
def _locked(db: Path) -> Iterator[None]:
    """Cursor writing ``db`` in a transaction of its own meanwhile."""
    writer = sqlite3.connect(db, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")
    writer.execute("INSERT INTO ItemTable (key, value) VALUES ('x.cursor', '1')")
    try:
        yield
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_a_workspace_database_locked_at_the_first_build_files_the_chat_once_readable(
    editor: tuple[Path, Path],
) -> None:
    user_root, project = editor
    with _locked(_workspace(user_root, project)):
        _index()
        _assert_found(None)
    assert _index()["removed"] == 0
    _assert_found(project)


def test_a_workspace_database_locked_through_a_rebuild_files_the_chat_once_readable(
    editor: tuple[Path, Path],
) -> None:
    user_root, project = editor
    db = _workspace(user_root, project)
    _index()
    with _locked(db):
        _index("--full")
        _assert_found(project)  # placed by the index it replaced (trial14 F2)
    assert _index()["removed"] == 0
    _assert_found(project)


def test_a_workspace_database_that_appears_files_the_chat_it_lists(editor: tuple[Path, Path]) -> None:
    user_root, project = editor
    _index()
    _assert_found(None)
    _workspace(user_root, project)  # a window opened on the folder, or a backup restored
    assert _index()["removed"] == 0
    _assert_found(project)


def _inline(user_root: Path, *more: dict[str, Any]) -> Path:
    """A pre-3.0 workspace database ``ws1`` holding the chat whole in its ``allComposers``, with ``more`` messages than
    the global database's copy (written again in place when it is there: Cursor adding a turn)."""
    db = user_root / "workspaceStorage" / "ws1" / "state.vscdb"
    inline = {
        "composerId": CHAT,
        "name": "Terraform fmt in CI",
        "createdAt": T0,
        "conversation": [*BUBBLES.values(), *more],
    }
    composers = {"allComposers": [inline]}
    if not db.exists():
        return write_state_vscdb(db, item_table={WORKSPACE_COMPOSERS_KEY: composers}, with_disk_kv=False)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE ItemTable SET value = ? WHERE key = ?", (json.dumps(composers), WORKSPACE_COMPOSERS_KEY))
    conn.close()
    return db


def test_a_chat_held_whole_by_a_deleted_workspace_database_and_the_global_one_is_kept(
    editor: tuple[Path, Path],
) -> None:
    user_root, _ = editor
    _inline(user_root)
    _index()
    assert [(sid, chat["messages"]) for sid, chat in _sessions().items()] == [(CHAT, 2)]
    shutil.rmtree(user_root / "workspaceStorage" / "ws1")
    assert _index()["removed"] == 0
    _assert_found(None)
    assert _sessions()[CHAT]["messages"] == 2


def _delete_from_global(user_root: Path) -> None:
    """Cursor deletes the chat's composer and bubbles from the global database."""
    with sqlite3.connect(user_root / "globalStorage" / "state.vscdb") as conn:
        conn.execute("DELETE FROM cursorDiskKV WHERE key LIKE ?", (f"%{CHAT}%",))
    conn.close()


def test_a_chat_deleted_in_cursor_is_removed_though_a_workspace_still_lists_it(editor: tuple[Path, Path]) -> None:
    user_root, project = editor
    _workspace(user_root, project)
    _index()
    _delete_from_global(user_root)
    assert _index()["removed"] == 1
    assert CHAT not in _sessions()


def _shown() -> list[str]:
    """The chat's messages as ``deja show`` gives them."""
    shown = run_deja("show", CHAT, "--json")
    assert shown.returncode == 0, shown.stderr
    return [message["text"] for message in json.loads(shown.stdout)["messages"]]


def _counts(*args: str) -> tuple[int, int, int]:
    ran = _index(*args)
    return ran["added"], ran["updated"], ran["removed"]


def _prune_inline(user_root: Path) -> None:
    """Cursor prunes the workspace database holding the chat inline, read after the global one, and the refresh
    reads the chat again from the global database: one update, never a removal (review20 R20-5)."""
    shutil.rmtree(user_root / "workspaceStorage" / "ws1")
    assert _counts() == (0, 1, 0)
    assert _shown() == [bubble["text"] for bubble in BUBBLES.values()]
    assert _counts() == (0, 0, 0)
    assert _sessions()[CHAT]["messages"] == 2


def test_a_chat_read_from_a_workspace_database_locked_at_the_first_build_stays_when_it_is_pruned(
    editor: tuple[Path, Path],
) -> None:
    user_root, _ = editor
    with _locked(_inline(user_root)):
        _index()
    assert _counts()[2] == 0
    _prune_inline(user_root)


def test_a_chat_read_from_a_workspace_database_that_appeared_stays_when_it_is_pruned(editor: tuple[Path, Path]) -> None:
    user_root, _ = editor
    _index()
    _inline(user_root)
    assert _counts()[2] == 0
    _prune_inline(user_root)


def test_a_chat_read_again_from_its_changed_inline_copy_stays_when_it_is_pruned(editor: tuple[Path, Path]) -> None:
    user_root, _ = editor
    _inline(user_root)
    _index()
    _inline(user_root, {"type": 1, "text": "and in the root module too?", "createdAt": T0 + 3000})
    assert _counts() == (0, 1, 0)
    assert _shown()[-1] == "and in the root module too?"
    _prune_inline(user_root)


def test_a_chat_whose_global_composer_goes_is_read_from_its_inline_copy_as_a_rebuild_reads_it(
    editor: tuple[Path, Path],
) -> None:
    """Review20 R20-6: a refresh removed the chat, ``deja index --full`` added it back from the workspace's copy."""
    user_root, _ = editor
    _inline(user_root)
    _index()
    _delete_from_global(user_root)
    assert _counts() == (0, 1, 0)
    assert _shown() == [bubble["text"] for bubble in BUBBLES.values()]
    refreshed = _sessions()
    assert _index("--full")["removed"] == 0
    assert _sessions() == refreshed
    assert _shown() == [bubble["text"] for bubble in BUBBLES.values()]


def test_a_chat_whose_other_holder_cannot_be_read_this_time_is_kept_until_it_can(editor: tuple[Path, Path]) -> None:
    """The workspace database the chat was read from is pruned while the global one is locked: the chat stays as
    indexed, and goes once Cursor deletes it from the global database too."""
    user_root, _ = editor
    _index()
    _inline(user_root)
    _index()
    shutil.rmtree(user_root / "workspaceStorage" / "ws1")
    with _locked(user_root / "globalStorage" / "state.vscdb"):
        assert _index()["removed"] == 0
        run_deja("index", "--full")  # (refused, or rebuilt keeping the sessions of what it could not read)
        assert _sessions()[CHAT]["messages"] == 2
    assert _counts()[2] == 0
    assert _shown() == [bubble["text"] for bubble in BUBBLES.values()]
    _delete_from_global(user_root)
    assert _counts() == (0, 0, 1)
    assert CHAT not in _sessions()


@pytest.mark.parametrize("read_from", ["global", "workspace"])
def test_a_chat_deleted_from_every_database_holding_it_is_removed(editor: tuple[Path, Path], read_from: str) -> None:
    user_root, _ = editor
    if read_from == "workspace":
        _index()
    _inline(user_root)
    _index()
    _delete_from_global(user_root)
    shutil.rmtree(user_root / "workspaceStorage" / "ws1")
    assert _counts() == (0, 0, 1)
    assert CHAT not in _sessions()
    assert _counts() == (0, 0, 0)


def test_a_workspace_folder_named_later_files_a_chat_two_databases_hold_from_where_it_was_read(
    editor: tuple[Path, Path],
) -> None:
    """A ``workspace.json`` that appears beside the workspace database holding a migrated chat inline places the chat
    again, read from the database it was read from (the global one, as ``--full`` reads it), not from the inline
    copy, which holds another message (review26 R26-5: 3 messages after the refresh, 2 after ``--full``)."""
    user_root, project = editor
    _inline(user_root, {"type": 1, "text": "and in the root module too?", "createdAt": T0 + 3000})
    _index()
    assert _sessions()[CHAT]["messages"] == 2
    write_workspace_json(user_root / "workspaceStorage" / "ws1", folder=project.as_uri())
    assert _counts() == (0, 1, 0)
    assert (_sessions()[CHAT]["messages"], _sessions()[CHAT]["project_dir"]) == (2, str(project))
    _index("--full")
    assert (_sessions()[CHAT]["messages"], _sessions()[CHAT]["project_dir"]) == (2, str(project))
