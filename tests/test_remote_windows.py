"""A chat from a remote window (Remote-SSH, a dev container, WSL) is not this machine's folder's (trial57 F2).

Cursor names a remote window's folder ``vscode-remote://ssh-remote+devbox/home/me/code/infra``. deja kept its path as
a folder of this machine: where the same path exists here (the same user name and layout on a laptop and a dev box),
a dev box's chat became "last session here" in ``deja wip``, led the session-start block of the local folder, and
``deja show`` gave no host. Now it is filed under a project named after the folder and where it ran
(``infra (devbox)``), with no folder on this machine. The install is written with the project's writers.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from harness import run_deja

from deja.core.writers.ide import ComposerHeader, composer_data, write_state_vscdb, write_workspace_json

T0 = 1_796_000_000_000  # 2026-11-30, in ms
REMOTE_CHAT = "e1a00000-0000-4000-8000-0000000000aa"
LOCAL_CHAT = "e1a00000-0000-4000-8000-0000000000bb"
#: A chat no header places: only its code block's file, on the dev box, says where it ran.
BLOCK_CHAT = "e1a00000-0000-4000-8000-0000000000cc"
REMOTE_WS = "d00d1111bbbb2222cccc3333dddd4444"
LOCAL_WS = "10ca1111bbbb2222cccc3333dddd4444"


def _chat(chat_id: str, name: str, asked: str, at: int) -> dict[str, Any]:
    return {
        "composer": composer_data(chat_id, [("b0", 1), ("b1", 2)], created_at=at, name=name),
        "bubbles": {
            "b0": {"type": 1, "text": asked, "createdAt": at},
            "b1": {"type": 2, "text": "Reinstall linux-modules-extra for the new kernel.", "createdAt": at + 30_000},
        },
    }


@pytest.fixture
def project(tmp_path: Path, cli_root: Path) -> Path:
    """A local folder, and the same path opened over SSH on ``devbox``: each window has one chat, the remote newer."""
    folder = tmp_path / "code" / "infra"
    folder.mkdir(parents=True)
    user = tmp_path / "no-ide"
    write_workspace_json(user / "workspaceStorage" / REMOTE_WS, folder=f"vscode-remote://ssh-remote%2Bdevbox{folder}")
    write_workspace_json(user / "workspaceStorage" / LOCAL_WS, folder=folder.as_uri())
    for workspace in (REMOTE_WS, LOCAL_WS):
        write_state_vscdb(user / "workspaceStorage" / workspace / "state.vscdb", item_table={})
    chats = {
        REMOTE_CHAT: _chat(REMOTE_CHAT, "Devbox: kernel upgrade broke docker", "docker fails on the devbox", T0),
        LOCAL_CHAT: _chat(LOCAL_CHAT, "Laptop: terraform fmt in CI", "terraform fmt fails in CI", T0 - 3_600_000),
        BLOCK_CHAT: _chat(BLOCK_CHAT, "Devbox: compose file", "the compose file on the devbox", T0 - 7_200_000),
    }
    block = {"uri": f"vscode-remote://ssh-remote%2Bdevbox{folder}/docker-compose.yml", "content": "services: {}"}
    chats[BLOCK_CHAT]["bubbles"]["b1"]["codeBlocks"] = [block]
    write_state_vscdb(
        user / "globalStorage" / "state.vscdb",
        composers={chat_id: chat["composer"] for chat_id, chat in chats.items()},
        bubbles={chat_id: chat["bubbles"] for chat_id, chat in chats.items()},
        composer_headers=[
            ComposerHeader(REMOTE_CHAT, workspace_id=REMOTE_WS, created_at=T0, recency=T0 + 30_000),
            ComposerHeader(LOCAL_CHAT, workspace_id=LOCAL_WS, created_at=T0 - 3_600_000, recency=T0 - 3_500_000),
        ],
    )
    indexed = run_deja("index")
    assert indexed.returncode == 0, indexed.stderr
    return folder


def _sessions(*args: str) -> dict[str, dict[str, Any]]:
    listed = run_deja("sessions", "--json", *args)
    assert listed.returncode == 0, listed.stderr
    return {session["id"]: session for session in json.loads(listed.stdout)["sessions"]}


def test_a_remote_chat_is_filed_under_its_folder_and_host_with_no_folder_here(project: Path) -> None:
    sessions = _sessions()
    assert (sessions[REMOTE_CHAT]["project"], sessions[REMOTE_CHAT]["project_dir"]) == ("infra (devbox)", "")
    assert (sessions[LOCAL_CHAT]["project"], sessions[LOCAL_CHAT]["project_dir"]) == ("infra", str(project))
    block = sessions[BLOCK_CHAT]
    assert (block["project"], block["project_dir"], block["project_from"]) == ("infra (devbox)", "", "files touched")
    assert "infra (devbox)" in run_deja("sessions").stdout
    assert f"{REMOTE_CHAT} · cursor-ide · infra (devbox)" in run_deja("show", REMOTE_CHAT).stdout


def test_the_local_folder_is_not_given_the_remote_chat(project: Path) -> None:
    assert list(_sessions("--project", str(project))) == [LOCAL_CHAT]
    assert list(_sessions("--project", "infra (devbox)")) == [REMOTE_CHAT, BLOCK_CHAT]
    wip = run_deja("wip", cwd=project)
    assert wip.returncode == 0, wip.stderr
    assert "Laptop: terraform fmt in CI" in wip.stdout and "Devbox" not in wip.stdout
    payload = {"conversation_id": "r1", "hook_event_name": "sessionStart", "workspace_roots": [str(project)]}
    block = run_deja("hook-context", input=json.dumps(payload), env=dict(os.environ)).stdout
    assert LOCAL_CHAT in block and REMOTE_CHAT not in block


def test_doctor_counts_remote_windows_chats_apart(project: Path) -> None:
    report = run_deja("doctor", "--json")
    signals = json.loads(report.stdout)["index"]["project_signals"]
    assert signals == {"composerHeaders": 1, "a remote window's folder (not on this machine)": 2}


def test_an_export_of_a_remote_chat_names_its_project_and_no_empty_folder(project: Path, tmp_path: Path) -> None:
    """A remote window's chat has no folder here: the export said ``project: infra (devbox) (``)`` (trial57b G3)."""
    shapes = {"md": ("- project: infra (devbox)\n", "(``)"), "html": ("infra (devbox)</p>", "<code></code>")}
    for form, (shown, empty) in shapes.items():
        written = tmp_path / f"chat.{form}"
        done = run_deja("export", REMOTE_CHAT, "-f", form, "-o", str(written))
        assert done.returncode == 0, done.stderr
        text = written.read_text()
        assert shown in text and empty not in text, text[:400]


def test_a_remote_project_refreshes_its_export_spelt_in_other_capitals(project: Path, tmp_path: Path) -> None:
    """review59b F4: a project with no folder here was titled as ``--project`` typed it, and ``Infra (devbox)`` after
    ``infra (devbox)`` was refused, though both choose the same sessions; the page is titled by the name the index
    holds."""
    out = tmp_path / "out"
    assert run_deja("export", "--project", "infra (devbox)", "-o", str(out)).returncode == 0

    again = run_deja("export", "--project", "Infra (devbox)", "-o", str(out))

    assert again.returncode == 0, again.stderr
    assert (out / "index.md").read_text().startswith("# deja: infra (devbox)\n")
