"""An editor chat that also has a transcript keeps the transcript's tool calls the database lacks, each once.

cli-contract: "the transcript contributes what the database lacks (tool calls, turns)". The database and the
transcript are written with deja's writers; what is asserted is what ``deja show`` and ``deja blame`` print.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from harness import run_deja

from deja.core.writers.cursor_agent import (
    assistant_turn,
    tool_use,
    transcript_path,
    turn_ended,
    user_turn,
    write_transcript,
)
from deja.core.writers.ide import composer_data, tool_former_data, write_state_vscdb

CHAT = "d0b1e000-1111-4222-8333-44445555beef"
T0 = 1_780_000_000_000


def write_editor_chat(user_root: Path, project: str) -> None:
    """A composer whose answer ran one terminal command (the only call the database recorded)."""
    shell = tool_former_data("run_terminal_cmd", {"command": "wibblequux --init", "is_background": False})
    write_state_vscdb(
        user_root / "globalStorage" / "state.vscdb",
        composers={CHAT: composer_data(CHAT, [("b1", 1), ("b2", 2)], created_at=T0, name="Set up wibblequux")},
        bubbles={
            CHAT: {
                "b1": {"type": 1, "bubbleId": "b1", "text": "set up wibblequux here", "createdAt": T0},
                "b2": {
                    "type": 2,
                    "bubbleId": "b2",
                    "text": "Initialised wibblequux and wrote its config.",
                    "createdAt": T0 + 1000,
                    "toolFormerData": shell,
                },
            }
        },
    )


def test_a_write_kept_only_in_the_transcript_is_in_the_session_and_the_database_s_call_is_not_doubled(
    cli_root: Path, tmp_path: Path, monkeypatch
):
    project = tmp_path / "proj"
    project.mkdir()
    user_root = tmp_path / "no-ide"
    write_editor_chat(user_root, str(project))
    config = str(project / "wq.toml")
    write_transcript(
        transcript_path(cli_root, str(project), CHAT),
        [
            user_turn("set up wibblequux here"),
            assistant_turn(
                "Initialised wibblequux and wrote its config.",
                tool_use("Shell", {"command": "wibblequux --init"}),
                tool_use("Write", {"path": config, "contents": "[wibble]\nquux = 1\n"}),
            ),
            turn_ended(),
        ],
    )
    assert run_deja("index").returncode == 0
    shown = run_deja("show", CHAT[:8], "--json")
    assert shown.returncode == 0, shown.stderr
    calls = [call["name"] for m in orjson.loads(shown.stdout)["messages"] for call in m.get("tool_calls", [])]
    assert sorted(calls) == ["Write", "run_terminal_cmd"]
    blamed = run_deja("blame", config)
    assert blamed.returncode == 0, blamed.stderr
    assert CHAT[:8] in blamed.stdout


def write_editor_edit(user_root: Path, tool: str, args: dict) -> None:
    """A composer whose answer made one edit, as the editor spells it (``file_path``, ``target_file``)."""
    write_state_vscdb(
        user_root / "globalStorage" / "state.vscdb",
        composers={CHAT: composer_data(CHAT, [("b1", 1), ("b2", 2)], created_at=T0, name="Raise the timeout")},
        bubbles={
            CHAT: {
                "b1": {"type": 1, "bubbleId": "b1", "text": "raise the timeout to 30", "createdAt": T0},
                "b2": {
                    "type": 2,
                    "bubbleId": "b2",
                    "text": "Raised it.",
                    "createdAt": T0 + 1000,
                    "toolFormerData": tool_former_data(tool, args),
                },
            }
        },
    )


REPLACED = {"old_string": "TIMEOUT = 5", "new_string": "TIMEOUT = 30"}


@pytest.mark.parametrize(
    ("editor_tool", "editor_path_key", "transcript_tool", "extra", "editor_path"),
    [
        ("search_replace", "file_path", "StrReplace", REPLACED, "absolute"),
        ("edit_file", "target_file", "Write", {"contents": "TIMEOUT = 30\n"}, "absolute"),
        # The database names the file relative to the workspace, the transcript absolutely: one edit still.
        ("edit_file", "target_file", "Write", {"contents": "TIMEOUT = 30\n"}, "app.py"),
        ("search_replace", "file_path", "StrReplace", REPLACED, "./app.py"),
    ],
)
def test_one_edit_spelt_differently_by_the_database_and_the_transcript_is_listed_once(
    cli_root: Path,
    tmp_path: Path,
    editor_tool: str,
    editor_path_key: str,
    transcript_tool: str,
    extra: dict,
    editor_path: str,
):
    project = tmp_path / "proj"
    project.mkdir()
    source = project / "app.py"
    source.write_text("TIMEOUT = 30\n")
    given = str(source) if editor_path == "absolute" else editor_path
    write_editor_edit(tmp_path / "no-ide", editor_tool, {editor_path_key: given, **extra, "explanation": "x"})
    write_transcript(
        transcript_path(cli_root, str(project), CHAT),
        [
            user_turn("raise the timeout to 30"),
            assistant_turn("Raised it.", tool_use(transcript_tool, {"path": str(source), **extra})),
            turn_ended(),
        ],
    )
    assert run_deja("index").returncode == 0
    shown = run_deja("show", CHAT[:8], "--json")
    calls = [call["name"] for m in orjson.loads(shown.stdout)["messages"] for call in m.get("tool_calls", [])]
    assert calls == [editor_tool]
    blamed = run_deja("blame", str(source))
    assert "2 edits" not in blamed.stdout and CHAT[:8] in blamed.stdout, blamed.stdout
