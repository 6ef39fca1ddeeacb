"""An editor subagent's thread is left out however Cursor marks it (README ``include_subagents``):
``subagentInfo.parentComposerId`` in its ``composerHeaders`` row, or its id in the parent's
``subagentComposerIds``, as well as ``subagentInfo`` in its own ``composerData``. Such threads were indexed as
sessions of their own."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
from harness import run_deja

from deja.core.writers.ide import ComposerHeader, composer_data, write_state_vscdb

T0 = 1784278800000  # 2026-07-17 09:00 UTC, in ms
PARENT, HEADED, LISTED = "p-parent-0001", "s-child-header", "s-child-listed"


def _bubbles(cid: str, at: int) -> dict[str, object]:
    return {
        "u": {"type": 1, "text": f"question of {cid}", "createdAt": at},
        "a": {"type": 2, "text": f"answer of {cid}", "createdAt": at + 500},
    }


def _write(db: Path, at: int = T0) -> None:
    composers = {
        PARENT: composer_data(PARENT, [("u", 1), ("a", 2)], created_at=T0, subagentComposerIds=[HEADED, LISTED]),
        HEADED: composer_data(HEADED, [("u", 1), ("a", 2)], created_at=T0 + 1000, name="Child A"),
        LISTED: composer_data(LISTED, [("u", 1), ("a", 2)], created_at=at + 2000, name="Child B"),
    }
    headers = [
        ComposerHeader(PARENT, workspace_id="empty-window", created_at=T0, value={"name": "Parent chat"}),
        ComposerHeader(
            HEADED,
            workspace_id="empty-window",
            created_at=T0 + 1000,
            value={"name": "Child A", "subagentInfo": {"parentComposerId": PARENT}},
        ),
    ]
    bubbles = {PARENT: _bubbles(PARENT, T0), HEADED: _bubbles(HEADED, T0 + 1000), LISTED: _bubbles(LISTED, at + 2000)}
    write_state_vscdb(db, composers=composers, bubbles=bubbles, composer_headers=headers)


def _sessions(env: dict[str, str] | None = None) -> set[str]:
    assert run_deja("index", env=env).returncode == 0
    done = run_deja("sessions", "--json", env=env)
    assert done.returncode == 0, done.stderr
    return {s["id"] for s in orjson.loads(done.stdout)["sessions"]}


def test_a_subagent_marked_in_its_header_or_listed_by_its_parent_is_not_a_session(fake_home: Path) -> None:
    db = fake_home / ".config" / "Cursor" / "User" / "globalStorage" / "state.vscdb"
    db.parent.mkdir(parents=True)
    _write(db)
    assert _sessions() == {PARENT}
    _write(db, at=T0 + 60_000)  # the listed child goes on alone: a refresh reads it without its parent
    assert _sessions() == {PARENT}
    env = {**os.environ, "DEJA_INCLUDE_SUBAGENTS": "1"}
    assert run_deja("index", "--full", env=env).returncode == 0
    assert _sessions(env) == {PARENT, HEADED, LISTED}
