"""`deja resume` finds a chat where the index read it, and gives a line that reopens it from any shell.

cursor-agent keeps its chat folders under ``$XDG_CONFIG_HOME/cursor/chats`` when that variable is set, and its
transcripts under ``~/.cursor``. Cursor starts the MCP server without ``XDG_CONFIG_HOME``, and so may a person's
other shell: the chat indexed from there must still resume (and doctor must count the variable among those that
make Cursor's processes see other folders than this shell). ``cursor-agent --resume`` looks a chat up under the one
folder its own environment names (``$CURSOR_CONFIG_DIR``, else ``$XDG_CONFIG_HOME/cursor``, else ``~/.cursor``:
trial55 F1), so the line names the chat's folder as ``CURSOR_CONFIG_DIR`` unless every shell finds it; each line is
run by ``sh`` with a ``cursor-agent`` that looks the chat up as that (``agent``), in a shell with the variable and
one without.
"""

from __future__ import annotations

import os
import subprocess
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

#: A cursor-agent that finds ``--resume ID`` where cursor-agent looks: ``<its config folder>/chats/<md5 of the
#: folder it runs in>/ID``, its config folder ``$CURSOR_CONFIG_DIR``, else ``$XDG_CONFIG_HOME/cursor``, else ``~/.cursor``.
FINDING_AGENT = """#!/bin/sh
root="${CURSOR_CONFIG_DIR:-${XDG_CONFIG_HOME:+$XDG_CONFIG_HOME/cursor}}"
root="${root:-$HOME/.cursor}"
bucket=$(printf %s "$(pwd -P)" | md5sum | cut -c1-32)
if [ -d "$root/chats/$bucket/$2" ]; then echo "resumed $2"; else echo "no chat $2 in $root/chats/$bucket"; fi
"""


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    """The folder holding ``FINDING_AGENT`` as ``cursor-agent``."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "cursor-agent").write_text(FINDING_AGENT)
    (bin_dir / "cursor-agent").chmod(0o755)
    return bin_dir


def reopens(line: str, agent: Path, home: Path, xdg_config_home: Path | None) -> str:
    """What ``cursor-agent`` says when ``line`` runs in a shell whose ``XDG_CONFIG_HOME`` is the one given, or unset."""
    env = {"HOME": str(home), "PATH": f"{agent}{os.pathsep}{os.environ['PATH']}"}
    env |= {"XDG_CONFIG_HOME": str(xdg_config_home)} if xdg_config_home else {}
    return subprocess.run(["sh", "-c", line], env=env, capture_output=True, text=True, timeout=30).stdout


def _write_chat(home: Path, transcripts: str, chats: str, chat_id: str = CHAT) -> Path:
    """A chat run in ``~/proj``, its transcript under ``~/<transcripts>`` and its folder under ``~/<chats>``; returns
    its project folder."""
    project = home / "proj"
    project.mkdir(exist_ok=True)
    write_transcript(
        transcript_path(home / transcripts, str(project), chat_id),
        [user_turn("why does quuxmigrate fail?"), assistant_turn("Table zebra is missing.")],
    )
    write_chat_store(
        chat_dir_for(home / chats, str(project), chat_id),
        cwd=str(project),
        name="Quux migrate",
        messages=[store_user_message("why does quuxmigrate fail?")],
    )
    return project


def _split_chat(home: Path) -> tuple[dict[str, str], Path]:
    """A chat whose transcript is under ~/.cursor and whose folder is under $XDG_CONFIG_HOME/cursor, indexed
    from a shell with XDG_CONFIG_HOME; returns that shell's environment, and the chat's project folder."""
    project = _write_chat(home, ".cursor", "xdg/cursor")
    env = {"HOME": str(home), "PATH": os.environ["PATH"], "XDG_CONFIG_HOME": str(home / "xdg")}
    done = run_deja("index", env=env)
    assert done.returncode == 0, done.stderr
    return env, project


def test_resume_without_xdg_config_home_finds_the_chat_where_it_was_indexed_and_names_its_folder(
    fake_home: Path, agent: Path
) -> None:
    env, project = _split_chat(fake_home)
    with_xdg = run_deja("resume", CHAT[:8], env=env)
    assert with_xdg.returncode == 0, with_xdg.stderr

    without = run_deja("resume", CHAT[:8], env={k: v for k, v in env.items() if k != "XDG_CONFIG_HOME"})

    assert without.returncode == 0, without.stderr
    xdg_root = fake_home / "xdg" / "cursor"
    assert (
        without.stdout
        == with_xdg.stdout
        == f"cd {project} && CURSOR_CONFIG_DIR={xdg_root} cursor-agent --resume {CHAT}\n"
    )
    for shell_xdg in (fake_home / "xdg", None):
        assert reopens(without.stdout, agent, fake_home, shell_xdg) == f"resumed {CHAT}\n"


def _resume_line(home: Path, **variables: str) -> str:
    """What ``deja resume`` prints for ``CHAT`` after ``deja index``, both run with ``variables`` set."""
    env = {"HOME": str(home), "PATH": os.environ["PATH"], **variables}
    assert run_deja("index", env=env).returncode == 0
    return run_deja("resume", CHAT[:8], env=env).stdout


def test_a_chat_under_dot_cursor_resumed_where_xdg_config_home_is_set_names_dot_cursor(
    fake_home: Path, agent: Path
) -> None:
    """trial55 F1: the bare line, pasted in this shell, had cursor-agent look under $XDG_CONFIG_HOME/cursor."""
    project = _write_chat(fake_home, ".cursor", ".cursor")

    line = _resume_line(fake_home, XDG_CONFIG_HOME=str(fake_home / ".config"))

    assert line == f"cd {project} && CURSOR_CONFIG_DIR={fake_home}/.cursor cursor-agent --resume {CHAT}\n"
    for shell_xdg in (fake_home / ".config", None):
        assert reopens(line, agent, fake_home, shell_xdg) == f"resumed {CHAT}\n"


def test_a_chat_under_dot_cursor_where_no_other_folder_holds_chats_names_it_too(fake_home: Path, agent: Path) -> None:
    """Nothing deja reads shows that a shell sets XDG_CONFIG_HOME, yet the shell the line is pasted in may (to a
    folder with no chats yet): the bare line did not reopen the chat there (review55c F2)."""
    project = _write_chat(fake_home, ".cursor", ".cursor")

    line = _resume_line(fake_home)

    assert line == f"cd {project} && CURSOR_CONFIG_DIR={fake_home}/.cursor cursor-agent --resume {CHAT}\n"
    for shell_xdg in (fake_home / "xdg", None):
        assert reopens(line, agent, fake_home, shell_xdg) == f"resumed {CHAT}\n"


def test_a_chat_under_dot_cursor_names_it_where_another_folder_holds_chats(fake_home: Path, agent: Path) -> None:
    """The MCP server (no XDG_CONFIG_HOME) gave the bare line for an older chat under ~/.cursor, which a shell that
    sets XDG_CONFIG_HOME, and keeps its chats under ~/.config/cursor, cannot follow."""
    project = _write_chat(fake_home, ".cursor", ".cursor")
    _write_chat(fake_home, ".config/cursor", ".config/cursor", "c3c3c3c3-1111-4222-8333-444455556666")

    line = _resume_line(fake_home)

    assert line == f"cd {project} && CURSOR_CONFIG_DIR={fake_home}/.cursor cursor-agent --resume {CHAT}\n"
    for shell_xdg in (fake_home / ".config", None):
        assert reopens(line, agent, fake_home, shell_xdg) == f"resumed {CHAT}\n"


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

    assert anyio.run(ask) == f"cd {project} && CURSOR_CONFIG_DIR={fake_home}/xdg/cursor cursor-agent --resume {CHAT}"


def test_doctor_names_the_variables_that_move_cursor_agents_folders(fake_home: Path) -> None:
    env, _ = _split_chat(fake_home)
    settings = run_deja("doctor", env=env).stdout.split("\nSettings\n")[1].split("\n\n")[0]
    flat = " ".join(settings.split())
    assert "the same settings and Cursor folders as this shell" not in flat
    assert (
        f"XDG_CONFIG_HOME is set in this shell and moves cursor-agent's folder to {fake_home}/xdg/cursor; Cursor's "
        "hooks and MCP server do not read it unless Cursor is started with the same variable" in flat
    )
