"""The Shell pre-hook names, after a command's last failure, the form of it that worked next in that session, as
``deja fix`` says what fixed a failure (``failures.fixed_by``): an agent about to run ``terraform apply`` again is
told that ``AWS_PROFILE=acme-dev terraform apply`` succeeded after it failed (trial21 F9)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import NamedTuple

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


class Step(NamedTuple):
    """One step of a past chat: the answer that made the call (None: the call alone), the call and its result (a
    Shell call's output and exit code, framed as cursor-agent frames it; another tool's result as written)."""

    said: str | None
    tool: str
    args: dict[str, str]
    result: str
    exit_code: int = 0


def past_chat(
    machine: Machine,
    monkeypatch: pytest.MonkeyPatch,
    project: Path,
    ask: str,
    steps: list[Step],
    concluded: str | None = None,
    name: str = "Apply staging terraform",
) -> None:
    """``machine``'s history, with a chat of two days ago in ``project`` (``ask``, ``steps``, then the answer
    ``concluded``) added, indexed, and this process pointed at both."""
    for variable, value in machine.history.environment(machine.deja_home).items():
        monkeypatch.setenv(variable, value)
    records = [user_turn(ask, datetime.now(UTC) - timedelta(days=2))]
    store: list[dict] = []
    for number, step in enumerate(steps, 1):
        call = f"t{number}"
        records.append(assistant_turn(step.said, tool_use(step.tool, step.args)))
        store.append({"role": "assistant", "content": [tool_call_part(call, step.tool, step.args)]})
        result = shell_result_text(step.result, exit_code=step.exit_code) if step.tool == "Shell" else step.result
        store.append(tool_result_message(call, step.tool, result))
    records += [assistant_turn(concluded)] if concluded is not None else []
    machine.write_chat(project, CHAT, [*records, turn_ended()], store, name=name)
    machine.index()


@pytest.fixture
def failed_then_worked(tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch) -> Machine:
    """The sample history and a chat where ``FAILED`` failed and ``WORKED`` then succeeded, indexed."""
    machine = Machine(tmp_path, fake_home)
    steps = [
        Step("Applying.", "Shell", {"command": FAILED}, f"{ERROR}\n\nPlease see the provider docs.", 1),
        Step(
            "The provider has no credentials; using the dev profile.",
            "Shell",
            {"command": WORKED},
            "Apply complete! Resources: 3 added, 0 changed.",
        ),
    ]
    concluded = "Applied with the acme-dev profile: 3 added, 0 changed."
    past_chat(machine, monkeypatch, machine.infra, "apply the staging terraform plan", steps, concluded)
    return machine


def test_the_shell_hook_names_the_form_that_worked_after_the_last_failure(failed_then_worked: Machine) -> None:
    machine = failed_then_worked
    asked = cursor_tool("preToolUse", "c-f9", machine.infra, "Shell", {"command": FAILED})
    body = framed(machine.run("hook-tool", asked).text, 512)
    assert f"`{FAILED}` ran 1 time in this project before" in body and "exit 1" in body
    assert "Last failure (" in body and ERROR in body
    assert f"What followed: `{WORKED}` succeeded" in body, body


def test_what_followed_keeps_succeeded_where_its_steps_do_not_fit(
    tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The commands are cut shorter, every step kept, rather than the line cut before "succeeded" (trial22 N4: "then
    `AWS_PROFILE=acme-dev terraform apply…"; counting the steps left out dropped the fix: review41d M1)."""
    machine = Machine(tmp_path, fake_home)
    login = "aws configure --profile acme-dev-sandbox-administrators set region eu-central-1 --output json"
    steps = [
        Step("Applying.", "Shell", {"command": FAILED}, ERROR, 1),
        Step("Configuring the profile.", "Shell", {"command": login}, ""),
        Step("Again with the profile.", "Shell", {"command": WORKED}, "Apply complete! Resources: 3 added, 0 changed."),
    ]
    past_chat(machine, monkeypatch, machine.infra, "apply the staging terraform plan", steps)
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
    made = str(machine.api / "src" / "api" / "pricing_v2" / "__init__.py")
    steps = [
        Step("Running the tests.", "Shell", {"command": run}, f"{PRICING_ERROR}\n1 error in 0.12s", 2),
        Step("Adding the package file.", "Write", {"path": made, "contents": ""}, "Wrote file"),
        Step(None, "Shell", {"command": run}, "4 passed in 0.20s"),
    ]
    past_chat(
        machine, monkeypatch, machine.api, "pytest fails on the pricing tests", steps, concluded, "pricing import error"
    )
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


def test_the_last_failure_of_a_python_run_is_its_exception_not_the_traceback_header(
    tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """trial59 F5: "Last failure (…): torch.OutOfMemoryError: CUDA out of memory. … | Traceback (most recent call
    last):": the header beside its exception says nothing, and the model read it as a second error."""
    machine = Machine(tmp_path, fake_home)
    command = "python train.py --batch-size 64"
    error = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
    traceback = (
        f'Traceback (most recent call last):\n  File "train.py", line 88, in <module>\n    loss.backward()\n{error}'
    )
    steps = [Step("Training.", "Shell", {"command": command}, traceback, 1)]
    past_chat(machine, monkeypatch, machine.infra, "train the model on the new data", steps, "It ran out of memory.")

    asked = cursor_tool("preToolUse", "c-oom", machine.infra, "Shell", {"command": command})
    body = framed(machine.run("hook-tool", asked).text, 512)

    assert "Last failure (" in body and error in body, body
    assert "Traceback" not in body, body
