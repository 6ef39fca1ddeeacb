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
