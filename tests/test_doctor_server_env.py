"""Doctor reads the ``env`` of deja's own server in Cursor's mcp.json, which Cursor gives that server and not the hooks
(trial50 F5): with ``DEJA_HOME`` there the server built and served an index of its own while doctor said "the hooks
and the MCP server see the same settings and Cursor folders as this shell"."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from harness import console_script, path_with, run_deja

from deja.installers.wiring import other_deja_wired

SAME = "ok     the hooks and the MCP server see the same settings and Cursor folders as this shell"


def doctor_with_server_env(
    fake_home: Path, tmp_path: Path, env: dict[str, str], **entry: str
) -> tuple[str, list[dict[str, str]]]:
    """Doctor's text and its settings findings, once deja is installed and its server entry given ``env`` (and the
    other keys of ``entry``)."""
    script = console_script(tmp_path / "venv" / "bin")
    shell = {**os.environ, "PATH": path_with(script)}
    assert run_deja("install", "cursor-auto", script=script, env=shell).returncode == 0
    mcp = fake_home / ".cursor" / "mcp.json"
    document = json.loads(mcp.read_text())
    document["mcpServers"]["deja"].update(env=env, **entry)
    mcp.write_text(json.dumps(document, indent=2))
    text = run_deja("doctor", script=script, env={**shell, "COLUMNS": "1000"}).stdout
    found = json.loads(run_deja("doctor", "--json", script=script, env=shell).stdout)["problems"]
    return text, [problem for problem in found if problem["area"] == "settings"]


def test_a_deja_home_in_the_servers_env_names_the_index_it_serves(fake_home: Path, tmp_path: Path) -> None:
    own = tmp_path / "mcp-own-home"
    mcp = fake_home / ".cursor" / "mcp.json"
    text, settings = doctor_with_server_env(fake_home, tmp_path, {"DEJA_HOME": str(own), "GITHUB_TOKEN": "x"})
    assert settings == [
        {
            "level": "warn",
            "area": "settings",
            "message": f"deja's MCP server gets DEJA_HOME from its env in {mcp}: it builds and serves the index under "
            f"{own}/index, while the hooks use {fake_home}/.cache/deja/index",
            "fix": f"remove DEJA_HOME from that env, or deja config set home {own} for the hooks and commands too",
        }
    ]
    assert SAME not in text


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        ("DEJA_NO_REDACT", "1", "it uses false for redact, the hooks true"),
        ("CURSOR_DATA_DIR", "/elsewhere", "it reads cursor-agent's folder there, the hooks do not"),
    ],
)
def test_another_deja_variable_in_the_servers_env_is_named(
    fake_home: Path, tmp_path: Path, variable: str, value: str, said: str
) -> None:
    mcp = fake_home / ".cursor" / "mcp.json"
    _, settings = doctor_with_server_env(fake_home, tmp_path, {variable: value})
    assert [problem["message"] for problem in settings] == [
        f"deja's MCP server gets {variable}={value} from its env in {mcp}: {said}"
    ]


def test_an_env_that_changes_nothing_of_deja_keeps_the_ok_line(fake_home: Path, tmp_path: Path) -> None:
    """The hooks' own home spelt out, and a variable deja never reads: the server sees what the hooks see."""
    env = {"DEJA_HOME": str(fake_home / ".cache" / "deja"), "GITHUB_TOKEN": "ghp_x"}
    text, settings = doctor_with_server_env(fake_home, tmp_path, env)
    assert settings == []
    assert SAME in text


def test_cursors_placeholders_in_the_servers_env_are_read_as_cursor_expands_them(
    fake_home: Path, tmp_path: Path
) -> None:
    """``${userHome}`` in the server's ``DEJA_HOME``: Cursor expands it as it starts the server, and doctor read it as
    written, a relative folder, and said the server refused every tool call."""
    text, settings = doctor_with_server_env(fake_home, tmp_path, {"DEJA_HOME": "${userHome}${/}.cache/deja"})
    assert settings == []
    assert SAME in text


def test_a_value_naming_the_window_is_said_to_be_one_doctor_cannot_check(fake_home: Path, tmp_path: Path) -> None:
    mcp = fake_home / ".cursor" / "mcp.json"
    text, settings = doctor_with_server_env(fake_home, tmp_path, {"DEJA_HOME": "${workspaceFolder}/.deja"})
    assert [problem["message"] for problem in settings] == [
        f"deja's MCP server gets DEJA_HOME=${{workspaceFolder}}/.deja from its env in {mcp}: Cursor gives it another "
        "value in each window, which doctor cannot check; the hooks do not get it"
    ]
    assert SAME not in text


def test_a_shell_style_home_in_the_servers_env_is_the_relative_folder_cursor_passes_on(
    fake_home: Path, tmp_path: Path
) -> None:
    """review51a M1: Cursor expands ``${env:HOME}``, not ``${HOME}``: the server gets ``${HOME}/.deja`` as written,
    a relative folder, and refuses every tool call, which doctor says (it had said only that Cursor gives it
    another value in each window)."""
    _, settings = doctor_with_server_env(fake_home, tmp_path, {"DEJA_HOME": "${HOME}/.deja"})
    assert [problem["level"] for problem in settings] == ["error"]
    assert "a relative folder" in settings[0]["message"]


def test_a_deja_home_from_the_servers_env_file_names_the_index_it_serves(fake_home: Path, tmp_path: Path) -> None:
    """review51a L6: Cursor gives a stdio server the variables of its ``envFile`` too; doctor read only ``env``, so a
    DEJA_HOME set there escaped it and it said the server saw the hooks' settings."""
    own = tmp_path / "from-file"
    env_file = tmp_path / "deja.env"
    env_file.write_text(f"# the server's own\nexport DEJA_HOME='{own}'\nGITHUB_TOKEN=x\n")
    text, settings = doctor_with_server_env(fake_home, tmp_path, {}, envFile=str(env_file))
    assert [problem["message"] for problem in settings] == [
        f"deja's MCP server gets DEJA_HOME from its envFile {env_file}: it builds and serves the index under "
        f"{own}/index, while the hooks use {fake_home}/.cache/deja/index"
    ]
    assert SAME not in text


def test_the_servers_env_wins_over_its_env_file(fake_home: Path, tmp_path: Path) -> None:
    env_file = tmp_path / "deja.env"
    env_file.write_text(f"DEJA_HOME={tmp_path / 'from-file'}\n")
    env = {"DEJA_HOME": str(fake_home / ".cache" / "deja")}
    text, settings = doctor_with_server_env(fake_home, tmp_path, env, envFile=str(env_file))
    assert settings == []
    assert SAME in text


def test_an_env_file_doctor_cannot_read_is_said(fake_home: Path, tmp_path: Path) -> None:
    mcp = fake_home / ".cursor" / "mcp.json"
    text, settings = doctor_with_server_env(fake_home, tmp_path, {}, envFile=".env")
    assert [problem["message"] for problem in settings] == [
        f"deja's MCP server gets the variables of its envFile .env (not an absolute path) in {mcp}, which doctor "
        "cannot read, nor check what they change for it"
    ]
    assert SAME not in text


def test_a_value_filled_from_this_shell_says_so(
    fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """review51a L5: doctor fills ``${env:NAME}`` from its own shell, which may not be the environment Cursor was
    started in: its line says so."""
    own = tmp_path / "djx"
    monkeypatch.setenv("DJ", str(own))
    mcp = fake_home / ".cursor" / "mcp.json"
    _, settings = doctor_with_server_env(fake_home, tmp_path, {"DEJA_HOME": "${env:DJ}"})
    assert [problem["message"] for problem in settings] == [
        f"deja's MCP server gets DEJA_HOME (${{env:DJ}} as this shell has it; Cursor's may differ) from its env in "
        f"{mcp}: it builds and serves the index under {own}/index, while the hooks use {fake_home}/.cache/deja/index"
    ]


def test_cursors_placeholders_in_the_servers_command_are_read_as_cursor_expands_them(fake_home: Path) -> None:
    """review51a L6: ``"command": "${userHome}/.local/bin/deja"`` (README's link): Cursor expands it and starts this
    deja; doctor took it as written and said the server runs a deja that "is gone", as did the rebuild line."""
    script = console_script(fake_home / ".local" / "bin")
    shell = {**os.environ, "PATH": path_with(script), "COLUMNS": "1000"}
    assert run_deja("install", "cursor-auto", script=script, env=shell).returncode == 0
    mcp = fake_home / ".cursor" / "mcp.json"
    document = json.loads(mcp.read_text())
    document["mcpServers"]["deja"]["command"] = "${userHome}${/}.local/bin/deja"
    mcp.write_text(json.dumps(document, indent=2))
    text = run_deja("doctor", script=script, env=shell).stdout
    assert f"ok     Cursor: deja's MCP server is in {mcp}" in text
    assert "gone" not in text and "differs" not in text
    assert other_deja_wired(str(script)) == ""
