"""A chat deja placed in a project keeps it when Cursor prunes the store that placed it (trial14 F2, F4).

An editor chat's messages are in the global ``state.vscdb``; its project may come only from a workspace database's
legacy ``allComposers`` head, its editor transcript folder, or the ``workspaceStorage/<id>/workspace.json`` its
``composerHeaders`` row names. Cursor prunes those (an old workspace's storage, old transcripts): the chat, read
again from the global database, used to drop to "(no project)", so ``--project`` and sessionStart in its folder
missed it. Now a chat read again with no project signal keeps the project the index had placed it in, on a refresh
and on ``deja index --full``; a chat with a new signal takes the new one. A ``workspace.json`` that appears after
the first index places its workspace's chats on the next refresh (F4).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest
from harness import run_deja

from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn, write_transcript
from deja.core.writers.ide import (
    ComposerHeader,
    composer_data,
    write_state_vscdb,
    write_workspace,
    write_workspace_json,
)

T0 = 1_780_000_000_000
CHAT = "bbbb0002-0000-4000-8000-00000000b002"
WORKSPACE = "wsbilling"
BUBBLES = {
    "b1": {"type": 1, "text": "invoice PDF renders the wrong fonts", "createdAt": T0 + 1000},
    "b2": {"type": 2, "text": "Embed the fonts with reportlab's TTFont.", "createdAt": T0 + 2000},
}


class Machine:
    """A fake HOME's editor (``User`` folder) and cursor-agent root, and two project folders."""

    def __init__(self, tmp_path: Path, cli_root: Path) -> None:
        self.user = tmp_path / "no-ide"
        self.cli = cli_root
        self.billing = tmp_path / "code" / "billing"
        self.shop = tmp_path / "code" / "shop"
        self.billing.mkdir(parents=True)
        self.shop.mkdir(parents=True)

    def global_db(self, headers: list[ComposerHeader] | None = None) -> None:
        write_state_vscdb(
            self.user / "globalStorage" / "state.vscdb",
            composers={CHAT: composer_data(CHAT, [("b1", 1), ("b2", 2)], created_at=T0, name="Invoice PDF fonts")},
            bubbles={CHAT: BUBBLES},
            composer_headers=headers,
        )

    def listed_by(self, workspace: str, folder: Path | None) -> None:
        """A workspace database whose legacy ``allComposers`` lists the chat, and its ``workspace.json``."""
        write_workspace(self.user, workspace, folder=str(folder) if folder else None, all_composers=[CHAT])

    def transcript(self) -> Path:
        """The editor transcript of the chat, in ``billing``'s slug."""
        path = transcript_path(self.cli, str(self.billing), CHAT)
        write_transcript(path, [user_turn("invoice PDF renders the wrong fonts"), assistant_turn("Embed them.")])
        return path.parent


@pytest.fixture
def machine(tmp_path: Path, cli_root: Path) -> Machine:
    return Machine(tmp_path, cli_root)


def _index(*args: str) -> dict[str, Any]:
    ran = run_deja("index", "--json", *args)
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout)


def _chat() -> dict[str, Any]:
    listed = run_deja("sessions", "--json")
    assert listed.returncode == 0, listed.stderr
    return {session["id"]: session for session in json.loads(listed.stdout)["sessions"]}[CHAT]


def _in_project(name: str) -> list[str]:
    listed = run_deja("sessions", "--project", name, "--json")
    assert listed.returncode == 0, listed.stderr
    return [session["id"] for session in json.loads(listed.stdout)["sessions"]]


def _assert_unknown(name: str) -> None:
    """No session of project ``name`` is left: ``--project`` says so, and fails (trial23 F5)."""
    listed = run_deja("sessions", "--project", name)
    assert listed.returncode == 1 and f"No session of project {name!r} is indexed" in listed.stderr, listed.stderr


def _session_start(folder: Path) -> str:
    """The block a new chat's sessionStart in ``folder`` gets (each a chat of its own: one block per chat)."""
    payload = {"cursor_version": "3.20.17", "conversation_id": str(uuid4()), "hook_event_name": "sessionStart"}
    ran = run_deja("hook-context", input=json.dumps({**payload, "workspace_roots": [str(folder)]}))
    assert ran.returncode == 0 and not ran.stderr, ran.stderr
    return json.loads(ran.stdout)["additional_context"] if ran.stdout.strip() else ""


def _assert_placed(folder: Path, signal: str) -> None:
    """What a user sees of a chat placed in ``folder``: its listing, ``--project``, and sessionStart there."""
    chat = _chat()
    assert (chat["project"], chat["project_dir"], chat["project_from"]) == (folder.name, str(folder), signal), chat
    assert _in_project(folder.name) == [CHAT]
    assert "Invoice PDF fonts" in _session_start(folder)


def test_a_chat_keeps_its_project_when_the_workspace_listing_it_is_pruned(machine: Machine) -> None:
    machine.global_db()
    machine.listed_by(WORKSPACE, machine.billing)
    _index()
    _assert_placed(machine.billing, "allComposers")
    shutil.rmtree(machine.user / "workspaceStorage" / WORKSPACE)  # Cursor prunes an old workspace's storage
    assert _index()["removed"] == 0
    _assert_placed(machine.billing, "allComposers")
    _index("--full")
    _assert_placed(machine.billing, "allComposers")


def test_a_chat_keeps_its_project_when_its_editor_transcript_is_pruned(machine: Machine) -> None:
    machine.global_db()
    folder = machine.transcript()
    _index()
    _assert_placed(machine.billing, "transcript folder")
    shutil.rmtree(folder)  # transcripts are pruned (drift §10)
    _index()
    _assert_placed(machine.billing, "transcript folder")


def test_a_rebuild_keeps_the_project_of_a_chat_whose_workspace_storage_is_gone(machine: Machine) -> None:
    machine.global_db([ComposerHeader(CHAT, workspace_id=WORKSPACE)])
    write_workspace_json(machine.user / "workspaceStorage" / WORKSPACE, folder=machine.billing.as_uri())
    _index()
    _assert_placed(machine.billing, "composerHeaders")
    shutil.rmtree(machine.user / "workspaceStorage" / WORKSPACE)
    _index("--full")
    _assert_placed(machine.billing, "composerHeaders")
    _index("--full")  # the carried placement is carried again
    _assert_placed(machine.billing, "composerHeaders")


def test_a_chat_listed_by_another_folders_workspace_moves_there(machine: Machine) -> None:
    machine.global_db()
    machine.listed_by(WORKSPACE, machine.billing)
    _index()
    shutil.rmtree(machine.user / "workspaceStorage" / WORKSPACE)
    machine.listed_by("wsshop", machine.shop)  # the chat now lives in another folder's window
    _index()
    _assert_placed(machine.shop, "allComposers")
    _assert_unknown("billing")


def test_a_workspace_json_written_after_the_first_index_places_its_chats(machine: Machine) -> None:
    machine.global_db()
    machine.listed_by(WORKSPACE, None)
    _index()
    assert _chat()["project_dir"] == ""
    write_workspace_json(machine.user / "workspaceStorage" / WORKSPACE, folder=machine.billing.as_uri())
    _index()
    _assert_placed(machine.billing, "allComposers")


def test_a_workspace_json_that_names_another_folder_moves_its_chats(machine: Machine) -> None:
    machine.global_db()
    machine.listed_by(WORKSPACE, machine.billing)
    _index()
    write_workspace_json(machine.user / "workspaceStorage" / WORKSPACE, folder=machine.shop.as_uri())
    _index()
    _assert_placed(machine.shop, "allComposers")


def test_a_workspace_json_beside_the_global_database_places_nothing(machine: Machine) -> None:
    """Cursor keeps no ``workspace.json`` beside its global database: one found there is not a workspace's, so it
    places none of the chats that database holds, on a refresh or ``--full``, and a refresh does not read them
    again for it (the check does not look for it: one ``stat`` less at every ``deja search``)."""
    machine.global_db()
    _index()
    write_workspace_json(machine.user / "globalStorage", folder=machine.billing.as_uri())
    assert _index()["updated"] == 0
    assert _chat()["project_dir"] == ""
    _index("--full")
    assert _chat()["project_dir"] == ""
    _assert_unknown("billing")
