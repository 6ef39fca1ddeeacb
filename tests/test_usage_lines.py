"""Usage lines a new user met (trial43 F7): a command typed in capitals gets a "did you mean" as a misspelt one does,
a relative ``--project`` is named as the folder it resolved to, and a ``--since`` in the future is named as such."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

from harness import run_deja

from deja.core.writers.cursor_agent import (
    chat_dir_for,
    store_assistant_message,
    store_preamble,
    store_user_message,
    write_chat_store,
)

START_MS = 1_790_000_000_000


def _one_session(home: Path) -> None:
    project = home / "code" / "shop"
    project.mkdir(parents=True)
    messages = [*store_preamble(str(project)), store_user_message("dark mode toggle"), store_assistant_message("Done.")]
    chat = chat_dir_for(home / ".cursor", str(project), "c-dark")
    write_chat_store(chat, cwd=str(project), name="c-dark", messages=messages, created_ms=START_MS, updated_ms=START_MS)
    assert run_deja("index").returncode == 0


def test_a_command_in_capitals_gets_a_did_you_mean() -> None:
    for typed, meant in (("SESSIONS", "sessions"), ("Search", "search")):
        ran = run_deja(typed)
        assert ran.returncode == 2
        assert f"No such command {typed!r}. Did you mean {meant!r}?" in ran.stderr, ran.stderr


def test_a_relative_project_is_named_as_the_folder_it_resolved_to(fake_home: Path, tmp_path: Path) -> None:
    _one_session(fake_home)
    deep = tmp_path / "other" / "deep"
    deep.mkdir(parents=True)
    ran = run_deja("sessions", "--project", "..", cwd=deep)
    assert ran.returncode == 1
    assert ran.stderr.startswith(f"deja: No session of project '..' ({tmp_path / 'other'}) is indexed;"), ran.stderr


def test_a_since_in_the_future_is_named_as_such(fake_home: Path) -> None:
    _one_session(fake_home)
    ahead = (date.today() + timedelta(days=400)).isoformat()  # (a fixed year stops being the future: review44d L4)
    for verb in (["search", "dark"], ["sessions"]):
        ran = run_deja(*verb, "--since", ahead)
        assert ran.returncode == 2
        assert ran.stderr == f"deja: --since {ahead} is in the future: give a past date or a span (7d)\n"
        assert run_deja(*verb, "--since", "0d").returncode == 0, "now is no future"
    assert "c-dark" in run_deja("search", "dark", "--since", "20000d").stdout
