"""The Shell pre-hook names, after a command's last failure, the form of it that worked next in that session, as
``deja fix`` says what fixed a failure (``failures.fixed_by``): an agent about to run ``terraform apply`` again is
told that ``AWS_PROFILE=acme-dev terraform apply`` succeeded after it failed (trial21 F9)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from test_hooks import Machine, cursor_tool, framed

from deja.core.writers.cursor_agent import (
    assistant_turn,
    shell_result_text,
    tool_call_part,
    tool_result_message,
    tool_use,
    turn_ended,
    user_turn,
)

CHAT = "7e9e0000-0000-4000-8000-0000000000f9"
FAILED = "terraform apply -auto-approve"
WORKED = "AWS_PROFILE=acme-dev terraform apply -auto-approve"
ERROR = "Error: No valid credential sources found for AWS Provider."


@pytest.fixture
def indexed(tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch) -> Machine:
    """The sample history and a chat where ``FAILED`` failed and ``WORKED`` then succeeded, indexed."""
    machine = Machine(tmp_path, fake_home)
    for name, value in machine.history.environment(machine.deja_home).items():
        monkeypatch.setenv(name, value)
    then = datetime.now(UTC) - timedelta(days=2)
    records = [
        user_turn("apply the staging terraform plan", then),
        assistant_turn("Applying.", tool_use("Shell", {"command": FAILED})),
        assistant_turn(
            "The provider has no credentials; using the dev profile.", tool_use("Shell", {"command": WORKED})
        ),
        assistant_turn("Applied with the acme-dev profile: 3 added, 0 changed."),
        turn_ended(),
    ]
    store = [
        {"role": "assistant", "content": [tool_call_part("t1", "Shell", {"command": FAILED})]},
        tool_result_message("t1", "Shell", shell_result_text(f"{ERROR}\n\nPlease see the provider docs.", exit_code=1)),
        {"role": "assistant", "content": [tool_call_part("t2", "Shell", {"command": WORKED})]},
        tool_result_message("t2", "Shell", shell_result_text("Apply complete! Resources: 3 added, 0 changed.")),
    ]
    machine.write_chat(machine.infra, CHAT, records, store, name="Apply staging terraform")
    machine.index()
    return machine


def test_the_shell_hook_names_the_form_that_worked_after_the_last_failure(indexed: Machine) -> None:
    asked = cursor_tool("preToolUse", "c-f9", indexed.infra, "Shell", {"command": FAILED})
    body = framed(indexed.run("hook-tool", asked).text, 512)
    assert f"`{FAILED}` ran 1 time in this project before" in body and "exit 1" in body
    assert "Last failure (" in body and ERROR in body
    assert f"What followed: `{WORKED}` succeeded" in body, body


def test_what_followed_keeps_succeeded_where_its_steps_do_not_fit(
    tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The commands are cut shorter, every step kept, rather than the line cut before "succeeded" (trial22 N4: "then
    `AWS_PROFILE=acme-dev terraform apply…"; counting the steps left out dropped the fix: review41d M1)."""
    machine = Machine(tmp_path, fake_home)
    for name, value in machine.history.environment(machine.deja_home).items():
        monkeypatch.setenv(name, value)
    then = datetime.now(UTC) - timedelta(days=2)
    error = ERROR
    login = "aws configure --profile acme-dev-sandbox-administrators set region eu-central-1 --output json"
    records = [
        user_turn("apply the staging terraform plan", then),
        assistant_turn("Applying.", tool_use("Shell", {"command": FAILED})),
        assistant_turn("Configuring the profile.", tool_use("Shell", {"command": login})),
        assistant_turn("Again with the profile.", tool_use("Shell", {"command": WORKED})),
        turn_ended(),
    ]
    store = [
        {"role": "assistant", "content": [tool_call_part("t1", "Shell", {"command": FAILED})]},
        tool_result_message("t1", "Shell", shell_result_text(error, exit_code=1)),
        {"role": "assistant", "content": [tool_call_part("t2", "Shell", {"command": login})]},
        tool_result_message("t2", "Shell", shell_result_text("")),
        {"role": "assistant", "content": [tool_call_part("t3", "Shell", {"command": WORKED})]},
        tool_result_message("t3", "Shell", shell_result_text("Apply complete! Resources: 3 added, 0 changed.")),
    ]
    machine.write_chat(machine.infra, CHAT, records, store, name="Apply staging terraform")
    machine.index()
    asked = cursor_tool("preToolUse", "c-n4", machine.infra, "Shell", {"command": FAILED})
    body = framed(machine.run("hook-tool", asked).text, 512)
    (followed,) = [line for line in body.splitlines() if line.startswith("What followed: ")]
    assert followed.startswith("What followed: `aws configure --profile ") and followed.endswith("…` succeeded"), body
    assert ", then `AWS_PROFILE=acme-dev " in followed, body


PRICING_ERROR = "E   ModuleNotFoundError: No module named 'api.pricing'"
PRICING_FIXED = (
    "Fixed: src/api/pricing_v2 had no __init__.py, so the package was not importable from the tests; "
    "I added it, and the four pricing tests pass now, the EUR and GBP rounding cases included."
)


def _what_followed(tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch, run: str, concluded: str) -> str:
    """The failure hook's "What followed" line for ``run`` failing again, after a past session where it failed, a
    package file was written, it passed, and the answer ``concluded``."""
    machine = Machine(tmp_path, fake_home)
    for name, value in machine.history.environment(machine.deja_home).items():
        monkeypatch.setenv(name, value)
    then = datetime.now(UTC) - timedelta(days=2)
    made = str(machine.api / "src" / "api" / "pricing_v2" / "__init__.py")
    records = [
        user_turn("pytest fails on the pricing tests", then),
        assistant_turn("Running the tests.", tool_use("Shell", {"command": run})),
        assistant_turn("Adding the package file.", tool_use("Write", {"path": made, "contents": ""})),
        assistant_turn(None, tool_use("Shell", {"command": run})),
        assistant_turn(concluded),
        turn_ended(),
    ]
    store = [
        {"role": "assistant", "content": [tool_call_part("t1", "Shell", {"command": run})]},
        tool_result_message("t1", "Shell", shell_result_text(f"{PRICING_ERROR}\n1 error in 0.12s", exit_code=2)),
        {"role": "assistant", "content": [tool_call_part("t2", "Write", {"path": made, "contents": ""})]},
        tool_result_message("t2", "Write", "Wrote file"),
        {"role": "assistant", "content": [tool_call_part("t3", "Shell", {"command": run})]},
        tool_result_message("t3", "Shell", shell_result_text("4 passed in 0.20s")),
    ]
    machine.write_chat(machine.api, CHAT, records, store, name="pricing import error")
    machine.index()
    output = json.dumps({"exitCode": 2, "stdout": f"{PRICING_ERROR}\n1 error in 0.11s", "stderr": ""})
    failed = cursor_tool("postToolUse", "c-t53", machine.api, "Shell", {"command": run}, tool_output=output)
    body = framed(machine.run("hook-tool-after", failed).text, 512)
    (followed,) = [line for line in body.splitlines() if line.startswith("What followed: ")]
    return followed


def test_the_failure_hook_keeps_succeeded_where_the_conclusion_is_long(
    tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a failure, "What followed" and a long "Concluded" share the 512 bytes: where no form of the line fits
    the room the conclusion leaves, the one given is its shortest (commands cut to ``SHORTEST``), which the even share
    of ``headed`` then keeps whole, "succeeded" included (trial53: "then `pytest -q tests/test_pricin…`…" said nothing
    of the run passing). The sizes are close to the edge on purpose: a path 3 characters shorter fitted already."""
    followed = _what_followed(tmp_path, fake_home, monkeypatch, "pytest -q tests/test_pricing.py", PRICING_FIXED)
    assert followed.startswith("What followed: edited ") and followed.endswith("` succeeded"), followed


def test_the_failure_hook_keeps_succeeded_beside_a_short_conclusion(
    tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beside "Concluded: Fixed." the whole block is 427 of 512 bytes: the line is given whole, not cut to half the
    room whatever the conclusion needs ("then `pytest -q tests/test_pricing.py`…": review53c F1)."""
    followed = _what_followed(tmp_path, fake_home, monkeypatch, "pytest -q tests/test_pricing.py", "Fixed.")
    assert followed.endswith(", then `pytest -q tests/test_pricing.py` succeeded"), followed


def test_the_failure_hook_keeps_succeeded_for_a_command_not_in_ascii(
    tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A test file named in Japanese: the commands are cut shorter by bytes, as the room is, never inside a
    character; cut by characters, no form fitted and the line lost "succeeded" ("then `pytest -q tests/テスト…`…":
    review53c F2)."""
    run = "pytest -q tests/テスト価格計算の丸め処理テスト.py"
    followed = _what_followed(tmp_path, fake_home, monkeypatch, run, PRICING_FIXED)
    assert followed.startswith("What followed: edited ") and followed.endswith("` succeeded"), followed
    assert ", then `pytest -q tests/" in followed, followed
