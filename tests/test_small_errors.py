"""Small errors a new user met: each one line saying what is wrong in the user's terms, never a Python value."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest
from harness import Sample, run_deja

from deja.core.sample import API_CHAT
from deja.installers import InstallError, install


@pytest.fixture
def deja(tmp_path: Path) -> str:
    path = tmp_path / "bin" / "deja"
    path.parent.mkdir(parents=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return str(path)


def test_a_url_server_named_deja_is_described_not_shown_as_none(fake_home: Path, deja: str) -> None:
    mcp = fake_home / ".cursor" / "mcp.json"
    mcp.parent.mkdir()
    mcp.write_text('{"mcpServers": {"deja": {"url": "https://example.com/mcp"}}}')
    with pytest.raises(InstallError) as refused:
        install("cursor", deja_path=deja)
    assert f"{mcp}:1: mcpServers.deja is the server at 'https://example.com/mcp', not deja's server" in str(
        refused.value
    )
    assert "None" not in str(refused.value)


def test_a_json_file_with_comments_is_refused_as_such(fake_home: Path, deja: str) -> None:
    hooks = fake_home / ".cursor" / "hooks.json"
    hooks.parent.mkdir()
    hooks.write_text('{\n  // my hooks\n  "version": 1\n}\n')
    with pytest.raises(InstallError) as refused:
        install("cursor-auto", deja_path=deja)
    assert str(refused.value).startswith(
        f"{hooks}:2: holds a comment (// at column 3), which JSON does not allow; deja changed nothing; remove the comments"
    )


@pytest.mark.parametrize(
    ("text", "where", "closing"),
    [
        ('{\n  "mcpServers": {\n    "a": {"command": "a"},\n  }\n}\n', ":3: has a trailing comma (column 26)", "'}'"),
        ('{"mcpServers": {"a": {"command": "a", "args": ["x",]}}}', ":1: has a trailing comma (column 51)", "']'"),
    ],
)
def test_a_trailing_comma_is_named_on_its_own_line(
    fake_home: Path, deja: str, text: str, where: str, closing: str
) -> None:
    """json reports the closing bracket ("Expecting property name … line 4"), a line below the comma to remove."""
    mcp = fake_home / ".cursor" / "mcp.json"
    mcp.parent.mkdir()
    mcp.write_text(text)
    with pytest.raises(InstallError) as refused:
        install("cursor", deja_path=deja)
    assert str(refused.value) == (
        f"{mcp}{where} before {closing}, which JSON does not allow; deja changed nothing; remove that comma, "
        "then run the command again"
    )
    assert mcp.read_text() == text


def test_a_raw_control_character_in_a_string_is_named_by_its_column(fake_home: Path, deja: str) -> None:
    """json's message for a raw newline or tab inside a string ends "at" before the place it gives: it read
    "Invalid control character at (column 31)", a sentence cut short (trial60 F10)."""
    mcp = fake_home / ".cursor" / "mcp.json"
    mcp.parent.mkdir()
    mcp.write_text('{"mcpServers": {"a": {"command": "a\tb"}}}\n')
    with pytest.raises(InstallError) as refused:
        install("cursor", deja_path=deja)
    assert str(refused.value).startswith(f"{mcp}:1: Invalid control character (column 36); deja changed nothing"), str(
        refused.value
    )


def test_export_into_a_path_under_a_file_says_it_is_a_file(indexed_sample: Sample, tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("mine\n")
    done = run_deja("export", API_CHAT, "-o", str(afile / "x"))
    assert done.returncode == 1
    assert done.stderr == f"deja: {afile} is a file, not a folder; give -o a path in an existing folder\n"
    assert afile.read_text() == "mine\n"


@pytest.mark.parametrize("command", ["search", "sessions"])
def test_an_empty_project_filter_is_a_usage_error(indexed_sample: Sample, command: str) -> None:
    args = ("search", "pytest") if command == "search" else ("sessions",)
    done = run_deja(*args, "--project", "")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "deja: --project is empty: give a project name or folder, or leave --project out\n"


def _columns(line: str) -> int:
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def test_search_lines_fit_the_terminals_width(indexed_sample: Sample) -> None:
    done = run_deja("search", "pytest", "import", env={**os.environ, "COLUMNS": "50"})
    assert done.returncode == 0 and "pytest" in done.stdout.lower()
    assert max(map(_columns, done.stdout.splitlines())) <= 50
    piped = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    whole = run_deja("search", "pytest", "import", env=piped).stdout  # into a pipe: lines are whole
    assert max(map(len, whole.splitlines())) > 50
