"""A rebuild asked for while a store read before lies outside every Cursor folder this run reads (another
environment's XDG_CONFIG_HOME or CURSOR_DATA_DIR) is refused with the folder and the variable named, before
anything is built: the store is readable, and dropping its sessions unasked would lose history (trialK F1)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from harness import run_deja

from deja.core.writers.cursor_agent import (
    acp_dir_for,
    assistant_turn,
    chat_dir_for,
    store_assistant_message,
    store_user_message,
    transcript_path,
    user_turn,
    write_chat_store,
    write_transcript,
)

CHAT = "eeee1111-2222-4333-8444-555566667777"


def environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CONFIG_HOME", "CURSOR_DATA_DIR")}
    return {**env, **extra}


def entries(home: Path) -> set[str]:
    return set(os.listdir(home / ".cache" / "deja" / "index"))


def test_a_full_rebuild_without_the_xdg_folder_names_it_and_builds_nothing(fake_home: Path, tmp_path: Path):
    project = str(tmp_path / "proj")
    os.mkdir(project)
    store = chat_dir_for(fake_home / "xdg" / "cursor", project, CHAT)
    write_chat_store(
        store,
        cwd=project,
        messages=[store_user_message("plumbus?", datetime.now(UTC)), store_assistant_message("here")],
    )
    assert run_deja("index", env=environment(XDG_CONFIG_HOME=str(fake_home / "xdg"))).returncode == 0
    before = entries(fake_home)

    refused = run_deja("index", "--full", env=environment())

    assert refused.returncode == 1
    said = refused.stderr.strip()
    assert "could not be read" not in said
    assert f"1 Cursor store indexed from {fake_home / 'xdg' / 'cursor'} is in none of the Cursor folders deja" in said
    assert f"set XDG_CONFIG_HOME={fake_home / 'xdg'}" in said
    assert len(said.splitlines()) == 1 and "Traceback" not in said
    assert entries(fake_home) == before  # refused before a new segment was written
    assert "plumbus" in run_deja("search", "plumbus", env=environment()).stdout
    assert run_deja("index", "--full", env=environment(XDG_CONFIG_HOME=str(fake_home / "xdg"))).returncode == 0


def test_a_transcript_under_another_data_dir_names_cursor_data_dir(fake_home: Path, tmp_path: Path):
    project = str(tmp_path / "proj")
    os.mkdir(project)
    data = tmp_path / "elsewhere"
    write_transcript(transcript_path(data, project, CHAT), [user_turn("quagmirex?"), assistant_turn("quagmirex")])
    assert run_deja("index", env=environment(CURSOR_DATA_DIR=str(data))).returncode == 0

    refused = run_deja("index", "--full", env=environment())

    assert refused.returncode == 1
    assert f"set CURSOR_DATA_DIR={data} as it was" in refused.stderr


def test_the_refusal_names_the_cursor_folder_not_a_stores_own(fake_home: Path, tmp_path: Path):
    """An ACP session's store and a chat's, both under ``$XDG_CONFIG_HOME/cursor``: one line counting both and naming
    that folder (trialM F5: it named the ACP session's own folder, "4 stores … lies under" it)."""
    project = str(tmp_path / "proj")
    os.mkdir(project)
    config_root = fake_home / "xdg" / "cursor"
    messages = [store_user_message("plumbus?", datetime.now(UTC)), store_assistant_message("here")]
    write_chat_store(chat_dir_for(config_root, project, CHAT), cwd=project, messages=messages)
    write_chat_store(acp_dir_for(config_root, "acp-1"), cwd=project, messages=messages)
    assert run_deja("index", env=environment(XDG_CONFIG_HOME=str(fake_home / "xdg"))).returncode == 0

    refused = run_deja("index", "--full", env=environment())

    assert refused.returncode == 1
    said = refused.stderr.strip()
    assert f"not rebuilt: 2 Cursor stores indexed from {config_root} are in none of the Cursor folders" in said, said
    assert "acp-1" not in said and "(and" not in said
    assert (
        f"set XDG_CONFIG_HOME={fake_home / 'xdg'} (or CURSOR_CONFIG_DIR={config_root}) as it was when they were" in said
    )


def test_the_refusal_after_deja_cursor_cli_root_names_that_setting(fake_home: Path, tmp_path: Path):
    """Pointing ``DEJA_CURSOR_CLI_ROOT`` at one Cursor folder, ``--full`` said to set ``CURSOR_DATA_DIR`` as it was,
    which changes nothing while that variable replaces every other folder (trial11 F3)."""
    project = str(tmp_path / "proj")
    os.mkdir(project)
    write_transcript(transcript_path(fake_home / ".cursor", project, CHAT), [user_turn("zorblax?"), assistant_turn("ok")])  # fmt: skip
    assert run_deja("index", env=environment()).returncode == 0
    (fake_home / ".config" / "cursor").mkdir(parents=True)

    refused = run_deja("index", "--full", env=environment(DEJA_CURSOR_CLI_ROOT=str(fake_home / ".config" / "cursor")))

    assert refused.returncode == 1
    assert "DEJA_CURSOR_CLI_ROOT replaces every other Cursor folder: unset it" in refused.stderr, refused.stderr
    assert "set CURSOR_DATA_DIR" not in refused.stderr


def test_doctor_without_the_variables_names_the_folders_the_index_read(fake_home: Path, tmp_path: Path):
    """trial14 F8: doctor said "no Cursor chats found in …" while the index served sessions read from the folders
    CURSOR_CONFIG_DIR and CURSOR_DATA_DIR named; it now says what ``index --full`` says, and the variable to set."""
    project = str(tmp_path / "proj")
    os.mkdir(project)
    data = tmp_path / "elsewhere"
    write_transcript(transcript_path(data, project, CHAT), [user_turn("quagmirex?"), assistant_turn("quagmirex")])
    assert run_deja("index", env=environment(CURSOR_DATA_DIR=str(data))).returncode == 0

    said = run_deja("doctor", env=environment(COLUMNS="400")).stdout

    assert "no Cursor chats found" not in said
    assert f"1 Cursor store indexed from {data} is in none of the Cursor folders deja reads now" in said
    assert f"fix: set CURSOR_DATA_DIR={data} as it was when it was indexed, in this shell" in said
