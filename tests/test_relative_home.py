"""``DEJA_HOME`` naming a relative folder is refused in one line, never ignored in silence (review17); so is a
relative ``DEJA_CURSOR_ROOT`` or ``DEJA_CURSOR_CLI_ROOT``, which read the default Cursor folders instead.

Read in whatever folder deja runs in (a hook runs in Cursor's working folder, one per project), a relative home
would be another index in each; deja ignored it and kept the index in the default home without a word. Now the CLI
stops on it (``deja config`` and ``deja doctor`` still run), a hook stays silent and says why in hooks.log, the MCP
server answers each tool call with the line. ``deja config set home rel`` is asked in one folder, once, and stores
that folder made absolute (test_polish). A relative ``XDG_CACHE_HOME`` is still ignored, as the XDG spec says
(test_broken_config).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import anyio
import pytest
from harness import ENTRY, index_chats, run_deja
from mcp.server.mcpserver.exceptions import ToolError

from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript
from deja.interfaces.mcp_server import build_server

CHATS = {"a1a1a1a1-0000-4000-8000-000000000002": ["why does the zebracorn cache miss?", "The key had a timestamp."]}
REFUSED = "deja: DEJA_HOME=deja-index is relative: it would be another folder wherever deja runs; give DEJA_HOME an absolute path, or unset it\n"  # fmt: skip


@pytest.fixture
def relative(fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """One chat indexed into an absolute home; then this process's DEJA_HOME made relative."""
    index_chats(tmp_path, monkeypatch, CHATS)
    monkeypatch.setenv("DEJA_HOME", "deja-index")
    return dict(os.environ)


@pytest.mark.parametrize("args", [("index",), ("search", "zebracorn"), ("sessions",), ("install", "cursor")])
def test_every_command_stops_in_one_line_naming_it(relative: dict[str, str], fake_home: Path, args: tuple[str, ...]) -> None:  # fmt: skip
    done = run_deja(*args, env=relative, cwd=fake_home)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", REFUSED)
    assert not (fake_home / "deja-index").exists() and not (fake_home / ".cache").exists()  # (neither home is made)
    assert not (fake_home / ".cursor").exists()


def test_config_and_doctor_still_run_and_doctor_names_it(relative: dict[str, str], fake_home: Path) -> None:
    shown = run_deja("config", env=relative)
    assert shown.returncode == 0 and f"refused: {REFUSED.removeprefix('deja: ')}" in shown.stdout, shown.stdout
    report = json.loads(run_deja("doctor", "--json", env=relative).stdout)
    [error] = [p for p in report["problems"] if p["area"] == "settings" and p["level"] == "error"]
    assert error["message"].startswith("DEJA_HOME=deja-index is relative: it would be another folder wherever deja")
    assert error["fix"] == "give DEJA_HOME an absolute path, or unset it" and report["healthy"] is False
    assert not [p for p in report["problems"] if p["area"] == "index"], report["problems"]  # (`deja index` refuses)


def test_setting_home_in_the_file_says_the_variable_still_stops_every_command(
    relative: dict[str, str], fake_home: Path, tmp_path: Path
) -> None:
    """``deja config set home /abs`` in a shell whose ``DEJA_HOME`` is relative said nothing of it, where the same
    with an absolute one says the variable overrides the file (review18 R18-3)."""
    done = run_deja("config", "set", "home", str(tmp_path / "elsewhere"), env=relative)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == f"note: {REFUSED.removeprefix('deja: ').strip().replace('; give', ', so every command here refuses it; give')}"  # fmt: skip


def test_a_hook_stays_silent_and_logs_why(relative: dict[str, str], fake_home: Path) -> None:
    payload = {"conversation_id": "x6", "hook_event_name": "sessionStart", "workspace_roots": ["/work/shop"]}
    done = run_deja("hook-context", input=json.dumps(payload), env=relative, cwd=fake_home)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    last = (fake_home / ".cache" / "deja" / "hooks.log").read_text().splitlines()[-1]  # (the log has no other home)
    assert last.endswith(f"x6: silent: {REFUSED.removeprefix('deja: ').strip()}")
    assert not (fake_home / "deja-index").exists()


def test_every_mcp_tool_call_is_a_one_line_error_naming_it(relative: dict[str, str]) -> None:
    server = build_server()

    async def call() -> str:
        with pytest.raises(ToolError) as refused:
            await server.call_tool("search", {"query": "zebracorn"})
        return str(refused.value)

    assert anyio.run(call) == f"Error executing tool search: {REFUSED.removeprefix('deja: ').strip()}"


@pytest.mark.parametrize("variable", ["DEJA_CURSOR_ROOT", "DEJA_CURSOR_CLI_ROOT"])
def test_a_relative_cursor_folder_is_refused_as_a_relative_home_is(
    relative: dict[str, str], fake_home: Path, tmp_path: Path, variable: str
) -> None:
    """``DEJA_CURSOR_ROOT=fixtures/User deja index`` read the default Cursor folders into the index instead, with a
    warning only ``deja config`` and ``deja doctor`` showed (small33)."""
    env = {**relative, "DEJA_HOME": str(tmp_path / "deja"), variable: "fixtures/cursor"}
    refused = f"{variable}=fixtures/cursor is relative: it would be another folder wherever deja runs; give {variable} an absolute path, or unset it"  # fmt: skip
    done = run_deja("search", "zebracorn", env=env, cwd=fake_home)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", f"deja: {refused}\n")
    shown = run_deja("config", env=env)
    assert shown.returncode == 0 and f"refused: {refused}" in shown.stdout, shown.stdout
    report = json.loads(run_deja("doctor", "--json", env=env).stdout)
    [error] = [p for p in report["problems"] if p["area"] == "settings" and p["level"] == "error"]
    assert (error["fix"], report["healthy"]) == (f"give {variable} an absolute path, or unset it", False)
    empty = json.loads(run_deja("doctor", "--json", env={**env, "DEJA_HOME": str(tmp_path / "none")}).stdout)
    assert not [p for p in empty["problems"] if p["area"] == "index"], empty["problems"]  # (`deja index` refuses)
    payload = {"conversation_id": "x7", "hook_event_name": "sessionStart", "workspace_roots": ["/work/shop"]}
    hooked = run_deja("hook-context", input=json.dumps(payload), env=env, cwd=fake_home)
    assert (hooked.returncode, hooked.stdout, hooked.stderr) == (0, "", "")
    assert (tmp_path / "deja" / "hooks.log").read_text().splitlines()[-1].endswith(f"x7: silent: {refused}")


def test_the_mcp_server_refreshes_no_index_while_every_call_refuses(
    relative: dict[str, str], fake_home: Path, tmp_path: Path
) -> None:
    """``deja mcp`` with a relative ``DEJA_HOME`` answered each call with the refusal, but refreshed (wrote) the index
    of the home deja falls back to as it started (review18 R18-6)."""
    fallback = {key: value for key, value in relative.items() if key != "DEJA_HOME"}
    assert run_deja("index", env=fallback, cwd=fake_home).returncode == 0
    index = fake_home / ".cache" / "deja" / "index"
    before = {path.name: path.stat().st_mtime_ns for path in index.iterdir()}
    chat = transcript_path(tmp_path / "cli", "/work/shop", "a1a1a1a1-0000-4000-8000-000000000009")
    write_transcript(chat, [user_turn("a chat a refresh would read"), assistant_turn("It would.")])
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}},
    }
    server = subprocess.Popen(
        [*ENTRY, "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=relative,
        cwd=fake_home,
    )
    assert server.stdin is not None
    server.stdin.write(json.dumps(initialize).encode() + b"\n")
    server.stdin.flush()
    time.sleep(3)  # (the refresher's first check runs as the server starts)
    out, _ = server.communicate(timeout=30)
    assert json.loads(out.splitlines()[0])["result"]["serverInfo"]["name"] == "deja"
    assert {path.name: path.stat().st_mtime_ns for path in index.iterdir()} == before
