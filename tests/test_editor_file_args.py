"""The file an editor tool call names (``target_file`` of ``read_file``/``edit_file``, cursor-formats.md §1.5) is
among its message's searchable words, as cursor-agent's ``path`` is: ``deja search '"narwhal.py"'`` and ``blame``'s
"also discussed in" find the editor chat that read the file (trialM F7: only cursor-agent's chats were found)."""

from __future__ import annotations

import json
from pathlib import Path

from harness import run_deja

from deja.core.writers.ide import (
    ComposerHeader,
    composer_data,
    tool_former_data,
    write_state_vscdb,
    write_workspace_json,
)

T0 = 1784278800000  # 2026-07-17 09:00 UTC, in ms


def test_an_editor_read_file_is_found_by_its_file_name(fake_home: Path, tmp_path: Path) -> None:
    source = tmp_path / "code" / "alpha" / "src" / "narwhal.py"
    source.parent.mkdir(parents=True)
    source.write_text("def swim():\n    return 1\n")
    read = tool_former_data("read_file", {"target_file": str(source)}, {"contents": "def swim(): ..."})
    bubbles = {
        "u": {"type": 1, "text": "Why does the swim helper return one?", "createdAt": T0 + 1000},
        "a": {"type": 2, "text": "Reading the helper.", "createdAt": T0 + 2000, "toolFormerData": read},
        "b": {"type": 2, "text": "It is a placeholder.", "createdAt": T0 + 3000},
    }
    composer = composer_data("c5", [("u", 1), ("a", 2), ("b", 2)], created_at=T0, name="Swim helper")
    user = fake_home / ".config" / "Cursor" / "User"
    write_workspace_json(user / "workspaceStorage" / "ws-alpha", folder=source.parent.parent.as_uri())
    write_state_vscdb(
        user / "globalStorage" / "state.vscdb",
        composers={"c5": composer},
        bubbles={"c5": bubbles},
        composer_headers=[ComposerHeader("c5", workspace_id="ws-alpha")],
    )
    assert run_deja("index").returncode == 0

    found = run_deja("search", '"narwhal.py"', "--json")
    assert found.returncode == 0, found.stderr
    assert [hit["session_id"] for hit in json.loads(found.stdout)["hits"]] == ["c5"], found.stdout

    blamed = run_deja("blame", str(source), "--json")
    assert blamed.returncode == 0, blamed.stderr
    assert [s["id"] for s in json.loads(blamed.stdout)["discussed"]] == ["c5"], blamed.stdout
