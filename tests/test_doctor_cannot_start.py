"""``deja doctor`` flags a ``deja`` that Cursor's MCP server entry (or a hook) names but that cannot start: its ``#!``
line names no program (what pip wrote for a venv under a folder with a space: trial17 F2), is longer than the system
reads, or the file is not executable. Before, doctor said "ok" and "deja can see and serve your history"."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from harness import run_deja

pytestmark = pytest.mark.skipif(os.name == "nt", reason="no #! lines on Windows")


def _script(folder: Path, first_line: str) -> Path:
    """A ``deja`` in ``folder`` as pip writes one from ``#!python``, beside a ``python3`` that is this Python."""
    folder.mkdir(parents=True)
    (folder / "python3").symlink_to(sys.executable)
    script = folder / "deja"
    script.write_text(f"{first_line}\nfrom deja.interfaces.entry import main\n\nmain()\n")
    script.chmod(0o755)
    return script


def _env(home: Path, script: Path) -> dict[str, str]:
    return {"HOME": str(home), "PATH": os.pathsep.join([str(script.parent), os.defpath]), "COLUMNS": "1000"}


def _install(home: Path, script: Path) -> None:
    """``deja install cursor-auto`` with ``script`` the ``deja`` on PATH (started as ``python -m``, the workaround a
    user finds)."""
    assert run_deja("install", "cursor-auto", env=_env(home, script)).returncode == 0


def _install_then_doctor(home: Path, script: Path, before_doctor: int | None = None) -> list[str]:
    """Install, the mode of ``script`` set to ``before_doctor``, then doctor's lines (with their fix) that name it."""
    _install(home, script)
    if before_doctor is not None:
        script.chmod(before_doctor)
    doctor = run_deja("doctor", env=_env(home, script))
    assert doctor.returncode == 1, doctor.stdout
    lines = doctor.stdout.splitlines()
    return [
        f"{line} | {lines[i + 1].strip()}" for i, line in enumerate(lines) if str(script) in line and "fix:" not in line
    ]


def test_a_space_in_the_interpreters_path_is_an_error_with_the_reinstall(fake_home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "home dir é" / "venv" / "bin"
    script = _script(folder, f"#!{folder / 'python3'}")

    found = _install_then_doctor(fake_home, script)
    assert [line.split(": deja's")[0].strip() for line in found] == [
        f"ERROR  {fake_home / '.cursor' / 'mcp.json'}",
        f"ERROR  {fake_home / '.cursor' / 'hooks.json'}",
    ]
    for line in found:
        assert f"which cannot start: its #! line asks for '{tmp_path / 'home'}', which is no program" in line
        assert "fix: install deja again with pip (README: Two commands), then deja install cursor-auto" in line


def test_a_shebang_longer_than_the_system_reads_is_an_error(fake_home: Path, tmp_path: Path) -> None:
    folder = tmp_path / ("x" * 200) / "venv" / "bin"
    script = _script(folder, f"#!{folder / 'python3'}")

    found = _install_then_doctor(fake_home, script)
    assert len(found) == 2 and all("which cannot start: its #! line is longer than the" in line for line in found)


def test_a_deja_that_is_not_executable_says_chmod(fake_home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "venv" / "bin"
    script = _script(folder, f"#!{folder / 'python3'}")

    found = _install_then_doctor(fake_home, script, before_doctor=0o644)
    assert len(found) == 2 and all(
        "which cannot start: it is not executable | fix: chmod +x " in line for line in found
    )


@pytest.mark.hostile
def test_a_server_command_that_is_a_fifo_is_not_read(fake_home: Path, tmp_path: Path) -> None:
    """Reading its ``#!`` line would wait for a writer forever: doctor answers, and says it is not this deja."""
    fifo = tmp_path / "pipe" / "deja"
    fifo.parent.mkdir()
    os.mkfifo(fifo, 0o755)
    fifo.chmod(0o755)
    mcp = fake_home / ".cursor" / "mcp.json"
    mcp.parent.mkdir()
    mcp.write_text(json.dumps({"mcpServers": {"deja": {"command": str(fifo), "args": ["mcp"]}}}))

    doctor = run_deja("doctor", env={"HOME": str(fake_home), "PATH": os.defpath, "COLUMNS": "1000"}, timeout=20)

    assert [line for line in doctor.stdout.splitlines() if f"runs {fifo}" in line]
