"""An editor chat's subagent threads (composers naming a ``subagentInfo.parentComposerId``, Cursor 3.x) follow the
``include_subagents`` switch, as cursor-agent's subagent transcripts do: left out by default, listed when asked for."""

from __future__ import annotations

from pathlib import Path

import orjson
from harness import run_deja

from deja.core.writers.ide import ComposerHeader, composer_data, write_state_vscdb, write_workspace_json

T0 = 1784278800000  # 2026-07-17 09:00 UTC, in ms


def _chat(cid: str, **fields: object) -> tuple[dict[str, object], dict[str, object]]:
    composer = composer_data(cid, [("u", 1), ("a", 2)], created_at=T0, name=f"chat {cid}", **fields)
    bubbles = {
        "u": {"type": 1, "text": f"question of {cid}", "createdAt": T0 + 1000},
        "a": {"type": 2, "text": f"answer of {cid}", "createdAt": T0 + 2000},
    }
    return composer, bubbles


def _sessions(env: dict[str, str] | None = None) -> set[str]:
    done = run_deja("sessions", "--json", env=env)
    assert done.returncode == 0, done.stderr
    return {s["id"] for s in orjson.loads(done.stdout)["sessions"]}


def test_subagent_threads_follow_the_switch(fake_home: Path) -> None:
    parent, parent_bubbles = _chat("parent-chat", subagentComposerIds=["task-toolu_01"])
    child, child_bubbles = _chat("task-toolu_01", subagentInfo={"parentComposerId": "parent-chat"})
    write_state_vscdb(
        fake_home / ".config" / "Cursor" / "User" / "globalStorage" / "state.vscdb",
        composers={"parent-chat": parent, "task-toolu_01": child},
        bubbles={"parent-chat": parent_bubbles, "task-toolu_01": child_bubbles},
    )
    assert run_deja("index").returncode == 0
    assert _sessions() == {"parent-chat"}

    import os

    env = {**os.environ, "DEJA_INCLUDE_SUBAGENTS": "1"}
    assert run_deja("index", "--full", env=env).returncode == 0
    assert _sessions(env) == {"parent-chat", "task-toolu_01"}


def test_a_subagent_thread_takes_its_parents_project(fake_home: Path, tmp_path: Path) -> None:
    """A thread with no folder of its own is filed under its parent's (trialM F14: it had no project, so
    ``--project``, sessionStart and ``wip`` in the parent's folder never saw the subagent's work)."""
    project = tmp_path / "code" / "alpha"
    project.mkdir(parents=True)
    user = fake_home / ".config" / "Cursor" / "User"
    write_workspace_json(user / "workspaceStorage" / "ws-alpha", folder=project.as_uri())
    parent, parent_bubbles = _chat("parent-chat", subagentComposerIds=["listed-child"])
    listed, listed_bubbles = _chat("listed-child")
    naming, naming_bubbles = _chat("naming-child", subagentInfo={"parentComposerId": "parent-chat"})
    write_state_vscdb(
        user / "globalStorage" / "state.vscdb",
        composers={"parent-chat": parent, "listed-child": listed, "naming-child": naming},
        bubbles={"parent-chat": parent_bubbles, "listed-child": listed_bubbles, "naming-child": naming_bubbles},
        composer_headers=[ComposerHeader("parent-chat", workspace_id="ws-alpha")],
    )
    import os

    env = {**os.environ, "DEJA_INCLUDE_SUBAGENTS": "1"}
    assert run_deja("index", env=env).returncode == 0
    done = run_deja("sessions", "--json", env=env)
    folders = {s["id"]: s["project_dir"] for s in orjson.loads(done.stdout)["sessions"]}
    assert folders == dict.fromkeys(("parent-chat", "listed-child", "naming-child"), str(project)), done.stdout
