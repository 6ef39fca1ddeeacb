"""The README's two commands, as written, on a fresh machine: a copy of the checkout, an empty HOME, and a pip
that refuses to install outside a virtual environment (as stock Debian, Ubuntu and Homebrew Pythons do). The first
installs deja as a user gets it, not editable; what it installed is then wired into Cursor and run from there."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from harness import CHECKOUT, clean_copy
from installed_copy import differences

from deja.installers import cursor

#: Set in the copy's own test run, which would otherwise run these commands again, without end.
NESTED = "DEJA_README_COMMANDS"
#: What the copy's test run selects, through pytest's own variable, so that the command runs as the README writes it
#: (and without colour, which ``FORCE_COLOR`` or ``PY_COLORS`` would put into the summary line read below).
NESTED_SELECTION = "-m unit --color=no"
VENV = ".local/share/deja/venv"
VENV_BIN = f"{VENV}/bin"
#: A module an earlier build of the checkout staged (setuptools' ``build/lib``) that the checkout no longer has.
REMOVED_SINCE = Path("build", "lib", "deja", "core", "removed_since.py")


def readme_commands() -> list[str]:
    """The shell block under "## Two commands", one command a line."""
    section = (CHECKOUT / "README.md").read_text(encoding="utf-8").split("\n## Two commands\n", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, flags=re.S)
    assert block, "README.md: no sh block under ## Two commands"
    return [line for line in block[1].splitlines() if line.strip()]


@pytest.mark.unit
def test_the_commands_install_deja_as_a_user_gets_it_and_nothing_into_the_system_python() -> None:
    setup, tests = readme_commands()
    assert setup.startswith(f"python3 -m venv ~/{VENV} && ")
    steps = setup.split(" && ")[1:]
    assert all(f"~/{VENV_BIN}/" in step for step in steps), setup
    assert f"~/{VENV_BIN}/pip install ." in steps, "a regular install (not editable), without the test tools"
    assert tests == f"~/{VENV_BIN}/pip install '.[test]' && ~/{VENV_BIN}/python -m pytest", (
        "the test tools, then the suite"
    )
    ci = (CHECKOUT / ".ci" / "run").read_text().splitlines()
    assert ci.index(f"{setup} || exit 1") < ci.index(f"{tests} || exit 1"), ".ci/run runs the README's two commands"
    # The checks run before the suite, with the test extra that brings them installed first (review48a L1: after
    # it, a lint failure showed only after ~25 minutes, and not at all when a test failed).
    extra = ci.index(f"~/{VENV_BIN}/pip install '.[test]' || exit 1")
    checks = [ci.index(f"~/{VENV_BIN}/{check} || checks=1") for check in lint_checks()]
    assert ci.index(f"{setup} || exit 1") < extra < min(checks) and max(checks) < ci.index(f"{tests} || exit 1")
    assert ci[-1] == 'exit "$checks"', "a failed check fails the run once the suite has run"


def lint_checks() -> list[str]:
    """The lint, format and type checks README names beside ``.ci/run`` (``python -m ruff check .``, …), each
    without its comment."""
    section = (CHECKOUT / "README.md").read_text(encoding="utf-8").split("`.ci/run` runs these three checks", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, flags=re.S)
    assert block, "README.md: no sh block after `.ci/run`'s checks"
    checks = [line.partition("#")[0].strip() for line in block[1].splitlines() if line.strip()]
    assert len(checks) == 3, checks
    return checks


def _wired_hooks(home: Path) -> set[str]:
    """Every hook command in the home's ``~/.cursor/hooks.json``."""
    hooks = json.loads((home / ".cursor" / "hooks.json").read_text())["hooks"]
    return {entry["command"] for entries in hooks.values() for entry in entries}


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get(NESTED) == "1", reason="this is the README's test command already")
def test_the_readme_commands_work_as_written_on_a_fresh_machine(tmp_path: Path) -> None:
    setup, tests = readme_commands()
    checkout = clean_copy(tmp_path / "deja")
    (checkout / REMOVED_SINCE).parent.mkdir(parents=True)
    (checkout / REMOVED_SINCE).write_text("raise ImportError('removed from the checkout')\n")
    home = tmp_path / "fresh-home"
    home.mkdir()
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("DEJA_", "VIRTUAL_ENV", "PYTHON", "CURSOR_", "XDG_", "COLUMNS"))
    }
    env.update({"HOME": str(home), "PIP_REQUIRE_VIRTUALENV": "1", NESTED: "1"})

    def run(command: str, **more: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["sh", "-c", command], cwd=checkout, env={**env, **more}, capture_output=True, text=True, timeout=1800
        )

    first = run(setup)
    assert first.returncode == 0, first.stderr[-3000:]
    assert "\ndeja demo: a sample Cursor history of " in first.stdout, first.stdout[-2000:]
    deja = home / VENV_BIN / "deja"
    assert deja.is_file(), "deja ends up where the README says"
    site = next((home / VENV / "lib").glob("python3.*/site-packages"))
    assert differences(site / "deja", checkout) == [], "the checkout's modules are installed, and no others"

    on_path = {"PATH": os.pathsep.join([str(deja.parent), os.defpath])}
    assert run("deja install cursor-auto && deja index", **on_path).returncode == 0
    python = deja.read_text().splitlines()[0].removeprefix("#!")
    launcher = site / "deja" / "interfaces" / "hook.py"
    subcommands = {hook.subcommand for hook in cursor.HOOKS}
    assert _wired_hooks(home) == {
        f"{shlex.join([python, '-I', '-S', str(launcher), sub])} || true" for sub in subcommands
    }
    prompt = next(command for command in _wired_hooks(home) if command.endswith(" hook-prompt || true"))
    payload = {"hook_event_name": "beforeSubmitPrompt", "prompt": "stale prices", "conversation_id": "fresh-1"}
    hook = subprocess.run(["sh", "-c", prompt], input=json.dumps(payload), env=env, capture_output=True, text=True)
    assert (hook.returncode, hook.stderr) == (0, ""), "a hook starts from what deja install wrote"
    doctor = run("deja doctor", **on_path)
    assert doctor.returncode == 0 and "ok     Cursor: deja's hooks are in " in doctor.stdout, doctor.stdout

    # The test command as written, its pytest asked for the unit tests alone: it still installs the checkout with
    # the test tools and runs tests from that install, and the run around this one is the whole suite. The whole
    # suite again here doubled the suite's time, and on the project's CI machine the copy ran past 30 minutes (stop
    # 61's submission failed on it).
    second = run(tests, PYTEST_ADDOPTS=NESTED_SELECTION)
    assert second.returncode == 0, (second.stdout + second.stderr)[-3000:]
    assert re.search(r"\n\d+ passed, (.+, )?\d+ deselected", second.stdout), second.stdout[-500:]
