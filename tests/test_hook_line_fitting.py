"""How the hooks fit their lines to their byte budget (review53f, on fixc53's line fitting): a later line counted as
fit shows it, a command not in ASCII cut no shorter than a form that fits, "What followed" of two commands beside a
long title keeps "succeeded" (F2); and doctor names a hooks' config path that is a folder (F3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from harness import Sample, run_deja
from test_hooks import Machine, cursor_tool, framed
from test_shell_form_that_worked import PRICING_ERROR, PRICING_FIXED, Step, past_chat

from deja.hooks.call import fit_lines, neutralise


def test_a_later_line_that_neutralising_lengthens_is_not_cut() -> None:
    """``<DEJArecall`` (11 bytes) is shown as ``[deja-recall]`` (13): ``line_room`` gave the first line all but 12
    bytes, and the second, whole under the even share before fixc53, came out as "[deja-re…"."""
    lines = fit_lines(["What followed: " + "x " * 40, "<DEJArecall"], 80)
    assert lines[-1] == "[deja-recall]", lines


def test_the_failure_hook_keeps_succeeded_beside_a_long_title_and_conclusion(
    tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long session title (the 1k bench history's are ~80 characters) leaves "What followed" and "Concluded" about
    120 bytes: two commands even in their shortest form do not fit half of it, and the line was cut before
    "succeeded" (`docker compose up -…`, then `pytest -q…`), in 8 of the 14 such lines of that history, before and
    after fixc53."""
    machine = Machine(tmp_path, fake_home)
    run, up = "pytest -q tests/test_pricing.py", "docker compose up -d postgres-for-pricing-tests"
    steps = [
        Step("Running the tests.", "Shell", {"command": run}, f"{PRICING_ERROR}\n1 error in 0.12s", 2),
        Step("Starting the database.", "Shell", {"command": up}, "Container pricing-db Started"),
        Step(None, "Shell", {"command": run}, "4 passed in 0.20s"),
    ]
    name = "pricing tests fail to import the pricing package after the move to pricing_v2 in the monorepo layout"
    past_chat(machine, monkeypatch, machine.api, "pytest fails on the pricing tests", steps, PRICING_FIXED, name)
    output = json.dumps({"exitCode": 2, "stdout": f"{PRICING_ERROR}\n1 error in 0.11s", "stderr": ""})
    failed = cursor_tool("postToolUse", "c-r53f", machine.api, "Shell", {"command": run}, tool_output=output)
    body = framed(machine.run("hook-tool-after", failed).text, 512)
    (followed,) = [line for line in body.splitlines() if line.startswith("What followed: ")]
    assert followed.endswith(" succeeded"), body
    assert "\nConcluded: Fixed: src/api/pricing_v2 had" in body, body  # (the conclusion cut shorter, not dropped)


def test_doctor_names_the_hooks_config_path_that_is_a_folder(sample: Sample, tmp_path: Path) -> None:
    """~/.config/deja/config.toml, which Cursor's hooks read, is a folder: doctor warned only that the settings
    differ and said to copy the XDG file onto it (``cp`` puts it inside the folder; the hooks still read a folder),
    with no word that the hooks' file cannot be read."""
    env = {**sample.env, "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    (tmp_path / "xdg" / "deja").mkdir(parents=True)
    (tmp_path / "xdg" / "deja" / "config.toml").write_text('recall = "off"\n')
    there = Path(sample.env["HOME"]) / ".config" / "deja" / "config.toml"
    there.mkdir(parents=True)
    said = " ".join(run_deja("doctor", env=env).stdout.split())
    assert "XDG_CONFIG_HOME is set in this shell, so" in said, said
    assert f"cannot read {there} (Is a directory)" in said, said
    assert f"move {there} away, then copy" in said, said


SHOP_RUN = "npm run ビルド -- --filter café-résumé-service"
SHOP_FIX = "pip install -e './packages/価格計算[test]'"


def _shell_followed(machine: Machine, monkeypatch: pytest.MonkeyPatch, error: str) -> str:
    """The Shell pre-hook's "What followed" line for ``SHOP_RUN``, after a chat where it failed with ``error``,
    ``SHOP_FIX`` ran and it then passed."""
    steps = [
        Step("Building.", "Shell", {"command": SHOP_RUN}, error, 1),
        Step("Installing the package.", "Shell", {"command": SHOP_FIX}, "done"),
        Step(None, "Shell", {"command": SHOP_RUN}, "built"),
    ]
    past_chat(machine, monkeypatch, machine.api, "the build fails", steps, "Built.", "build fails")
    asked = cursor_tool("preToolUse", "c-r53f-shell", machine.api, "Shell", {"command": SHOP_RUN})
    body = framed(machine.run("hook-tool", asked).text, 512)
    return body


def test_the_shell_hook_cuts_a_command_not_in_ascii_no_shorter_than_before(
    tmp_path: Path, fake_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before fixc53 the 28-character form fitted (506 of 512 bytes): "`npm run ビルド -- --fi…` succeeded". Its forms
    are now of 28 bytes, and the same room shows "`npm run ビルド -…` succeeded": 6 characters fewer, with the bytes
    left unused (11 of 90 Shell payloads on review53f's non-ASCII history)."""
    body = _shell_followed(Machine(tmp_path, fake_home), monkeypatch, "E   No module 'api.価格' " + "x" * 26)
    (followed,) = [line for line in body.splitlines() if line.startswith("What followed: ")]
    assert "`npm run ビルド -- --fi" in followed, body


@pytest.mark.parametrize(
    "later",
    [
        "<DEJArecall> then it " + "&amp;" * 40 + " succeeded",
        "<DEJArecall> " + "\u200b" * 60 + "then it succeeded",
    ],
)
def test_a_later_line_shown_shorter_than_written_keeps_its_ending(later: str) -> None:
    """``fit`` reads no more of a text than twice its room: a later line shown far shorter than written (escapes,
    zero-width spaces) counted by its shown length was cut before it was read and lost "succeeded" (review53h H1)."""
    first = "What followed: " + "word " * 80
    shown = neutralise(later)
    lines = fit_lines([first, later], 400)
    assert len(shown.encode()) + 1 < 400 // 2  # (it fits whole under an even share, let alone all the room left)
    assert lines[-1] == shown, lines
