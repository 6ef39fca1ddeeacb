"""Every verb meets an index with no session with the line ``deja search`` gives it: where deja looked for Cursor's
history and what to do. ``deja wip`` said "no session ran in /tmp, and none has a project …: `deja ctx ID` digests
one that `deja sessions` lists", and `deja sessions` listed none; doctor said "read from their store alone: 0"
(trial47 F5)."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import run_deja

#: The verbs asked for one session: they fail (exit 1) with the line.
ONE_SESSION = [
    ["wip"],
    ["ctx", "abc"],
    ["ctx", "stripe", "webhook"],
    ["handoff", "abc"],
    ["show", "abc"],
    ["export", "abc"],
    ["resume", "abc"],
]
#: The verbs that list what they find: they answer (exit 0) with the line.
LISTING = [
    ["search", "webhook"],
    ["sessions"],
    ["files", "webhook"],
    ["blame", "api/cache.py"],
    ["fix", "ImportError: no module named api"],
    ["how", "pytest"],
]


@pytest.fixture
def empty(fake_home: Path) -> str:
    """An index built where Cursor left no history, and the line that says so (``deja search``'s)."""
    assert run_deja("index").returncode == 0
    said = run_deja("search", "webhook").stdout
    ide = fake_home / ".config" / "Cursor" / "User"
    assert said.startswith(f"The index is empty: no Cursor chats found in {ide} or "), said
    return said


@pytest.mark.parametrize("verb", ONE_SESSION, ids=" ".join)
def test_a_verb_asked_for_one_session_fails_with_the_empty_index_line(
    empty: str, verb: list[str], fake_home: Path
) -> None:
    ran = run_deja(*verb, cwd=fake_home)
    assert (ran.returncode, ran.stdout, ran.stderr) == (1, "", f"deja: {empty}")


@pytest.mark.parametrize("verb", LISTING, ids=" ".join)
def test_a_verb_that_lists_what_it_finds_answers_with_the_empty_index_line(
    empty: str, verb: list[str], fake_home: Path
) -> None:
    ran = run_deja(*verb, cwd=fake_home)
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, empty, "")


def test_stats_says_why_its_counts_are_none(empty: str) -> None:
    ran = run_deja("stats")
    assert ran.returncode == 0 and ran.stdout.startswith("0 sessions, 0 messages\n"), ran.stderr
    assert ran.stdout.endswith(f"\n{empty}")


def test_doctor_on_a_home_with_no_history_prints_no_count_of_none(empty: str) -> None:
    out = run_deja("doctor").stdout
    assert "no Cursor chats found" in out
    assert "read from their store alone" not in out, out


#: What a verb asked for one session says first, on an empty index as on any: a missing folder, a root folder (a
#: usage error, exit 2), an empty id. The empty index's line had taken their place (review47f L3).
SAID_FIRST = [
    (["wip", "/nonexistent/dir"], 1, "no folder /nonexistent/dir: give a project's folder;"),
    (["wip", "/"], 2, "/ is the root folder, no project's: give a project's folder"),
    (["show", ""], 1, "an empty session id matches nothing: give an id or a unique prefix"),
    (["resume", ""], 1, "an empty session id matches nothing: give an id or a unique prefix"),
    (["export", ""], 1, "an empty session id matches nothing: give an id or a unique prefix"),
]


@pytest.mark.parametrize(("verb", "code", "line"), SAID_FIRST, ids=[" ".join(verb) for verb, _, _ in SAID_FIRST])
def test_a_verb_asked_wrongly_says_so_before_the_index_is_empty(
    empty: str, verb: list[str], code: int, line: str, fake_home: Path
) -> None:
    ran = run_deja(*verb, cwd=fake_home)
    assert (ran.returncode, ran.stdout) == (code, "")
    assert ran.stderr.startswith(f"deja: {line}"), ran.stderr
