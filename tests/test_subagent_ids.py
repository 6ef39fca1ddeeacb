"""With ``include_subagents`` on, a subagent's id ``<parent>/<child>`` shortened for a terminal stays its own and
opens it, and the parent's own short prefix (README's ``deja show a0000001``) still names the parent: ``show``,
``resume``'s lookup and the MCP ``show`` take it.

Before, the subagent's line showed the parent's whole id (the shortest "unique" prefix was the parent's exact id),
and every prefix of the parent's id was ambiguous.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import run_deja

from deja.core.writers.cursor_agent import assistant_turn, transcript_path, turn_ended, user_turn, write_transcript

PARENT = "a0000001-0000-4000-8000-000000000001"
CHILD = "b0000001-0000-4000-8000-00000000000b"


def _env(home: Path) -> dict[str, str]:
    project = home / "code" / "proj"
    project.mkdir(parents=True)
    transcript = transcript_path(home / ".cursor", str(project), PARENT)
    write_transcript(transcript, [user_turn("parent question"), assistant_turn("parent answer"), turn_ended()])
    subagent = transcript.parent / "subagents" / f"{CHILD}.jsonl"
    write_transcript(subagent, [user_turn("subagent question"), assistant_turn("subagent answer"), turn_ended()])
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "DEJA_INCLUDE_SUBAGENTS": "1", "COLUMNS": "120"}
    assert run_deja("index", env=env).returncode == 0
    return env


def test_a_subagents_short_id_opens_the_subagent_and_the_parents_prefix_the_parent(fake_home: Path) -> None:
    env = _env(fake_home)
    rows = {line.split("  ")[-1]: line.split()[0] for line in run_deja("sessions", env=env).stdout.splitlines()}
    assert rows["parent question"] == PARENT[:8], rows
    assert rows["subagent question"] == f"{PARENT}/{CHILD[:8]}", rows
    assert run_deja("show", rows["subagent question"], env=env).stdout.startswith("subagent question")
    for prefix in (PARENT[:8], PARENT):
        shown = run_deja("show", prefix, env=env)
        assert shown.returncode == 0 and shown.stdout.startswith("parent question"), shown.stderr


def test_the_mcp_show_takes_the_parents_short_prefix(fake_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from deja.core.library import find_session
    from deja.interfaces.fastpath import open_index

    _env(fake_home)
    monkeypatch.setenv("DEJA_INCLUDE_SUBAGENTS", "1")
    _, meta = find_session(open_index(), PARENT[:8])
    assert meta.id == PARENT


def test_a_project_with_a_subagent_exports_whole_and_the_subagent_alone_too(fake_home: Path, tmp_path: Path) -> None:
    env = _env(fake_home)
    out = tmp_path / "out"
    ran = run_deja("export", "--project", "proj", "-o", str(out), env=env)
    assert ran.returncode == 0, ran.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted(["index.md", f"{PARENT}.md", f"{PARENT}_{CHILD}.md"])
    assert "subagent question" in (out / f"{PARENT}_{CHILD}.md").read_text()
    alone = tmp_path / "alone"
    alone.mkdir()
    ran = run_deja("export", f"{PARENT}/{CHILD}", "-o", str(alone), env=env)
    assert ran.returncode == 0 and [p.name for p in alone.iterdir()] == [f"{PARENT}_{CHILD}.md"], ran.stderr
