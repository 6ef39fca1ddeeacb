"""Editor chats whose messages are not in ``bubbleId:`` rows (trialM F13, F12).

Cursor's newer editor chats keep their messages in ``agentKv:blob:`` rows, which deja never scans
(cursor-drift-2026 §6); their ``composerData`` still names them. Such a chat with an editor transcript
(``projects/<slug>/agent-transcripts/<composer id>/``) is a ``cursor-ide`` session under the composer's name,
read from the transcript; one without is a session with its name, project and dates and no message. Before, the
first became a ``cursor-cli`` chat that ``resume`` said was gone from cursor-agent's store, and the second was
invisible. An empty draft (no name, no bubbles listed: drift §3) is still no session.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path

from harness import run_deja

from deja.core.writers.cursor_agent import (
    assistant_turn,
    tool_use,
    transcript_path,
    turn_ended,
    user_turn,
    write_transcript,
)
from deja.core.writers.ide import ComposerHeader, composer_data, write_state_vscdb, write_workspace_json

T0 = 1_780_000_000_000
READ = "a9000000-0000-4000-8000-0000000000a1"  # an editor transcript holds its messages
UNREAD = "a9000000-0000-4000-8000-0000000000a3"  # nothing deja reads holds them
DRAFT = "a9000000-0000-4000-8000-0000000000a4"
WORKSPACE = "aaaa1111aaaa1111aaaa1111aaaa1111"


def _editor(tmp_path: Path, project: Path) -> None:
    user_root = tmp_path / "no-ide"
    write_workspace_json(user_root / "workspaceStorage" / WORKSPACE, folder=project.as_uri())
    agent_kv = {
        f"agentKv:blob:{hashlib.sha256(word.encode()).hexdigest()}": {"role": "user", "content": f"{word} question"}
        for word in ("puffin", "shoebill")
    }
    write_state_vscdb(
        user_root / "globalStorage" / "state.vscdb",
        composers={
            READ: composer_data(READ, [], created_at=T0, name="Puffin agentKv-era chat"),
            UNREAD: composer_data(UNREAD, [("gone-1", 1), ("gone-2", 2)], created_at=T0, name="Heron-bill chat"),
            DRAFT: composer_data(DRAFT, [], created_at=T0),
        },
        disk_kv=agent_kv,
        composer_headers=[
            ComposerHeader(cid, WORKSPACE, T0, T0, recency, {"name": name})
            for cid, name, recency in ((READ, "Puffin agentKv-era chat", T0), (UNREAD, "Heron-bill chat", T0 + 120_000))
        ],
    )


def _history(tmp_path: Path, cli_root: Path) -> Path:
    project = tmp_path / "code" / "alpha"
    project.mkdir(parents=True)
    _editor(tmp_path, project)
    write_transcript(
        transcript_path(cli_root, str(project), READ),
        [
            user_turn("puffin question about the parser", datetime.fromtimestamp(T0 / 1000 + 60, tz=UTC)),
            assistant_turn("puffin: fixed the parser.", tool_use("Shell", {"command": "pytest -k puffin"})),
            turn_ended(),
        ],
    )
    assert run_deja("index").returncode == 0
    return project


def _sessions() -> dict[str, dict]:
    listed = run_deja("sessions", "--json")
    assert listed.returncode == 0, listed.stderr
    return {session["id"]: session for session in json.loads(listed.stdout)["sessions"]}


def test_an_editor_chat_read_from_its_transcript_is_the_editors_under_its_name(tmp_path: Path, cli_root: Path) -> None:
    project = _history(tmp_path, cli_root)
    session = _sessions()[READ]
    assert (session["source"], session["title"], session["project_dir"]) == (
        "cursor-ide",
        "Puffin agentKv-era chat",
        str(project),
    )
    assert session["messages"] == 2
    shown = json.loads(run_deja("show", READ, "--json").stdout)
    assert [m["text"] for m in shown["messages"]] == ["puffin question about the parser", "puffin: fixed the parser."]
    resume = run_deja("resume", READ)
    assert resume.returncode == 1 and "it is a Cursor editor chat" in resume.stderr, resume.stderr


def test_a_named_editor_chat_deja_cannot_read_is_listed_found_by_its_name_and_shown_as_such(
    tmp_path: Path, cli_root: Path
) -> None:
    project = _history(tmp_path, cli_root)
    sessions = _sessions()
    assert DRAFT not in sessions
    session = sessions[UNREAD]
    assert (session["source"], session["title"], session["project_dir"], session["messages"]) == (
        "cursor-ide",
        "Heron-bill chat",
        str(project),
        0,
    )
    assert session["started"] is not None and session["updated"] is not None
    found = run_deja("search", "Heron-bill", "--json")
    assert [hit["session_id"] for hit in json.loads(found.stdout)["hits"]] == [UNREAD], found.stdout
    shown = run_deja("show", UNREAD)
    assert shown.returncode == 0, shown.stderr
    assert "Cursor keeps this chat's messages where deja cannot read them" in shown.stdout, shown.stdout
    wip = run_deja("wip", cwd=project)
    assert wip.returncode == 0 and "last session here: Heron-bill chat" in wip.stdout, wip.stdout + wip.stderr
    assert "Cursor keeps this chat's messages where deja cannot read them" in wip.stdout
    doctor = run_deja("doctor")
    assert "1 editor chat listed by name, project and dates alone" in doctor.stdout, doctor.stdout
    assert json.loads(run_deja("search", "shoebill", "--json").stdout)["hits"] == []  # agentKv rows are never read


def test_a_chat_whose_bubble_rows_cursor_damaged_is_not_said_to_be_kept_elsewhere(
    tmp_path: Path, cli_root: Path
) -> None:
    """Its rows are there, NULL or not JSON: doctor counts them as Cursor's own damage, and no session says its
    messages are in rows deja does not read (review8b F-A)."""
    damaged = "a9000000-0000-4000-8000-0000000000b1"
    write_state_vscdb(
        tmp_path / "no-ide" / "globalStorage" / "state.vscdb",
        composers={damaged: composer_data(damaged, [("b1", 1), ("b2", 2)], created_at=T0, name="Damaged chat")},
        bubbles={damaged: {"b1": b"{not json", "b2": None}},
    )
    assert run_deja("index").returncode == 0
    assert damaged not in _sessions()
    doctor = run_deja("doctor").stdout
    assert "listed by name, project and dates alone" not in doctor
    assert "1 × ide: malformed bubble" in doctor and "1 × ide: null bubble" in doctor, doctor
