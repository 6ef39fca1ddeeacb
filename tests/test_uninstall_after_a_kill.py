"""What a ``kill -9`` of ``deja uninstall`` leaves, the next uninstall (or install) finishes (trial60 F7).

Killed after it put ``mcp.json`` back and before it removed the ``.bak`` it had made, uninstall left that copy (the
user's tokens) and a temporary file of its own beside ``hooks.json``; the next uninstall found nothing of deja's in
``mcp.json``, said "nothing of deja's to remove" and dropped the record, so the copy stayed for good (and an
install took it for the user's own). Each test writes the state such a run left, as it left it: the record intact
(it is written last), the file already back.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from harness import console_script, run_deja

from deja.installers import install, ledger, uninstall

pytestmark = pytest.mark.unit

USERS_MCP = '{"mcpServers": {"github": {"command": "gh", "env": {"GITHUB_TOKEN": "ghp_not-a-real-one"}}}}\n'
USERS_HOOKS = '{"version": 1, "hooks": {}}\n'


@pytest.fixture
def deja(tmp_path: Path) -> Path:
    return console_script(tmp_path / "bin")


def _killed_between_restore_and_bak_removal(home: Path) -> Path:
    """Install over the user's files, then leave them as the killed uninstall did: ``mcp.json`` back from its
    ``.bak``, the ``.bak`` still there, a write of ``hooks.json`` cut short (its temporary file, of a process now
    gone, beside it). The ``.cursor`` folder."""
    cursor = home / ".cursor"
    cursor.mkdir()
    (cursor / "mcp.json").write_text(USERS_MCP)
    (cursor / "hooks.json").write_text(USERS_HOOKS)
    install("cursor-auto", deja_path="/opt/deja/bin/deja")
    (cursor / "mcp.json").write_bytes((cursor / "mcp.json.bak").read_bytes())
    (cursor / f".hooks.json.deja-{_a_finished_pid()}.k3j2h1ab.tmp").write_text(USERS_HOOKS)
    return cursor


def _a_finished_pid() -> int:
    """The pid of a process that has ended (and been reaped): what a killed deja's pid is to the next run."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def test_the_next_uninstall_removes_the_bak_and_the_temporary_file_a_killed_one_left(
    fake_home: Path, deja: Path
) -> None:
    cursor = _killed_between_restore_and_bak_removal(fake_home)
    env = {"HOME": str(fake_home), "PATH": str(deja.parent)}

    done = run_deja("uninstall", "cursor-auto", env=env, script=deja)

    assert done.returncode == 0, done.stderr
    assert "nothing of deja's to remove" not in done.stdout
    assert f"{cursor / 'mcp.json.bak'}: " in done.stdout, "it says why it removes the copy"
    assert sorted(p.name for p in cursor.iterdir()) == ["hooks.json", "mcp.json"]
    assert (cursor / "mcp.json").read_text() == USERS_MCP
    assert (cursor / "hooks.json").read_text() == USERS_HOOKS
    assert not ledger.ledger_path().exists()


def test_an_install_after_the_kill_keeps_the_bak_as_deja_s_so_uninstall_removes_it(fake_home: Path) -> None:
    cursor = _killed_between_restore_and_bak_removal(fake_home)

    install("cursor-auto", deja_path="/opt/deja/bin/deja")
    uninstall("cursor-auto")

    assert not (cursor / "mcp.json.bak").exists(), "deja's copy, not the user's: it goes"
    assert (cursor / "mcp.json").read_text() == USERS_MCP


def test_an_install_after_a_kill_that_removed_deja_s_files_keeps_the_record_of_the_folders_it_made(
    fake_home: Path,
) -> None:
    """Killed later, once it had removed deja's skill and command and before the folders install had made for them:
    the install after it found those folders there and recorded only the one it made anew, so the next uninstall
    left ``~/.agents/skills`` and ``~/.cursor/commands`` behind, empty."""
    cursor = _killed_between_restore_and_bak_removal(fake_home)
    skill = fake_home / ".agents" / "skills" / "deja-history"
    (skill / "SKILL.md").unlink()
    skill.rmdir()
    (cursor / "commands" / "deja.md").unlink()

    install("cursor-auto", deja_path="/opt/deja/bin/deja")
    uninstall("cursor-auto")

    assert sorted(p.name for p in fake_home.iterdir()) == [".cursor"]
    assert sorted(p.name for p in cursor.iterdir()) == ["hooks.json", "mcp.json"]


def test_a_bak_the_user_changed_since_stays(fake_home: Path, deja: Path) -> None:
    cursor = _killed_between_restore_and_bak_removal(fake_home)
    mine = '{"mcpServers": {"mine": {"command": "m"}}}\n'
    (cursor / "mcp.json.bak").write_text(mine)
    (cursor / "mcp.json").write_text(mine)
    env = {"HOME": str(fake_home), "PATH": str(deja.parent)}

    assert run_deja("uninstall", "cursor-auto", env=env, script=deja).returncode == 0

    assert (cursor / "mcp.json.bak").read_text() == mine, "its bytes are not the record's: the user's"


def test_a_temporary_file_of_a_deja_still_running_stays(fake_home: Path, deja: Path) -> None:
    cursor = _killed_between_restore_and_bak_removal(fake_home)
    running = cursor / f".mcp.json.deja-{os.getpid()}.k3j2h1ab.tmp"
    running.write_text(USERS_MCP)
    env = {"HOME": str(fake_home), "PATH": str(deja.parent)}

    assert run_deja("uninstall", "cursor-auto", env=env, script=deja).returncode == 0

    assert running.exists(), "its writer still runs: not a leftover"


def test_a_temporary_file_without_a_pid_is_named_not_removed(fake_home: Path, deja: Path) -> None:
    """An older deja named its temporary files ``.hooks.json.<8 random characters>.tmp``: which run wrote one cannot
    be told, so uninstall says it is there (a copy of the file: it may hold tokens) and leaves it."""
    cursor = _killed_between_restore_and_bak_removal(fake_home)
    older = cursor / ".hooks.json.3qzoln08.tmp"
    older.write_text(USERS_HOOKS)
    env = {"HOME": str(fake_home), "PATH": str(deja.parent)}

    done = run_deja("uninstall", "cursor-auto", env=env, script=deja)

    assert done.returncode == 0, done.stderr
    assert older.exists()
    assert f"{older}: " in done.stdout
    assert json.loads((cursor / "hooks.json").read_text()) == json.loads(USERS_HOOKS)


def test_a_bak_the_users_file_links_to_stays(fake_home: Path, deja: Path) -> None:
    """The user put mcp.json back by linking it to deja's copy: the file's bytes are the copy's because it is the
    copy, the user's only one, which uninstall took for a stranded .bak and removed (review60d F1)."""
    cursor = fake_home / ".cursor"
    cursor.mkdir()
    (cursor / "mcp.json").write_text(USERS_MCP)
    install("cursor-auto", deja_path="/opt/deja/bin/deja")
    (cursor / "mcp.json").unlink()
    (cursor / "mcp.json").symlink_to("mcp.json.bak")
    env = {"HOME": str(fake_home), "PATH": str(deja.parent)}

    assert run_deja("uninstall", "cursor-auto", env=env, script=deja).returncode == 0

    assert (cursor / "mcp.json").read_text() == USERS_MCP


@pytest.mark.parametrize("name", [".mcp.json.2024.tmp", f".mcp.json.{2**22 + 7}.tmp", ".mcp.json.bak.tmp"])
def test_a_file_named_like_a_temporary_file_but_not_deja_s_stays(fake_home: Path, deja: Path, name: str) -> None:
    """Only deja's own temporary names (``.NAME.deja-PID.….tmp``, a ``.bak``'s ``.NAME.bak.PID.tmp``) are swept:
    ``.mcp.json.<digits>.tmp`` may be the user's or another tool's (Go's ``os.CreateTemp``), review60d F2."""
    cursor = fake_home / ".cursor"
    cursor.mkdir()
    (cursor / "mcp.json").write_text(USERS_MCP)
    theirs = cursor / name
    theirs.write_text("the user's notes\n")
    env = {"HOME": str(fake_home), "PATH": str(deja.parent)}

    assert run_deja("install", "cursor", env=env, script=deja).returncode == 0
    assert run_deja("uninstall", "cursor", env=env, script=deja).returncode == 0

    assert theirs.read_text() == "the user's notes\n"
