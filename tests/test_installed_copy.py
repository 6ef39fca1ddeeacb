"""The tests run the deja that is installed, and refuse to start when it is not this checkout's code.

The README installs deja as a copy (not editable); a developer who edits the checkout and forgets to install it
again would otherwise test the old code and read a green run as a verdict on the new one.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from harness import CHECKOUT, clean_copy
from installed_copy import LAYERS, differences, installed_package, stale_install


def _package_like(folder: Path) -> Path:
    """``folder`` holding a copy of the checkout's layer folders, as pip installs them (with bytecode beside)."""
    for layer in LAYERS:
        shutil.copytree(CHECKOUT / layer, folder / layer, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "core" / "__pycache__").mkdir()
    (folder / "core" / "__pycache__" / "search.cpython-311.pyc").write_bytes(b"not the checkout's")
    return folder


@pytest.mark.unit
def test_a_copy_of_the_checkout_is_the_checkout(tmp_path: Path) -> None:
    package = _package_like(tmp_path / "deja")
    assert differences(package) == []
    assert stale_install(package) is None
    assert differences(CHECKOUT) == [], "an editable install loads the checkout itself"


@pytest.mark.unit
def test_an_editors_file_in_the_checkout_is_not_code(tmp_path: Path) -> None:
    checkout = _package_like(tmp_path / "checkout")
    (checkout / "core" / ".search.py.swp").write_bytes(b"\0")
    (checkout / "hooks" / "NOTES").write_text("to do\n")
    assert differences(_package_like(tmp_path / "deja"), checkout) == []


@pytest.mark.unit
def test_every_kind_of_difference_is_named(tmp_path: Path) -> None:
    package = _package_like(tmp_path / "deja")
    (package / "core" / "search.py").write_text("# an older search\n")  # edited in the checkout since the install
    (package / "hooks" / "gone.py").write_text("")  # installed, since deleted from the checkout
    (package / "interfaces" / "verbs.py").unlink()  # in the checkout, not installed yet
    assert differences(package) == ["core/search.py", "hooks/gone.py", "interfaces/verbs.py"]
    message = stale_install(package)
    assert message == (
        f"the tests would run the deja installed in {package}, which is not this checkout's code "
        "(core/search.py, hooks/gone.py, interfaces/verbs.py): reinstall it with "
        f"`cd {CHECKOUT} && {sys.executable} -m pip install '.[test]'`, or install it with -e to work on deja "
        "(README, Development)"
    )
    (package / "installers" / "cursor.py").write_text("")
    assert "(core/search.py, hooks/gone.py, installers/cursor.py and 1 more)" in (stale_install(package) or "")


def _pytest_in(checkout: Path) -> subprocess.CompletedProcess[str]:
    """This environment's pytest, run in ``checkout`` on a few fast tests."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "unit", "tests/test_keys.py"]
    return subprocess.run(command, cwd=checkout, capture_output=True, text=True, timeout=300)


def test_the_test_command_stops_with_one_line_when_the_installed_deja_is_not_the_checkouts(tmp_path: Path) -> None:
    checkout = clean_copy(tmp_path / "deja")
    same = _pytest_in(checkout)
    assert same.returncode == 0 and "[100%]" in same.stdout, same.stdout[-2000:] + same.stderr[-2000:]

    with (checkout / "core" / "work.py").open("a") as edited:
        edited.write("# edited after the install\n")
    stale = _pytest_in(checkout)
    assert stale.returncode == pytest.ExitCode.USAGE_ERROR
    assert stale.stderr.strip() == f"ERROR: {stale_install(installed_package(), checkout)}"
    assert "(core/work.py): reinstall it with `cd " in stale.stderr
    assert "passed" not in stale.stdout
