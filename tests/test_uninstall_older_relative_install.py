"""An install an older deja made with a relative ``CURSOR_CONFIG_DIR`` is undone with the absolute folder (review46f M2).

Before the refusal of a relative value (trial46 F1), ``CURSOR_CONFIG_DIR=relcfg deja install cursor-auto`` recorded
its files under the relative spelling (``relcfg/mcp.json``) and the folders it made, or the ``.bak`` it took, by
their absolute paths. Uninstall now refuses ``relcfg``, and with the absolute folder it took deja's entries out but
left the files that install created (an emptied mcp.json and hooks.json, ``commands/``) and its records for good.
It undoes exactly what that install did now, and the refusal says which command does.
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


def _as_an_older_deja_recorded_it(home: Path, work: Path) -> None:
    """The ledger's keys under ``work`` spelt relative to it, as an older deja keyed them (``str(change.path)``
    with ``CURSOR_CONFIG_DIR=relcfg``, run in ``work``); the folders and ``.bak`` it recorded stay absolute, as
    that deja wrote them (``_missing_folders`` and ``backup_path`` follow links: checked against d269801)."""
    ledger = home / ".config" / "deja" / "installed.json"
    record = json.loads(ledger.read_text())
    files = {os.path.relpath(key, work) if key.startswith(f"{work}/") else key: found
             for key, found in record["files"].items()}  # fmt: skip
    assert sorted(key for key in files if not key.startswith("/")) == [
        "relcfg/commands/deja.md",
        "relcfg/hooks.json",
        "relcfg/mcp.json",
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
