"""The wheel build_backend.py makes carries ``deja`` as deja's own script (no pip launcher, which imports ``re``)
and no entry point pip would make a second ``deja`` of, with a RECORD pip accepts."""

from __future__ import annotations

import base64
import hashlib
import os
import shlex
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from harness import CHECKOUT, clean_copy

sys.path.insert(0, str(CHECKOUT))
import build_backend  # noqa: E402

DIST = "deja_cursor-0.1.0.dist-info"


def _wheel(path: Path, entry_points: str) -> Path:
    with zipfile.ZipFile(path, "w") as out:
        out.writestr("deja/__init__.py", "")
        out.writestr(f"{DIST}/METADATA", "Name: deja-cursor\n")
        out.writestr(f"{DIST}/entry_points.txt", entry_points)
        out.writestr(f"{DIST}/RECORD", "")
    return path


def _record(packed: zipfile.ZipFile) -> dict[str, str]:
    lines = packed.read(f"{DIST}/RECORD").decode().splitlines()
    return {line.split(",")[0]: line.split(",", 1)[1] for line in lines}


@pytest.mark.unit
@pytest.mark.skipif(os.name == "nt", reason="Windows keeps pip's deja.exe")
def test_the_wheel_has_deja_as_a_script_and_no_entry_point(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path / "deja_cursor-0.1.0-py3-none-any.whl", f"[console_scripts]\n{build_backend.ENTRY_POINT}\n")
    build_backend.own_script(wheel)
    with zipfile.ZipFile(wheel) as packed:
        names = packed.namelist()
        script = packed.getinfo("deja_cursor-0.1.0.data/scripts/deja")
        assert f"{DIST}/entry_points.txt" not in names
        text = packed.read(script)
        assert text.startswith(b"#!python\n") and b"from deja.interfaces.entry import main" in text
        assert b"import re" not in text
        mode = script.external_attr >> 16
        assert stat.S_ISREG(mode) and mode & 0o111
        record = _record(packed)
        assert set(record) == set(names)
        for name in names:
            if name != f"{DIST}/RECORD":
                digest = base64.urlsafe_b64encode(hashlib.sha256(packed.read(name)).digest()).rstrip(b"=").decode()
                assert record[name] == f"sha256={digest},{len(packed.read(name))}"


@pytest.mark.unit
@pytest.mark.skipif(os.name == "nt", reason="Windows keeps pip's deja.exe")
def test_other_entry_points_stay(tmp_path: Path) -> None:
    other = "[console_scripts]\ndeja = deja.interfaces.entry:main\n\n[other.group]\nthing = deja.core:x\n"
    wheel = _wheel(tmp_path / "deja_cursor-0.1.0-py3-none-any.whl", other)
    build_backend.own_script(wheel)
    with zipfile.ZipFile(wheel) as packed:
        assert "thing = deja.core:x" in packed.read(f"{DIST}/entry_points.txt").decode()
        assert "deja = " not in packed.read(f"{DIST}/entry_points.txt").decode()


@pytest.mark.unit
@pytest.mark.skipif(os.name == "nt", reason="Windows keeps pip's deja.exe")
@pytest.mark.parametrize("python", ["/Volumes/Macintosh HD 2/deja/venv/bin/python3", "/" + "x" * 130 + "/bin/python3"])
def test_a_python_no_shebang_can_start_keeps_pips_launcher(tmp_path: Path, python: str) -> None:
    """pip would write that path bare into ``#!python`` (trial17 F2); its own launcher goes through /bin/sh."""
    entry_points = f"[console_scripts]\n{build_backend.ENTRY_POINT}\n"
    wheel = _wheel(tmp_path / "deja_cursor-0.1.0-py3-none-any.whl", entry_points)
    before = wheel.read_bytes()
    build_backend.own_script(wheel, python)
    assert wheel.read_bytes() == before


@pytest.mark.slow
@pytest.mark.skipif(os.name == "nt", reason="Windows keeps pip's deja.exe")
@pytest.mark.parametrize("folder", ["home dir é", "long-" + "x" * 220])
def test_deja_runs_from_a_venv_whose_path_has_a_space_or_is_long(tmp_path: Path, folder: str) -> None:
    """The README's install into a venv under a folder with a space (or a path too long for a ``#!`` line): the
    ``deja`` it installs starts, as the user runs it (trial17 F2: "bad interpreter", exit 126)."""
    checkout = clean_copy(tmp_path / "deja")
    venv = tmp_path / folder / ".local" / "share" / "deja" / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {name: value for name, value in os.environ.items() if not name.startswith(("PYTHON", "VIRTUAL_ENV"))}
    pip = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", "--no-deps", str(checkout)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert pip.returncode == 0, pip.stderr[-2000:]
    # deja's dependencies from this environment (the installed deja is the new venv's: an editable install's finder
    # is a .pth, which PYTHONPATH does not read).
    env["PYTHONPATH"] = next(path for path in sys.path if path.endswith("site-packages"))
    deja = venv / "bin" / "deja"
    run = subprocess.run(["sh", "-c", f"{shlex.quote(str(deja))} --version"], env=env, capture_output=True, text=True)
    assert (run.returncode, run.stderr) == (0, ""), run.stderr
    assert run.stdout.startswith("deja ")
