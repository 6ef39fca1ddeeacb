"""What ``deja doctor`` says of hooks that run deja's hook launcher (``<python> -I -S …/deja/interfaces/hook.py``).

The launcher's path names a Python version, so it is gone once deja runs on another Python (``pipx reinstall``);
and it is this deja's however doctor was started, as the console script or as ``python -m deja.interfaces.entry``.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from harness import console_script, path_with, run_deja

from deja.installers.entries import launcher_path


def _hooks_file(home: Path, command: str) -> Path:
    path = home / ".cursor" / "hooks.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"version": 1, "hooks": {"beforeSubmitPrompt": [{"command": command}]}}))
    return path


def _doctor(home: Path, tmp_path: Path) -> list[str]:
    """``python -m deja.interfaces.entry doctor`` with a ``deja`` on PATH, its output lines, wide enough not to wrap."""
    env = {"HOME": str(home), "PATH": path_with(console_script(tmp_path / "bin")), "COLUMNS": "400"}
    return run_deja("doctor", env=env).stdout.splitlines()


@pytest.mark.parametrize("tail", ["", " || true"], ids=["older", "fail-open"])
def test_a_launcher_gone_with_its_python_names_the_file_and_the_install_to_rerun(
    fake_home: Path, tmp_path: Path, tail: str
) -> None:
    gone = "/home/me/.local/share/pipx/venvs/deja/lib/python3.11/site-packages/deja/interfaces/hook.py"
    python = "/home/me/.local/share/pipx/venvs/deja/bin/python"
    _hooks_file(fake_home, shlex.join([python, "-I", "-S", gone, "hook-prompt"]) + tail)

    lines = [line for line in _doctor(fake_home, tmp_path) if gone in line]
    assert len(lines) == 1, lines
    assert "which is gone" in lines[0] and "another Python" in lines[0]
    assert "run `deja install cursor-auto` again" in lines[0]


def test_this_checkouts_launcher_is_this_deja_under_python_m(fake_home: Path, tmp_path: Path) -> None:
    _hooks_file(fake_home, shlex.join([sys.executable, "-I", "-S", launcher_path(), "hook-prompt"]))

    lines = _doctor(fake_home, tmp_path)
    assert [line for line in lines if "hooks.json" in line], lines
    assert not [line for line in lines if "not this deja" in line], lines
