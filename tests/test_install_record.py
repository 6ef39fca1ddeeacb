"""deja uninstall never deletes a file the user had: not after ``deja config set home``, nor without install's record.

Install's record of what it found (``installed.json``) is kept beside the config file, which ``home`` does not move;
without a record, uninstall takes deja's entries out and leaves the rest of the file as it stands.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from harness import as_user, console_script, run_deja

from deja.core.config import set_value
from deja.installers import install, uninstall


@pytest.fixture
def deja(tmp_path: Path) -> str:
    return str(console_script(tmp_path / "bin"))


def test_a_users_hooks_json_comes_back_after_home_moved(fake_home: Path, tmp_path: Path, deja: str) -> None:
    hooks = fake_home / ".cursor" / "hooks.json"
    hooks.parent.mkdir()
    hooks.write_text('{"version": 1, "hooks": {}}\n')
    env = {"HOME": str(fake_home), "PATH": str(Path(deja).parent)}

    assert run_deja("install", "cursor-auto", env=env, script=Path(deja)).returncode == 0
    moved = run_deja("config", "set", "home", str(fake_home / "deja-index"), env=env, script=Path(deja))
    assert moved.returncode == 0, moved.stderr
    gone = run_deja("uninstall", "cursor-auto", env=env, script=Path(deja))

    assert gone.returncode == 0, gone.stderr
    assert f"removed {hooks}\n" not in gone.stdout
    assert hooks.read_text() == '{"version": 1, "hooks": {}}\n', "given back byte for byte"


def _forget_the_record(fake_home: Path) -> None:
    (fake_home / ".config" / "deja" / "installed.json").unlink()


@pytest.mark.parametrize(
    "document",
    [{"version": 1, "hooks": {}}, {"version": 1, "hooks": {}, "note": "mine"}],
    ids=["empty-hooks", "with-a-key-of-the-users"],
)
def test_without_a_record_only_dejas_entries_go(fake_home: Path, deja: str, document: dict[str, object]) -> None:
    hooks = fake_home / ".cursor" / "hooks.json"
    hooks.parent.mkdir()
    hooks.write_text(json.dumps(document))
    install("cursor-auto", deja_path=deja)
    _forget_the_record(fake_home)

    changes = {str(change.path): change.action for change in uninstall("cursor-auto")}

    assert changes[str(hooks)] == "updated"
    assert json.loads(hooks.read_text()) == document, 'the user\'s keys as they were, "hooks": {} included'


def test_without_a_record_a_users_empty_mcp_servers_stays(fake_home: Path, deja: str) -> None:
    mcp = fake_home / ".cursor" / "mcp.json"
    mcp.parent.mkdir()
    mcp.write_text('{"mcpServers": {}}')
    install("cursor", deja_path=deja)
    _forget_the_record(fake_home)

    uninstall("cursor")

    assert json.loads(mcp.read_text()) == {"mcpServers": {}}


def test_a_record_an_older_deja_left_in_home_is_still_used_and_then_moved(
    fake_home: Path, tmp_path: Path, deja: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "deja-home"
    monkeypatch.setenv("DEJA_HOME", str(home))
    hooks = fake_home / ".cursor" / "hooks.json"
    hooks.parent.mkdir()
    hooks.write_text('{"version": 1, "hooks": {}}\n')
    install("cursor-auto", deja_path=deja)
    home.mkdir()
    (fake_home / ".config" / "deja" / "installed.json").rename(home / "installed.json")  # where it used to be

    uninstall("cursor-auto")

    assert hooks.read_text() == '{"version": 1, "hooks": {}}\n'
    assert not (home / "installed.json").exists()
    assert not (fake_home / ".config" / "deja" / "installed.json").exists()


def test_a_file_install_created_still_goes(fake_home: Path, deja: str) -> None:
    set_value("recall", "safe")  # a config folder the user has: the record sits beside config.toml
    install("cursor-auto", deja_path=deja)
    uninstall("cursor-auto")
    assert not (fake_home / ".cursor").exists()
    assert sorted(p.name for p in (fake_home / ".config" / "deja").iterdir()) == ["config.toml"]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"version": 2, "hooks": {}}', '"version" is 2; Cursor reads version 1'),
        ('{"version": "1", "hooks": {}}', '"version" is "1"; Cursor reads version 1'),
        ('{"version": 1,\n "hooks": {"onSave": [{"command": "x"}]}}', "unknown event 'onSave'"),
    ],
    ids=["version-2", "version-a-string", "unknown-event"],
)
def test_install_refuses_a_hooks_json_cursor_would_ignore(
    fake_home: Path, tmp_path: Path, text: str, problem: str
) -> None:
    hooks = fake_home / ".cursor" / "hooks.json"
    hooks.parent.mkdir()
    hooks.write_text(text)
    script = console_script(tmp_path / "bin")

    refused = run_deja(
        "install", "cursor-auto", env={"HOME": str(fake_home), "PATH": str(script.parent)}, script=script
    )

    assert refused.returncode == 1
    line = 2 if "onSave" in text else 1
    assert refused.stderr.startswith(f"deja: {hooks}:{line}: {problem}")
    assert refused.stderr.count("\n") == 1 and "changed nothing" in refused.stderr
    assert hooks.read_text() == text
    assert sorted(p.name for p in hooks.parent.iterdir()) == ["hooks.json"], "no other file written either"


@pytest.mark.parametrize("make", ["folder", "mode-000"])
def test_a_record_that_cannot_be_read_stops_uninstall_and_changes_nothing(
    fake_home: Path, deja: str, make: str
) -> None:
    """It was taken for no record: uninstall left the files install had created, and said nothing (a stranger
    review's find, with the config folder at mode 000; here the record at mode 000, read as a user that permissions
    stop: for root, in a user namespace; a folder in the record's place does the same)."""
    env = {"HOME": str(fake_home), "PATH": str(Path(deja).parent)}
    assert run_deja("install", "cursor-auto", env=env, script=Path(deja)).returncode == 0
    record = fake_home / ".config" / "deja" / "installed.json"
    kept = record.read_text()
    cursor = fake_home / ".cursor"
    before = {path: path.read_bytes() for path in cursor.rglob("*") if path.is_file()}
    if make == "folder":
        record.unlink()
        record.mkdir()
        gone = run_deja("uninstall", "cursor-auto", env=env, script=Path(deja))
    else:
        record.chmod(0)
        try:
            gone = as_user(env, "uninstall", "cursor-auto")
        finally:
            record.chmod(0o600)

    assert gone.returncode == 1 and gone.stdout == ""
    reason = "not a regular file" if make == "folder" else "Permission denied"  # (review50c L3: opened never blocking)
    assert gone.stderr.startswith(f"deja: {record}: cannot read it ({reason})"), gone.stderr
    assert gone.stderr.count("\n") == 1
    assert {path: path.read_bytes() for path in cursor.rglob("*") if path.is_file()} == before
    if make == "folder":
        record.rmdir()
        record.write_text(kept)
    assert run_deja("uninstall", "cursor-auto", env=env, script=Path(deja)).returncode == 0
    assert not (cursor / "hooks.json").exists()


#: A user's hooks.json with an event list of their own left empty, and one holding their own hook.
USERS_HOOKS = {"version": 1, "hooks": {"stop": [], "beforeSubmitPrompt": [{"command": "./mine.sh"}]}, "x-note": "é"}


@pytest.mark.parametrize("case", ["edited-since", "no-record"])
def test_uninstall_keeps_the_users_own_empty_event_list(fake_home: Path, deja: str, case: str) -> None:
    """deja added its hook to the user's ``"stop": []``; taking it out gives that list back, empty, not dropped
    (trial17 F6), when the file cannot go back byte for byte: edited since install, or install's record gone."""
    hooks = fake_home / ".cursor" / "hooks.json"
    hooks.parent.mkdir()
    hooks.write_text(json.dumps(USERS_HOOKS))
    install("cursor-auto", deja_path=deja)
    expected = json.loads(json.dumps(USERS_HOOKS))
    if case == "edited-since":
        document = json.loads(hooks.read_text())
        document["hooks"]["beforeSubmitPrompt"].append({"command": "./also-mine.sh"})
        hooks.write_text(json.dumps(document))
        expected["hooks"]["beforeSubmitPrompt"].append({"command": "./also-mine.sh"})
    else:
        _forget_the_record(fake_home)

    uninstall("cursor-auto")

    assert json.loads(hooks.read_text()) == expected


def test_uninstall_without_the_record_install_wrote_elsewhere_says_so(fake_home: Path, tmp_path: Path) -> None:
    """Installed with XDG_CONFIG_HOME set, uninstalled without it (trial17 F7): one line names where uninstall looked
    for the record and what that means; the user's files come back as they were, and the folders deja made go."""
    script = console_script(tmp_path / "bin")
    cursor = fake_home / ".cursor"
    cursor.mkdir()
    users_mcp = '{\n    "mcpServers": {"mine": {"command": "mine"}}\n}\n'
    users_hooks = '{"version": 1, "hooks": {"stop": []}, "x-user-note": "caf\\u00e9"}'
    (cursor / "mcp.json").write_text(users_mcp)
    (cursor / "hooks.json").write_text(users_hooks)
    env = {"HOME": str(fake_home), "PATH": str(script.parent), "COLUMNS": "1000"}
    elsewhere = {**env, "XDG_CONFIG_HOME": str(tmp_path / "xdg conf" / "ç")}
    assert run_deja("install", "cursor-auto", env=elsewhere, script=script).returncode == 0

    gone = run_deja("uninstall", "cursor-auto", env=env, script=script)

    assert gone.returncode == 0, gone.stderr
    record = fake_home / ".config" / "deja" / "installed.json"
    notes = [line for line in gone.stdout.splitlines() if "no record" in line]
    assert notes == [
        f"cursor-auto: no record of deja's install in {record} (was XDG_CONFIG_HOME different when you installed?): "
        "took out deja's entries and files only; a file whose .bak holds the same settings got its bytes back"
    ]
    assert (cursor / "mcp.json").read_text() == users_mcp
    assert (cursor / "hooks.json").read_text() == users_hooks
    assert not (fake_home / ".agents").exists() and not (cursor / "commands").exists(), "the folders deja made"
    assert not (fake_home / ".config").exists(), "uninstall made no folder of its own"


def test_uninstall_keeps_the_users_own_empty_event_list_in_claude_settings(fake_home: Path, deja: str) -> None:
    settings = fake_home / ".claude" / "settings.json"
    settings.parent.mkdir()
    users = {"model": "opus", "hooks": {"Stop": [], "PreToolUse": [{"matcher": "Bash", "hooks": []}]}}
    settings.write_text(json.dumps(users))
    install("claude-auto", deja_path=deja)
    _forget_the_record(fake_home)

    uninstall("claude-auto")

    assert json.loads(settings.read_text()) == users


@pytest.mark.parametrize("record", ["kept", "gone"])
def test_a_skills_folder_the_user_had_stays_after_uninstall(fake_home: Path, deja: str, record: str) -> None:
    """With the record, only the folders it names go; without it, only those deja's own files alone filled."""
    skills = fake_home / ".agents" / "skills"
    skills.mkdir(parents=True)
    (fake_home / ".agents" / "notes.txt").write_text("mine\n")
    install("cursor", deja_path=deja)
    if record == "gone":
        _forget_the_record(fake_home)
        skills.joinpath("other-skill").mkdir()

    uninstall("cursor")

    assert skills.is_dir() and not (skills / "deja-history").exists()


@pytest.mark.xfail(
    strict=True,
    reason="trial58 T4: a deja server written by hand (with an env of the user's) is taken for deja's own by its "
    "shape: install rewrites it with no copy and uninstall takes it out. stop 58 tried a .bak of any file holding "
    "deja entries no record wrote, and took it back: Claude Code rewrites ~/.claude.json between install and "
    "uninstall (review58d F1), an entry already pointing at this deja got none (F2), and a home restored under "
    "another name had deja's own hooks given back, leaving deja wired (trial58b B2)",
)
def test_a_hand_written_deja_server_comes_back_after_install_and_uninstall(fake_home: Path, deja: str) -> None:
    users = (
        '{"mcpServers":{"deja":{"command":"/old/venv/bin/deja","args":["mcp"],"env":{"DEJA_RECALL":"off"},'
        '"disabled":false}}}\n'
    )
    mcp = fake_home / ".cursor" / "mcp.json"
    mcp.parent.mkdir()
    mcp.write_text(users)
    install("cursor", deja_path=deja)
    uninstall("cursor")
    assert mcp.read_text() == users
