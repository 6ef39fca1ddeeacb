"""A HOME that names a folder that is not there (a service account, a typo, a container without one): commands say
so in one line, exit 1, and the hooks stay silent; none of them makes the folder.

Before, every entrypoint made the whole path and an empty index in it, and `deja sessions` answered "No sessions
found" as if the person had no history (trial10 F11). An index set elsewhere is read as usual.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from harness import run_deja

from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """This process's environment (the fake HOME's overrides already dropped) with HOME where nothing is."""
    return {**os.environ, "HOME": str(tmp_path / "gone" / "home"), **extra}


@pytest.mark.parametrize("command", [["sessions", "--limit", "1"], ["search", "pytest"], ["index"], ["doctor"]])
def test_a_command_names_the_missing_home_folder_and_makes_nothing(tmp_path: Path, command: list[str]) -> None:
    ran = run_deja(*command, env=_env(tmp_path))
    assert (ran.returncode, ran.stdout) == (1, "")
    assert ran.stderr == (
        f"deja: your home folder {tmp_path}/gone/home does not exist: set HOME to a folder that does, or DEJA_HOME "
        "to one deja may keep its index in\n"
    )
    assert not (tmp_path / "gone").exists()


@pytest.mark.parametrize(
    ("hook", "payload"),
    [
        ("hook-context", {"hook_event_name": "sessionStart", "workspace_roots": ["/work/web"]}),
        ("hook-prompt", {"hook_event_name": "beforeSubmitPrompt", "prompt": "why does the pytest run fail again"}),
    ],
)
def test_a_hook_stays_silent_and_makes_nothing(tmp_path: Path, hook: str, payload: dict[str, object]) -> None:
    ran = run_deja(hook, env=_env(tmp_path), input=orjson.dumps({"conversation_id": "c1", **payload}).decode())
    assert ran.returncode == 0 and ran.stderr == "", ran.stderr
    assert "additional_context" not in ran.stdout
    assert not (tmp_path / "gone").exists()


@pytest.mark.parametrize("variable", ["DEJA_HOME", "XDG_CACHE_HOME"])
def test_an_index_set_elsewhere_is_used_as_usual(tmp_path: Path, variable: str) -> None:
    """DEJA_HOME (or XDG_CACHE_HOME) names a folder whose parent exists: the missing HOME is not deja's concern."""
    cli = tmp_path / "cli"
    write_transcript(
        transcript_path(cli, "/work/web", "c1"), [user_turn("why is the okapi slow"), assistant_turn("N+1.")]
    )
    env = _env(tmp_path, **{variable: str(tmp_path / "elsewhere"), "DEJA_CURSOR_CLI_ROOT": str(cli)})
    ran = run_deja("sessions", env=env)
    assert ran.returncode == 0 and "why is the okapi slow" in ran.stdout, ran.stderr
    assert (tmp_path / "elsewhere").is_dir() and not (tmp_path / "gone").exists()


def test_a_relative_home_that_is_not_there_is_named_too(tmp_path: Path) -> None:
    """``HOME=relhome`` stopped every command with a traceback (``os.path.commonpath`` of an absolute and a relative
    path, trial11 F9)."""
    ran = run_deja("sessions", env={**os.environ, "HOME": "relhome"}, cwd=tmp_path)
    assert (ran.returncode, ran.stdout) == (1, "")
    assert ran.stderr.startswith("deja: your home folder relhome does not exist: set HOME"), ran.stderr
    assert not (tmp_path / "relhome").exists()


@pytest.mark.parametrize("command", [["install", "cursor"], ["config", "set", "recall", "off"]])
def test_a_command_that_writes_under_home_names_it_missing_with_deja_home_set(
    tmp_path: Path, command: list[str]
) -> None:
    """With ``DEJA_HOME`` elsewhere (the way out the line above offers), ``deja install`` said "check its
    permissions" of a folder that is not there, and ``config set`` "No such file or directory" (review12 R4)."""
    ran = run_deja(*command, env=_env(tmp_path, DEJA_HOME=str(tmp_path / "dh")))
    assert (ran.returncode, ran.stdout) == (1, "")
    assert ran.stderr == f"deja: your home folder {tmp_path}/gone/home does not exist: set HOME to a folder that does\n"
    assert not (tmp_path / "gone").exists()


def _unmounted(tmp_path: Path) -> dict[str, str]:
    """DEJA_HOME on a drive that is not mounted: neither the home nor the folder it is in is there (trial60 F8)."""
    return {**os.environ, "DEJA_HOME": str(tmp_path / "media" / "usb" / "deja")}


def _parent_missing_line(tmp_path: Path) -> str:
    return (
        f"deja: DEJA_HOME is {tmp_path}/media/usb/deja, whose folder {tmp_path}/media/usb does not exist (a drive not "
        f"mounted?); deja makes its home but no folder above it: mount that drive or mkdir -p {tmp_path}/media/usb, or "
        "set DEJA_HOME to another folder"
    )


@pytest.mark.parametrize("command", [["sessions", "--limit", "1"], ["search", "pytest"], ["index"], ["hooks", "log"]])
def test_a_command_names_the_missing_folder_above_a_home_set_and_makes_nothing(
    tmp_path: Path, command: list[str]
) -> None:
    """Each command made the whole path and an empty index on the disk below the mount point (trial60 F8)."""
    ran = run_deja(*command, env=_unmounted(tmp_path))
    assert (ran.returncode, ran.stdout, ran.stderr) == (1, "", _parent_missing_line(tmp_path) + "\n")
    assert not (tmp_path / "media").exists()


def test_a_home_set_in_the_config_file_names_the_setting_to_change(tmp_path: Path) -> None:
    (tmp_path / "media").mkdir()
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    assert run_deja("config", "set", "home", str(tmp_path / "media" / "deja"), env=env).returncode == 0
    (tmp_path / "media").rmdir()
    env.pop("DEJA_HOME", None)
    ran = run_deja("sessions", env=env)
    assert (ran.returncode, ran.stdout) == (1, "")
    assert ran.stderr == (
        f"deja: deja's home (deja config set home) is {tmp_path}/media/deja, whose folder {tmp_path}/media does not "
        f"exist (a drive not mounted?); deja makes its home but no folder above it: mount that drive or mkdir -p "
        f"{tmp_path}/media, or deja config set home DIR\n"
    )
    assert not (tmp_path / "media").exists()


@pytest.mark.parametrize(
    ("hook", "payload"),
    [
        ("hook-context", {"hook_event_name": "sessionStart", "workspace_roots": ["/work/web"]}),
        ("hook-prompt", {"hook_event_name": "beforeSubmitPrompt", "prompt": "why does the pytest run fail again"}),
        ("hook-tool", {"hook_event_name": "preToolUse", "tool_name": "Shell", "tool_input": {"command": "pytest"}}),
    ],
)
def test_a_hook_says_once_which_folder_is_missing_and_makes_nothing(
    tmp_path: Path, hook: str, payload: dict[str, object]
) -> None:
    """A hook has no hooks.log to write (it would be in the home): it says why on stderr, which Cursor keeps in its
    Hooks output, as it does when it cannot write hooks.log; it starts no build that would make the home."""
    ran = run_deja(hook, env=_unmounted(tmp_path), input=orjson.dumps({"conversation_id": "c1", **payload}).decode())
    assert (ran.returncode, ran.stdout) == (0, ""), ran.stderr
    assert ran.stderr == _parent_missing_line(tmp_path) + "; the hooks stay silent until then\n"
    assert not (tmp_path / "media").exists()


def test_doctor_names_the_missing_folder_above_the_home_as_an_error(tmp_path: Path) -> None:
    ran = run_deja("doctor", env=_unmounted(tmp_path))
    assert ran.returncode == 1, ran.stdout
    assert (
        f"ERROR  DEJA_HOME is {tmp_path}/media/usb/deja, whose folder {tmp_path}/media/usb does not exist (a drive not "
        "mounted?): deja makes no folder above its home\n"
        f"         fix: mount that drive or mkdir -p {tmp_path}/media/usb, or set DEJA_HOME to another folder\n"
    ) in ran.stdout
    assert not (tmp_path / "media").exists()


def test_config_set_home_refuses_a_folder_whose_own_folder_is_not_there(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    ran = run_deja("config", "set", "home", str(tmp_path / "media" / "usb" / "deja"), env=env)
    assert (ran.returncode, ran.stdout) == (2, "")
    assert ran.stderr == (
        f"deja: home: {tmp_path}/media/usb does not exist, and deja makes no folder above its home; make it first "
        "(mount its drive), or give another folder\n"
    )
    assert not (tmp_path / "media").exists() and not (tmp_path / "config" / "deja" / "config.toml").exists()
