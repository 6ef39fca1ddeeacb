"""Two things the preToolUse hook said that were not the whole truth (trialI F11):

- a Task was shown a matching session's first answer ("Running it a few times.") and not what it found;
- ``sudo rm -rf /var/lib/docker`` was reassured with "ran 1 time in this project before … exit 0", while the
  failure hook and ``deja fix`` never offer it: it is now marked destructive.
"""

from __future__ import annotations

import json
from pathlib import Path

from harness import run_deja, store_shell

from deja.core.writers.cursor_agent import (
    chat_dir_for,
    store_assistant_message,
    store_preamble,
    store_user_message,
    write_chat_store,
)
from deja.hooks.tool import DESTRUCTIVE_NOTE

FLAKY = "test_login_rate_limit fails intermittently with 429"
RUNNING = "Running test_login_rate_limit a few times to catch the 429."
FOUND = "Fixed: freeze_time pins the window the limiter counts in; 20 runs pass."


def _history(home: Path) -> Path:
    project = home / "code" / "api"
    project.mkdir(parents=True)
    cursor = home / ".cursor"
    flaky = [
        *store_preamble(str(project)),
        store_user_message(FLAKY),
        *store_shell("t1", "pytest -q tests/test_auth.py -k test_login_rate_limit", "1 passed", 0, RUNNING),
        store_assistant_message(FOUND),
    ]
    write_chat_store(chat_dir_for(cursor, str(project), "c-flaky"), cwd=str(project), name="flaky auth test", messages=flaky)  # fmt: skip
    disk = [
        *store_preamble(str(project)),
        store_user_message("docker is out of disk"),
        *store_shell("t1", "sudo rm -rf /var/lib/docker", "", 0),
        store_assistant_message("Docker's data is gone; images will be pulled again."),
    ]
    write_chat_store(chat_dir_for(cursor, str(project), "c-disk"), cwd=str(project), name="docker disk", messages=disk)
    assert run_deja("index").returncode == 0
    return project


def _before(project: Path, tool: str, tool_input: dict) -> str:
    payload = {
        "conversation_id": f"conv-{tool}",
        "hook_event_name": "preToolUse",
        "cursor_version": "3.20.17",
        "workspace_roots": [str(project)],
        "tool_name": tool,
        "tool_input": tool_input,
    }
    ran = run_deja("hook-tool", input=json.dumps(payload))
    assert ran.returncode == 0 and not ran.stderr, ran.stderr
    return json.loads(ran.stdout)["additional_context"] if ran.stdout.strip() else ""


def test_a_task_is_shown_what_the_matching_session_found(fake_home: Path) -> None:
    said = _before(_history(fake_home), "Task", {"description": "fix flaky auth test", "prompt": FLAKY})
    assert "`deja show c-flaky`" in said, said
    assert f"assistant: {FOUND}" in said and RUNNING not in said, said  # the turn's closing answer (trial21 F3)
    assert said.count(FOUND) == 1  # not again as "concluded:"


def test_a_task_removes_the_one_record_file_an_older_deja_kept_for_its_project(fake_home: Path) -> None:
    """Before review50c a project's waiting Task was one file, ``hooks/tasks/<project>``; today's records are
    ``<project>.0`` to ``.7``, so the old file was never read again and stayed in deja's folder (stop 50's leftover)."""
    project = _history(fake_home)
    _before(project, "Task", {"description": "fix flaky auth test", "prompt": FLAKY})
    (record,) = fake_home.rglob("hooks/tasks/*.0")
    older = record.with_suffix("")
    older.write_text("conv-from-an-older-deja\n")
    _before(project, "Task", {"description": "fix flaky auth test", "prompt": FLAKY})
    assert not older.exists()
    assert sorted(p.name for p in record.parent.iterdir()) == [record.name, f"{older.name}.1"]


def test_a_destructive_command_is_marked_so_not_reassured(fake_home: Path) -> None:
    said = _before(_history(fake_home), "Shell", {"command": "sudo rm -rf /var/lib/docker"})
    assert "`sudo rm -rf /var/lib/docker` ran 1 time in this project before" in said, said
    assert DESTRUCTIVE_NOTE in said


COMMON_DESTRUCTIVE = [
    "docker system prune -af",
    "rm --recursive --force build",
    "git push origin +main",
    "terraform destroy -auto-approve",
    "kubectl delete namespace prod",
    "docker volume rm pgdata",
    "git branch -D feature",
]  # (and ``find . -delete``, which this hook passes over as ``find``, a command that only looks around)


def test_common_destructive_commands_are_marked(fake_home: Path) -> None:
    """Each of these was reassured with its past runs, and offered as a fix (review7b 4): clustered short flags
    (``-af``), long ones (``--recursive``), a ``+`` refspec, and the tools that delete what they manage."""
    project = fake_home / "code" / "ops"
    project.mkdir(parents=True)
    commands = [*COMMON_DESTRUCTIVE, "git branch -d merged"]  # (-d deletes only a branch merged elsewhere)
    runs = [step for n, command in enumerate(commands) for step in store_shell(f"t{n}", command, "", 0)]
    messages = [*store_preamble(str(project)), store_user_message("clean everything up"), *runs]
    write_chat_store(chat_dir_for(fake_home / ".cursor", str(project), "c-ops"), cwd=str(project), name="clean up", messages=messages)  # fmt: skip
    assert run_deja("index").returncode == 0
    for command in commands:
        said = _before(project, "Shell", {"command": command})
        assert f"`{command}` ran 1 time" in said, said
        assert (DESTRUCTIVE_NOTE in said) == (command in COMMON_DESTRUCTIVE), (command, said)


def test_a_task_worded_like_a_follow_up_is_still_searched(fake_home: Path) -> None:
    """A Task's text is the agent's, whole: "and the flaky auth test" follows up on no prompt of the user's."""
    said = _before(_history(fake_home), "Task", {"description": "and the flaky auth test", "prompt": ""})
    assert "`deja show c-flaky`" in said, said
