"""Doctor reads the ``env`` of deja's own server in Cursor's mcp.json, which Cursor gives that server and not the hooks
(trial50 F5): with ``DEJA_HOME`` there the server built and served an index of its own while doctor said "the hooks
and the MCP server see the same settings and Cursor folders as this shell"."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from harness import console_script, path_with, run_deja

from deja.installers.wiring import ENV_FILE_BYTES, other_deja_wired

SAME = "ok     the hooks and the MCP server see the same settings and Cursor folders as this shell"


def doctor_with_server_env(
    fake_home: Path, tmp_path: Path, env: dict[str, str | None], **entry: str
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


def test_a_null_in_the_servers_env_unsets_its_env_file_variable(fake_home: Path, tmp_path: Path) -> None:
    """review52a (nit): VS Code's launcher unsets a variable whose ``env`` value is null, over its envFile's; doctor
    still said the envFile's DEJA_HOME moved the server's index."""
    env_file = tmp_path / "deja.env"
    env_file.write_text(f"DEJA_HOME={tmp_path / 'from-file'}\n")
    text, settings = doctor_with_server_env(fake_home, tmp_path, {"DEJA_HOME": None}, envFile=str(env_file))
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


def test_an_env_file_too_large_is_said_unread(fake_home: Path, tmp_path: Path) -> None:
    """review52a F6: doctor read a server's envFile whole (256 MB took 567 MB of its memory); past ENV_FILE_BYTES it
    reads none of it and says so. (The file is sparse: it takes no room on the disk.)"""
    mcp = fake_home / ".cursor" / "mcp.json"
    env_file = tmp_path / "huge.env"
    env_file.write_text(f"DEJA_HOME={tmp_path / 'from-file'}\n")
    os.truncate(env_file, ENV_FILE_BYTES + 1)
    text, settings = doctor_with_server_env(fake_home, tmp_path, {}, envFile=str(env_file))
    assert [problem["message"] for problem in settings] == [
        f"deja's MCP server gets the variables of its envFile {env_file} (cannot read it (larger than "
        f"{ENV_FILE_BYTES} bytes)) in {mcp}, which doctor cannot read, nor check what they change for it"
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


@pytest.mark.parametrize("command", ["${userHome}${/}.local/bin/deja", "~/.local/bin/deja"])
def test_the_servers_command_is_read_as_cursor_starts_it(fake_home: Path, command: str) -> None:
    """``"command": "${userHome}/.local/bin/deja"`` (README's link; review51a L6) or ``~/.local/bin/deja`` (VS Code's
    launcher untildifies a stdio server's command: review52a F5): Cursor starts this deja; doctor took it as written
    and said the server runs a deja that "is gone", as did the rebuild line."""
    script = console_script(fake_home / ".local" / "bin")
    shell = {**os.environ, "PATH": path_with(script), "COLUMNS": "1000"}
    assert run_deja("install", "cursor-auto", script=script, env=shell).returncode == 0
    mcp = fake_home / ".cursor" / "mcp.json"
    document = json.loads(mcp.read_text())
    document["mcpServers"]["deja"]["command"] = command
    mcp.write_text(json.dumps(document, indent=2))
    text = run_deja("doctor", script=script, env=shell).stdout
    assert f"ok     Cursor: deja's MCP server is in {mcp}" in text, text
    assert "gone" not in text and "differs" not in text
    assert other_deja_wired(str(script)) == ""


@pytest.mark.parametrize(
    "line", ["DEJA_NO_REDACT=1  # only while I debug the parser", "DEJA_NO_REDACT: 1", "export DEJA_NO_REDACT=`1`#x"]
)
def test_an_env_file_line_is_read_as_vs_code_reads_it(fake_home: Path, tmp_path: Path, line: str) -> None:
    """review52a F1: VS Code's launcher (parseEnvFile, like npm dotenv) cuts a ``#`` comment outside quotes, takes
    ``NAME: value`` and backtick quotes; doctor kept the comment in the value and said the server saw the hooks'
    settings while it ran unredacted."""
    env_file = tmp_path / "deja.env"
    env_file.write_text(f"{line}\n")
    text, settings = doctor_with_server_env(fake_home, tmp_path, {}, envFile=str(env_file))
    assert [problem["message"] for problem in settings] == [
        f"deja's MCP server gets DEJA_NO_REDACT=1 from its envFile {env_file}: it uses false for redact, the hooks true"
    ]
    assert SAME not in text


@pytest.mark.parametrize(
    ("line", "levels"),
    [
        ("DEJA_HOME={srv} OPENAI_API_KEY={token}", ["warn"]),  # (the server's index is elsewhere: said)
        ("DEJA_CURSOR_ROOT={token}", ["error"]),  # (a relative folder: said)
    ],
)
def test_a_token_in_an_env_file_value_is_never_printed(
    fake_home: Path, tmp_path: Path, line: str, levels: list[str]
) -> None:
    """review52a F3: doctor repeated a deja variable's value as written; an envFile is where a project's tokens live,
    and two assignments run together on one line are one value (VS Code reads them so)."""
    token = "sk-proj-Abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH"
    env_file = tmp_path / "deja.env"
    env_file.write_text(line.format(srv=tmp_path / "srv", token=token) + "\n")
    text, settings = doctor_with_server_env(fake_home, tmp_path, {}, envFile=str(env_file))
    assert [problem["level"] for problem in settings] == levels
    assert token not in text and token not in json.dumps(settings)
    assert "[redacted:" in settings[0]["message"], settings
    assert "deja config set" not in settings[0]["fix"]  # (a fix that sets the token, redacted, would set another)


def test_a_home_in_the_servers_env_is_said(fake_home: Path, tmp_path: Path) -> None:
    """review52a F4: HOME in the server's env moves its default index, its settings file and Cursor's folders; doctor
    said the server saw the hooks' settings."""
    other = tmp_path / "another-home"
    mcp = fake_home / ".cursor" / "mcp.json"
    text, settings = doctor_with_server_env(fake_home, tmp_path, {"HOME": str(other)})
    assert [problem["message"] for problem in settings] == [
        f"deja's MCP server gets HOME from its env in {mcp}: it builds and serves the index under "
        f"{other}/.cache/deja/index, while the hooks use {fake_home}/.cache/deja/index",
        f"deja's MCP server gets HOME={other} from its env in {mcp}: it looks for deja's settings file and Cursor's "
        f"folders in that home, the hooks in {fake_home}",
    ]
    assert SAME not in text


def test_a_token_in_the_shells_own_deja_home_is_never_printed(fake_home: Path, tmp_path: Path) -> None:
    """fixd52: a DEJA_HOME holding a key (two assignments run together) was printed whole by doctor, in the index
    lines and the shell-only setting's fix; every line doctor prints is redacted now, and no fix sets the redacted
    folder (it would set another)."""
    token = "sk-proj-Abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH"
    shell = {**os.environ, "DEJA_HOME": f"{tmp_path / 'srv'} OPENAI_API_KEY={token}", "COLUMNS": "1000"}
    text, data = (run_deja("doctor", *json_flag, env=shell).stdout for json_flag in ([], ["--json"]))
    assert token not in text and token not in data
    # (the key's token redacted, the "/index" after it kept: RULES_VERSION 36 swallowed it, red60 gives it back)
    assert f"no index at {tmp_path / 'srv'} OPENAI_API_KEY=[redacted:openai-key]/index" in text, text
    settings = [problem for problem in json.loads(data)["problems"] if problem["area"] == "settings"]
    assert [problem["fix"] for problem in settings if "set in this shell" in problem["message"]] == [""], settings
