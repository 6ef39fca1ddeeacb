"""Which earlier runs count as runs of the same command (``keys.command_head``), as a user sees it (review40b M6).

A global flag's value was taken for the subcommand: ``kubectl -n prod get pods`` and ``kubectl -n prod apply -f
deploy.yaml`` were both ``kubectl prod``, so ``deja fix`` took the look at the pods for the failed apply run again.
Every Python script was ``python``: the Shell hook before ``python manage.py migrate`` told of ``python train.py``'s
runs and their out-of-memory failure.
"""

from __future__ import annotations

import json
from pathlib import Path

from harness import run_deja, store_shell

from deja.core.writers.cursor_agent import (
    DEFAULT_CREATED_MS,
    chat_dir_for,
    store_assistant_message,
    store_preamble,
    store_user_message,
    tool_call_part,
    write_chat_store,
)

INVALID = (
    'error: error validating "deploy.yaml": error validating data: ValidationError(Deployment.spec.replicas): '
    'invalid type for io.k8s.api.apps.v1.DeploymentSpec.replicas: got "string", expected "integer"'
)
OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
MINUTE_MS = 60_000


def test_deja_fix_takes_no_other_subcommand_with_the_same_namespace_for_a_rerun(fake_home: Path) -> None:
    project = fake_home / "code" / "ops"
    project.mkdir(parents=True)
    edit = tool_call_part("e1", "StrReplace", {"path": str(project / "deploy.yaml"), "old_string": '"3"', "new_string": "3"})  # fmt: skip
    messages = [
        *store_preamble(str(project)),
        store_user_message("the deploy to prod fails"),
        *store_shell("t1", "kubectl -n prod apply -f deploy.yaml", INVALID, 1),
        *store_shell("t2", "kubectl -n prod get pods", "NAME READY STATUS\napi-7d9 1/1 Running", 0),
        store_assistant_message("replicas is quoted in deploy.yaml.", edit),
        *store_shell("t3", "kubectl -n prod apply -f deploy.yaml", "deployment.apps/api configured", 0),
        store_assistant_message("Deployed."),
    ]
    write_chat_store(chat_dir_for(fake_home / ".cursor", str(project), "c-ops"), cwd=str(project), name="prod deploy", messages=messages)  # fmt: skip
    assert run_deja("index").returncode == 0
    fix = run_deja("fix", INVALID)
    assert "  fixed by: edited deploy.yaml, then kubectl -n prod apply -f deploy.yaml\n" in fix.stdout, fix.stdout
    (found,) = json.loads(run_deja("fix", INVALID, "--json").stdout)["occurrences"]
    assert found["resolved_by"] == "kubectl -n prod apply -f deploy.yaml", found


def _shell_hook(project: Path, command: str) -> str:
    payload = {
        "conversation_id": "conv-now",
        "hook_event_name": "preToolUse",
        "cursor_version": "3.20.17",
        "workspace_roots": [str(project)],
        "tool_name": "Shell",
        "tool_input": {"command": command},
    }
    ran = run_deja("hook-tool", input=json.dumps(payload))
    assert ran.returncode == 0 and not ran.stderr, ran.stderr
    return json.loads(ran.stdout)["additional_context"] if ran.stdout.strip() else ""


def test_the_shell_hook_recalls_runs_of_the_same_python_script_not_of_another(fake_home: Path) -> None:
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    cursor = fake_home / ".cursor"
    migrate = [
        *store_preamble(str(project)),
        store_user_message("apply the new migration"),
        *store_shell("t1", "python manage.py migrate --noinput", "Applying shop.0042_orders... OK", 0),
    ]
    write_chat_store(chat_dir_for(cursor, str(project), "c-migrate"), cwd=str(project), name="migrate", messages=migrate)  # fmt: skip
    train = [  # newer: the last run of plain `python`
        *store_preamble(str(project)),
        store_user_message("train the ranking model"),
        *store_shell("t1", "python train.py --epochs 3", OOM, 1),
    ]
    later = DEFAULT_CREATED_MS + 60 * MINUTE_MS
    write_chat_store(chat_dir_for(cursor, str(project), "c-train"), cwd=str(project), name="train", messages=train, created_ms=later)  # fmt: skip
    assert run_deja("index").returncode == 0
    said = _shell_hook(project, "python manage.py migrate")
    assert "`python manage.py migrate` commands ran 1 time in this project before" in said, said
    assert "deja show c-migrate" in said and "CUDA" not in said, said
    assert "CUDA out of memory" in _shell_hook(project, "python train.py --epochs 5")


def test_deja_fix_takes_the_whole_suite_for_a_rerun_of_a_narrowed_pytest(fake_home: Path) -> None:
    """``python -m pytest -k test_login`` failed, an edit, then ``python -m pytest`` passed: fixed by the edit. The
    ``-k`` value was taken for a subcommand (``python -m pytest test_login``), and the passing run was no rerun of it:
    "no rerun of the failed command succeeded there" (review41a H1)."""
    project = fake_home / "code" / "shop"
    project.mkdir(parents=True)
    failed = "FAILED tests/test_login.py::test_login - AssertionError: expected 302 redirect to /dashboard"
    edit = tool_call_part("e1", "StrReplace", {"path": str(project / "views.py"), "old_string": "/home", "new_string": "/dashboard"})  # fmt: skip
    messages = [
        *store_preamble(str(project)),
        store_user_message("the login test fails"),
        *store_shell("t1", "python -m pytest -k test_login", failed, 1),
        store_assistant_message("The redirect target is wrong in views.py.", edit),
        *store_shell("t2", "python -m pytest", "42 passed in 3.1s", 0),
        store_assistant_message("Fixed."),
    ]
    write_chat_store(chat_dir_for(fake_home / ".cursor", str(project), "c-login"), cwd=str(project), name="login", messages=messages)  # fmt: skip
    assert run_deja("index").returncode == 0
    fix = run_deja("fix", failed)
    assert "  fixed by: edited views.py, then python -m pytest\n" in fix.stdout, fix.stdout
