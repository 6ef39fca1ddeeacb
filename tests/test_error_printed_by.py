"""One error printed by three tools is one error: pytest's ``E   psycopg2.OperationalError: connection …``, a
traceback's ``psycopg2.OperationalError: connection …`` and psql's ``psql: error: connection …`` (trial21 F1).

The failure hook, ``deja fix`` and the MCP ``work`` tool knew an error by its whole line: the hook, given pytest's
line, said "in 1 past session" (the one other pytest run), and missed this project's session, whose traceback had
fixed it; psql's line found nothing. A message too short to identify anything (``error: not found``) still does not
merge what different programs printed.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import msgspec
import pytest
from harness import run_deja
from test_upgrade_format import _as_an_older_deja_wrote_it

from deja.core.index import FORMAT_VERSION, MANIFEST, index_dir
from deja.core.keys import error_key
from deja.core.writers.cursor_agent import (
    chat_dir_for,
    shell_result_text,
    store_assistant_message,
    store_preamble,
    store_user_message,
    tool_call_part,
    tool_result_message,
    write_chat_store,
)

MESSAGE = 'connection to server at "localhost" (127.0.0.1), port 5432 failed: Connection refused'
#: What ``pytest --tb=native`` prints: Python's own traceback, no ``E`` marker.
TRACEBACK = f"Traceback (most recent call last):\n  File conftest.py, line 3\npsycopg2.OperationalError: {MESSAGE}"
PSQL = f"psql: error: {MESSAGE}"
PYTEST = f"E   psycopg2.OperationalError: {MESSAGE}"
DAY_MS = 86_400_000
NOW_MS = 1_785_060_360_000


def _failed_then_fixed(home: Path, project: str, chat: str, days_ago: int, steps: list[tuple[str, str, int]]) -> Path:
    """A store-only cursor-agent chat in ``~/code/PROJECT`` that ran ``steps`` (command, output, exit code)."""
    folder = home / "code" / project
    folder.mkdir(parents=True, exist_ok=True)
    messages = [*store_preamble(str(folder)), store_user_message(f"`{steps[0][0]}` fails")]
    for n, (command, output, code) in enumerate(steps):
        messages.append(store_assistant_message(None, tool_call_part(f"t{n}", "Shell", {"command": command})))
        messages.append(tool_result_message(f"t{n}", "Shell", shell_result_text(output, exit_code=code)))
    messages.append(store_assistant_message(f"Fixed in {project}."))
    created = NOW_MS - days_ago * DAY_MS
    write_chat_store(chat_dir_for(home / ".cursor", str(folder), chat), cwd=str(folder), name=f"{project} failure", messages=messages, created_ms=created)  # fmt: skip
    return folder


def _three_tools_history(home: Path) -> Path:
    """This project's traceback (the oldest, fixed by starting the db), then psql in web-app, pytest in infra."""
    shop = _failed_then_fixed(
        home,
        "shop-api",
        "c-shop",
        days_ago=9,
        steps=[
            ("pytest -q --tb=native tests/test_orders.py", TRACEBACK, 1),
            ("docker compose up -d db", "Container db Started", 0),
            ("pytest -q --tb=native tests/test_orders.py", "23 passed", 0),
        ],
    )
    _failed_then_fixed(home, "web-app", "c-web", days_ago=5, steps=[("psql -c 'select 1'", PSQL, 2)])
    _failed_then_fixed(home, "infra", "c-infra", days_ago=2, steps=[("pytest -q tests/test_db.py", PYTEST, 1)])
    assert run_deja("index").returncode == 0
    return shop


def _after_failure(project: Path, command: str, output: str, conversation: str = "conv-new") -> str:
    payload = {
        "conversation_id": conversation,
        "hook_event_name": "postToolUse",
        "workspace_roots": [str(project)],
        "tool_name": "Shell",
        "tool_input": {"command": command},
        "tool_output": json.dumps({"exitCode": 1, "output": output}),
    }
    ran = run_deja("hook-tool-after", input=json.dumps(payload))
    assert ran.returncode == 0 and not ran.stderr, ran.stderr
    return json.loads(ran.stdout)["additional_context"] if ran.stdout.strip() else ""


def test_the_failure_hook_counts_one_error_printed_by_three_tools_and_shows_this_projects_fix(
    fake_home: Path,
) -> None:
    shop = _three_tools_history(fake_home)
    text = _after_failure(shop, "pytest -q tests/test_orders.py", PYTEST)
    assert "This error came up before, in 3 past sessions; the latest in this project:" in text, text
    assert "`deja show c-shop`" in text and "c-infra" not in text and "c-web" not in text, text
    assert "`docker compose up -d db`, then `pytest -q --tb=native tests/test_orders.py` succeeded" in text, text


def test_the_failure_hook_judges_a_past_rerun_by_the_command_that_failed_there(fake_home: Path) -> None:
    """psql fails now with the error a pytest run printed in the past session, which the db's start and a pytest
    rerun fixed: no psql ran there, and the hook said "No rerun of the failed command succeeded there" (trial22 N1)."""
    shop = _three_tools_history(fake_home)
    text = _after_failure(shop, "psql -c 'select 1'", PSQL)
    assert "`deja show c-shop`" in text and "No rerun" not in text, text
    assert "`docker compose up -d db`, then `pytest -q --tb=native tests/test_orders.py` succeeded" in text, text


def test_an_index_of_the_older_format_keeps_the_hook_silent_until_the_build_it_starts_is_done(
    fake_home: Path,
) -> None:
    """Keys of the older format key each tool's line apart: the hook answers nothing from it, starts a build and, once
    it is done, counts the three sessions."""
    shop = _three_tools_history(fake_home)
    deja_home = fake_home / ".cache" / "deja"
    _as_an_older_deja_wrote_it(deja_home)
    assert _after_failure(shop, "pytest -q tests/test_orders.py", PYTEST, "conv-1") == ""
    log = (deja_home / "hooks.log").read_text()
    assert f"is index format {FORMAT_VERSION - 1}, this deja reads {FORMAT_VERSION}; started a build" in log, log
    manifest = index_dir(deja_home) / MANIFEST
    deadline = time.monotonic() + 60
    while msgspec.msgpack.decode(manifest.read_bytes())["version"] != FORMAT_VERSION:
        assert time.monotonic() < deadline, "the build the hook started did not finish in 60 s"
        time.sleep(0.1)
    text = _after_failure(shop, "pytest -q tests/test_orders.py", PYTEST, "conv-2")
    assert "in 3 past sessions; the latest in this project:" in text, text


def test_deja_fix_with_psqls_line_finds_the_pytest_and_the_traceback_sessions(fake_home: Path) -> None:
    _three_tools_history(fake_home)
    ran = run_deja("fix", PSQL, "--json")
    assert ran.returncode == 0, ran.stderr
    found = json.loads(ran.stdout)["occurrences"]
    assert [o["session"]["id"] for o in found] == ["c-infra", "c-web", "c-shop"], found
    assert [o["error"] for o in found] == [PYTEST, PSQL, TRACEBACK.splitlines()[-1]], found


def test_two_short_errors_of_different_programs_stay_apart(fake_home: Path) -> None:
    """``error: not found`` says too little to be known without who printed it: helm's is not curl's."""
    helm = _failed_then_fixed(fake_home, "charts", "c-helm", 3, [("helm pull acme/api", "helm: error: not found", 1)])
    _failed_then_fixed(fake_home, "charts", "c-curl", 1, [("curl -f https://x", "curl: error: not found", 22)])
    assert run_deja("index").returncode == 0
    text = _after_failure(helm, "helm pull acme/api", "helm: error: not found")
    assert "in 1 past session" in text and "`deja show c-helm`" in text and "c-curl" not in text, text


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("cat: config/app.yaml: No such file or directory", "bash: ./scripts/deploy.sh: No such file or directory"),
        ("FAIL: test_login (tests.test_auth.LoginTest)", "ERROR: test_login (tests.test_auth.LoginTest)"),
    ],
)
def test_a_programs_name_alone_or_a_short_message_keeps_two_errors_apart(one: str, other: str) -> None:
    """What printed an error is left out only with a level or class after it: ``cat:`` and ``bash:``'s missing files
    were one error (every missing file of every program), as were unittest's FAIL and ERROR of one test (review41b
    M4)."""
    assert error_key(one) != error_key(other)


def test_a_four_word_message_is_one_error_whoever_printed_it() -> None:
    """psql's and psycopg2's "database does not exist" is one error (a five-word floor split them: review41c M1)."""
    psql = 'psql: error: FATAL:  database "app" does not exist'
    assert error_key(psql) == error_key('E   psycopg2.OperationalError: FATAL:  database "app" does not exist')


def test_what_followed_keeps_the_fix_when_a_long_conclusion_leaves_it_little_room(fake_home: Path) -> None:
    """The line too long for what a long conclusion leaves cuts its commands shorter: counting the steps before the
    rerun dropped `docker compose up -d db`, the fix, and kept the failed command run again (review41d M1)."""
    folder = fake_home / "code" / "shop-api"
    folder.mkdir(parents=True)
    long = "The orders tests failed because the database container was not running after the laptop restarted; " * 3
    steps = [
        ("pytest -q --tb=native tests/test_orders.py", TRACEBACK, 1),
        ("docker compose up -d db", "Container db Started", 0),
        ("pytest -q --tb=native tests/test_orders.py", "23 passed", 0),
    ]
    messages = [*store_preamble(str(folder)), store_user_message("the orders tests fail")]
    for n, (command, output, code) in enumerate(steps):
        messages.append(store_assistant_message(None, tool_call_part(f"t{n}", "Shell", {"command": command})))
        messages.append(tool_result_message(f"t{n}", "Shell", shell_result_text(output, exit_code=code)))
    messages.append(store_assistant_message(long))
    chat = chat_dir_for(fake_home / ".cursor", str(folder), "c-long")
    write_chat_store(chat, cwd=str(folder), name="orders", messages=messages, created_ms=NOW_MS - DAY_MS)
    assert run_deja("index").returncode == 0
    text = _after_failure(folder, "pytest -q tests/test_orders.py", PYTEST)
    assert "What followed: `docker compose up -d db`, then `pytest -q " in text and "` succeeded" in text, text


def test_a_failed_chain_is_run_again_by_its_last_link(fake_home: Path) -> None:
    """``cd api && pytest`` failed: its head was ``cd api``'s, so ``cd api && git status`` was its rerun, "run again
    with other arguments", and ``docker compose up -d db``, the fix, was never named (review41d H1)."""
    shop = _failed_then_fixed(
        fake_home,
        "shop-api",
        "c-chain",
        days_ago=3,
        steps=[
            ("cd api && pytest -q --tb=native tests/test_orders.py", TRACEBACK, 1),
            ("cd api && git status", "nothing to commit", 0),
            ("docker compose up -d db", "Container db Started", 0),
            ("cd api && pytest -q --tb=native tests/test_orders.py", "23 passed", 0),
        ],
    )
    assert run_deja("index").returncode == 0
    text = _after_failure(shop, "psql -c 'select 1'", PSQL)
    assert "What followed: `docker compose up -d db`, then `cd api && pytest -q" in text and "git status" not in text, (
        text
    )
    fixed = run_deja("fix", PSQL).stdout
    assert "fixed by: docker compose up -d db, then cd api && pytest -q --tb=native tests/test_orders.py" in fixed, (
        fixed
    )
