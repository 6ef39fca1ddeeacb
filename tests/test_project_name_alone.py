"""Chats whose project is known by its transcript folder's name alone (the folder deleted, or never on this disk):
doctor counts them as the listings show them, and long names keep the listings' columns (trial16 F6)."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from harness import run_deja

from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript
from deja.interfaces.views import text_columns

#: Folders no disk holds: their chats are filed under the transcript folder's name as it is.
GONE = ["/nowhere/old-code/bulk-export-service", "/nowhere/old-code/api"]


@pytest.fixture
def home(fake_home: Path) -> Path:
    now = datetime.now(UTC)
    for i, folder in enumerate(GONE):
        write_transcript(
            transcript_path(fake_home / ".cursor", folder, f"00000000-0000-4000-8000-00000000000{i}"),
            [user_turn(f"question {i}", now - timedelta(hours=i)), assistant_turn("Answered.")],
        )
    assert run_deja("index").returncode == 0
    return fake_home


def test_doctor_counts_them_under_the_name_listings_show_not_as_without_a_project(home: Path) -> None:
    names = {row["project"] for row in json.loads(run_deja("sessions", "--json").stdout)["sessions"]}
    assert names == {"nowhere-old-code-bulk-export-service", "nowhere-old-code-api"}
    index = json.loads(run_deja("doctor", "--json").stdout)["index"]
    assert index["project_signals"] == {"a transcript folder's name alone (no such folder)": 2}
    assert index["without_project"] == 0
    assert (
        "  projects: 2 from a transcript folder's name alone (no such folder); 0 sessions without a project"
        in run_deja("doctor").stdout.splitlines()
    )


def test_a_long_project_name_keeps_the_stats_columns_and_is_whole_into_a_pipe(home: Path) -> None:
    rows = run_deja("stats").stdout.split("projects:\n", 1)[1].splitlines()[:2]
    assert rows[0].startswith("  nowhere-old-code-bulk-export-service ")
    assert len({row.index(" session") for row in rows}) == 1, rows  # the counts line up


@pytest.mark.parametrize("columns", [40, 47, 59])
def test_on_a_narrow_terminal_every_row_fits_and_the_counts_line_up(home: Path, columns: int) -> None:
    """Below 60 columns the name column stayed at 24 and every row wrapped: the counts take the digits they need,
    and the names the rest, cut; into a pipe they stay whole."""
    out = run_deja("stats", env={**os.environ, "COLUMNS": str(columns)}).stdout
    rows = out.split("index: ", 1)[0].splitlines()  # (the index's path is given whole, to be copied)
    assert all(text_columns(row) <= columns for row in rows), rows
    projects = rows[rows.index("projects:") + 1 :]
    assert len(projects) == 2 and projects[0].startswith("  nowhere-old-"), projects
    assert "…" in projects[0] and "bulk-export-service" not in projects[0], projects
    assert len({row.index(" session") for row in projects}) == 1, projects
    assert projects[0].endswith(" 1 session  2 messages") and projects[1].endswith(" 1 session  2 messages")
    piped = run_deja("stats", env={k: v for k, v in os.environ.items() if k != "COLUMNS"}).stdout
    assert "  nowhere-old-code-bulk-export-service " in piped


def test_on_a_terminal_a_long_project_name_is_cut_to_its_column(home: Path) -> None:
    env = {**os.environ, "COLUMNS": "60"}
    rows = run_deja("stats", env=env).stdout.split("projects:\n", 1)[1].splitlines()[:2]
    assert rows[0].startswith("  nowhere-old-code-bulk-e… ") and all(len(row) <= 60 for row in rows), rows
    assert len({row.index(" session") for row in rows}) == 1, rows
    listed = run_deja("sessions", env={**os.environ, "COLUMNS": "100"}).stdout.splitlines()[:2]
    assert "  nowhere-old-code-…  question 0" in listed[0], listed
    assert len({row.index("question") for row in listed}) == 1, listed  # the titles line up
