"""review51d F1: a new deja started through a link of another name (``~/bin/deja-new`` -> the new venv's ``deja``),
the old venv's ``deja`` still first on PATH: ``install`` wired Cursor to the ``deja`` on PATH, the old one, without
a word. It wires the script the link leads to, says the `deja` on PATH is another, and how to point it here."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
from harness import console_script, path_with, run_deja


def test_a_new_deja_run_through_a_link_of_another_name_wires_cursor_to_itself(fake_home: Path, tmp_path: Path) -> None:
    old = console_script(tmp_path / "oldvenv" / "bin")
    new = console_script(tmp_path / "newvenv" / "bin")
    link = tmp_path / "bin" / "deja-new"
    link.parent.mkdir()
    link.symlink_to(new)
    env = {**os.environ, "PATH": path_with(old)}
    installed = run_deja("install", "cursor-auto", script=link, env=env)
    assert installed.returncode == 0, installed.stderr
    server = orjson.loads((fake_home / ".cursor" / "mcp.json").read_bytes())["mcpServers"]["deja"]["command"]
    assert server == str(new), server  # (it was the old one, on PATH)
    assert "the `deja` on your PATH is another one" in installed.stdout, installed.stdout


def test_the_note_points_readmes_link_at_the_deja_that_runs(fake_home: Path, tmp_path: Path) -> None:
    """review51d F2: the `deja` on PATH is README's link to the old venv's: the note says to point that link here,
    not to put the new venv's folder (its python3 and pip too) first on PATH."""
    old = console_script(tmp_path / "oldvenv" / "bin")
    new = console_script(tmp_path / "newvenv" / "bin")
    link = tmp_path / "home" / ".local" / "bin" / "deja"
    link.parent.mkdir(parents=True)
    link.symlink_to(old)
    installed = run_deja("install", "cursor-auto", script=new, env={**os.environ, "PATH": path_with(link)})
    assert installed.returncode == 0, installed.stderr
    assert f"is another one ({link}): point that link here (ln -sf {new} {link}), or run deja by that path" in (
        installed.stdout
    ), installed.stdout
