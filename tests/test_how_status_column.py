"""``deja how`` lines its commands up under one column whatever the widest exit status: ``exit 255`` (ssh's) took
the blank before ``$``, so its command stood one column left of the others' (trial47 F7)."""

from __future__ import annotations

from pathlib import Path

from harness import run_deja

from deja.core.writers.cursor_agent import (
    chat_dir_for,
    shell_result_text,
    store_assistant_message,
    store_user_message,
    tool_call_part,
    tool_result_message,
    write_chat_store,
)


def _ssh_chat(cli_root: Path, folder: Path, chat_id: str, exit_code: int) -> None:
    """A chat that ran ``ssh -v host`` once, which exited with ``exit_code``."""
    command = {"command": f"ssh -v host{exit_code}"}
    write_chat_store(
        chat_dir_for(cli_root, str(folder), chat_id),
        cwd=str(folder),
        name=f"ssh {exit_code}",
        messages=[
            store_user_message("why does ssh fail?"),
            store_assistant_message("Trying.", tool_call_part(f"x{chat_id}", "Shell", command)),
            tool_result_message(f"x{chat_id}", "Shell", shell_result_text("out", exit_code=exit_code)),
        ],
    )


def test_every_command_starts_in_one_column_whatever_its_exit_status(tmp_path: Path, cli_root: Path) -> None:
    folder = tmp_path / "code" / "infra"
    folder.mkdir(parents=True)
    for chat_id, exit_code in (("c-ok", 0), ("c-one", 1), ("c-255", 255)):
        _ssh_chat(cli_root, folder, chat_id, exit_code)
    assert run_deja("index").returncode == 0
    ran = run_deja("how", "ssh", "--all-projects")
    assert ran.returncode == 0, ran.stderr
    runs = ran.stdout.splitlines()[1:]
    assert len({line.index("$ ssh") for line in runs}) == 1, ran.stdout
    assert any("  exit 255  $ ssh -v host255" in line for line in runs), ran.stdout
