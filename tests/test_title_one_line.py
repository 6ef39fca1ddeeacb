"""A cursor-agent chat's title holding a newline is shown on one line, its line breaks as blanks (trial46 F5).

A chat whose ``meta.json`` title was ``application.yml:\\nspring:\\n  dat`` printed over three lines in ``deja
sessions``, a search hit's header and the hooks' context, where each session is one line. The same for the store's
own name."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import index_cli_root, run_deja
from test_controls_to_the_model import _context, _payload

from deja.core.writers import cursor_agent as agent

#: Each chat's title as written, the store's name and meta.json's title (the name a placeholder), and as shown.
CHATS = {
    "c-named": {"name": "yaml of\nthe zebra\r\n  service"},
    "c-titled": {"title": "application.yml:\nspring:\n  dat"},
}
SHOWN = {"c-named": "yaml of the zebra service", "c-titled": "application.yml: spring: dat"}


@pytest.fixture
def indexed(tmp_path: Path, fake_home: Path) -> tuple[dict[str, str], Path]:
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    cli_root = tmp_path / "cursor-agent"
    for chat, titled in CHATS.items():
        turns = [agent.user_turn(f"why does the zebra deploy fail in {chat}"), agent.assistant_turn("Its key expired.")]
        agent.write_transcript(agent.transcript_path(cli_root, str(project), chat), turns)
        agent.write_chat_store(
            agent.chat_dir_for(cli_root, str(project), chat), cwd=str(project), messages=[], **titled
        )
    return {**index_cli_root(tmp_path, cli_root), "HOME": str(fake_home)}, project


def test_a_title_with_line_breaks_is_one_line_in_every_listing(indexed: tuple[dict[str, str], Path]) -> None:
    env, project = indexed
    sessions = run_deja("sessions", env=env).stdout.splitlines()
    search = run_deja("search", "zebra deploy", env=env).stdout
    context = _context(env, "hook-context", _payload("sessionStart", project, "c-start", session_id="c-start"))
    assert len(sessions) == len(CHATS), sessions
    for chat, shown in SHOWN.items():
        (row,) = [row for row in sessions if row.startswith(chat)]
        assert row.endswith(f"  {shown}"), row
        assert f"{shown}\n  {chat} · " in search, search
        assert f'"{shown}"' in context, context
