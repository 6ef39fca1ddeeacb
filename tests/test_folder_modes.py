"""Folders deja makes for its own files outside its home are 0700 whatever the umask; one that was there is left as
it was. (Under umask 000 ``~/.config/deja``, ``~/.agents`` and ``~/.agents/skills`` came out 0777.)"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness import console_script, path_with, run_deja


@pytest.fixture
def open_umask() -> Iterator[None]:
    """umask 000 for this test and the deja processes it starts."""
    before = os.umask(0)
    try:
        yield
    finally:
        os.umask(before)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_config_and_install_make_private_folders_under_umask_000(
    fake_home: Path, tmp_path: Path, open_umask: None
) -> None:
    script = console_script(tmp_path / "bin")
    env = {**os.environ, "PATH": path_with(script)}
    assert run_deja("config", "set", "trace", "true", env=env, script=script).returncode == 0
    installed = run_deja("install", "cursor-auto", env=env, script=script)
    assert installed.returncode == 0, installed.stderr
    made = [".config", ".config/deja", ".agents", ".agents/skills", ".agents/skills/deja-history", ".cursor"]
    assert {name: oct(mode(fake_home / name)) for name in made} == {name: "0o700" for name in made}
    assert mode(fake_home / ".config" / "deja" / "config.toml") == 0o600


def test_a_folder_that_was_there_keeps_its_mode(fake_home: Path, tmp_path: Path, open_umask: None) -> None:
    (fake_home / ".agents").mkdir(mode=0o755)
    os.chmod(fake_home / ".agents", 0o755)
    script = console_script(tmp_path / "bin")
    env = {**os.environ, "PATH": path_with(script)}
    assert run_deja("install", "cursor-auto", env=env, script=script).returncode == 0
    assert mode(fake_home / ".agents") == 0o755
    assert mode(fake_home / ".agents" / "skills") == 0o700
