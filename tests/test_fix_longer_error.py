"""An error that says more than the one a past session stored is that error: Node prints ``Error: ENOSPC: System
limit for number of file watchers reached, watch '/x/src'``; a past session's failure printed it without the
``, watch '…'`` tail. ``deja fix`` and the failure hook said "has not come up" for the longer line, though the
shorter one, asked about, found the longer stored one (trial49 F11). The same error said exactly still comes first,
and a line whose kept part says less than what it adds finds nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

from harness import failure_hook, run_deja, store_shell

from deja.core.errors import shorter_forms
from deja.core.writers.cursor_agent import (
    chat_dir_for,
    store_assistant_message,
    store_preamble,
    store_user_message,
    write_chat_store,
)

STORED = "Error: ENOSPC: System limit for number of file watchers reached"
LONGER = f"{STORED}, watch '/x/src'"


def _failed_chat(home: Path, chat: str, output: str, answer: str) -> Path:
    """A store-only chat in ``~/code/web`` whose ``npm run dev`` failed printing ``output``, closed by ``answer``."""
    project = home / "code" / "web"
    project.mkdir(parents=True, exist_ok=True)
    messages = [
        *store_preamble(str(project)),
        store_user_message(f"npm run dev fails ({chat})"),
        *store_shell("t0", "npm run dev", f"> web@1.0.0 dev\n{output}", 1),
        store_assistant_message(answer),
    ]
    write_chat_store(chat_dir_for(home / ".cursor", str(project), chat), cwd=str(project), name=chat, messages=messages)
    return project


def _fixed(error: str) -> list[str]:
    ran = run_deja("fix", error, "--json")
    assert ran.returncode == 0, ran.stderr
    return [found["session"]["id"] for found in json.loads(ran.stdout)["occurrences"]]


def test_an_error_that_says_more_than_the_stored_one_is_found_by_fix_and_the_hook(fake_home: Path) -> None:
    project = _failed_chat(fake_home, "c-watchers", STORED, "Raised fs.inotify.max_user_watches to 524288.")
    assert run_deja("index").returncode == 0
    assert _fixed(LONGER) == ["c-watchers"]
    assert _fixed(STORED) == ["c-watchers"]
    shown = run_deja("fix", LONGER).stdout
    assert "this error came up in 1 past session" in shown and "(deja show c-watchers)" in shown, shown
    injected = failure_hook(project, "npm run dev", f"> web@1.0.0 dev\n{LONGER}\n")
    assert "This error came up before, in 1 past session" in injected and "c-watchers" in injected, injected


def test_the_same_error_said_exactly_comes_before_a_shorter_one(fake_home: Path) -> None:
    _failed_chat(fake_home, "c-short", STORED, "Raised fs.inotify.max_user_watches.")
    project = _failed_chat(fake_home, "c-exact", LONGER, "Closed the other watcher.")
    assert run_deja("index").returncode == 0
    assert _fixed(LONGER) == ["c-exact"]
    injected = failure_hook(project, "npm run dev", LONGER)
    assert "in 1 past session" in injected and "c-exact" in injected and "c-short" not in injected, injected


def test_a_line_that_adds_more_than_it_keeps_is_no_longer_form(fake_home: Path) -> None:
    short = 'psql: error: connection to server at "db"'
    _failed_chat(fake_home, "c-conn", short, "Started the db.")
    assert run_deja("index").returncode == 0
    longer = f'{short}, port 5432 failed: FATAL: password authentication failed for user "app"'
    assert run_deja("fix", longer).stdout.startswith("this error has not come up"), longer


def _failed_run(home: Path, chat: str, command: str, output: str, answer: str) -> Path:
    """A store-only chat in ``~/code/web`` whose ``command`` failed printing ``output`` alone, closed by ``answer``."""
    project = home / "code" / "web"
    project.mkdir(parents=True, exist_ok=True)
    messages = [
        *store_preamble(str(project)),
        store_user_message(f"{command} fails ({chat})"),
        *store_shell("t0", command, output, 1),
        store_assistant_message(answer),
    ]
    write_chat_store(chat_dir_for(home / ".cursor", str(project), chat), cwd=str(project), name=chat, messages=messages)
    return project


def test_prefix_sharing_errors(fake_home: Path) -> None:
    """Two errors that share their head up to a comma are two errors: a shorter form is looked up as an identity
    only, never by its words, which any failure sharing the head holds (review50a M1)."""
    project = _failed_run(
        fake_home,
        "c-retry",
        "node worker.js",
        "Error: could not connect to server at db:5432, retrying in 5s",
        "Raised the retry count to 10.",
    )
    assert run_deja("index").returncode == 0
    live = "Error: could not connect to server at db:5432, host unreachable"
    print("FIX", run_deja("fix", live).stdout)
    print("HOOK", failure_hook(project, "node worker.js", live))
    assert _fixed(live) == []


def test_command_failed_generic(fake_home: Path) -> None:
    """``npm run build`` failing is not the lint failure that printed the same ``Command failed`` head (review50a
    M1)."""
    project = _failed_run(
        fake_home,
        "c-lint",
        "npm run lint",
        "Error: Command failed with exit code 1: npm run lint",
        "Fixed the eslint errors in api.ts.",
    )
    assert run_deja("index").returncode == 0
    live = "Error: Command failed with exit code 1: npm run build"
    print("FIX", run_deja("fix", live).stdout)
    print("HOOK", failure_hook(project, "npm run build", live))
    assert _fixed(live) == []


def test_an_apostrophe_is_no_quote_to_a_longer_line(fake_home: Path) -> None:
    """``can't`` opens no quote: the clause end after it still ends the stored message (review50a L3)."""
    stored = "Error: can't connect to the database server at db"
    project = _failed_run(fake_home, "c-db", "node api.js", stored, "Started the db container.")
    assert run_deja("index").returncode == 0
    longer = f"{stored}, retrying in 5 seconds"
    assert _fixed(longer) == ["c-db"]
    injected = failure_hook(project, "node api.js", longer)
    assert "This error came up before, in 1 past session" in injected and "c-db" in injected, injected


def test_a_line_with_many_clauses_gives_only_its_longest_shorter_forms() -> None:
    """Each shorter form is one more index lookup of the failure hook: a SQL error's column list, a comma a column,
    gives its two longest, not one a comma (review50a M5)."""
    columns = ", ".join(f"col_{n}" for n in range(12))
    line = f'sqlalchemy.exc.IntegrityError: null value in column "email" violates not-null constraint [SQL: INSERT INTO users ({columns})]'
    forms = shorter_forms(line)
    assert forms == [line[: line.rindex(", ")], line[: line.rindex(", ", 0, line.rindex(", "))]], forms
