"""``deja install`` keeps a copy of a file it shares with the user before its first change, and never over a
``.bak`` the user already had (``mcp.json.bak`` is what people call their own backups): that one stays byte for
byte, deja's copy goes to the first free ``<file>.bak.N``, install (``--dry-run`` too) says where, and uninstall
puts the file back from there. (trialJ F1: the user's backup was silently replaced.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from harness import console_script, run_deja

pytestmark = pytest.mark.unit

USERS_MCP = '{"mcpServers": {"a": {"command": "a"}}}\n'
USERS_OWN_BACKUP = '{"mcpServers": {"OLD-precious": {"command": "z", "env": {"K": "v"}}}}\n'


@pytest.fixture
def deja(tmp_path: Path) -> Path:
    return console_script(tmp_path / "bin")


def test_install_keeps_the_users_own_bak_and_says_where_its_copy_goes(fake_home: Path, deja: Path) -> None:
    cursor = fake_home / ".cursor"
    cursor.mkdir()
    (cursor / "mcp.json").write_text(USERS_MCP)
    (cursor / "mcp.json.bak").write_text(USERS_OWN_BACKUP)
    env = {"HOME": str(fake_home), "PATH": str(deja.parent)}

    dry = run_deja("install", "cursor", "--dry-run", env=env, script=deja)
    assert dry.returncode == 0, dry.stderr
    assert f"would keep your file as it was in {cursor / 'mcp.json.bak.1'}" in dry.stdout
    assert not (cursor / "mcp.json.bak.1").exists()

    done = run_deja("install", "cursor", env=env, script=deja)
    assert done.returncode == 0, done.stderr
    assert f"kept your file as it was in {cursor / 'mcp.json.bak.1'}" in done.stdout
    assert (cursor / "mcp.json.bak").read_text() == USERS_OWN_BACKUP, "the user's own backup is untouched"
    assert (cursor / "mcp.json.bak.1").read_text() == USERS_MCP
    assert "deja" in json.loads((cursor / "mcp.json").read_text())["mcpServers"]

    assert run_deja("uninstall", "cursor", env=env, script=deja).returncode == 0
    assert (cursor / "mcp.json").read_text() == USERS_MCP, "uninstall puts the file back from deja's copy"
    assert (cursor / "mcp.json.bak").read_text() == USERS_OWN_BACKUP

    again = run_deja("install", "cursor", env=env, script=deja)
    assert f"kept your file as it was in {cursor / 'mcp.json.bak.1'}" in again.stdout, "the same bytes: reused"
    assert sorted(p.name for p in cursor.iterdir() if p.is_file()) == ["mcp.json", "mcp.json.bak", "mcp.json.bak.1"]


def test_hooks_and_claude_settings_keep_the_users_bak_too(fake_home: Path, deja: Path) -> None:
    hooks = fake_home / ".cursor" / "hooks.json"
    settings = fake_home / ".claude" / "settings.json"
    for path in (hooks, settings):
        path.parent.mkdir(exist_ok=True)
        path.write_text('{"hooks": {}}\n')
        path.with_name(path.name + ".bak").write_text("my own notes\n")
    env = {"HOME": str(fake_home), "PATH": str(deja.parent)}

    for target in ("cursor-auto", "claude-auto"):
        assert run_deja("install", target, env=env, script=deja).returncode == 0
    for path in (hooks, settings):
        assert path.with_name(path.name + ".bak").read_text() == "my own notes\n"
        assert path.with_name(path.name + ".bak.1").read_text() == '{"hooks": {}}\n'


def test_uninstall_never_deletes_a_bak_the_user_made_even_of_the_same_bytes(fake_home: Path, deja: Path) -> None:
    """review44d M1: install took the user's own ``hooks.json.bak`` (the same bytes) as its copy, and uninstall then
    deleted it as deja's."""
    hooks = fake_home / ".cursor" / "hooks.json"
    hooks.parent.mkdir()
    users = '{"version":1,"hooks":{"stop":[{"command":"say done"}]}}'
    hooks.write_text(users)
    own_backup = hooks.with_name("hooks.json.bak")
    own_backup.write_text(users)
    env = {"HOME": str(fake_home), "PATH": str(deja.parent)}

    done = run_deja("install", "cursor-auto", env=env, script=deja)
    assert f"kept your file as it was in {own_backup}" in done.stdout
    gone = run_deja("uninstall", "cursor-auto", env=env, script=deja)

    assert gone.returncode == 0, gone.stderr
    assert f"removed {own_backup}" not in gone.stdout
    assert own_backup.read_text() == users
    assert hooks.read_text() == users


def test_the_copy_install_keeps_is_the_users_alone_whatever_the_files_mode(fake_home: Path, deja: Path) -> None:
    """trial48 F7: an mcp.json readable by others (0644) holding a server's token was copied to a 0644
    ``mcp.json.bak``: a second file with the token. deja's copy is 0600; uninstall puts the file back with its mode."""
    cursor = fake_home / ".cursor"
    cursor.mkdir()
    mcp = cursor / "mcp.json"
    users = '{"mcpServers": {"github": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": "ghp_T48notARealTokenAtAll0123456789"}}}}\n'
    mcp.write_text(users)
    mcp.chmod(0o644)
    env = {"HOME": str(fake_home), "PATH": str(deja.parent)}

    assert run_deja("install", "cursor", env=env, script=deja).returncode == 0
    backup = cursor / "mcp.json.bak"
    assert backup.read_text() == users
    assert backup.stat().st_mode & 0o777 == 0o600
    assert mcp.stat().st_mode & 0o777 == 0o644, "the user's file keeps its own mode"

    assert run_deja("uninstall", "cursor", env=env, script=deja).returncode == 0
    assert mcp.read_text() == users
    assert mcp.stat().st_mode & 0o777 == 0o644
    assert not backup.exists()


def test_an_install_over_an_earlier_dejas_readable_copy_makes_it_private(fake_home: Path, deja: Path) -> None:
    """review48a M4: the copy an earlier deja made kept the file's 0644 and stayed so; the next install mends it, and
    leaves a .bak the user made alone."""
    cursor = fake_home / ".cursor"
    cursor.mkdir()
    mcp = cursor / "mcp.json"
    mcp.write_text(
        '{"mcpServers": {"github": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": "ghp_T48notARealTokenAtAll0123456789"}}}}\n'
    )
    hooks = cursor / "hooks.json.bak"
    hooks.write_text("my own notes\n")
    hooks.chmod(0o644)
    env = {"HOME": str(fake_home), "PATH": str(deja.parent)}
    assert run_deja("install", "cursor", env=env, script=deja).returncode == 0
    backup = cursor / "mcp.json.bak"
    backup.chmod(0o644)  # as an earlier deja left it

    assert run_deja("install", "cursor-auto", env=env, script=deja).returncode == 0
    assert backup.stat().st_mode & 0o777 == 0o600
    assert hooks.stat().st_mode & 0o777 == 0o644, "the user's own .bak is theirs"


def _dotfiles_link(fake_home: Path, name: str, text: str) -> tuple[Path, Path]:
    """``~/.cursor/NAME``, a symlink into ``~/dotfiles/cursor`` (a repository people push, which ignores the file by
    name), and the file it points to, holding ``text``."""
    target = fake_home / "dotfiles" / "cursor" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    link = fake_home / ".cursor" / name
    link.parent.mkdir(exist_ok=True)
    link.symlink_to(Path("..", "dotfiles", "cursor", name))
    return link, target


def test_the_copy_of_a_symlinked_file_goes_beside_the_link_not_into_the_folder_it_leads_to(
    fake_home: Path, deja: Path
) -> None:
    """trial58 T2: with ``~/.cursor/mcp.json`` a link into a dotfiles repository that git-ignores ``cursor/mcp.json``
    for its tokens, install's ``mcp.json.bak`` went beside the link's target, where the ignore rule did not cover
    it: ``git add -A`` staged the tokens. It goes into ``~/.cursor``, Cursor's folder; install says so, and uninstall
    puts the file back through the link and removes it."""
    users = '{"mcpServers": {"github": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": "ghp_T58notARealTokenAtAll0123456789"}}}}\n'
    mcp, target = _dotfiles_link(fake_home, "mcp.json", users)
    hooks, hooks_target = _dotfiles_link(fake_home, "hooks.json", '{"version": 1, "hooks": {}}')
    env = {"HOME": str(fake_home), "PATH": str(deja.parent)}

    done = run_deja("install", "cursor-auto", env=env, script=deja)

    assert done.returncode == 0, done.stderr
    for link in (mcp, hooks):
        backup = link.with_name(link.name + ".bak")
        assert f"kept your file as it was in {backup}\n" in done.stdout, done.stdout
        assert backup.is_file() and not backup.is_symlink() and backup.stat().st_mode & 0o777 == 0o600
    assert (fake_home / ".cursor" / "mcp.json.bak").read_text() == users
    assert sorted(p.name for p in target.parent.iterdir()) == ["hooks.json", "mcp.json"], "nothing new in dotfiles"
    assert "deja" in json.loads(target.read_text())["mcpServers"], "written through the link"

    gone = run_deja("uninstall", "cursor-auto", env=env, script=deja)

    assert gone.returncode == 0, gone.stderr
    assert mcp.is_symlink() and hooks.is_symlink()
    assert target.read_text() == users and hooks_target.read_text() == '{"version": 1, "hooks": {}}'
    assert sorted(p.name for p in (fake_home / ".cursor").iterdir()) == ["hooks.json", "mcp.json"]


def test_install_says_its_copy_lands_in_the_folder_a_linked_cursor_folder_leads_to(fake_home: Path, deja: Path) -> None:
    """trial60 F6: with ``~/.cursor`` itself a link into a dotfiles repository (stow, chezmoi), no folder of Cursor's
    is outside the repository, and install wrote ``mcp.json.bak`` (the user's tokens) there without a word, where an
    ignore rule for ``mcp.json`` does not cover it. It says so in one line, naming where the copy is."""
    dots = fake_home / "dotfiles" / "cursor"
    dots.mkdir(parents=True)
    (dots / "mcp.json").write_text(USERS_MCP)
    (fake_home / ".cursor").symlink_to(dots)
    env = {"HOME": str(fake_home), "PATH": str(deja.parent)}

    done = run_deja("install", "cursor", env=env, script=deja)

    assert done.returncode == 0, done.stderr
    said = f"{fake_home / '.cursor'} is a link: that copy, your file as it was (tokens and all), goes to {dots / 'mcp.json.bak'}, where an ignore rule for mcp.json does not cover it"  # fmt: skip
    assert said in done.stdout, done.stdout
    assert (dots / "mcp.json.bak").read_text() == USERS_MCP


def test_an_earlier_dejas_copy_beside_the_links_target_still_puts_the_file_back(fake_home: Path, deja: Path) -> None:
    """An install by an earlier deja kept its copy beside the link's target and recorded it there: uninstall puts the
    file back from that copy and removes it."""
    mcp, target = _dotfiles_link(fake_home, "mcp.json", USERS_MCP)
    env = {"HOME": str(fake_home), "PATH": str(deja.parent)}
    assert run_deja("install", "cursor", env=env, script=deja).returncode == 0
    earlier = target.with_name("mcp.json.bak")
    mcp.with_name("mcp.json.bak").rename(earlier)  # where the earlier deja kept it, and its record says so
    record = fake_home / ".config" / "deja" / "installed.json"
    ledger = json.loads(record.read_text())
    ledger["files"][str(mcp)]["backup"] = str(earlier)
    record.write_text(json.dumps(ledger))

    gone = run_deja("uninstall", "cursor", env=env, script=deja)

    assert gone.returncode == 0, gone.stderr
    assert target.read_text() == USERS_MCP and mcp.is_symlink()
    assert not earlier.exists()


def _linked_into_dotfiles(fake_home: Path, users: str) -> tuple[Path, Path]:
    """``~/.cursor/mcp.json``, a link to ``~/dotfiles/cursor/mcp.json`` holding ``users``: (the link, its target)."""
    target = fake_home / "dotfiles" / "cursor" / "mcp.json"
    target.parent.mkdir(parents=True)
    target.write_text(users)
    link = fake_home / ".cursor" / "mcp.json"
    link.parent.mkdir()
    link.symlink_to(target)
    return link, target


def _recorded_as_an_older_deja_kept_it(fake_home: Path, link: Path, backup: Path | None) -> None:
    """Move install's copy to ``<target>.bak``, where a deja before stop 58 kept it, and make the record say so
    (``backup``), or say nothing of where (None: a ledger older still, which only ever took that name)."""
    link.with_name("mcp.json.bak").rename(link.resolve().with_name("mcp.json.bak"))
    record = fake_home / ".config" / "deja" / "installed.json"
    ledger = json.loads(record.read_text())
    if backup is None:
        for key in ("backup", "backup_made"):
            ledger["files"][str(link)].pop(key)
    else:
        ledger["files"][str(link)]["backup"] = str(backup)
    record.write_text(json.dumps(ledger))


def test_an_earlier_dejas_copy_in_a_dotfiles_repo_goes_when_a_reinstall_takes_a_new_one(
    fake_home: Path, deja: Path
) -> None:
    """review58d F7: an earlier deja kept its copy of a linked ``mcp.json`` beside the link's target, in a dotfiles
    repository, tokens and all. The user took deja's server out by hand; a reinstall took a fresh copy beside the
    link and recorded that one: the copy in the repository was in no record, and stayed for good. Install removes
    it, and says so."""
    users = '{"mcpServers": {"gh": {"command": "gh", "env": {"GITHUB_TOKEN": "ghp_notARealTokenAtAll0123456789ab"}}}}\n'
    link, target = _linked_into_dotfiles(fake_home, users)
    env = {"HOME": str(fake_home), "PATH": str(deja.parent)}
    assert run_deja("install", "cursor", env=env, script=deja).returncode == 0
    earlier = target.with_name("mcp.json.bak")
    _recorded_as_an_older_deja_kept_it(fake_home, link, earlier)
    document = json.loads(target.read_text())
    del document["mcpServers"]["deja"]  # the user takes deja's server out by hand
    target.write_text(json.dumps(document, indent=2) + "\n")

    again = run_deja("install", "cursor", env=env, script=deja)

    assert again.returncode == 0, again.stderr
    assert f"removed {earlier}\n" in again.stdout, again.stdout
    kept = next(line for line in again.stdout.splitlines() if line.startswith("cursor: kept your file as it was in "))
    new_copy = kept.removeprefix("cursor: kept your file as it was in ")
    assert (
        f"cursor: {earlier}: the copy an earlier install of deja made; uninstall puts back {new_copy} now\n"
        in again.stdout
    )
    assert not earlier.exists() and sorted(p.name for p in target.parent.iterdir()) == ["mcp.json"]
    assert run_deja("uninstall", "cursor", env=env, script=deja).returncode == 0
    assert json.loads(target.read_text()) == document and link.is_symlink()
    assert sorted(p.name for p in target.parent.iterdir()) == ["mcp.json"]


def test_a_record_without_backup_finds_its_copy_beside_the_links_target(fake_home: Path, deja: Path) -> None:
    """review58d F10: a record an older deja wrote has no ``backup``: its ``<file>.bak`` is beside the file a link
    points to, where uninstall finds it and puts the file back byte for byte."""
    link, target = _linked_into_dotfiles(fake_home, USERS_MCP)
    env = {"HOME": str(fake_home), "PATH": str(deja.parent)}
    assert run_deja("install", "cursor", env=env, script=deja).returncode == 0
    _recorded_as_an_older_deja_kept_it(fake_home, link, None)

    assert run_deja("uninstall", "cursor", env=env, script=deja).returncode == 0

    assert target.read_text() == USERS_MCP and link.is_symlink()


def test_a_linked_file_with_no_record_comes_back_from_an_older_dejas_copy_beside_its_target(
    fake_home: Path, deja: Path
) -> None:
    """review58d F8: with no record (``installed.json`` gone), uninstall looked for ``<file>.bak`` beside the link
    only, where a deja before stop 58 kept a linked file's copy beside the link's target: the file came back at
    deja's layout (indent 2), not the user's."""
    users = '{\n    "mcpServers": {\n        "a": {"command": "a"}\n    }\n}\n'
    link, target = _linked_into_dotfiles(fake_home, users)
    env = {"HOME": str(fake_home), "PATH": str(deja.parent)}
    assert run_deja("install", "cursor", env=env, script=deja).returncode == 0
    link.with_name("mcp.json.bak").rename(target.with_name("mcp.json.bak"))
    (fake_home / ".config" / "deja" / "installed.json").unlink()

    assert run_deja("uninstall", "cursor", env=env, script=deja).returncode == 0

    assert target.read_text() == users and link.is_symlink()


def _without_deja(mcp: Path) -> str:
    """The user takes deja's server out of ``mcp`` by hand (an editor's own layout): the text left."""
    document = json.loads(mcp.read_text())
    del document["mcpServers"]["deja"]
    text = json.dumps(document, indent=4) + "\n"
    mcp.write_text(text)
    return text


def test_a_reinstall_never_removes_a_bak_the_user_made_where_deja_once_kept_its_copy(
    fake_home: Path, deja: Path
) -> None:
    """review59b F2: the record names ``mcp.json.bak`` as deja's copy; the user since deleted it and kept a backup of
    their own under that name before editing the file by hand. A reinstall removed it, unread against the record's
    hash of what deja copied: only deja's own copy goes."""
    mcp = fake_home / ".cursor" / "mcp.json"
    mcp.parent.mkdir()
    mcp.write_text(USERS_MCP)
    env = {"HOME": str(fake_home), "PATH": str(deja.parent)}
    assert run_deja("install", "cursor", env=env, script=deja).returncode == 0
    bak = mcp.with_name("mcp.json.bak")
    bak.unlink()  # the user tidies deja's copy away
    own = mcp.read_text()
    bak.write_text(own)  # ... and later keeps their own before an edit by hand
    _without_deja(mcp)

    again = run_deja("install", "cursor", env=env, script=deja)

    assert again.returncode == 0, again.stderr
    assert bak.read_text() == own and "removed" not in again.stdout, again.stdout


def test_a_reinstall_keeps_the_bak_its_record_names_when_an_older_record_spelt_it_through_the_link(
    fake_home: Path, deja: Path
) -> None:
    """review59b F5: GNU stow folds ``~/.cursor`` into a link to ``~/dotfiles/cursor/.cursor``; an older deja recorded
    its copy as ``realpath`` spelt it. The user restores the file from git (the same bytes as the copy) and
    reinstalls: the new record takes that very copy, which the removal of superseded copies, comparing paths as
    spelt, deleted; uninstall then could not give back the user's layout."""
    dots = fake_home / "dotfiles" / "cursor" / ".cursor"
    dots.mkdir(parents=True)
    layout = json.dumps(json.loads(USERS_MCP), indent=4) + "\n"
    (dots / "mcp.json").write_text(layout)
    (fake_home / ".cursor").symlink_to(dots)
    env = {"HOME": str(fake_home), "PATH": str(deja.parent)}
    assert run_deja("install", "cursor", env=env, script=deja).returncode == 0
    record = fake_home / ".config" / "deja" / "installed.json"
    ledger = json.loads(record.read_text())
    ledger["files"][str(fake_home / ".cursor" / "mcp.json")]["backup"] = str(dots / "mcp.json.bak")
    record.write_text(json.dumps(ledger))
    (dots / "mcp.json").write_text(layout)  # `git checkout .cursor/mcp.json` in the dotfiles repository

    again = run_deja("install", "cursor", env=env, script=deja)

    assert again.returncode == 0, again.stderr
    assert (dots / "mcp.json.bak").exists(), again.stdout
    assert run_deja("uninstall", "cursor", env=env, script=deja).returncode == 0
    assert (dots / "mcp.json").read_text() == layout
