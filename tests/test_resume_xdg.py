"""`deja resume` finds a chat where the index read it, not only where today's environment says chats are.

cursor-agent keeps its chat folders under ``$XDG_CONFIG_HOME/cursor/chats`` when that variable is set, and its
transcripts under ``~/.cursor``. Cursor starts the MCP server without ``XDG_CONFIG_HOME``, and so may a person's
other shell: the chat indexed from there must still resume (and doctor must count the variable among those that
make Cursor's processes see other folders than this shell).
"""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest
from harness import run_deja

from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    store_user_message,
    transcript_path,
    user_turn,
    write_chat_store,
    write_transcript,
)

CHAT = "c2c2c2c2-1111-4222-8333-444455556666"


def _split_chat(home: Path) -> tuple[dict[str, str], Path]:
    """A chat whose transcript is under ~/.cursor and whose folder is under $XDG_CONFIG_HOME/cursor, indexed
    from a shell with XDG_CONFIG_HOME; returns that shell's environment, and the chat's project folder."""
    project = home / "proj"
    project.mkdir()
    write_transcript(
        transcript_path(home / ".cursor", str(project), CHAT),
        [user_turn("why does quuxmigrate fail?"), assistant_turn("Table zebra is missing.")],
    )
    write_chat_store(
        chat_dir_for(home / "xdg" / "cursor", str(project), CHAT),
        cwd=str(project),
        name="Quux migrate",
        messages=[store_user_message("why does quuxmigrate fail?")],
    )
    env = {"HOME": str(home), "PATH": os.environ["PATH"], "XDG_CONFIG_HOME": str(home / "xdg")}
    done = run_deja("index", env=env)
    assert done.returncode == 0, done.stderr
    return env, project


def test_resume_without_xdg_config_home_finds_the_chat_where_it_was_indexed(fake_home: Path) -> None:
    env, project = _split_chat(fake_home)
    with_xdg = run_deja("resume", CHAT[:8], env=env)
    assert with_xdg.returncode == 0, with_xdg.stderr

    without = run_deja("resume", CHAT[:8], env={k: v for k, v in env.items() if k != "XDG_CONFIG_HOME"})

    assert without.returncode == 0, without.stderr
    assert without.stdout == with_xdg.stdout == f"cd {project} && cursor-agent --resume {CHAT}\n"


def test_the_mcp_resume_tool_without_xdg_config_home_gives_the_line(
    fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env, project = _split_chat(fake_home)
    monkeypatch.setenv("HOME", env["HOME"])
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    from deja.interfaces.mcp_server import Tools

    tools = Tools()

    async def ask() -> str:
        for _ in range(100):  # the first call may find the index still opening
            result = tools.resume(CHAT)
            text = "\n".join(block.text for block in result.content if block.type == "text")
            if "cursor-agent" in text or "cannot be resumed" in text:
                return text
            await anyio.sleep(0.1)
        return text

    assert anyio.run(ask) == f"cd {project} && cursor-agent --resume {CHAT}"


def test_doctor_names_the_variables_that_move_cursor_agents_folders(fake_home: Path) -> None:
    env, _ = _split_chat(fake_home)
    settings = run_deja("doctor", env=env).stdout.split("\nSettings\n")[1].split("\n\n")[0]
    flat = " ".join(settings.split())
    assert "the same settings and Cursor folders as this shell" not in flat
    assert (
        f"XDG_CONFIG_HOME is set in this shell and moves cursor-agent's folder to {fake_home}/xdg/cursor; Cursor's "
        "hooks and MCP server do not read it unless Cursor is started with the same variable" in flat
    )
