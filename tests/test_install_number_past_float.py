"""review50b: a number in the user's mcp.json past a double's range (``1e400``: valid JSON, which Cursor reads as
Infinity) is written back by install as ``Infinity``, which is no JSON: Cursor's ``JSON.parse`` then refuses the whole
file, every MCP server of the user's with it. Its dry run, at one layout since trial50 F9, shows that line as unchanged
context and says only the lines marked change in meaning, so nothing shows the change."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from harness import console_script, path_with, run_deja

if TYPE_CHECKING:
    from pathlib import Path


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
