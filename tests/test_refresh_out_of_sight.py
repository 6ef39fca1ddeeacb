"""A refresh run where the stores look elsewhere keeps what it cannot see; only a store gone from disk drops its chats.

Cursor starts the hooks (and the MCP server) with its own environment, which can
name other folders than the person's shell: a Snap or Flatpak Cursor sets its own
``XDG_CONFIG_HOME``, a ``DEJA_CURSOR_ROOT`` exported in a shell profile never
reaches an editor started from the dock. A session-end hook in such an
environment once dropped every editor chat from the index (the editor's database
was not where that process looked, so it counted as deleted), and the next
refresh from the shell read them all again: on a 100k history, 40% of the
sessions marked deleted, and the hooks answering without them in between.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from harness import Sample, run_deja

from deja.core.indexer import refresh
from deja.core.sample import API_CHAT, API_EDITOR_COMPOSER, WEB_COMPOSER
from deja.core.writers.cursor_agent import (
    assistant_turn,
    chat_dir_for,
    shell_result_text,
    store_assistant_message,
    store_user_message,
    tool_call_part,
    tool_result_message,
    tool_use,
    transcript_path,
    user_turn,
    write_chat_store,
    write_transcript,
)

#: Words only the editor's chats hold (the footer chat's question).
EDITOR_ONLY = "footer mobile"


def _index(sample: Sample) -> dict[str, Any]:
    ran = run_deja("index", "--json", env=sample.env)
    assert ran.returncode == 0, ran.stderr
    return orjson.loads(ran.stdout)


def _found(sample: Sample, query: str) -> list[str]:
    ran = run_deja("search", *query.split(), "--json", env=sample.env)
    assert ran.returncode == 0, ran.stderr
    return [hit["session_id"] for hit in orjson.loads(ran.stdout)["hits"]]


def _shown(sample: Sample, session_id: str) -> int:
    return run_deja("show", session_id, "--json", env=sample.env).returncode


def _elsewhere(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """This process as Cursor may start it: no ``DEJA_CURSOR_ROOT``, and a config folder of its own."""
    monkeypatch.delenv("DEJA_CURSOR_ROOT")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "snap-config"))


def test_a_session_end_refresh_that_sees_no_editor_database_keeps_the_editor_chats(
    sample: Sample, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    first = _index(sample)
    assert WEB_COMPOSER in _found(sample, EDITOR_ONLY)
    _elsewhere(monkeypatch, tmp_path)
    ended = refresh(sample.home, only_chat_ids={API_CHAT})  # what the session-end hook runs
    assert ended.removed == 0 and ended.sessions == first["sessions"]
    assert WEB_COMPOSER in _found(sample, EDITOR_ONLY)
    assert _shown(sample, API_EDITOR_COMPOSER) == 0
    again = _index(sample)  # back where the editor's database is: nothing to read again
    assert (again["added"], again["updated"], again["removed"]) == (0, 0, 0)


def test_a_full_walk_that_sees_no_editor_database_keeps_the_editor_chats(
    sample: Sample, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    first = _index(sample)
    _elsewhere(monkeypatch, tmp_path)
    walked = refresh(sample.home)  # a full walk, as the MCP server's detached one
    assert walked.removed == 0 and walked.sessions == first["sessions"]
    assert WEB_COMPOSER in _found(sample, EDITOR_ONLY)
    again = _index(sample)
    assert (again["added"], again["updated"], again["removed"]) == (0, 0, 0)


def test_an_editor_database_deleted_from_disk_still_drops_its_chats(sample: Sample) -> None:
    _index(sample)
    (sample.history.ide_root / "globalStorage" / "state.vscdb").unlink()
    assert _index(sample)["removed"] >= 1
    assert WEB_COMPOSER not in _found(sample, EDITOR_ONLY)
    assert _shown(sample, WEB_COMPOSER) != 0


def test_a_full_walk_under_other_cursor_agent_roots_keeps_the_chats_it_cannot_see(
    sample: Sample, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    first = _index(sample)
    (tmp_path / "other-agent").mkdir()
    monkeypatch.setenv("DEJA_CURSOR_CLI_ROOT", str(tmp_path / "other-agent"))
    walked = refresh(sample.home)
    assert walked.removed == 0 and walked.sessions == first["sessions"]
    assert _shown(sample, API_CHAT) == 0
    again = _index(sample)
    assert (again["added"], again["updated"], again["removed"]) == (0, 0, 0)


def test_a_transcript_seen_without_its_chat_folder_keeps_what_the_store_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    transcripts, chats, home = tmp_path / "data", tmp_path / "config", tmp_path / "deja"
    (tmp_path / "no-ide").mkdir()
    cwd = "/work/api"
    records = [user_turn("run the tests"), assistant_turn("Running.", tool_use("Shell", {"command": "pytest"}))]
    write_transcript(transcript_path(transcripts, cwd, "t1"), records)
    store = [
        store_user_message("run the tests"),
        store_assistant_message("Running.", tool_call_part("x1", "Shell", {"command": "pytest"})),
        tool_result_message("x1", "Shell", shell_result_text("3 failed", exit_code=1)),
    ]
    write_chat_store(chat_dir_for(chats, cwd, "t1"), cwd=cwd, name="Run the tests", messages=store)
    shell = {"CURSOR_DATA_DIR": str(transcripts), "CURSOR_CONFIG_DIR": str(chats), "DEJA_HOME": str(home)}
    shell["DEJA_CURSOR_ROOT"] = str(tmp_path / "no-ide")
    for name, value in shell.items():
        monkeypatch.setenv(name, value)
    assert refresh(home).added == 1

    def first_result() -> str:
        shown = run_deja("show", "t1", "--json", env={**os.environ, **shell})
        return orjson.loads(shown.stdout)["messages"][1]["tool_calls"][0]["result"]

    assert first_result() == "3 failed"
    monkeypatch.delenv("CURSOR_CONFIG_DIR")  # Cursor's environment: the chats folder is looked for elsewhere
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "snap-config"))
    assert refresh(home, only_chat_ids={"t1"}).updated == 0
    assert refresh(home).updated == 0
    assert first_result() == "3 failed"


def test_a_walk_under_other_roots_leaves_the_shells_folders_watched(
    sample: Sample, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The MCP server's walk, under Cursor's environment, recorded only its own roots' folders: a new chat in a new
    project under the shell's root was then missed by ``deja search`` and ``deja index`` until the shell's own walk
    a minute later (trial9 F14)."""
    _index(sample)
    (tmp_path / "other-agent").mkdir()
    monkeypatch.setenv("DEJA_CURSOR_CLI_ROOT", str(tmp_path / "other-agent"))
    refresh(sample.home)  # a full walk, as the MCP server's detached one
    project = tmp_path / "code" / "newproj"
    project.mkdir(parents=True)
    write_transcript(
        transcript_path(sample.history.cli_root, str(project), "c-jabber"),
        [user_turn("why does the jabberwonky parser loop"), assistant_turn("A lookahead that never advances.")],
    )
    assert _found(sample, "jabberwonky") == ["c-jabber"]
