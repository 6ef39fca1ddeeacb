"""``install --dry-run`` and ``uninstall --dry-run`` show what changes in the meaning of the user's JSON file, not its
layout: uninstall puts back a compact mcp.json from the .bak byte for byte, and the line-by-line diff from deja's
indent-2 rewrite listed every server of the user's as removed, then added again as one-liners, which reads as "your
servers go" (trial50 F9). Both dry runs compare the two documents at one layout and say that the layout changes."""

from __future__ import annotations

import os
from pathlib import Path

from harness import console_script, path_with, run_deja

#: A user's mcp.json as people write one: a server a line.
COMPACT = """{
  "mcpServers": {
    "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]},
    "pg": {"command": "pg-mcp", "args": ["postgres://localhost/app"], "disabled": true}
  }
}
"""
RELAID = "(both sides shown as JSON at indent 2: only the lines above change in meaning; the file's layout changes too)"


def changed_lines(shown: str, path: Path) -> list[str]:
    """The ``+`` and ``-`` lines of ``path``'s diff in a dry run's output, and the line after its diff."""
    lines = shown.splitlines()
    start = lines.index(f"--- {path}")
    diff = []
    for line in lines[start + 2 :]:
        if line.startswith("cursor-auto: ") or line.startswith("--- "):
            break
        if line.startswith(("+", "-", "(")):
            diff.append(line)
    return diff


def test_both_dry_runs_show_deja_s_entry_alone_and_uninstall_restores_the_bytes(
    fake_home: Path, tmp_path: Path
) -> None:
    script = console_script(tmp_path / "venv" / "bin")
    env = {**os.environ, "PATH": path_with(script)}
    mcp = fake_home / ".cursor" / "mcp.json"
    mcp.parent.mkdir()
    mcp.write_text(COMPACT)
    deja_entry = ['    "deja": {', f'      "command": "{script}",', '      "args": [', '        "mcp"', "      ]"]

    adding = run_deja("install", "cursor-auto", "--dry-run", env=env, script=script)
    assert changed_lines(adding.stdout, mcp) == ["+    },", *(f"+{line}" for line in deja_entry), RELAID]

    assert run_deja("install", "cursor-auto", env=env, script=script).returncode == 0
    removing = run_deja("uninstall", "cursor-auto", "--dry-run", env=env, script=script)
    assert changed_lines(removing.stdout, mcp) == ["-    },", *(f"-{line}" for line in deja_entry), RELAID]

    assert run_deja("uninstall", "cursor-auto", env=env, script=script).returncode == 0
    assert mcp.read_text() == COMPACT
