"""review50b: a number in the user's mcp.json past a double's range (``1e400``: valid JSON, which Cursor reads as
Infinity) is written back by install as ``Infinity``, which is no JSON: Cursor's ``JSON.parse`` then refuses the whole
file, every MCP server of the user's with it. Its dry run, at one layout since trial50 F9, shows that line as unchanged
context and says only the lines marked change in meaning, so nothing shows the change."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

import pytest
from harness import console_script, path_with, run_deja, snapshot

if TYPE_CHECKING:
    from pathlib import Path


PAST = "past the largest a JSON reader keeps (Cursor reads it as Infinity), which deja cannot write back as JSON"


def _refuse(constant: str) -> None:
    raise ValueError(f"{constant} is no JSON")


def test_install_writes_json_cursor_can_read_or_shows_the_change(fake_home: Path, tmp_path: Path) -> None:
    script = console_script(tmp_path / "venv" / "bin")
    env = {**os.environ, "PATH": path_with(script)}
    mcp = fake_home / ".cursor" / "mcp.json"
    mcp.parent.mkdir(parents=True, exist_ok=True)
    mcp.write_text('{"mcpServers": {"gh": {"command": "gh", "timeout": 1e400}}}\n')
    dry = run_deja("install", "cursor", "--dry-run", script=script, env=env)
    shown_as_change = any(line.startswith(("+", "-")) and "timeout" in line for line in dry.stdout.splitlines())
    run_deja("install", "cursor", script=script, env=env)
    written = mcp.read_text()
    try:
        json.loads(written, parse_constant=_refuse)
    except ValueError as exc:
        assert shown_as_change, f"install wrote {exc}, and its dry run did not show that line changing:\n{dry.stdout}"
        raise


@pytest.mark.parametrize(
    ("literal", "shown", "problem", "todo"),
    [
        ("1e400", "the number 1e400", PAST, "write it as a number of at most 1.7e308"),
        ("-1e400", "the number -1e400", PAST, "write it as a number of at most 1.7e308"),
        ("9" * 5000, "the number 999999999999… (5000 characters)", PAST, "write it as a number of at most 1.7e308"),
        ("NaN", "NaN", "which is no JSON: Cursor cannot read this file", "write a number or null there"),
    ],
)
def test_install_and_its_dry_run_refuse_a_number_it_cannot_write_back(
    fake_home: Path, literal: str, shown: str, problem: str, todo: str
) -> None:
    """One line naming the file, its line and column and the value, and what to do; nothing is written (a number of
    5,000 digits said a bare ValueError: Python reads no more than 4,300)."""
    mcp = fake_home / ".cursor" / "mcp.json"
    mcp.parent.mkdir()
    mcp.write_text('{"mcpServers": {"gh": {"command": "gh",\n  "timeout": ' + literal + "}}}\n")
    before = snapshot(fake_home)
    for command in (["install", "cursor", "--dry-run"], ["install", "cursor"]):
        said = run_deja(*command)
        expected = f"deja: {mcp}:2: holds {shown} (column 14), {problem}; deja changed nothing; {todo}, then run the "
        assert (said.returncode, said.stderr) == (1, expected + "command again\n"), command
    assert snapshot(fake_home) == before


def test_a_huge_number_added_after_install_stops_uninstall_not_doctor_or_a_reinstall(
    fake_home: Path, tmp_path: Path
) -> None:
    script = console_script(tmp_path / "venv" / "bin")
    env = {**os.environ, "PATH": path_with(script)}
    assert run_deja("install", "cursor", script=script, env=env).returncode == 0
    mcp = fake_home / ".cursor" / "mcp.json"
    mcp.write_text(mcp.read_text().replace('"mcpServers": {', '"mcpServers": {"gh": {"command": "gh", "n": 1e400},', 1))
    before = snapshot(fake_home)
    for command in (["uninstall", "cursor", "--dry-run"], ["uninstall", "cursor"]):
        said = run_deja(*command, script=script, env=env)
        assert said.returncode == 1, command
        assert said.stderr.startswith(f"deja: {mcp}:2: holds the number 1e400 (column "), (command, said.stderr)
    assert snapshot(fake_home) == before
    again = run_deja("install", "cursor", script=script, env=env)  # (nothing of deja's to change: nothing written)
    assert (again.returncode, again.stderr) == (0, "")
    assert f"ok     Cursor: deja's MCP server is in {mcp}" in run_deja("doctor", script=script, env=env).stdout
