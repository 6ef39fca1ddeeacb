"""A project folder whose name holds a newline, a tab or a terminal's escape sequence is shown escaped (trial17).

A newline in ``multi\\nline\\tproj`` split its row in ``deja search``, ``deja sessions`` and ``deja stats`` in two; an
OSC sequence in ``evil\\x1b]0;TITLE\\x07name`` was taken out of the output whole, so ``deja resume`` said ``cd
'…/evilname'``, a folder that does not exist. Each is one row, the name written with its escapes, and the resume line
names the folder there is, on one line (``"$(printf '…\\033]0;TITLE\\007name')"``).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from harness import index_cli_root, run_deja

from deja.core.writers import cursor_agent as agent

NAMES = {"c-multi": ("multi\nline\tproj", "multi\\nline\\tproj"), "c-evil": ("evil\x1b]0;TITLE\x07name", "evil\\x1b]0;TITLE\\x07name")}  # fmt: skip


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    cli_root = tmp_path / "cursor-agent"
    for chat, (name, _) in NAMES.items():
        folder = tmp_path / "code" / name
        folder.mkdir(parents=True)
        turns = [
            agent.user_turn(f"why does the zebra deploy fail in {chat}"),
            agent.assistant_turn("The zebra key expired."),
        ]
        agent.write_transcript(agent.transcript_path(cli_root, str(folder), chat), turns)
        agent.write_chat_store(agent.chat_dir_for(cli_root, str(folder), chat), cwd=str(folder), messages=[{"role": "user", "content": "hi"}])  # fmt: skip
    return index_cli_root(tmp_path, cli_root)


def test_each_session_is_one_row_its_folder_named_with_escapes(env: dict[str, str]) -> None:
    search = run_deja("search", "zebra", env=env).stdout.splitlines()
    sessions = run_deja("sessions", env=env).stdout.splitlines()
    stats = run_deja("stats", env=env).stdout.splitlines()
    for chat, (_, shown) in NAMES.items():
        (row,) = [row for row in search if row.startswith(f"  {chat} · ")]
        assert f" · cursor-cli · {shown} · " in row, row
        (row,) = [row for row in sessions if row.startswith(chat)]
        assert f"  {shown}  " in row, row
        (row,) = [row for row in stats if shown in row]
        assert row.split() == [shown, "1", "session", "2", "messages"], row
    assert len(sessions) == 2 and len(stats) == 6, (sessions, stats)


@pytest.mark.parametrize("shell", ["sh", "bash"])
def test_the_resume_line_is_one_line_naming_the_folder_the_session_ran_in(
    env: dict[str, str], tmp_path: Path, shell: str
) -> None:
    for chat, (name, _) in NAMES.items():
        line = run_deja("resume", chat, env=env).stdout
        assert line.count("\n") == 1 and line.endswith(f" cursor-agent --resume {chat}\n"), line
        went = subprocess.run([shell, "-c", line.replace("cursor-agent --resume", "pwd #")], capture_output=True)
        assert went.returncode == 0 and went.stdout.decode() == f"{tmp_path}/code/{name}\n", went
    assert "evil\\033]0;TITLE\\007name" in run_deja("resume", "c-evil", env=env).stdout


@pytest.mark.parametrize("shell", ["sh", "bash"])
def test_the_resume_line_names_a_folder_ending_in_a_newline_after_a_control_character(
    tmp_path: Path, shell: str
) -> None:
    """review39b L2: ``"$(printf '…\\033\\012')"`` drops the newline the name ends with, so the line named
    ``ends\\x1b``, a folder that does not exist."""
    cli_root, folder = tmp_path / "cursor-agent", tmp_path / "code" / "ends\x1b\n"
    line = _resume_line(tmp_path, cli_root, folder, "c-ends")
    assert line.endswith(" cursor-agent --resume c-ends\n"), line
    went = subprocess.run([shell, "-c", line.replace("cursor-agent --resume", "pwd #")], capture_output=True)
    assert went.returncode == 0 and went.stdout.decode() == f"{folder}\n", went


@pytest.mark.parametrize("shell", ["sh", "bash"])
def test_the_resume_line_names_a_cursor_agent_folder_whose_name_holds_an_escape_sequence(
    tmp_path: Path, shell: str
) -> None:
    """The chat's folder, named as ``CURSOR_CONFIG_DIR`` (trial55 F1), is written as the project folder is."""
    cli_root = tmp_path / "evil\x1b]0;TITLE\x07agent"
    line = _resume_line(tmp_path, cli_root, tmp_path / "code" / "api", "c-root")
    assert line.count("\n") == 1 and "evil\\033]0;TITLE\\007agent" in line, line
    went = subprocess.run(
        [shell, "-c", line.replace("cursor-agent --resume", "printenv CURSOR_CONFIG_DIR #")], capture_output=True
    )
    assert went.returncode == 0 and went.stdout.decode() == f"{cli_root}\n", went


def _resume_line(tmp_path: Path, cli_root: Path, folder: Path, chat: str) -> str:
    """What ``deja resume`` prints for a chat run in ``folder``, filed under ``cli_root``, once indexed."""
    folder.mkdir(parents=True)
    turns = [agent.user_turn("why does the zebra deploy fail"), agent.assistant_turn("The zebra key expired.")]
    agent.write_transcript(agent.transcript_path(cli_root, str(folder), chat), turns)
    agent.write_chat_store(agent.chat_dir_for(cli_root, str(folder), chat), cwd=str(folder), messages=[{"role": "user", "content": "hi"}])  # fmt: skip
    return run_deja("resume", chat, env=index_cli_root(tmp_path, cli_root)).stdout
