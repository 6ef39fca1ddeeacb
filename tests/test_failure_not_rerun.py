"""A past failure that no later run of the same command fixed is not offered as fixed by what came next
(trialG F2): the failure hook and ``deja fix`` say that no later run succeeded, and give the next answer only as
that. A failure a later run did fix still reads as what fixed it.

Before, a ``psql`` error never fixed in its chat was shown as "What followed: <an answer about a Stripe webhook>"
with "edited: webhooks.py", which an agent reads as the cure.
"""

from __future__ import annotations

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

PSQL = 'psql: error: connection to server at "db" (10.0.0.5), port 5432 failed: Connection refused'
WEBHOOK = "The webhook handler parses the JSON body before verifying it: Stripe needs the raw bytes."
LAST = "Webhooks verify now; the database is still down."
DISK = "#8 ERROR: failed to copy files: write /var/lib/docker/tmp/buildkit-mount42/app: no space left on device"


def _history(home: Path) -> Path:
    project = home / "code" / "shop"
    project.mkdir(parents=True)
    cursor = home / ".cursor"
    edit = tool_call_part("e1", "Write", {"path": str(project / "webhooks.py"), "contents": "raw = request.body"})
    never_fixed = [
        *store_preamble(str(project)),
        store_user_message("the db and the stripe webhook are both broken"),
        *store_shell("t1", "psql -h db shop", PSQL, 2),
        store_assistant_message(WEBHOOK, edit),
        store_user_message("ok"),
        store_assistant_message(LAST),
    ]
    write_chat_store(chat_dir_for(cursor, str(project), "c-psql"), cwd=str(project), name="db and webhook", messages=never_fixed)  # fmt: skip
    fixed = [
        *store_preamble(str(project)),
        store_user_message("docker build fails"),
        *store_shell("t1", "docker build -t shop .", DISK, 1),
        *store_shell("t2", "docker builder prune -f", "Total reclaimed space: 11GB", 0),
        *store_shell("t3", "docker build -t shop .", "naming to docker.io/library/shop done", 0),
        store_assistant_message("The image builds now."),
    ]
    write_chat_store(chat_dir_for(cursor, str(project), "c-disk"), cwd=str(project), name="docker out of disk", messages=fixed)  # fmt: skip
    assert run_deja("index").returncode == 0
    return project


def test_the_failure_hook_says_no_rerun_fixed_it_and_gives_the_next_answer_only_as_that(fake_home: Path) -> None:
    said = failure_hook(_history(fake_home), "psql -h db shop", PSQL)
    assert "This error came up before, in 1 past session" in said and "`deja show c-psql`" in said, said
    # The hook's 512 bytes cut the answer; what matters is what it is said to be.
    assert f"No rerun of the failed command succeeded there; the next answer: {WEBHOOK[:40]}" in said, said
    assert "What followed" not in said
    assert f"Concluded: {LAST}" in said


def test_a_failure_a_later_run_fixed_still_reads_as_what_fixed_it(fake_home: Path) -> None:
    said = failure_hook(_history(fake_home), "docker build -t shop .", DISK)
    assert "What followed: `docker builder prune -f`, then `docker build -t shop .` succeeded" in said, said
    assert "No rerun" not in said


def test_deja_fix_says_which_failures_no_later_run_fixed(fake_home: Path) -> None:
    _history(fake_home)
    psql = run_deja("fix", "Connection refused")
    assert psql.returncode == 0, psql.stderr
    assert f"  no rerun of the failed command succeeded there; the next answer: {WEBHOOK}" in psql.stdout
    assert "what followed" not in psql.stdout and "fixed by" not in psql.stdout
    disk = run_deja("fix", "no space left on device")
    assert "  fixed by: docker builder prune -f, then docker build -t shop ." in disk.stdout, disk.stdout
    assert "no rerun" not in disk.stdout


LOCK = "Error: Error acquiring the state lock: ConditionalCheckFailedException: The conditional request failed"
CHAIN = "terraform force-unlock 1a2b3c4d && terraform apply"


def _chained_fix(home: Path) -> Path:
    """A failure fixed the way agents most often run a fix: the fix and the failed command again, in one chain."""
    project = home / "code" / "infra"
    project.mkdir(parents=True)
    cursor = home / ".cursor"
    messages = [
        *store_preamble(str(project)),
        store_user_message("terraform apply fails with the state lock error"),
        *store_shell("t1", "terraform apply", LOCK, 1),
        *store_shell("t2", CHAIN, "Apply complete! Resources: 0 added, 1 changed, 0 destroyed.", 0),
        store_assistant_message("A crashed CI run held the DynamoDB lock; force-unlock with its id, then apply."),
    ]
    write_chat_store(chat_dir_for(cursor, str(project), "c-lock"), cwd=str(project), name="state lock", messages=messages)  # fmt: skip
    assert run_deja("index").returncode == 0
    return project


def test_a_chain_ending_in_the_failed_command_that_passed_is_a_rerun_that_succeeded(fake_home: Path) -> None:
    # trial18 F3: the hook said "No rerun of the failed command succeeded there" and `deja fix` listed the chain (ok).
    said = failure_hook(_chained_fix(fake_home), "terraform apply", LOCK)
    assert f"What followed: `{CHAIN}` succeeded" in said, said
    assert "No rerun" not in said
    fix = run_deja("fix", "ConditionalCheckFailedException: The conditional request failed")
    assert fix.returncode == 0, fix.stderr
    assert f"  fixed by: {CHAIN}" in fix.stdout, fix.stdout
    assert "no rerun" not in fix.stdout


def test_a_piped_rerun_is_not_taken_for_one_that_succeeded(fake_home: Path) -> None:
    # `pytest -q | tail` exits as tail does: it says nothing of whether the tests passed.
    project = fake_home / "code" / "app"
    project.mkdir(parents=True)
    error = "E   ModuleNotFoundError: No module named 'app'"
    messages = [
        *store_preamble(str(project)),
        store_user_message("tests fail"),
        *store_shell("t1", "pytest -q", error, 2),
        *store_shell("t2", "pip install -e . && pytest -q | tail -3", error, 0),
        store_assistant_message("Still failing."),
    ]
    write_chat_store(chat_dir_for(fake_home / ".cursor", str(project), "c-pipe"), cwd=str(project), name="pytest", messages=messages)  # fmt: skip
    assert run_deja("index").returncode == 0
    said = failure_hook(project, "pytest -q", error)
    assert "No rerun of the failed command succeeded there" in said, said


AUTH = "FATAL:  password authentication failed for user shop"
TOKEN = "Token expired; refresh it with the auth endpoint."


def test_an_answer_to_the_next_question_is_the_next_answer_not_what_the_failure_concluded(fake_home: Path) -> None:
    """The session's last answer, to another question asked after the failure, was labelled the failure's
    "Concluded:" by the hook where ``deja fix`` gave it as "the next answer" (trial46 F6): both say what it is."""
    project = fake_home / "code" / "shop-api"
    project.mkdir(parents=True)
    messages = [
        *store_preamble(str(project)),
        store_user_message("the order tests fail"),
        *store_shell("t1", "pytest -q tests/test_orders.py", f"1 failed: {AUTH}", 1, text="Running the order tests."),
        store_user_message("another thing: curl to /orders answers 401"),
        store_assistant_message(TOKEN),
    ]
    write_chat_store(chat_dir_for(fake_home / ".cursor", str(project), "c-auth"), cwd=str(project), name="orders", messages=messages)  # fmt: skip
    assert run_deja("index").returncode == 0
    said = failure_hook(project, "pytest -q tests/test_orders.py", f"1 failed: {AUTH}")
    assert f"No rerun of the failed command succeeded there; the next answer: {TOKEN}" in said, said
    assert "Concluded" not in said
    fix = run_deja("fix", AUTH)
    assert f"  no rerun of the failed command succeeded there; the next answer: {TOKEN}" in fix.stdout, fix.stdout


ROLE = "Done. The CI database role had no password: I set it in .env.test and the CI secret."


def test_a_next_answer_that_starts_the_later_conclusion_does_not_hide_it(fake_home: Path) -> None:
    """Whether the next answer is the session's last is asked of the message, not its text: a next answer "Done."
    began the later, different conclusion, and the hook dropped that conclusion, the fix (review47a M1)."""
    project = fake_home / "code" / "shop-api"
    project.mkdir(parents=True)
    messages = [
        *store_preamble(str(project)),
        store_user_message("the order tests fail"),
        *store_shell("t1", "pytest -q tests/test_orders.py", f"1 failed: {AUTH}", 1, text="Running the order tests."),
        store_assistant_message("Done."),
        store_user_message("and the db password?"),
        store_assistant_message(ROLE),
    ]
    write_chat_store(chat_dir_for(fake_home / ".cursor", str(project), "c-done"), cwd=str(project), name="orders", messages=messages)  # fmt: skip
    assert run_deja("index").returncode == 0
    said = failure_hook(project, "pytest -q tests/test_orders.py", f"1 failed: {AUTH}")
    assert "No rerun of the failed command succeeded there" in said, said
    assert f"Concluded: {ROLE[:60]}" in said, said
