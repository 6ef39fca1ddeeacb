"""``CURSOR_CONFIG_DIR`` as install, uninstall and doctor take it (trial46 F1, F3, F4).

A relative one is another folder wherever deja runs: an uninstall run from another folder found nothing, dropped the
install's record, and the right one then left deja's ``.bak`` files and an empty ``commands/`` for good. Install and
uninstall refuse it in one line, doctor names it, a hook takes it as unset; so is a ``~`` no shell expanded. One naming no folder is said (install makes it, doctor warns). The
variable moves one folder, cursor-agent's config root: doctor names that one, and says nothing once deja is wired
there and in ``~/.cursor``, as README "Install into Cursor" recommends. ``deja install cursor`` over ``cursor-auto``
says it keeps deja's hooks.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from harness import console_script, run_deja

USERS_MCP = '{\n  "mcpServers": {"mine": {"command": "mine", "args": []}}\n}\n'
REFUSED = (
    "deja: CURSOR_CONFIG_DIR=relcfg: a relative folder is another one wherever deja or Cursor runs; give "
    "CURSOR_CONFIG_DIR an absolute path, or unset it (deja changed nothing)\n"
)


def _env(home: Path, **variables: str) -> dict[str, str]:
    """deja's console script first on PATH (what install records, as pip installs it), in the home ``home``."""
    script = console_script(home.parent / "bin")
    return {"HOME": str(home), "PATH": f"{script.parent}{os.pathsep}{os.environ['PATH']}", **variables}


def _deja(*args: str, env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return run_deja(*args, env=env, cwd=cwd, script=Path(env["PATH"].split(os.pathsep)[0], "deja"))


def _settings(env: dict[str, str]) -> list[dict[str, str]]:
    report = json.loads(_deja("doctor", "--json", env=env).stdout)
    return [p for p in report["problems"] if p["area"] == "settings"]


@pytest.mark.parametrize("command", ["install", "uninstall"])
@pytest.mark.parametrize("target", ["cursor", "cursor-auto"])
def test_a_relative_folder_is_refused_in_one_line_and_nothing_changes(
    fake_home: Path, command: str, target: str
) -> None:
    work = fake_home / "work"
    (work / "relcfg").mkdir(parents=True)
    (work / "relcfg" / "mcp.json").write_text(USERS_MCP)
    # (with no record of an older deja's install made with it, uninstall names the folder it names here: review47b L1)
    here = f"here it names {work}/relcfg: run CURSOR_CONFIG_DIR={work}/relcfg deja uninstall {target}"
    refused = REFUSED.replace("give CURSOR_CONFIG_DIR an absolute path, or unset it", here)
    for dry_run in ((), ("--dry-run",)):
        done = _deja(command, target, *dry_run, env=_env(fake_home, CURSOR_CONFIG_DIR="relcfg"), cwd=work)
        assert (done.returncode, done.stdout, done.stderr) == (1, "", REFUSED if command == "install" else refused)
    assert sorted(p.name for p in (work / "relcfg").iterdir()) == ["mcp.json"]
    assert (work / "relcfg" / "mcp.json").read_text() == USERS_MCP
    assert not (fake_home / ".agents").exists() and not (fake_home / ".cursor").exists()


def test_doctor_names_a_relative_folder_as_an_error(fake_home: Path) -> None:
    (fake_home / "relcfg").mkdir()
    [found] = _settings(_env(fake_home, CURSOR_CONFIG_DIR="relcfg"))
    assert found == {
        "level": "error",
        "area": "settings",
        "message": "CURSOR_CONFIG_DIR=relcfg: a relative folder is another one wherever deja or Cursor runs, so deja "
        "install and uninstall refuse it",
        "fix": "give CURSOR_CONFIG_DIR an absolute path, or unset it",
    }


def test_doctor_takes_no_relative_folder_for_one_deja_is_wired_in(
    fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Settings' ok line for the two-folder setup is of an absolute folder: a relative one, wired or not, names no
    folder Cursor's processes could be started with (it claimed ``deja is wired in …/relcfg`` with nothing wired
    anywhere: review47b L4). Doctor shows the error instead, and only that."""
    from deja.interfaces import doctor

    (fake_home / "relcfg").mkdir()
    monkeypatch.chdir(fake_home)
    monkeypatch.setenv("CURSOR_CONFIG_DIR", "relcfg")
    assert doctor._settings_ok_line() == (
        "  ok     the hooks and the MCP server see the same settings and Cursor folders as this shell"
    )
    assert [found["level"] for found in _settings(_env(fake_home, CURSOR_CONFIG_DIR="relcfg"))] == ["error"]


def test_a_missing_folder_is_named_by_doctor_and_by_the_install_that_makes_it(fake_home: Path) -> None:
    typo = fake_home / "no-such" / "cfg"
    env = _env(fake_home, CURSOR_CONFIG_DIR=str(typo))
    [found] = _settings(env)
    assert (found["level"], found["message"], found["fix"]) == (
        "warn",
        f"CURSOR_CONFIG_DIR names {typo}, which does not exist: cursor-agent keeps nothing there yet",
        "check the folder CURSOR_CONFIG_DIR names, or unset it",
    )
    note = f"cursor: CURSOR_CONFIG_DIR names {typo}, which does not exist: "
    dry = _deja("install", "cursor", "--dry-run", env=env)
    assert dry.returncode == 0 and f"{note}would create it\n" in dry.stdout, dry.stdout
    done = _deja("install", "cursor", env=env)
    assert done.returncode == 0 and done.stdout.endswith(f"{note}created it\n"), done.stdout
    again = _deja("install", "cursor", env=env)
    assert again.returncode == 0 and "does not exist" not in again.stdout, again.stdout


def test_doctor_names_only_the_folder_the_variable_moves_until_both_are_wired(fake_home: Path) -> None:
    (fake_home / ".config" / "cursor").mkdir(parents=True)  # (read, but not moved by the variable)
    (fake_home / "altcfg").mkdir()
    env = _env(fake_home, CURSOR_CONFIG_DIR=str(fake_home / "altcfg"))
    assert _deja("install", "cursor-auto", env=env).returncode == 0
    [found] = _settings(env)
    assert found["message"] == (
        f"CURSOR_CONFIG_DIR is set in this shell and moves cursor-agent's folder to {fake_home}/altcfg; Cursor's "
        "hooks and MCP server do not read it unless Cursor is started with the same variable"
    )
    assert found["fix"] == (
        "start Cursor from a shell that sets CURSOR_CONFIG_DIR; or, for cursor-agent alone, deja install cursor-auto "
        "here and env -u CURSOR_CONFIG_DIR deja install cursor-auto"
    )
    assert _deja("install", "cursor-auto", env=_env(fake_home)).returncode == 0  # (README's `env -u …`)
    assert _settings(env) == []
    said = " ".join(_deja("doctor", env=env).stdout.split())
    assert (
        f"Settings ok deja is wired in {fake_home}/altcfg (CURSOR_CONFIG_DIR's, for cursor-agent run with it) and in "
        f"~/.cursor: the hooks and MCP server started from ~/.cursor see this shell's settings, but do not read "
        f"{fake_home}/altcfg Delivery"
    ) in said, said
    assert "Settings ok the hooks and the MCP server see the same settings" in " ".join(
        _deja("doctor", env=_env(fake_home)).stdout.split()
    )


def test_installing_cursor_over_cursor_auto_says_it_keeps_the_hooks(fake_home: Path) -> None:
    env = _env(fake_home)
    assert _deja("install", "cursor-auto", env=env).returncode == 0
    hooks = fake_home / ".cursor" / "hooks.json"
    before = hooks.read_bytes()
    done = _deja("install", "cursor", env=env)
    said = f"cursor: kept deja's hooks in {hooks}: deja uninstall cursor && deja install cursor drops them\n"
    assert done.returncode == 0 and done.stdout.endswith(said), done.stdout
    assert hooks.read_bytes() == before
    assert _deja("uninstall", "cursor", env=env).returncode == 0
    fresh = _deja("install", "cursor", env=env)
    assert fresh.returncode == 0 and "hooks" not in fresh.stdout and not hooks.exists(), fresh.stdout


@pytest.mark.parametrize("value", ["relcfg", "~/altcfg"])
def test_a_hook_takes_a_relative_folder_as_unset(
    fake_home: Path, cli_root: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    """A hook runs in whatever folder Cursor starts it in, so a relative CURSOR_CONFIG_DIR names no folder it can
    place, as install and uninstall refuse it: ``~/.cursor``, where user hooks run, stays Cursor's own folder and
    no project (the value was taken as given, a folder no path is in, and ``~/.cursor`` was the command's)."""
    from deja.core.writers.cursor_agent import assistant_turn, tool_use, transcript_path, user_turn, write_transcript

    shop = fake_home / "code" / "shop"
    shop.mkdir(parents=True)
    run = assistant_turn("Running the tests.", tool_use("Shell", {"command": "pytest -q"}))
    write_transcript(transcript_path(cli_root, str(shop), "c-shop"), [user_turn("the cart test fails"), run])
    assert run_deja("index").returncode == 0
    monkeypatch.setenv("CURSOR_CONFIG_DIR", value)
    monkeypatch.setenv("CURSOR_PROJECT_DIR", str(shop))
    payload = {  # (no workspace_roots: the project is the cwd unless it is no project, then CURSOR_PROJECT_DIR)
        "conversation_id": "c-now",
        "hook_event_name": "preToolUse",
        "cursor_version": "3.20.17",
        "cwd": str(fake_home / ".cursor"),
        "tool_name": "Shell",
        "tool_input": {"command": "pytest -q"},
    }
    ran = run_deja("hook-tool", input=json.dumps(payload), cwd=fake_home)
    assert ran.returncode == 0 and not ran.stderr, ran.stderr
    assert "`pytest -q` ran 1 time in this project before" in ran.stdout, ran.stdout


def test_a_tilde_no_shell_expanded_is_a_relative_folder(fake_home: Path) -> None:
    """``CURSOR_CONFIG_DIR='~/altcfg'``: a shell leaves a quoted ``~`` as it is, so what reads the variable as a
    path gets a folder named ``~``; deja wired ``$HOME/altcfg`` (review46f L3). Refused and named as relative."""
    env = _env(fake_home, CURSOR_CONFIG_DIR="~/altcfg")
    problem = (
        "CURSOR_CONFIG_DIR=~/altcfg: a ~ no shell expanded (it was in quotes) makes a relative folder, another one "
        "wherever deja or Cursor runs"
    )
    fixes = {  # (uninstall names the folder the previous deja wired for it: review47b L3)
        "install": "give CURSOR_CONFIG_DIR an absolute path, or unset it",
        "uninstall": f"an earlier deja took it for {fake_home}/altcfg: run CURSOR_CONFIG_DIR={fake_home}/altcfg deja "
        "uninstall cursor-auto",
    }
    for command, fix in fixes.items():
        done = _deja(command, "cursor-auto", env=env, cwd=fake_home)
        assert (done.returncode, done.stdout, done.stderr) == (
            1,
            "",
            f"deja: {problem}; {fix} (deja changed nothing)\n",
        )
    assert sorted(path.name for path in fake_home.iterdir()) == []
    [found] = _settings(env)
    assert (found["level"], found["message"]) == ("error", f"{problem}, so deja install and uninstall refuse it")
