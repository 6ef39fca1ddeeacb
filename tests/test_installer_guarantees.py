"""What deja install refuses, and what deja uninstall gives back: exactly the files and folders that were there.

Every check compares bytes, modes and the set of paths on disk before and
after, on a fake HOME (whose ~/.config/deja holds install's ledger) with DEJA_HOME outside it.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from harness import as_user, run_deja, snapshot, user

from deja.installers import InstallError, install, uninstall, wiring_report

CURSOR_TARGETS = ("cursor", "cursor-auto")


@pytest.fixture(autouse=True)
def deja_home_elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "deja-home"
    monkeypatch.setenv("DEJA_HOME", str(home))
    return home


@pytest.fixture
def deja(tmp_path: Path) -> str:
    path = tmp_path / "bin" / "deja"
    path.parent.mkdir(parents=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return str(path)


def _one_line(error: pytest.ExceptionInfo[InstallError]) -> str:
    message = str(error.value)
    assert "\n" not in message and "run the command again" in message
    return message


# --- refusals: one line, nothing written ----------------------------------------------------


@pytest.mark.parametrize("name", ["hooks.json", "mcp.json"])
def test_a_dangling_symlink_is_refused_and_nothing_is_created_where_it_points(
    fake_home: Path, tmp_path: Path, deja: str, name: str
) -> None:
    elsewhere = tmp_path / "elsewhere" / "deep" / name
    link = fake_home / ".cursor" / name
    link.parent.mkdir()
    link.symlink_to(elsewhere)
    before = snapshot(tmp_path)

    with pytest.raises(InstallError) as refused:
        install("cursor-auto", deja_path=deja)

    message = _one_line(refused)
    assert message.startswith(f"{link}: is a symlink to {elsewhere}, which does not exist")
    assert not (tmp_path / "elsewhere").exists(), "the link's target folders are not created"
    assert snapshot(tmp_path) == before, "nothing written at all"


def test_doctor_names_a_dangling_symlink(fake_home: Path, tmp_path: Path, deja: str) -> None:
    link = fake_home / ".cursor" / "hooks.json"
    link.parent.mkdir()
    link.symlink_to(tmp_path / "elsewhere" / "hooks.json")
    found = [finding for finding in wiring_report(deja) if str(link) in finding.message]
    assert [finding.level for finding in found] == ["warn"] and "which does not exist" in found[0].message


def test_a_config_folder_that_is_a_dangling_symlink_is_refused(fake_home: Path, tmp_path: Path, deja: str) -> None:
    (fake_home / ".cursor").symlink_to(tmp_path / "gone" / "cursor-config")
    with pytest.raises(InstallError) as refused:
        install("cursor", deja_path=deja)
    assert _one_line(refused).startswith(f"{fake_home / '.cursor'}: is a symlink")
    assert not (tmp_path / "gone").exists()


def test_the_cli_refuses_a_dangling_symlink_in_one_line(fake_home: Path, tmp_path: Path, deja: str) -> None:
    link = fake_home / ".cursor" / "hooks.json"
    link.parent.mkdir()
    link.symlink_to(tmp_path / "elsewhere" / "hooks.json")
    done = run_deja("install", "cursor-auto")
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and str(link) in done.stderr and "does not exist" in done.stderr
    assert not (tmp_path / "elsewhere").exists()


@pytest.mark.parametrize("target", CURSOR_TARGETS)
def test_a_read_only_hooks_json_is_refused_by_install_and_uninstall(fake_home: Path, deja: str, target: str) -> None:
    config = fake_home / ".cursor"
    install("cursor-auto", deja_path=deja)
    hooks = config / "hooks.json"
    hooks.chmod(0o444)
    before = snapshot(fake_home)

    for action in (lambda: install("cursor-auto", deja_path="/elsewhere/deja"), lambda: uninstall(target)):
        with pytest.raises(InstallError) as refused:
            action()
        message = _one_line(refused)
        assert message.startswith(f"{hooks}: is read-only (mode 444)") and f"chmod u+w {hooks}" in message
        assert snapshot(fake_home) == before, "nothing written, not even the other files"


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_another_users_hooks_json_is_refused_not_taken_over(fake_home: Path, deja: str) -> None:
    """A hooks.json another user owns (a ``sudo`` run's) was replaced by a rename, and became this user's: the
    original owner was gone for good (trial13 F5). Here the test (root) gives the file to ``nobody``."""
    hooks = fake_home / ".cursor" / "hooks.json"
    hooks.parent.mkdir()
    hooks.write_text('{"version": 1, "hooks": {"stop": [{"command": "admin-audit-hook"}]}}\n')
    os.chown(hooks, 65534, 65534)
    before = snapshot(fake_home)
    done = run_deja("install", "cursor-auto")
    assert done.returncode == 1 and done.stdout == "", done.stdout
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"deja: {hooks}: belongs to "), done.stderr
    assert "run the command as nobody, without sudo" in done.stderr, done.stderr  # (as root: review19 R19-7)
    assert snapshot(fake_home) == before and hooks.stat().st_uid == 65534


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_link_into_another_users_file_names_the_file_it_is_made_from(fake_home: Path, tmp_path: Path) -> None:
    """trial58b B5: home-manager links ``~/.cursor/mcp.json`` into the Nix store, root's and read-only. The refusal
    said to take the link (``sudo chown "$USER" ~/.cursor/mcp.json``), which chowns a file in the store; it names the
    link's target and says to change the file the link is made from, or replace the link. Run as a user (uid 1000 in
    a user namespace), the target given to ``nobody``."""
    store = tmp_path / "nix" / "store"
    store.mkdir(parents=True)
    target = store / "abc-home-manager-files-mcp.json"
    target.write_text('{"mcpServers": {"other": {"command": "other-server"}}}\n')
    target.chmod(0o444)
    os.chown(target, 65534, 65534)
    link = fake_home / ".cursor" / "mcp.json"
    link.parent.mkdir()
    link.symlink_to(target)
    before = snapshot(fake_home)

    done = user("install", "cursor")

    assert done.returncode == 1 and done.stdout == "", done.stdout
    assert done.stderr.splitlines() == [
        f"deja: {link}: is a link to {target}, which belongs to nobody, not to this user; deja changed nothing; "
        "change the file the link is made from (your dotfiles' source), or replace the link with a file of your own, "
        "then run the command again"
    ]
    assert snapshot(fake_home) == before and target.stat().st_uid == 65534


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_folder_link_into_another_users_files_names_the_file_it_leads_to(fake_home: Path, tmp_path: Path) -> None:
    """review59b F7: home-manager links the folder ``~/.cursor`` into the Nix store, so ``mcp.json`` is no link
    itself, and the refusal still said to chown it, a file in the store: it names where the link leads."""
    store = tmp_path / "nix" / "store" / "abc-home-manager-files" / ".cursor"
    store.mkdir(parents=True)
    target = store / "mcp.json"
    target.write_text('{"mcpServers": {"other": {"command": "other-server"}}}\n')
    target.chmod(0o444)
    os.chown(target, 65534, 65534)
    os.chown(store, 65534, 65534)
    (fake_home / ".cursor").symlink_to(store)

    done = user("install", "cursor")

    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert "chown" not in done.stderr and f"is a link to {target}, which belongs to nobody" in done.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="deja run as root in another user's home needs root")
def test_install_as_root_in_another_users_home_makes_nothing(fake_home: Path, deja: str) -> None:
    """``sudo deja install`` keeping the user's HOME made ``~/.cursor/mcp.json`` and ``~/.config/deja`` root's, and
    every deja command the user ran next failed to read its own config (review20 R20-8)."""
    os.chown(fake_home, 65534, 65534)
    before = snapshot(fake_home)
    done = run_deja("install", "cursor-auto")
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"deja: {fake_home}: belongs to "), done.stderr
    assert "deja changed nothing; run the command as nobody, without sudo" in done.stderr, done.stderr
    assert f"sudo chown -R nobody {fake_home / '.cursor'} {fake_home / '.config' / 'deja'})" in done.stderr
    assert snapshot(fake_home) == before


def test_a_read_only_file_is_refused_before_any_other_file_is_written(fake_home: Path, deja: str) -> None:
    hooks = fake_home / ".cursor" / "hooks.json"
    hooks.parent.mkdir()
    hooks.write_text('{"version": 1}\n')
    hooks.chmod(0o444)
    with pytest.raises(InstallError, match="is read-only"):
        install("cursor-auto", deja_path=deja)
    assert sorted(p.name for p in fake_home.rglob("*")) == [".cursor", "hooks.json"]
    assert hooks.read_text() == '{"version": 1}\n'


@pytest.mark.parametrize(
    ("name", "text", "key", "line"),
    [
        ("hooks.json", '{\n  "version": 1,\n  "hooks": {},\n  "hooks": {"stop": [{"command": "a"}]}\n}\n', "hooks", 3),
        ("mcp.json", '{"mcpServers": {\n  "x": {"command": "a"},\n  "x": {"command": "b"}\n}}\n', "x", 2),
    ],
)
def test_duplicate_keys_are_refused_not_silently_dropped(
    fake_home: Path, deja: str, name: str, text: str, key: str, line: int
) -> None:
    path = fake_home / ".cursor" / name
    path.parent.mkdir()
    path.write_text(text)
    before = snapshot(fake_home)

    for action in (lambda: install("cursor-auto", deja_path=deja), lambda: uninstall("cursor-auto")):
        with pytest.raises(InstallError) as refused:
            action()
        assert _one_line(refused).startswith(f"{path}:{line}: the key {key!r} appears twice")
        assert snapshot(fake_home) == before
    doctor = [finding for finding in wiring_report(deja) if str(path) in finding.message]
    assert [finding.level for finding in doctor] == ["warn"] and "appears twice" in doctor[0].message


# --- uninstall gives back exactly what install found ------------------------------------------

FOUND = {
    "hooks.json version only": (".cursor/hooks.json", '{"version":1}'),
    "hooks.json version only, indented": (".cursor/hooks.json", '{\n    "version": 1\n}\n'),
    "hooks.json with an empty hooks object": (".cursor/hooks.json", '{"version": 1, "hooks": {}}\n'),
    "empty hooks.json": (".cursor/hooks.json", ""),
    "blank hooks.json": (".cursor/hooks.json", "\n\n"),
    "mcp.json with no servers": (".cursor/mcp.json", '{"mcpServers":{}}'),
    "empty mcp.json": (".cursor/mcp.json", ""),
    "mcp.json with a BOM and CRLF": (".cursor/mcp.json", '\ufeff{\r\n  "mcpServers": {}\r\n}\r\n'),
    "empty object mcp.json": (".cursor/mcp.json", "{}"),
    "claude.json with no servers": (".claude.json", '{"mcpServers": {}, "numStartups": 3}'),
    "claude settings with empty hooks": (".claude/settings.json", '{"hooks":{}}'),
}


@pytest.mark.parametrize("case", sorted(FOUND))
def test_uninstall_restores_the_exact_bytes_and_mode_install_found(fake_home: Path, deja: str, case: str) -> None:
    relative, text = FOUND[case]
    path = fake_home / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    path.chmod(0o640)
    target = "claude-auto" if "claude" in relative else "cursor-auto"
    before = snapshot(fake_home)

    install(target, deja_path=deja)
    assert path.read_bytes() != text.encode("utf-8")
    uninstall(target)

    assert path.read_bytes() == text.encode("utf-8")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert snapshot(fake_home) == before, "the .bak install took goes once the file is put back from it"


USERS_HOOKS = '{\n    "version": 1,\n    "hooks": {"stop": [{"command": "./audit.sh"}]}\n}\n'
USERS_MCP = '{"mcpServers": {"github": {"command": "gh-mcp", "env": {"TOKEN": "x"}}}}'


@pytest.mark.parametrize("users_files", [False, True], ids=["nothing there before", "the user's own entries"])
def test_install_then_uninstall_leaves_the_cursor_folder_exactly_as_it_was(
    fake_home: Path, deja: str, users_files: bool
) -> None:
    cursor = fake_home / ".cursor"
    cursor.mkdir()
    if users_files:
        (cursor / "hooks.json").write_text(USERS_HOOKS)
        (cursor / "mcp.json").write_text(USERS_MCP)
    before = snapshot(fake_home)

    install("cursor-auto", deja_path=deja)
    assert (cursor / "mcp.json.bak").exists() is users_files, "a file deja changed is kept as it was until uninstall"
    uninstall("cursor-auto")

    assert sorted(p.name for p in cursor.iterdir()) == sorted(n for n in ("hooks.json", "mcp.json") if users_files)
    assert snapshot(fake_home) == before


def test_a_bak_uninstall_could_not_put_back_stays(fake_home: Path, deja: str) -> None:
    hooks = fake_home / ".cursor" / "hooks.json"
    hooks.parent.mkdir()
    hooks.write_text(USERS_HOOKS)
    install("cursor-auto", deja_path=deja)
    edited = json.loads(hooks.read_text())
    edited["hooks"]["beforeShellExecution"] = [{"command": "./guard.sh"}]
    hooks.write_text(json.dumps(edited))

    uninstall("cursor-auto")

    assert "./guard.sh" in hooks.read_text()
    assert (hooks.parent / "hooks.json.bak").read_text() == USERS_HOOKS, "it alone holds the file as it was"


def test_uninstall_restores_exactly_after_a_reinstall_from_a_moved_executable(
    fake_home: Path, tmp_path: Path, deja: str
) -> None:
    hooks = fake_home / ".cursor" / "hooks.json"
    hooks.parent.mkdir()
    hooks.write_text('{"version":1}')
    install("cursor-auto", deja_path=deja)
    moved = tmp_path / "moved" / "deja"
    moved.parent.mkdir()
    moved.write_text("#!/bin/sh\n")
    install("cursor-auto", deja_path=str(moved))
    uninstall("cursor-auto")
    assert hooks.read_text() == '{"version":1}'


def test_an_edit_between_two_installs_survives_uninstall(fake_home: Path, tmp_path: Path, deja: str) -> None:
    hooks = fake_home / ".cursor" / "hooks.json"
    hooks.parent.mkdir()
    hooks.write_text('{"version":1}')
    install("cursor-auto", deja_path=deja)
    edited = json.loads(hooks.read_text())
    edited["hooks"]["stop"] = [{"command": "./audit.sh"}]
    hooks.write_text(json.dumps(edited))
    moved = tmp_path / "moved" / "deja"
    moved.parent.mkdir()
    moved.write_text("#!/bin/sh\n")
    install("cursor-auto", deja_path=str(moved))  # rewrites deja's entries, the user's edit inside
    uninstall("cursor-auto")
    assert json.loads(hooks.read_text()) == {"version": 1, "hooks": {"stop": [{"command": "./audit.sh"}]}}


def test_a_second_cycle_restores_the_file_as_it_was_before_the_second_install(fake_home: Path, deja: str) -> None:
    mcp = fake_home / ".cursor" / "mcp.json"
    mcp.parent.mkdir()
    mcp.write_text('{"mcpServers":{}}')
    install("cursor", deja_path=deja)
    uninstall("cursor")
    mcp.write_text('{"mcpServers": {"mine": {"command": "mine"}}}')  # the user's file changes in between
    install("cursor", deja_path=deja)
    uninstall("cursor")
    assert mcp.read_text() == '{"mcpServers": {"mine": {"command": "mine"}}}'


def test_edits_made_after_install_survive_and_a_file_that_existed_stays(fake_home: Path, deja: str) -> None:
    config = fake_home / ".cursor"
    config.mkdir()
    (config / "hooks.json").write_text('{"version":1}')
    (config / "mcp.json").write_text('{"mcpServers":{}}')
    install("cursor-auto", deja_path=deja)
    hooks = json.loads((config / "hooks.json").read_text())
    hooks["hooks"]["stop"] = [{"command": "./audit.sh"}]
    (config / "hooks.json").write_text(json.dumps(hooks))
    (config / "mcp.json").write_text((config / "mcp.json").read_text() + "\n\n")  # touched, not changed

    uninstall("cursor-auto")

    assert json.loads((config / "hooks.json").read_text()) == {
        "version": 1,
        "hooks": {"stop": [{"command": "./audit.sh"}]},
    }
    assert json.loads((config / "mcp.json").read_text()) == {"mcpServers": {}}, (
        "it existed, so it stays, emptied of deja"
    )


@pytest.mark.parametrize("target", ["cursor-auto", "claude-auto"])
def test_uninstall_removes_the_files_and_the_folders_install_created_and_only_those(
    fake_home: Path, deja: str, target: str
) -> None:
    kept = fake_home / ".agents" / "notes.txt"  # a folder the user had stays, with its file
    kept.parent.mkdir()
    kept.write_text("mine\n")
    before = snapshot(fake_home)

    install(target, deja_path=deja)
    assert snapshot(fake_home) != before
    uninstall(target)

    assert snapshot(fake_home) == before


def test_a_folder_install_created_stays_when_the_user_put_something_in_it(fake_home: Path, deja: str) -> None:
    install("cursor-auto", deja_path=deja)
    mine = fake_home / ".cursor" / "commands" / "mine.md"
    mine.write_text("# mine\n")
    uninstall("cursor-auto")
    assert sorted(str(p.relative_to(fake_home)) for p in fake_home.rglob("*")) == [
        ".cursor",
        ".cursor/commands",
        ".cursor/commands/mine.md",
    ]


def test_the_ledger_holds_hashes_not_the_users_files(fake_home: Path, deja: str, deja_home_elsewhere: Path) -> None:
    mcp = fake_home / ".cursor" / "mcp.json"
    mcp.parent.mkdir()
    mcp.write_text('{"mcpServers": {"gh": {"command": "gh", "env": {"TOKEN": "ghp_secretsecretsecret"}}}}')
    install("cursor", deja_path=deja)
    ledger = fake_home / ".config" / "deja" / "installed.json"
    assert stat.S_IMODE(ledger.stat().st_mode) == 0o600
    assert "ghp_" not in ledger.read_text()
    uninstall("cursor")
    assert not ledger.exists(), "an empty ledger goes"
    assert not (fake_home / ".config").exists(), "and so do the folders it was the first to need"
    assert not deja_home_elsewhere.exists()


@pytest.mark.skipif(os.name != "posix", reason="folder modes are POSIX's")
def test_a_folder_deja_cannot_write_in_is_refused_before_any_file_is_written(fake_home: Path) -> None:
    """As a user that permissions stop (root, in a user namespace: root writes in any folder)."""
    commands = fake_home / ".cursor" / "commands"
    commands.mkdir(parents=True)
    commands.chmod(0o555)
    try:
        done = as_user(os.environ, "install", "cursor")
        assert (done.returncode, done.stdout) == (1, ""), done.stdout
        assert done.stderr.count("\n") == 1 and "run the command again" in done.stderr, done.stderr
        assert done.stderr.startswith(f"deja: {commands}: is a folder deja cannot write in"), done.stderr
        assert not (fake_home / ".cursor" / "mcp.json").exists()
    finally:
        commands.chmod(0o755)


@pytest.mark.skipif(os.name != "posix", reason="folder modes are POSIX's")
def test_the_folder_of_a_symlinked_files_copy_is_checked_before_any_file_is_written(fake_home: Path) -> None:
    """The copy of a symlinked file goes beside the link (trial58 T2), a folder other than the one the file is
    written in: one deja cannot write in is refused before anything is written, not half way."""
    target = fake_home / "dotfiles" / "claude-settings.json"
    target.parent.mkdir()
    target.write_text('{"model": "opus"}')
    claude = fake_home / ".claude"
    claude.mkdir()
    (claude / "settings.json").symlink_to(target)
    claude.chmod(0o555)
    try:
        done = as_user(os.environ, "install", "claude-auto")
        assert (done.returncode, done.stdout) == (1, ""), done.stdout
        assert done.stderr.startswith(f"deja: {claude}: is a folder deja cannot write in"), done.stderr
        assert target.read_text() == '{"model": "opus"}'
        assert not (fake_home / ".claude.json").exists(), "nothing written"
    finally:
        claude.chmod(0o755)
