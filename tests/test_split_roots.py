"""cursor-agent's split roots: every folder it may have kept chats in is read (cursor-drift-2026.md §9; README:
``cursor_cli_root``'s default).

With CURSOR_CONFIG_DIR set, chats still under ``$XDG_CONFIG_HOME/cursor`` and ``~/.cursor`` (written before the
variable was set) were never read: a fresh index missed them, and a transcript whose store lives there lost its
title and tool results.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from harness import run_deja

from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    shell_result_text,
    store_assistant_message,
    store_preamble,
    store_user_message,
    tool_call_part,
    tool_result_message,
    tool_use,
    transcript_path,
    user_turn,
    write_chat_store,
    write_transcript,
)


def _store_chat(root: Path, cwd: str, chat_id: str, question: str) -> None:
    messages = [*store_preamble(cwd), store_user_message(question), store_assistant_message("done")]
    write_chat_store(chat_dir_for(root, cwd, chat_id), cwd=cwd, name=f"Title of {chat_id}", messages=messages)


def _env(home: Path) -> dict[str, str]:
    return {
        "HOME": str(home),
        "PATH": os.environ["PATH"],
        "CURSOR_CONFIG_DIR": str(home / "cfg"),
        "XDG_CONFIG_HOME": str(home / "xdg"),
    }


def _sessions(env: dict[str, str]) -> dict[str, dict]:
    done = run_deja("index", env=env)
    assert done.returncode == 0, done.stderr
    listed = run_deja("sessions", "--json", env=env)
    assert listed.returncode == 0, listed.stderr
    return {s["id"]: s for s in orjson.loads(listed.stdout)["sessions"]}


def test_chats_under_every_config_root_are_read(fake_home: Path) -> None:
    cwd = str(fake_home / "proj")
    _store_chat(fake_home / "cfg", cwd, "in-config-dir", "question about wombats")
    _store_chat(fake_home / "xdg" / "cursor", cwd, "in-xdg", "question about quokkas")
    _store_chat(fake_home / ".cursor", cwd, "in-home", "question about numbats")
    # the same chat id under two roots stays one session
    _store_chat(fake_home / "xdg" / "cursor", cwd, "in-config-dir", "question about wombats")
    sessions = _sessions(_env(fake_home))
    assert sorted(sessions) == ["in-config-dir", "in-home", "in-xdg"]


def test_a_transcript_finds_its_store_under_xdg_with_config_dir_set(fake_home: Path) -> None:
    """Its title and its Shell result come from the store."""
    cwd = str(fake_home / "proj")
    write_transcript(
        transcript_path(fake_home / ".cursor", cwd, "split"),
        [
            user_turn("why does the zebramigrate fail?"),
            assistant_turn("Looking.", tool_use("Shell", {"command": "make zebramigrate"})),
        ],
    )
    messages = [
        *store_preamble(cwd),
        store_user_message("why does the zebramigrate fail?"),
        store_assistant_message(None, tool_call_part("t1", "Shell", {"command": "make zebramigrate"})),
        tool_result_message("t1", "Shell", shell_result_text("table platypus is missing", exit_code=2)),
        store_assistant_message("Looking."),
    ]
    write_chat_store(chat_dir_for(fake_home / "xdg" / "cursor", cwd, "split"), cwd=cwd, name="Zebra", messages=messages)
    env = _env(fake_home)
    assert _sessions(env)["split"]["title"] == "Zebra"
    found = run_deja("search", "platypus", env=env)
    assert found.returncode == 0 and "Zebra" in found.stdout, found.stdout


def test_doctor_names_the_one_folder_the_variables_move(fake_home: Path) -> None:
    """With ``CURSOR_CONFIG_DIR`` set, ``XDG_CONFIG_HOME`` moves no cursor-agent folder, and the variable moves one:
    doctor named both variables and every folder this shell reads as moved (trial46 F3)."""
    env = _env(fake_home)
    (fake_home / "cfg").mkdir()
    settings = run_deja("doctor", env=env).stdout.split("\nSettings\n")[1].split("\n\n")[0]
    assert " ".join(settings.split()) == (
        f"warn CURSOR_CONFIG_DIR is set in this shell and moves cursor-agent's folder to {fake_home}/cfg; Cursor's "
        "hooks and MCP server do not read it unless Cursor is started with the same variable fix: start Cursor from "
        "a shell that sets CURSOR_CONFIG_DIR; or, for cursor-agent alone, deja install cursor-auto here and env -u "
        "CURSOR_CONFIG_DIR deja install cursor-auto"
    )


def test_doctor_names_only_the_variables_that_move_the_folders(fake_home: Path) -> None:
    """``XDG_CONFIG_HOME`` set to its default (``~/.config``) moves nothing: doctor named it beside
    ``CURSOR_CONFIG_DIR`` and told people to start Cursor with it (trial45 F3)."""
    env = {**_env(fake_home), "XDG_CONFIG_HOME": str(fake_home / ".config")}
    (fake_home / "cfg").mkdir()
    settings = " ".join(run_deja("doctor", env=env).stdout.split("\nSettings\n")[1].split("\n\n")[0].split())
    assert "CURSOR_CONFIG_DIR is set in this shell and moves cursor-agent's folder to " in settings, settings
    assert "fix: start Cursor from a shell that sets CURSOR_CONFIG_DIR;" in settings, settings
    assert "XDG_CONFIG_HOME" not in settings, settings


def _two_copies(home: Path, older: Path, newer: Path) -> None:
    """One chat resumed after cursor-agent's root moved: its old copy stays behind with the first turn only."""
    cwd, chat_id, created = str(home / "proj"), "a6a6a6a6-0000-4000-8000-000000000006", 1_785_060_360_000
    first = [store_user_message("add a healthcheck endpoint"), store_assistant_message("Added GET /healthz.")]
    second = [store_user_message("also add a readiness probe"), store_assistant_message("Added /readyz for the gnu.")]
    for root, messages, updated in ((newer, first + second, created + 86_400_000), (older, first, created + 60_000)):
        write_chat_store(
            chat_dir_for(root, cwd, chat_id), cwd=cwd, name="Healthcheck", created_ms=created, updated_ms=updated,
            messages=messages,
        )  # fmt: skip


@pytest.mark.parametrize("older_first", [True, False])
def test_a_chat_under_two_roots_is_its_copy_written_last(fake_home: Path, older_first: bool) -> None:
    """The newer copy's later turn is found, by a refresh and by a rebuild, whichever root is read first (the older
    copy is written last here, so the store files' own times would pick it: meta.json's updatedAtMs decides)."""
    first, second = fake_home / ".cursor", fake_home / "xdg" / "cursor"
    _two_copies(fake_home, *((first, second) if older_first else (second, first)))
    env = _env(fake_home)
    for command in (("index",), ("index", "--full")):
        assert run_deja(*command, env=env).returncode == 0
        found = run_deja("search", "gnu", env=env)
        assert found.returncode == 0 and "Healthcheck" in found.stdout, (command, found.stdout, found.stderr)


def test_chats_under_xdgs_default_are_read_without_the_variable(fake_home: Path) -> None:
    """cursor-agent run with XDG_CONFIG_HOME=~/.config kept its chats in ~/.config/cursor; a process without the
    variable (Cursor's hooks and MCP server, another shell) still reads them, and doctor names the folder."""
    cwd = str(fake_home / "ops")
    _store_chat(fake_home / ".config" / "cursor", cwd, "a2a2a2a2-0000-4000-8000-000000000002", "kubectl rollout stuck")
    env = {"HOME": str(fake_home), "PATH": os.environ["PATH"]}
    assert list(_sessions(env)) == ["a2a2a2a2-0000-4000-8000-000000000002"]
    doctor = run_deja("doctor", env=env).stdout
    assert f"cursor-agent  {fake_home}/.config/cursor\n" in doctor, doctor
    assert "read from their store alone (no transcript): 1" in doctor, doctor


def test_a_newer_copy_under_another_root_replaces_the_indexed_one_at_the_next_refresh(fake_home: Path) -> None:
    older, newer = fake_home / ".cursor", fake_home / "xdg" / "cursor"
    _two_copies(fake_home, older, newer)
    moved = fake_home / "moved-away"
    newer.rename(moved)  # indexed before the chat was resumed under the new root
    env = _env(fake_home)
    assert run_deja("index", env=env).returncode == 0
    assert "No session matches" in run_deja("search", "gnu", env=env).stdout
    moved.rename(newer)
    assert run_deja("index", env=env).returncode == 0
    found = run_deja("search", "gnu", env=env)
    assert found.returncode == 0 and "Healthcheck" in found.stdout, found.stdout


def test_a_later_meta_json_without_a_store_does_not_hide_the_chat(fake_home: Path) -> None:
    """cursor-agent writes meta.json when a chat starts and store.db once it talks: a copy holding only a later
    meta.json has nothing to read, so the copy with the store is the chat."""
    cwd, chat_id = str(fake_home / "proj"), "b7b7b7b7-0000-4000-8000-000000000007"
    messages = [store_user_message("tune the pgbouncer pool"), store_assistant_message("Raised default_pool_size.")]
    write_chat_store(
        chat_dir_for(fake_home / ".cursor", cwd, chat_id), cwd=cwd, name="Pool", created_ms=1_785_060_360_000,
        updated_ms=1_785_060_420_000, messages=messages,
    )  # fmt: skip
    started = chat_dir_for(fake_home / "xdg" / "cursor", cwd, chat_id)
    started.mkdir(parents=True)
    meta = {"schemaVersion": 1, "createdAtMs": 1_785_060_360_000, "updatedAtMs": 1_785_160_420_000, "cwd": cwd}
    (started / "meta.json").write_bytes(orjson.dumps(meta))
    env = _env(fake_home)
    assert list(_sessions(env)) == [chat_id]
    found = run_deja("search", "pgbouncer", env=env)
    assert found.returncode == 0 and "Pool" in found.stdout, found.stdout


def test_doctor_shows_a_root_of_chat_stores_alone_without_an_empty_transcripts_line(fake_home: Path) -> None:
    """The config root of split roots holds chat stores and no transcript: doctor counts its stores, and says nothing
    of transcripts there ("0 transcripts, 0 B, last written unknown time" read as something missing)."""
    cwd = str(fake_home / "proj")
    _store_chat(fake_home / "cfg", cwd, "in-config-dir", "question about wombats")
    write_transcript(
        transcript_path(fake_home / ".cursor", cwd, "with-transcript"), [user_turn("q"), assistant_turn("a")]
    )
    env = _env(fake_home)
    doctor = run_deja("doctor", env=env).stdout.splitlines()
    config_root = doctor.index(f"  cursor-agent  {fake_home / 'cfg'}")
    assert doctor[config_root + 1].strip().startswith("1 chat store, ")
    assert doctor[config_root + 2].startswith("  ") and "transcript" not in doctor[config_root + 2]
    data_root = doctor.index(f"  cursor-agent  {fake_home / '.cursor'}")
    assert doctor[data_root + 1].strip().startswith("1 transcript, ")


def test_doctor_says_an_empty_root_holds_no_chats_yet(fake_home: Path) -> None:
    """A cursor-agent folder there is, before its first chat, has none yet: "0 transcripts, 0 B, last written unknown
    time" said of a config root, which holds chat stores, read as something missing (trial46 F9)."""
    (fake_home / "cfg").mkdir()
    cwd = str(fake_home / "proj")
    write_transcript(transcript_path(fake_home / ".cursor", cwd, "elsewhere"), [user_turn("q"), assistant_turn("a")])
    doctor = run_deja("doctor", env=_env(fake_home)).stdout.splitlines()
    config_root = doctor.index(f"  cursor-agent  {fake_home / 'cfg'}")
    assert doctor[config_root + 1] == "                no chats yet", doctor
