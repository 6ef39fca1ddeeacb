"""A lone UTF-16 surrogate escape in the user's own hooks.json or mcp.json (``"\\ud83d"``: valid JSON, what Node writes
for a string cut inside an emoji) cannot be written back to a UTF-8 file: install and uninstall said a bare
``UnicodeEncodeError`` naming no file (trial50 F3). Each now says the file, the line and column and what to do, in
one line, and writes nothing; doctor reads the file as Cursor does, and an install that changes nothing passes."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from harness import console_script, path_with, run_deja, snapshot

if TYPE_CHECKING:
    from collections.abc import Callable

LONE = "\\ud83d"


@pytest.fixture
def deja(tmp_path: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``deja ARGS`` run as a console script on PATH, as a person's install records it (so uninstall knows it)."""
    script = console_script(tmp_path / "venv" / "bin")
    return lambda *args: run_deja(*args, script=script, env={**os.environ, "PATH": path_with(script)})


def refusal(path: Path, line: int, column: int) -> str:
    return (
        f"deja: {path}:{line}: holds a lone UTF-16 surrogate ({LONE} at column {column}: half of an emoji's pair), "
        "which deja cannot write back to a UTF-8 file; deja changed nothing; remove that escape or complete its pair, "
        "then run the command again\n"
    )


@pytest.mark.parametrize(
    ("name", "document", "column"),
    [
        ("hooks.json", '{"version":1,"hooks":{"stop":[{"command":"x ' + LONE + '"}]}}', 45),
        ("mcp.json", '{"mcpServers":{"mine":{"command":"y ' + LONE + '"}}}', 37),
    ],
)
def test_install_names_the_file_and_place_and_writes_nothing(
    fake_home: Path, name: str, document: str, column: int
) -> None:
    mine = fake_home / ".cursor" / name
    mine.parent.mkdir()
    mine.write_text(document)
    before = snapshot(fake_home)
    said = run_deja("install", "cursor-auto")
    assert (said.returncode, said.stderr) == (1, refusal(mine, 1, column))
    assert snapshot(fake_home) == before


def test_a_surrogate_added_after_install_stops_uninstall_not_doctor_or_a_reinstall(
    fake_home: Path, deja: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    assert deja("install", "cursor-auto").returncode == 0
    mcp = fake_home / ".cursor" / "mcp.json"
    document = json.loads(mcp.read_text())
    document["mcpServers"]["mine"] = {"command": "PLACEHOLDER"}
    mcp.write_text(json.dumps(document, indent=2).replace("PLACEHOLDER", "x " + LONE))
    line = next(n for n, text in enumerate(mcp.read_text().splitlines(), 1) if LONE in text)
    before = snapshot(fake_home)
    for command in (["uninstall", "cursor-auto", "--dry-run"], ["uninstall", "cursor-auto"]):
        said = deja(*command)
        assert (said.returncode, said.stderr) == (1, refusal(mcp, line, 21)), command
    assert snapshot(fake_home) == before
    again = deja("install", "cursor-auto")  # (nothing of deja's to change: nothing to write back)
    assert (again.returncode, again.stderr) == (0, "")
    assert f"unchanged {mcp}" in again.stdout
    doctor = deja("doctor").stdout
    assert f"ok     Cursor: deja's MCP server is in {mcp}" in doctor
    assert "lone UTF-16" not in doctor


def test_a_whole_pair_installs(fake_home: Path) -> None:
    mine = fake_home / ".cursor" / "mcp.json"
    mine.parent.mkdir()
    mine.write_text('{"mcpServers":{"mine":{"command":"y \\ud83d\\ude00"}}}')
    said = run_deja("install", "cursor-auto")
    assert (said.returncode, said.stderr) == (0, ""), said.stderr
    assert json.loads(mine.read_text())["mcpServers"]["mine"] == {"command": "y \U0001f600"}
