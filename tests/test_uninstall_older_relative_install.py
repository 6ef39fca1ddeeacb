"""An install an older deja made with a relative ``CURSOR_CONFIG_DIR`` is undone with the absolute folder (review46f M2).

Before the refusal of a relative value (trial46 F1), ``CURSOR_CONFIG_DIR=relcfg deja install cursor-auto`` recorded
its files under the relative spelling (``relcfg/mcp.json``) and the folders it made, or the ``.bak`` it took, by
their absolute paths. Uninstall now refuses ``relcfg``, and with the absolute folder it took deja's entries out but
left the files that install created (an emptied mcp.json and hooks.json, ``commands/``) and its records for good.
It undoes exactly what that install did now, and the refusal says which command does. A record is another folder's
file unless its records, or its key led from the folder uninstall runs in, place it there: by its name alone
(``mcp.json``, from ``CURSOR_CONFIG_DIR=.``) it took ``~/.cursor``'s and removed it (review47b M1); where uninstall
cannot tell, the file stays, emptied of deja's entries, and uninstall says so.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from harness import console_script, run_deja, snapshot

USERS_MCP = '{\n  "mcpServers": {"mine": {"command": "mine", "args": []}}\n}\n'


def _env(home: Path, scripts: str = "bin", **variables: str) -> dict[str, str]:
    """deja's console script in ``scripts`` first on PATH (what install records, as pip installs it), in ``home``."""
    script = console_script(home.parent / scripts)
    return {"HOME": str(home), "PATH": f"{script.parent}{os.pathsep}{os.environ['PATH']}", **variables}


def _deja(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_deja(*args, env=env, cwd=cwd, script=Path(env["PATH"].split(os.pathsep)[0], "deja"))


def _as_an_older_deja_recorded_it(home: Path, work: Path, config: Path | None = None) -> None:
    """The ledger's keys in ``config`` (``work/relcfg``) spelt relative to ``work``, as an older deja keyed them
    (``str(change.path)`` with ``CURSOR_CONFIG_DIR=relcfg``, run in ``work``); the folders and ``.bak`` it recorded
    stay absolute, as that deja wrote them (``_missing_folders`` and ``backup_path`` follow links: checked against
    d269801)."""
    config = config or work / "relcfg"
    ledger = home / ".config" / "deja" / "installed.json"
    record = json.loads(ledger.read_text())
    files = {os.path.relpath(key, work) if key.startswith(f"{config}/") else key: found
             for key, found in record["files"].items()}  # fmt: skip
    spelling = os.path.relpath(config, work)
    assert sorted(key for key in files if not key.startswith("/")) == [
        os.path.normpath(f"{spelling}/{file}") for file in ("commands/deja.md", "hooks.json", "mcp.json")
    ]
    ledger.write_text(json.dumps({**record, "files": files}, indent=2) + "\n")


@pytest.mark.parametrize(
    ("users_folder", "reinstalled"),
    [(False, False), (True, False), (False, True)],
    ids=["folder-made-by-install", "users-folder-and-mcp", "installed-again-from-another-venv"],
)
def test_the_absolute_folder_undoes_the_older_install_byte_for_byte(
    fake_home: Path, users_folder: bool, reinstalled: bool
) -> None:
    work, elsewhere = fake_home / "p1", fake_home / "elsewhere"
    work.mkdir()
    elsewhere.mkdir()
    config = work / "relcfg"
    if users_folder:  # (cursor-agent's own folder, with the user's server: install keeps a .bak of it)
        (config / "chats").mkdir(parents=True)
        (config / "mcp.json").write_text(USERS_MCP)
    before = snapshot(fake_home)
    absolute = _env(fake_home, CURSOR_CONFIG_DIR=str(config))
    assert _deja("install", "cursor-auto", env=absolute, cwd=work).returncode == 0
    _as_an_older_deja_recorded_it(fake_home, work)
    if reinstalled:  # (deja's entries rewritten with the absolute folder: recorded as found there, so knowing less)
        again = _deja("install", "cursor-auto", env=_env(fake_home, "bin2", CURSOR_CONFIG_DIR=str(config)), cwd=work)
        assert again.returncode == 0 and f"cursor-auto: updated {config}/mcp.json\n" in again.stdout, again.stdout
    installed = snapshot(fake_home)

    refused = _deja("uninstall", "cursor-auto", env=_env(fake_home, CURSOR_CONFIG_DIR="relcfg"), cwd=work)
    assert (refused.returncode, refused.stdout) == (1, "")
    assert refused.stderr == (
        "deja: CURSOR_CONFIG_DIR=relcfg: a relative folder is another one wherever deja or Cursor runs; run "
        f"CURSOR_CONFIG_DIR={config} deja uninstall cursor-auto: it undoes the install made with relcfg "
        "(deja changed nothing)\n"
    )
    assert snapshot(fake_home) == installed

    done = _deja("uninstall", "cursor-auto", env=absolute, cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    assert f"cursor-auto: removed {config}/hooks.json\n" in done.stdout
    assert snapshot(fake_home) == before


def test_the_older_install_keeps_the_shared_skill_while_it_is_there(fake_home: Path) -> None:
    """The skill is one for every Cursor install (``guidance``): uninstalling the one in ``~/.cursor`` keeps it while
    the older install in ``relcfg`` is there, which its relative record, read from another folder, did not say."""
    work, elsewhere = fake_home / "p1", fake_home / "elsewhere"
    work.mkdir()
    elsewhere.mkdir()
    config = work / "relcfg"
    before = snapshot(fake_home)
    absolute = _env(fake_home, CURSOR_CONFIG_DIR=str(config))
    assert _deja("install", "cursor-auto", env=absolute, cwd=work).returncode == 0
    assert _deja("install", "cursor-auto", env=_env(fake_home), cwd=work).returncode == 0
    _as_an_older_deja_recorded_it(fake_home, work)

    first = _deja("uninstall", "cursor-auto", env=_env(fake_home), cwd=elsewhere)
    skill = fake_home / ".agents" / "skills" / "deja-history" / "SKILL.md"
    assert f"cursor-auto: kept {skill}: deja's install in {config} uses it too\n" in first.stdout, first.stdout
    assert skill.is_file()
    assert _deja("uninstall", "cursor-auto", env=absolute, cwd=elsewhere).returncode == 0
    assert snapshot(fake_home) == before


def _refusal(value: str, fix: str) -> str:
    return (
        f"deja: CURSOR_CONFIG_DIR={value}: a relative folder is another one wherever deja or Cursor runs; {fix} (deja "
        "changed nothing)\n"
    )


def test_a_bare_file_name_is_no_other_folders_file(fake_home: Path) -> None:
    """``CURSOR_CONFIG_DIR=.`` keyed ``mcp.json`` and ``hooks.json``: any folder's. ``~/.cursor``'s, holding deja's
    entries with no record (a ledger kept under another ``XDG_CONFIG_HOME``), stay, emptied of them; the records,
    which place the install in p1 (the ``commands/`` it made), undo it there (review47b M1)."""
    work, cursor = fake_home / "p1", fake_home / ".cursor"
    work.mkdir()
    cursor.mkdir()
    before = snapshot(work)
    absolute = _env(fake_home, CURSOR_CONFIG_DIR=str(work))
    assert _deja("install", "cursor-auto", env=absolute, cwd=work).returncode == 0
    _as_an_older_deja_recorded_it(fake_home, work, config=work)
    for name in ("mcp.json", "hooks.json"):
        (cursor / name).write_bytes((work / name).read_bytes())

    for cwd in (cursor, fake_home):  # (a dry run from the folder itself, then the uninstall)
        dry_run = ("--dry-run",) if cwd == cursor else ()
        done = _deja("uninstall", "cursor-auto", *dry_run, env=_env(fake_home), cwd=cwd)
        assert done.returncode == 0, done.stderr
        assert "removed" not in done.stdout and f"updated {cursor}/mcp.json\n" in done.stdout, done.stdout
    assert json.loads((cursor / "mcp.json").read_text()) == {"mcpServers": {}}
    assert json.loads((cursor / "hooks.json").read_text()) == {"version": 1, "hooks": {}}

    done = _deja("uninstall", "cursor-auto", env=absolute, cwd=fake_home)
    assert done.returncode == 0 and f"cursor-auto: removed {work}/mcp.json\n" in done.stdout, done.stdout
    assert snapshot(work) == before


def test_an_install_its_records_place_nowhere_is_undone_from_where_it_ran(fake_home: Path) -> None:
    """``relcfg`` and its ``commands/`` were there (cursor-agent's folder, with a command of the user's): no record
    places the files install created. Its keys, led from the folder the refusal says to run in, do; from another
    folder uninstall cannot tell, so they stay, emptied, and it says so (by its name alone ``relcfg/mcp.json`` was any
    folder's called relcfg: review47b M1)."""
    work, elsewhere = fake_home / "p1", fake_home / "elsewhere"
    config = work / "relcfg"
    (config / "commands").mkdir(parents=True)
    (config / "commands" / "mine.md").write_text("my command\n")
    elsewhere.mkdir()
    before = snapshot(fake_home)
    absolute = _env(fake_home, CURSOR_CONFIG_DIR=str(config))
    assert _deja("install", "cursor-auto", env=absolute, cwd=work).returncode == 0
    _as_an_older_deja_recorded_it(fake_home, work)

    refused = _deja("uninstall", "cursor-auto", env=_env(fake_home, CURSOR_CONFIG_DIR="relcfg"), cwd=work)
    fix = (
        'in the folder the install with relcfg ran in, run CURSOR_CONFIG_DIR="$PWD"/relcfg deja uninstall '
        "cursor-auto: it undoes the install made with relcfg"
    )
    assert (refused.returncode, refused.stderr) == (1, _refusal("relcfg", fix))

    kept = _deja("uninstall", "cursor-auto", "--dry-run", env=absolute, cwd=elsewhere)
    stays = (
        f"cursor-auto: {config}/mcp.json stays: deja's record of an install made with CURSOR_CONFIG_DIR=relcfg may "
        "be of it, but does not say which folder that was, so whether that install created it is unknown\n"
    )
    assert f"cursor-auto: would be updated {config}/mcp.json\n{stays}" in kept.stdout, kept.stdout
    assert _deja("uninstall", "cursor-auto", env=absolute, cwd=work).returncode == 0
    assert snapshot(fake_home) == before


def test_a_key_with_dot_dot_is_undone_by_the_folder_the_refusal_names(fake_home: Path) -> None:
    """``CURSOR_CONFIG_DIR=../p2/relcfg``, run in p1, into the user's own folder: its mcp.json and hooks.json, placed
    by the ``commands/`` install made beside them, go with the rest (they stayed, emptied, with their records:
    review47b M2)."""
    work, elsewhere = fake_home / "p1", fake_home / "elsewhere"
    config = fake_home / "p2" / "relcfg"
    (config / "chats").mkdir(parents=True)
    work.mkdir()
    elsewhere.mkdir()
    before = snapshot(fake_home)
    absolute = _env(fake_home, CURSOR_CONFIG_DIR=str(config))
    assert _deja("install", "cursor-auto", env=absolute, cwd=work).returncode == 0
    _as_an_older_deja_recorded_it(fake_home, work, config=config)

    refused = _deja("uninstall", "cursor-auto", env=_env(fake_home, CURSOR_CONFIG_DIR="../p2/relcfg"), cwd=work)
    fix = f"run CURSOR_CONFIG_DIR={config} deja uninstall cursor-auto: it undoes the install made with ../p2/relcfg"
    assert (refused.returncode, refused.stderr) == (1, _refusal("../p2/relcfg", fix))
    done = _deja("uninstall", "cursor-auto", env=absolute, cwd=elsewhere)
    assert done.returncode == 0 and f"cursor-auto: removed {config}/mcp.json\n" in done.stdout, done.stdout
    assert snapshot(fake_home) == before


def test_the_refusal_of_a_spelling_no_install_was_made_with_names_the_folder_it_names_here(fake_home: Path) -> None:
    """An older install with ``relcfg`` in p1 is no install made with ``.`` in p2: the refusal named p1's folder and
    said it undid an install made with ``.`` (review47b L1)."""
    work, other = fake_home / "p1", fake_home / "p2"
    work.mkdir()
    other.mkdir()
    installed = _deja("install", "cursor-auto", env=_env(fake_home, CURSOR_CONFIG_DIR=str(work / "relcfg")), cwd=work)
    assert installed.returncode == 0
    _as_an_older_deja_recorded_it(fake_home, work)
    refused = _deja("uninstall", "cursor-auto", env=_env(fake_home, CURSOR_CONFIG_DIR="."), cwd=other)
    fix = f"here it names {other}: run CURSOR_CONFIG_DIR={other} deja uninstall cursor-auto"
    assert (refused.returncode, refused.stderr) == (1, _refusal(".", fix))


def test_the_folder_the_previous_deja_took_a_quoted_tilde_for_is_named_and_undone(fake_home: Path) -> None:
    """The previous deja wired ``$HOME/altcfg`` for ``CURSOR_CONFIG_DIR='~/altcfg'`` (absolute keys, as with that
    folder): the refusal now names it, and the uninstall it names gives the home back (review47b L3)."""
    config = fake_home / "altcfg"
    before = snapshot(fake_home)
    absolute = _env(fake_home, CURSOR_CONFIG_DIR=str(config))
    assert _deja("install", "cursor-auto", env=absolute, cwd=fake_home).returncode == 0
    refused = _deja("uninstall", "cursor-auto", env=_env(fake_home, CURSOR_CONFIG_DIR="~/altcfg"), cwd=fake_home)
    fix = f"an earlier deja took it for {config}: run CURSOR_CONFIG_DIR={config} deja uninstall cursor-auto"
    assert refused.returncode == 1 and refused.stderr.endswith(f"; {fix} (deja changed nothing)\n"), refused.stderr
    assert _deja("uninstall", "cursor-auto", env=absolute, cwd=fake_home).returncode == 0
    assert snapshot(fake_home) == before


def test_a_bare_file_name_its_records_place_nowhere_is_no_file_of_the_folder_uninstall_runs_in(
    fake_home: Path,
) -> None:
    """``CURSOR_CONFIG_DIR=.`` in p1, where ``commands/`` was: no record places its files. Run in ``~/.cursor``, whose
    files hold deja's entries with no record, uninstall keeps them, emptied, and says why: being run in a folder is no
    evidence a bare ``mcp.json`` is its file (review47b M1). Nor does the refusal of ``.`` name a folder it cannot
    tell."""
    work, cursor = fake_home / "p1", fake_home / ".cursor"
    (work / "commands").mkdir(parents=True)
    (work / "commands" / "mine.md").write_text("my command\n")
    cursor.mkdir()
    assert _deja("install", "cursor-auto", env=_env(fake_home, CURSOR_CONFIG_DIR=str(work)), cwd=work).returncode == 0
    _as_an_older_deja_recorded_it(fake_home, work, config=work)
    for name in ("mcp.json", "hooks.json", "commands/deja.md"):  # (deja's own command goes whatever the records say)
        (cursor / name).parent.mkdir(exist_ok=True)
        (cursor / name).write_bytes((work / name).read_bytes())

    refused = _deja("uninstall", "cursor-auto", env=_env(fake_home, CURSOR_CONFIG_DIR="."), cwd=work)
    fix = (
        "run CURSOR_CONFIG_DIR=<that folder's absolute path> deja uninstall cursor-auto: the records of the install "
        "made with . do not say which folder it was, so it takes deja's entries out and keeps those files"
    )
    assert (refused.returncode, refused.stderr) == (1, _refusal(".", fix))
    done = _deja("uninstall", "cursor-auto", env=_env(fake_home, CURSOR_CONFIG_DIR=str(cursor)), cwd=cursor)
    stays = (
        f"cursor-auto: {cursor}/hooks.json stays: deja's record of an install made with CURSOR_CONFIG_DIR=. may be of "
        "it, but does not say which folder that was, so whether that install created it is unknown\n"
    )
    assert f"cursor-auto: updated {cursor}/hooks.json\n{stays}" in done.stdout, done.stdout
    assert f"removed {cursor}/commands/deja.md\n" in done.stdout and "deja.md stays" not in done.stdout, done.stdout
    assert json.loads((cursor / "hooks.json").read_text()) == {"version": 1, "hooks": {}}
