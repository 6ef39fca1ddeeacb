"""What a careful reader of the CLI noticed (trialG F7): counts in ``deja stats``'s rows read as counts, ``deja
show`` names an editor chat's tools as deja does everywhere else (``Edit``, ``Shell``), not by Cursor's old
internal names (``edit_file``, ``run_terminal_command_v2``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import Sample, index_chats, run_deja

from deja.core.sample import API_EDITOR_COMPOSER


def test_stats_rows_read_one_session_as_one_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index_chats(tmp_path, monkeypatch, {"c1": ["why is the cache stale?", "The key omits the locale."]})
    rows = run_deja("stats").stdout.splitlines()
    assert rows[1].split() == ["cursor-cli", "1", "session", "2", "messages"], rows
    assert rows[3].split()[1:] == ["1", "session", "2", "messages"], rows


def test_stats_rows_stay_lined_up(indexed_sample: Sample) -> None:
    rows = [row for row in run_deja("stats").stdout.splitlines() if row.startswith("  ")]
    assert len({row.index(" messages") for row in rows[:2]}) == len({row.index(" messages") for row in rows[2:]}) == 1


def test_stats_of_an_empty_index_lists_no_empty_projects_heading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index_chats(tmp_path, monkeypatch, {})
    ran = run_deja("stats")
    assert ran.returncode == 0 and ran.stdout.startswith("0 sessions, 0 messages"), ran.stdout + ran.stderr
    assert "projects:" not in ran.stdout, ran.stdout


def test_show_names_an_editor_chats_tool_as_deja_does_elsewhere(indexed_sample: Sample) -> None:
    shown = run_deja("show", API_EDITOR_COMPOSER).stdout
    assert "⚙ Edit api/limits.py" in shown and "edit_file" not in shown, shown
