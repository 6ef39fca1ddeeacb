"""deja installed twice for Cursor, in ``~/.cursor`` and in ``$CURSOR_CONFIG_DIR``: each uninstall undoes its own.

Both installs use the one skill in ``~/.agents/skills`` (``installers.guidance``): uninstalling either leaves it to
the other, whose wiring doctor then finds whole, and the last uninstall removes it, leaving the home as it was
(review45g M3: the first uninstall took the skill from the other install, and doctor said "no SKILL.md").
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from harness import console_script, run_deja

SKILL = Path(".agents", "skills", "deja-history", "SKILL.md")
USERS_MCP = '{\n  "mcpServers": {"mine": {"command": "mine", "args": []}}\n}\n'
USERS_SKILL = "---\nname: mine\ndescription: my own skill\n---\nmine\n"


def _files(home: Path) -> dict[str, bytes]:
    """Every file and folder under ``home`` (a folder as ``b"/"``), as the user would list them."""
    return {
        str(path.relative_to(home)): b"/" if path.is_dir() else path.read_bytes() for path in sorted(home.rglob("*"))
    }


def _wiring_problems(env: dict[str, str], script: Path) -> list[str]:
    """What ``deja doctor`` finds wrong with the wiring it checks in ``env``."""
    report = json.loads(run_deja("doctor", "--json", env=env, script=script).stdout)
    return [finding["message"] for finding in report["wiring"] if finding["level"] != "ok"]


def _two_installs(home: Path, tmp_path: Path) -> tuple[Path, dict[str, dict[str, str]]]:
    """deja's script, and the environments of its two Cursor installs, made under ``home``: in ``~/.cursor``
    (``default``), and in ``$CURSOR_CONFIG_DIR`` (``variable``)."""
    script = console_script(tmp_path / "bin")
    default = {"HOME": str(home), "PATH": str(script.parent), "DEJA_HOME": str(tmp_path / "index")}
    installs = {"default": default, "variable": {**default, "CURSOR_CONFIG_DIR": str(home / "agent-config")}}
    for env in installs.values():
        assert run_deja("install", "cursor-auto", env=env, script=script).returncode == 0
    return script, installs


@pytest.mark.parametrize("users_agents", ["a-skill-of-the-users", "an-empty-skills-folder", "no-agents-folder"])
@pytest.mark.parametrize("first", ["default", "variable"])
def test_each_uninstall_leaves_the_other_install_whole_and_the_last_leaves_nothing(
    fake_home: Path, tmp_path: Path, first: str, users_agents: str
) -> None:
    """An empty ``~/.agents/skills`` of the user's stays too: the first uninstall keeps install's record of the skill
    (review46a M1), without which the last took every folder above it that the skill's removal left empty."""
    if users_agents == "a-skill-of-the-users":
        (fake_home / ".agents" / "skills" / "mine").mkdir(parents=True)
        (fake_home / ".agents" / "skills" / "mine" / "SKILL.md").write_text(USERS_SKILL)
    if users_agents == "an-empty-skills-folder":
        (fake_home / ".agents" / "skills").mkdir(parents=True)
    (fake_home / ".cursor").mkdir()
    (fake_home / ".cursor" / "mcp.json").write_text(USERS_MCP)
    before = _files(fake_home)
    script, installs = _two_installs(fake_home, tmp_path)
    second = "variable" if first == "default" else "default"

    gone = run_deja("uninstall", "cursor-auto", env=installs[first], script=script)

    assert gone.returncode == 0, gone.stderr
    other = fake_home / ".cursor" if second == "default" else fake_home / "agent-config"
    assert f"cursor-auto: kept {fake_home / SKILL}: deja's install in {other} uses it too\n" in gone.stdout
    assert "<!-- Written by `deja install`" in (fake_home / SKILL).read_text()
    assert _wiring_problems(installs[second], script) == []

    last = run_deja("uninstall", "cursor-auto", env=installs[second], script=script)

    assert last.returncode == 0, last.stderr
    assert f"cursor-auto: removed {fake_home / SKILL}\n" in last.stdout
    assert _files(fake_home) == before, "nothing of deja's left, the user's files as they were"


@pytest.mark.parametrize("other_command", ["its-folder-deleted", "the-users-own"])
def test_an_install_whose_command_is_gone_or_the_users_no_longer_keeps_the_skill(
    fake_home: Path, tmp_path: Path, other_command: str
) -> None:
    """The record names the other install's ``/deja`` command, but its config folder was deleted, or the command
    is now the user's own: that install is gone, so uninstalling this one removes the skill it would have kept."""
    script, installs = _two_installs(fake_home, tmp_path)
    other = fake_home / "agent-config"
    if other_command == "its-folder-deleted":
        shutil.rmtree(other)
    else:
        (other / "commands" / "deja.md").write_text("my own /deja command\n")

    gone = run_deja("uninstall", "cursor-auto", env=installs["default"], script=script)

    assert gone.returncode == 0, gone.stderr
    assert f"cursor-auto: removed {fake_home / SKILL}\n" in gone.stdout
    assert "uses it too" not in gone.stdout
    assert not (fake_home / ".agents").exists()
