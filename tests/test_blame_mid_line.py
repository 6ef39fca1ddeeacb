"""``deja blame FILE:LINE`` names the chat whose StrReplace changed part of that line (StrReplace takes any unique
substring, so mid-line edits are common): its new text is in the line and its old text is not.

Before, only an edit holding the whole line counted, and the one edit that wrote the changed part of the line was
listed under "no chat deja knows wrote this line" (trialI F9). Then, for a while, a short replacement (``True`` →
``False``) was credited with every line holding its new text, over the Write that wrote the line (review7b 2): a
short one now counts only where the line with its old text put back is one an older edit wrote.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from harness import run_deja

from deja.core.writers.cursor_agent import (
    assistant_turn,
    tool_use,
    transcript_path,
    user_turn,
    write_transcript,
)


def test_a_mid_line_replacement_wrote_the_line(tmp_path: Path, cli_root: Path) -> None:
    project = tmp_path / "café-app"
    (project / "données").mkdir(parents=True)
    source = project / "données" / "lecture.py"
    source.write_text("def lire(chemin):\n    return open(chemin, encoding='utf-8').read()\n", encoding="utf-8")
    edit = {"path": str(source), "old_string": "open(chemin)", "new_string": "open(chemin, encoding='utf-8')"}
    write_transcript(
        transcript_path(cli_root, str(project), "c-utf8"),
        [user_turn("read the file as utf-8"), assistant_turn("Done.", tool_use("StrReplace", edit))],
    )
    unrelated = {"path": str(source), "old_string": "lire", "new_string": "def"}  # its new text is no new part
    write_transcript(
        transcript_path(cli_root, str(project), "c-other"),
        [user_turn("rename it"), assistant_turn("Done.", tool_use("StrReplace", unrelated))],
    )
    assert run_deja("index").returncode == 0
    ran = run_deja("blame", f"{source}:2", "--json")
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["line"]["written_by"]["session_id"] == "c-utf8", ran.stdout
    assert run_deja("blame", f"{source}:1", "--json").returncode == 0
    assert json.loads(run_deja("blame", f"{source}:1", "--json").stdout)["line"]["written_by"] is None


WRITTEN = datetime(2026, 7, 26, 10, 6, tzinfo=UTC)


def test_a_short_replacement_is_credited_only_with_the_line_it_changed(tmp_path: Path, cli_root: Path) -> None:
    project = tmp_path / "app"
    project.mkdir()
    source = project / "settings.py"
    source.write_text("DEBUG = False\nclass Cache:\n    enabled = False\n")
    whole = {"path": str(source), "contents": "DEBUG = True\nclass Cache:\n    enabled = False\n"}
    write_transcript(
        transcript_path(cli_root, str(project), "c-write"),
        [user_turn("write settings with a disabled cache", WRITTEN), assistant_turn("Done.", tool_use("Write", whole))],
    )
    short = {"path": str(source), "old_string": "True", "new_string": "False"}
    write_transcript(
        transcript_path(cli_root, str(project), "c-debug"),
        [
            user_turn("turn debug off", WRITTEN + timedelta(hours=1)),
            assistant_turn("Done.", tool_use("StrReplace", short)),
        ],
    )
    assert run_deja("index").returncode == 0
    writers = [
        json.loads(run_deja("blame", f"{source}:{n}", "--json").stdout)["line"]["written_by"]["session_id"]
        for n in (1, 3)
    ]
    assert writers == ["c-debug", "c-write"]
