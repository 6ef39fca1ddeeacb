"""When the command that succeeded after a failure is the failed command itself, what changed before it is said
(trialI F2): "What followed: `docker compose up -d` succeeded" and "fixed by: pytest -q" told an agent that a plain
retry had worked, while the step was a withheld ``sudo rm -rf /var/lib/docker`` or an edit of ``conftest.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

from harness import failure_hook, run_deja, store_shell

from deja.core.writers.cursor_agent import (
    chat_dir_for,
    store_assistant_message,
    store_preamble,
    store_user_message,
    tool_call_part,
    write_chat_store,
)

DISK = "Error response from daemon: write /var/lib/docker/overlay2/f00/diff: no space left on device"
REFUSED = 'connection to server at "localhost" (127.0.0.1), port 5433 failed: Connection refused'


def _history(home: Path) -> Path:
    project = home / "code" / "api"
    project.mkdir(parents=True)
    cursor = home / ".cursor"
    disk = [
        *store_preamble(str(project)),
        store_user_message("docker compose cannot start the db"),
        *store_shell("t1", "docker compose up -d", DISK, 1),
        *store_shell("t2", "sudo rm -rf /var/lib/docker", "", 0),
        *store_shell("t3", "docker compose up -d", "Container api-db-1 Started", 0),
        store_assistant_message("The database runs again."),
    ]
    write_chat_store(chat_dir_for(cursor, str(project), "c-disk"), cwd=str(project), name="docker disk", messages=disk)
    edit = tool_call_part("e1", "StrReplace", {"path": str(project / "conftest.py"), "old_string": "5432", "new_string": "5433"})  # fmt: skip
    port = [
        *store_preamble(str(project)),
        store_user_message("the tests cannot reach postgres"),
        *store_shell("t1", "pytest -q", f"E   psycopg2.OperationalError: {REFUSED}", 1),
        store_assistant_message("Postgres listens on 5433 here.", edit),
        *store_shell("t2", "pytest -q", "12 passed", 0),
        store_assistant_message("The tests pass."),
    ]
    write_chat_store(chat_dir_for(cursor, str(project), "c-port"), cwd=str(project), name="postgres port", messages=port)  # fmt: skip
    assert run_deja("index").returncode == 0
    return project


def test_a_rerun_after_a_withheld_destructive_step_says_there_was_one(fake_home: Path) -> None:
    project = _history(fake_home)
    said = failure_hook(project, "docker compose up -d", DISK)
    assert "What followed: a destructive step (not shown), then `docker compose up -d` succeeded" in said, said
    assert "rm -rf" not in said
    fix = run_deja("fix", DISK)
    assert "  fixed by: a destructive step (not shown), then docker compose up -d\n" in fix.stdout, fix.stdout


def test_a_rerun_after_an_edit_names_the_edited_file(fake_home: Path) -> None:
    project = _history(fake_home)
    said = failure_hook(project, "pytest -q", f"E   psycopg2.OperationalError: {REFUSED}")
    assert "What followed: edited conftest.py, then `pytest -q` succeeded" in said, said
    fix = run_deja("fix", REFUSED)
    assert "  fixed by: edited conftest.py, then pytest -q\n" in fix.stdout, fix.stdout
    assert json.loads(run_deja("fix", REFUSED, "--json").stdout)["occurrences"][0]["flaky"] is False


def test_a_rerun_with_nothing_changed_between_is_called_a_flaky_failure_not_the_fix(fake_home: Path) -> None:
    """The failed test run again, nothing run or edited between, passed: deja fix said "fixed by: pytest -q
    tests/test_orders.py", a plain retry offered as the fix (trial9 F9)."""
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    flaky = [
        *store_preamble(str(project)),
        store_user_message("the orders tests fail now and then"),
        *store_shell("t1", "pytest -q tests/test_orders.py", "E   AssertionError: assert 11 == 10", 1),
        *store_shell("t2", "pytest -q tests/test_orders.py", "8 passed", 0),
        store_assistant_message("They pass on a second run."),
    ]
    chat = chat_dir_for(fake_home / ".cursor", str(project), "c-flaky")
    write_chat_store(chat, cwd=str(project), name="flaky orders", messages=flaky)
    assert run_deja("index").returncode == 0
    fix = run_deja("fix", "E   AssertionError: assert 11 == 10")
    assert "  passed when run again with nothing changed between (a flaky failure?)\n" in fix.stdout, fix.stdout
    assert "fixed by" not in fix.stdout
    occurrence = json.loads(run_deja("fix", "E   AssertionError: assert 11 == 10", "--json").stdout)["occurrences"][0]
    assert occurrence["flaky"] is True, occurrence  # (--json said resolved_by the same command, nothing more)
