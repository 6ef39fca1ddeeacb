"""A transcript whose bytes start with a UTF-8 BOM (a file passed through a Windows editor or PowerShell's
``Out-File``) keeps its first message: the BOM is skipped like whitespace (trial17 F9). Before, the first line did
not parse, so the first question was dropped silently and the title became the second question."""

from __future__ import annotations

import json
from pathlib import Path

from harness import run_deja

from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript


def test_a_transcript_starting_with_a_bom_keeps_its_first_message(tmp_path: Path, cli_root: Path) -> None:
    project = tmp_path / "code" / "api"
    project.mkdir(parents=True)
    path = write_transcript(
        transcript_path(cli_root, str(project), "7a7a0000-1111-4222-8333-444455556666"),
        [
            user_turn("why does the billing export time out"),
            assistant_turn("The export query has no index on created_at."),
            user_turn("add the index then"),
            assistant_turn("Added."),
        ],
    )
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert run_deja("index").returncode == 0
    shown = run_deja("show", "7a7a0000", "--json")
    shown_json = json.loads(shown.stdout)
    session, messages = shown_json["session"], shown_json["messages"]
    assert session["title"].startswith("why does the billing export time out"), session["title"]
    assert [m["text"] for m in messages][:2] == [
        "why does the billing export time out",
        "The export query has no index on created_at.",
    ]
    assert session["messages"] == 4
