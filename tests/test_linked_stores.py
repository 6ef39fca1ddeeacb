"""A Cursor store reached through another spelling of its folder is the same store.

A person's Cursor folder may be named through a link one time and not another: a dotfiles link, a hook started
with another environment than the shell, macOS's ``/var`` and ``/private/var``, ``~/.cursor`` a link. deja took
the editor database named the other way for a new database and read every chat of it again (40,000 chats, 3.5
minutes of CPU at the 100k bench) to find nothing changed, then read them all again on the way back; a rebuild
through the link was refused for stores "in none of the folders deja reads". Histories are written with the
project's writers (``deja.core.sample``), deja run as a user runs it.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import orjson
import pytest
from harness import run_deja

from deja.core.bookkeeping import Bookkeeping
from deja.core.index import index_dir, read_manifest
from deja.core.indexer import glance, refresh
from deja.core.indexer.plan import chat_files
from deja.core.sample import API_CHAT, API_EDITOR_COMPOSER, INFRA_STORE_CHAT, build_sample_history
from deja.core.writers.cursor_agent import chat_dir_for, store_assistant_message, store_user_message, write_chat_store
from deja.core.writers.ide import composer_key
from deja.hooks import session_end
from deja.hooks.call import HookCall

SESSIONS = 7  # the sample history's


@pytest.fixture
def history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The sample history under ``tmp_path / "history"``, indexed by ``deja index`` through its own folders."""
    build_sample_history(tmp_path / "history")
    monkeypatch.setenv("DEJA_HOME", str(tmp_path / "deja"))
    assert _index_through(tmp_path / "history", monkeypatch)["added"] == SESSIONS
    return tmp_path / "history"


def _point(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """deja's roots named through ``root`` (a history as ``build_sample_history`` lays it out)."""
    monkeypatch.setenv("DEJA_CURSOR_ROOT", str(root / "cursor" / "User"))
    monkeypatch.setenv("DEJA_CURSOR_CLI_ROOT", str(root / "cursor-agent"))


def _index_through(root: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> dict[str, int]:
    """What ``deja index --json`` says with the roots named through ``root``."""
    _point(root, monkeypatch)
    done = run_deja("index", "--json", *args)
    assert done.returncode == 0, done.stdout + done.stderr
    return orjson.loads(done.stdout)


def _walk_through(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int, int]:
    """The walk over every chat (what ``deja index`` runs once the last walk is a minute old, and a read starts in
    the background) with the roots named through ``root``: how many sessions it added, read again and removed."""
    _point(root, monkeypatch)
    result = refresh()
    assert result.sessions == SESSIONS
    return result.added, result.updated, result.removed


def _counts(result: dict[str, int]) -> tuple[int, int, int, int]:
    """The sessions in the index, and how many the run added, read again and removed."""
    return result["sessions"], result["added"], result["updated"], result["removed"]


UNCHANGED = (SESSIONS, 0, 0, 0)


def test_a_history_indexed_through_its_folders_is_not_read_again_through_a_link(
    history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    link = tmp_path / "link"
    link.symlink_to(history)
    assert _counts(_index_through(link, monkeypatch)) == UNCHANGED
    assert _walk_through(link, monkeypatch) == (0, 0, 0)
    assert _counts(_index_through(history, monkeypatch)) == UNCHANGED
    assert _walk_through(history, monkeypatch) == (0, 0, 0)


def test_the_session_end_ingest_through_a_link_reads_nothing_again(
    history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ingest Cursor's session end starts, in an environment that names the folders through a link."""
    link = tmp_path / "link"
    link.symlink_to(history)
    _point(link, monkeypatch)
    monkeypatch.setenv(session_end.WAIT_VARIABLE, "1")
    payload = {"conversation_id": API_CHAT, "hook_event_name": "sessionEnd"}
    call = HookCall.from_stdin(json.dumps(payload).encode(), "SessionEnd")
    assert call is not None
    assert session_end.session_end(call) == ""
    assert call.why == f"ingested {API_CHAT}: 0 added, 0 updated (nothing changed since the last refresh)"


def test_a_rebuild_through_a_link_keeps_every_session(
    history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``deja index --full`` was refused: the stores the index read were "in none of the folders deja reads"."""
    link = tmp_path / "link"
    link.symlink_to(history)
    rebuilt = _index_through(link, monkeypatch, "--full")
    assert (rebuilt["sessions"], rebuilt["not_rebuilt"]) == (SESSIONS, False)
    assert _counts(_index_through(history, monkeypatch)) == UNCHANGED


def test_a_copy_of_the_history_is_another_history(
    history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Copied with its files' times, a copy holds the same chats in other files: they are read from it."""
    copy = Path(shutil.copytree(history, tmp_path / "copy", symlinks=True))
    read = _index_through(copy, monkeypatch)
    assert (read["sessions"], read["added"], read["updated"]) == (SESSIONS, 0, SESSIONS)


def test_an_index_built_through_the_other_spelling_is_not_read_again(
    history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index was built through ``history``; the folder moved to ``moved`` and ``history`` is now a link to it
    (as an index built by an earlier deja through a link spells its stores: not where the links lead)."""
    moved = tmp_path / "moved"
    os.rename(history, moved)
    history.symlink_to(moved)
    assert _counts(_index_through(history, monkeypatch)) == UNCHANGED
    assert _walk_through(history, monkeypatch) == (0, 0, 0)
    assert _walk_through(moved, monkeypatch) == (0, 0, 0)
    # What the next refresh compares, once: no root, folder, database or chat's file kept under the name it had
    directory = index_dir(tmp_path / "deja")
    record = glance.load_raw(directory)
    assert record is not None and record["roots"] == [str(moved / "cursor-agent")]
    book = Bookkeeping.recorded(directory, read_manifest(directory).state)
    recorded = [*record["folders"], *record["ide"], *book.state.ide]
    recorded += [path for _, chat in book.items() for path in chat_files(chat)]
    assert [path for path in recorded if not path.startswith(f"{moved}/")] == []
    rebuilt = _index_through(moved, monkeypatch, "--full")
    assert (rebuilt["sessions"], rebuilt["not_rebuilt"]) == (SESSIONS, False)


def test_a_rebuild_of_an_index_built_through_the_other_spelling_keeps_every_session(
    history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``deja index --full`` first thing after the folder moved and a link took its place: the stores the index
    names through the link are in the folders deja reads, not "in none of" them."""
    moved = tmp_path / "moved"
    os.rename(history, moved)
    history.symlink_to(moved)
    rebuilt = _index_through(moved, monkeypatch, "--full")
    assert (rebuilt["sessions"], rebuilt["not_rebuilt"]) == (SESSIONS, False)


def test_the_editor_folder_set_through_a_link_is_the_folder_deja_reads(
    history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``deja config`` said the link "reads <the folder it leads to>: Cursor's User folder inside it"."""
    link = tmp_path / "link"
    link.symlink_to(history)
    _point(link, monkeypatch)
    [row] = [line.split() for line in run_deja("config").stdout.splitlines() if line.strip().startswith("cursor_root")]
    assert row == ["cursor_root", str(link / "cursor" / "User"), "env", "DEJA_CURSOR_ROOT"]


def test_a_rebuild_drops_an_editor_chat_deleted_since_an_index_was_built_through_the_other_spelling(
    history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The editor's database the index names through the link is the one the rebuild read: a chat deleted from it
    is gone, not kept as the session of a database "that could not be read this time"."""
    moved = tmp_path / "moved"
    os.rename(history, moved)
    history.symlink_to(moved)
    with sqlite3.connect(moved / "cursor" / "User" / "globalStorage" / "state.vscdb") as conn:
        conn.execute("DELETE FROM cursorDiskKV WHERE key = ?", (composer_key(API_EDITOR_COMPOSER),))
    conn.close()
    rebuilt = _index_through(moved, monkeypatch, "--full")
    assert (rebuilt["sessions"], rebuilt["unreadable_kept"], rebuilt["not_rebuilt"]) == (SESSIONS - 1, 0, False)


def test_doctor_finds_cursors_hook_logs_beside_a_user_folder_that_is_a_link(
    tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cursor's ``User`` folder synced from a dotfiles folder (a link): its logs stay in Cursor's own folder, beside
    the link; doctor looked for them beside the dotfiles' copy and said nothing proves the hooks ran."""
    build_sample_history(tmp_path / "history")
    dotfiles = tmp_path / "dotfiles" / "cursor-user"
    shutil.copytree(tmp_path / "history" / "cursor" / "User", dotfiles)
    cursor = fake_home / ".config" / "Cursor"
    cursor.mkdir(parents=True)
    (cursor / "User").symlink_to(dotfiles)
    log = cursor / "logs" / "20261203T100000" / "window1" / "output_20261203T100000" / "cursor.hooks.log"
    log.parent.mkdir(parents=True)
    log.write_text("2026-12-03 10:00:01.000 [info] Hook step completed: deja hook-prompt\n", encoding="utf-8")
    monkeypatch.setenv("DEJA_HOME", str(tmp_path / "deja"))
    out = run_deja("doctor").stdout
    assert f"1 hook log in {cursor / 'logs'}" in out, out
    assert "no Cursor hook log" not in out


def _moved_behind_a_link(history: Path, tmp_path: Path) -> Path:
    """The history moved to ``tmp_path / "moved"``, a link left in its place: an index an earlier deja built through
    a link (the index names every store through ``history``; the rebuild names them where the link leads)."""
    moved = tmp_path / "moved"
    os.rename(history, moved)
    history.symlink_to(moved)
    return moved


def _damaged(store: Path) -> Path:
    """``store`` cut in half: a file deja finds and cannot read."""
    with store.open("r+b") as f:
        f.truncate(store.stat().st_size // 2)
    return store


def _new_damaged_chat(cli_root: Path, chat_id: str) -> Path:
    """A new cursor-agent chat whose ``store.db`` cannot be read: a store that never held a session."""
    chat_dir = chat_dir_for(cli_root, "/work/new", chat_id)
    write_chat_store(chat_dir, cwd="/work/new", messages=[store_user_message("q"), store_assistant_message("a")])
    return _damaged(chat_dir / "store.db")


def test_a_refused_rebuild_of_an_index_built_through_the_other_spelling_names_the_store_read_before(
    history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The refusal names the store whose sessions it keeps, with a fix that moves that one away; it named a new
    chat's store that never held a session, and moving that away as told changed nothing; nor are those counted
    among "N more" (they hold no session a rebuild would lose)."""
    moved = _moved_behind_a_link(history, tmp_path)
    for chat_id in ("00000000-new-a", "00000000-new-b"):
        _new_damaged_chat(moved / "cursor-agent", chat_id)
    [read_before] = [_damaged(p) for p in (moved / "cursor-agent").rglob("store.db") if INFRA_STORE_CHAT in str(p)]
    _point(moved, monkeypatch)
    refused = run_deja("index", "--full")
    assert refused.returncode == 1
    assert refused.stderr.startswith(
        f"deja: the index was not rebuilt: {read_before} (damaged) could not be read this time, and a rebuild would "
        "lose what was read from it before, which is kept as it was"
    ), refused
    assert f"(mv {read_before} " in refused.stderr
