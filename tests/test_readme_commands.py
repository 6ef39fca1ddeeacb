"""The README's two commands, as written, on a fresh machine: a copy of the checkout, an empty HOME, and a pip
that refuses to install outside a virtual environment (as stock Debian, Ubuntu and Homebrew Pythons do)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Set in the copy's own test run, which would otherwise run these commands again, without end.
NESTED = "DEJA_README_COMMANDS"
VENV_BIN = ".local/share/deja/venv/bin"


def readme_commands() -> list[str]:
    """The shell block under "## Two commands", one command a line."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## Two commands\n", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, flags=re.S)
    assert block, "README.md: no sh block under ## Two commands"
    return [line for line in block[1].splitlines() if line.strip()]


@pytest.mark.unit
def test_the_commands_install_nothing_into_the_system_python() -> None:
    setup, tests = readme_commands()
    assert setup.startswith("python3 -m venv ~/.local/share/deja/venv && ")
    assert all(f"~/{VENV_BIN}/" in step for step in setup.split(" && ")[1:]), setup
    assert tests == f"~/{VENV_BIN}/python -m pytest"
    assert (ROOT / ".ci" / "run").read_text().rstrip().endswith("\n" + tests), ".ci/run runs the README's test command"


def _clean_copy(destination: Path) -> Path:
    """The checkout's files as a clone would have them (git's view when there is one), nothing built or installed."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
    )
    if listed.returncode != 0:
        ignore = shutil.ignore_patterns(".git", ".venv", "*.egg-info", "__pycache__", ".pytest_cache", "build")
        return Path(shutil.copytree(ROOT, destination, symlinks=True, ignore=ignore))
    for name in filter(None, listed.stdout.decode().split("\0")):
        source, target = ROOT / name, destination / name
        if not source.exists() and not source.is_symlink():
            continue  # deleted in the work tree, not yet committed
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, target)
    return destination


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get(NESTED) == "1", reason="this is the README's test command already")
def test_the_readme_commands_work_as_written_on_a_fresh_machine(tmp_path: Path) -> None:
    setup, tests = readme_commands()
    checkout = _clean_copy(tmp_path / "deja")
    home = tmp_path / "fresh-home"
    home.mkdir()
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("DEJA_", "VIRTUAL_ENV", "PYTHON", "CURSOR_", "XDG_", "COLUMNS"))
    }
    env.update({"HOME": str(home), "PIP_REQUIRE_VIRTUALENV": "1", NESTED: "1"})

    def run(command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["sh", "-c", command], cwd=checkout, env=env, capture_output=True, text=True, timeout=1800
        )

    first = run(setup)
    assert first.returncode == 0, first.stderr[-3000:]
    assert "\ndeja demo: a sample Cursor history of " in first.stdout, first.stdout[-2000:]
    assert (home / VENV_BIN / "deja").is_file(), "deja ends up where the README says"

    second = run(tests)
    assert second.returncode == 0, (second.stdout + second.stderr)[-3000:]
    assert re.search(r"\d+ passed", second.stdout), second.stdout[-500:]
