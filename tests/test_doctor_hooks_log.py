"""Doctor on a cursor-agent-only machine (no Cursor editor logs) says what deja's own hooks.log proves: that the
hooks ran, how often, when last, and what the last one gave (trial18 F5). It said "nothing proves the hooks ran"
beside a hooks.log full of calls, which ``doctor --json`` listed as ``hook_decisions``."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
from harness import hook_prompt, run_deja, store_shell

from deja.core.writers.cursor_agent import (
    chat_dir_for,
    store_assistant_message,
    store_preamble,
    store_user_message,
    write_chat_store,
)


def test_doctor_says_the_hooks_ran_when_only_hooks_log_proves_it(fake_home: Path) -> None:
    project = fake_home / "code" / "infra"
    project.mkdir(parents=True)
    messages = [
        *store_preamble(str(project)),
        store_user_message("terraform apply fails with the state lock error"),
        *store_shell("t1", "terraform apply", "Error: Error acquiring the state lock", 1),
        store_assistant_message("A crashed CI run held the lock; force-unlock with its id, then apply."),
    ]
    write_chat_store(chat_dir_for(fake_home / ".cursor", str(project), "c-lock"), cwd=str(project), name="state lock", messages=messages)  # fmt: skip
    assert run_deja("index").returncode == 0
    env = dict(os.environ)
    hook_prompt(env, "terraform apply fails with the state lock error again", str(project), "c-now")
    hook_prompt(env, "yes do it", str(project), "c-now")

    out = run_deja("doctor").stdout
    delivery = out[out.index("Delivery") :]
    assert "nothing proves the hooks ran" not in delivery, delivery
    assert "(cursor-agent writes none)" in delivery
    decisions = orjson.loads(run_deja("doctor", "--json").stdout)["hook_decisions"]
    assert len(decisions) == 2, decisions
    assert "deja's hooks.log: the hooks ran 2 times since " in delivery, delivery
    assert "(beforeSubmitPrompt, silent); 1 of them gave context" in delivery, delivery


def test_doctor_says_nothing_proves_the_hooks_ran_when_nothing_does(fake_home: Path) -> None:
    out = run_deja("doctor").stdout
    assert "nothing proves the hooks ran (cursor-agent writes none)" in out, out
    assert "deja's hooks.log" not in out


def test_doctor_names_the_newest_calls_as_such_when_hooks_log_holds_more(fake_home: Path) -> None:
    """Doctor reads the newest 20 lines of hooks.log: where it holds more, "ran 20 times since 19:27" was untrue
    of the minute the first of them gives (trial55), so they are named as the newest."""
    project = fake_home / "code" / "infra"
    project.mkdir(parents=True)
    env = dict(os.environ)
    for turn in range(22):
        hook_prompt(env, f"yes do it {turn}", str(project), "c-many")
    out = run_deja("doctor").stdout
    assert "deja's hooks.log: its newest 20 calls ran since " in out, out
    assert "the hooks ran 20 times" not in out, out
