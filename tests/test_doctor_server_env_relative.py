"""review50b: a relative DEJA_HOME in the env of deja's server in Cursor's mcp.json makes that server refuse every tool
call ("DEJA_HOME=… is relative", ``config.relative_folder``), yet doctor, which reads that env since trial50 F5, says
the hooks and the server see the same settings: ``_server_env_problems`` drops a relative folder (``_env_folder``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from test_doctor_server_env import SAME, doctor_with_server_env

if TYPE_CHECKING:
    from pathlib import Path


def test_a_relative_deja_home_in_the_servers_env_is_named(fake_home: Path, tmp_path: Path) -> None:
    text, settings = doctor_with_server_env(fake_home, tmp_path, {"DEJA_HOME": "rel/dir"})
    assert SAME not in text
    assert any("DEJA_HOME" in problem["message"] and "relative" in problem["message"] for problem in settings), settings


def test_it_says_what_to_do_once(fake_home: Path, tmp_path: Path) -> None:
    mcp = fake_home / ".cursor" / "mcp.json"
    _, settings = doctor_with_server_env(fake_home, tmp_path, {"DEJA_HOME": "rel/dir", "DEJA_CURSOR_ROOT": "/abs"})
    assert settings[0] == {
        "level": "error",
        "area": "settings",
        "message": f"deja's MCP server gets DEJA_HOME=rel/dir from its env in {mcp}: a relative folder, so it answers "
        "every tool call that it refuses it",
        "fix": "give DEJA_HOME an absolute path in that env, or remove it",
    }
    assert sum("DEJA_HOME" in problem["message"] for problem in settings) == 1, settings
