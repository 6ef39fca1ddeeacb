"""A Cursor folder that is not there this time (``~/.cursor`` a link to a disk not mounted) erases none of the
sessions read from it: a refresh keeps them and ``deja index`` says so in one line, as doctor does (trial49 F8: the
next refresh dropped them all, and ``deja index`` said "0 removed").
"""

from __future__ import annotations

import shutil
from pathlib import Path

from harness import run_deja

from deja.core.sample import build_sample_history
from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript


def _history_on_a_disk(home: Path) -> Path:
    """Three chats in a Cursor folder on another disk, ``~/.cursor`` a link to it, indexed; the disk's folder."""
    disk = home / "disk"
    for n in range(3):
        chat = transcript_path(disk / "cursor", str(home / "app"), f"b{n}")
        write_transcript(chat, [user_turn(f"why does the narwhal test {n} fail?"), assistant_turn("a stale cache")])
    (home / ".cursor").symlink_to(disk / "cursor")
    assert run_deja("index").returncode == 0
    return disk


def _sessions() -> list[str]:
    ran = run_deja("sessions")
    assert ran.returncode == 0, ran.stderr
    return ran.stdout.splitlines()


def test_a_cursor_folder_not_there_this_time_keeps_its_sessions_and_says_so(fake_home: Path) -> None:
    disk = _history_on_a_disk(fake_home)
    disk.rename(fake_home / "unmounted")  # the link now leads nowhere
    assert "narwhal test 1" in run_deja("search", "narwhal").stdout  # a search's refresh erases none
    ran = run_deja("index")
    assert ran.returncode == 0 and "(0 added, 0 updated, 0 removed)" in ran.stdout, ran.stdout
    assert ran.stderr == (
        f"{disk / 'cursor'} cannot be read this time (not there: a disk not mounted, a link to nowhere?): what was "
        "read from it before (3 sessions) is kept as it was, and read again once it is back; `deja index --full` "
        "rebuilds without it\n"
    )
    assert len(_sessions()) == 3
    doctor = run_deja("doctor")
    assert f"{disk / 'cursor'} cannot be read this time" in doctor.stdout, doctor.stdout
    assert "if you removed it on purpose, `deja index --full`" in doctor.stdout, doctor.stdout
    (fake_home / "unmounted").rename(disk)
    back = run_deja("index")
    assert back.returncode == 0 and back.stderr == "" and len(_sessions()) == 3, back.stderr
    assert "cannot be read this time" not in run_deja("doctor").stdout


def test_a_projects_folder_linked_to_a_disk_not_mounted_keeps_its_sessions(fake_home: Path) -> None:
    """``~/.cursor`` is there but its ``projects`` is a link to another disk: that disk not mounted keeps the
    sessions read from it, as a whole ``~/.cursor`` away does (review49d M2: 3 removed, no word)."""
    disk = fake_home / "disk"
    for n in range(3):
        chat = transcript_path(disk / "cursor", str(fake_home / "app"), f"b{n}")
        write_transcript(chat, [user_turn(f"why does the narwhal test {n} fail?"), assistant_turn("a stale cache")])
    (fake_home / ".cursor").mkdir()
    (fake_home / ".cursor" / "projects").symlink_to(disk / "cursor" / "projects")
    assert run_deja("index").returncode == 0 and len(_sessions()) == 3
    disk.rename(fake_home / "unmounted")
    ran = run_deja("index")
    assert ran.returncode == 0 and "(0 added, 0 updated, 0 removed)" in ran.stdout, ran.stdout
    assert "cannot be read this time (not there: a disk not mounted" in ran.stderr, ran.stderr
    assert "(3 sessions) is kept as it was" in ran.stderr
    assert len(_sessions()) == 3
    (fake_home / "unmounted").rename(disk)
    assert run_deja("index").stderr == "" and len(_sessions()) == 3


def test_the_editor_folder_linked_to_a_disk_not_mounted_keeps_its_sessions(fake_home: Path, tmp_path: Path) -> None:
    """``~/.config/Cursor`` (the editor's ``User`` folder's parent) a link to another disk: that disk not mounted
    keeps the editor's sessions, and ``deja index`` and doctor say so, as for a cursor-agent folder (review49d M2)."""
    history = build_sample_history(fake_home / "disk")
    (fake_home / ".config").mkdir()
    (fake_home / ".config" / "Cursor").symlink_to(history.ide_root.parent)
    assert run_deja("index").returncode == 0
    before = _sessions()
    assert before
    (fake_home / "disk").rename(fake_home / "unmounted")
    ran = run_deja("index")
    assert ran.returncode == 0 and "0 removed)" in ran.stdout, ran.stdout
    assert f"{history.ide_root} cannot be read this time (not there: a disk not mounted" in ran.stderr, ran.stderr
    assert _sessions() == before
    assert f"{history.ide_root} cannot be read this time" in run_deja("doctor").stdout
    (fake_home / "unmounted").rename(fake_home / "disk")
    back = run_deja("index")
    assert back.returncode == 0 and back.stderr == "" and _sessions() == before, back.stderr


def test_a_rebuild_after_the_editor_folder_is_deleted_counts_the_sessions_it_drops(fake_home: Path) -> None:
    """The editor folder deleted on purpose: ``deja index`` keeps its sessions, ``deja index --full`` drops them and
    says how many (review49e L1: it said "0 removed" as it dropped every one)."""
    history = build_sample_history(fake_home / "disk")
    (fake_home / ".config").mkdir()
    (fake_home / ".config" / "Cursor").symlink_to(history.ide_root.parent)
    assert run_deja("index").returncode == 0
    editor = len(_sessions())
    (fake_home / ".cursor").mkdir()
    write_transcript(
        transcript_path(fake_home / ".cursor", str(fake_home / "app"), "b1"),
        [user_turn("why does the narwhal test fail?"), assistant_turn("a stale cache")],
    )
    assert "(1 added, 0 updated, 0 removed)" in run_deja("index").stdout
    shutil.rmtree(history.ide_root.parent)  # the folder the link leads to, deleted
    assert "0 removed)" in run_deja("index").stdout and len(_sessions()) == editor + 1  # kept: maybe a disk away
    rebuilt = run_deja("index", "--full")
    assert rebuilt.returncode == 0 and not rebuilt.stderr, rebuilt.stderr
    assert f"{editor} removed)" in rebuilt.stdout and editor > 0, rebuilt.stdout
    assert len(_sessions()) == 1
    assert "0 removed)" in run_deja("index", "--full").stdout  # nothing more to drop
