"""A past failure that no later run of the same command fixed is not offered as fixed by what came next
(trialG F2): the failure hook and ``deja fix`` say that no later run succeeded, and give the next answer only as
that. A failure a later run did fix still reads as what fixed it.

Before, a ``psql`` error never fixed in its chat was shown as "What followed: <an answer about a Stripe webhook>"
with "edited: webhooks.py", which an agent reads as the cure.
"""

from __future__ import annotations

import json
from pathlib import Path

from harness import run_deja

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

PSQL = 'psql: error: connection to server at "db" (10.0.0.5), port 5432 failed: Connection refused'
WEBHOOK = "The webhook handler parses the JSON body before verifying it: Stripe needs the raw bytes."
LAST = "Webhooks verify now; the database is still down."
DISK = "#8 ERROR: failed to copy files: write /var/lib/docker/tmp/buildkit-mount42/app: no space left on device"


def _shell(call_id: str, command: str, output: str, code: int) -> list[dict]:
    return [
        store_assistant_message(None, tool_call_part(call_id, "Shell", {"command": command})),
        tool_result_message(call_id, "Shell", shell_result_text(output, exit_code=code)),
    ]


def _history(home: Path) -> Path:
    project = home / "code" / "shop"
    project.mkdir(parents=True)
    cursor = home / ".cursor"
    edit = tool_call_part("e1", "Write", {"path": str(project / "webhooks.py"), "contents": "raw = request.body"})
    never_fixed = [
        *store_preamble(str(project)),
        store_user_message("the db and the stripe webhook are both broken"),
        *_shell("t1", "psql -h db shop", PSQL, 2),
        store_assistant_message(WEBHOOK, edit),
        store_user_message("ok"),
        store_assistant_message(LAST),
    ]
    write_chat_store(chat_dir_for(cursor, str(project), "c-psql"), cwd=str(project), name="db and webhook", messages=never_fixed)  # fmt: skip
    fixed = [
        *store_preamble(str(project)),
        store_user_message("docker build fails"),
        *_shell("t1", "docker build -t shop .", DISK, 1),
        *_shell("t2", "docker builder prune -f", "Total reclaimed space: 11GB", 0),
        *_shell("t3", "docker build -t shop .", "naming to docker.io/library/shop done", 0),
        store_assistant_message("The image builds now."),
    ]
    write_chat_store(chat_dir_for(cursor, str(project), "c-disk"), cwd=str(project), name="docker out of disk", messages=fixed)  # fmt: skip
    assert run_deja("index").returncode == 0
    return project


def _failure_hook(project: Path, command: str, output: str) -> str:
    payload = {
        "conversation_id": "conv-now",
        "hook_event_name": "postToolUse",
        "cursor_version": "3.20.17",
        "workspace_roots": [str(project)],
        "tool_name": "Shell",
        "tool_input": {"command": command},
        "tool_output": json.dumps({"exitCode": 1, "output": output}),
    }
    ran = run_deja("hook-tool-after", input=json.dumps(payload))
    assert ran.returncode == 0 and not ran.stderr, ran.stderr
    return json.loads(ran.stdout)["additional_context"]


def test_the_failure_hook_says_no_rerun_fixed_it_and_gives_the_next_answer_only_as_that(fake_home: Path) -> None:
    said = _failure_hook(_history(fake_home), "psql -h db shop", PSQL)
    assert "This error came up before, in 1 past session" in said and "`deja show c-psql`" in said, said
    # The hook's 512 bytes cut the answer; what matters is what it is said to be.
    assert f"No rerun of the failed command succeeded there; the next answer: {WEBHOOK[:40]}" in said, said
    assert "What followed" not in said
    assert f"Concluded: {LAST}" in said


def test_a_failure_a_later_run_fixed_still_reads_as_what_fixed_it(fake_home: Path) -> None:
    said = _failure_hook(_history(fake_home), "docker build -t shop .", DISK)
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
