"""``core/oscalls.py`` answers as ``os`` and ``os.path`` do: a hook calls it instead of them so that it never imports
``os`` (``tests/test_hook_imports.py`` checks that it does not)."""

from __future__ import annotations

import os
import posixpath
import stat
from itertools import product
from pathlib import Path

import pytest

from deja.core import oscalls

STRING_FUNCTIONS = ("join", "split", "dirname", "basename", "isabs", "normpath")
DISK_FUNCTIONS = ("exists", "lexists", "isdir", "isfile", "islink", "abspath", "realpath", "expanduser")
PARTS = ("", "/", "//", "///", "a", "a/", "/a", "a//b/", ".", "..", "../x", "a/../..", "/..", "./a/./b/", "x\x00y",
         "~", "~/", "~/x", "~root", "~root/x", "~x/", "link", "link/..", "link/c", "loop", "real/b", "gone/../real")  # fmt: skip


def _answer(function: object, *args: str) -> object:
    try:
        return function(*args)  # type: ignore[operator]
    except Exception as exc:  # (the same error type, where os.path raises one)
        return type(exc)


@pytest.fixture
def disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with a real folder, a link to it, a link loop and a file, the current folder."""
    (tmp_path / "real" / "b").mkdir(parents=True)
    (tmp_path / "real" / "file").write_text("x", encoding="utf-8")
    (tmp_path / "link").symlink_to("real")
    (tmp_path / "loop").symlink_to("loop")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("name", STRING_FUNCTIONS)
def test_each_path_function_answers_as_posixpaths_own(name: str) -> None:
    ours, theirs = getattr(oscalls, name), getattr(posixpath, name)
    for path in PARTS:
        assert _answer(ours, path) == _answer(theirs, path), (name, path)
    if name == "join":
        for first, second in product(PARTS, repeat=2):
            assert ours(first, second) == theirs(first, second), (first, second)
            assert ours(first, second, first) == theirs(first, second, first), (first, second)


@pytest.mark.parametrize("name", DISK_FUNCTIONS)
def test_each_function_that_asks_the_disk_answers_as_posixpaths_own(
    name: str, disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Links included: ``realpath`` follows them as ``posixpath`` does (a link on the way is left to it)."""
    ours, theirs = getattr(oscalls, name), getattr(posixpath, name)
    for home in (str(disk / "real"), str(disk / "link") + "/", "/"):
        monkeypatch.setenv("HOME", home)
        for path in (*PARTS, *(str(disk / part) for part in PARTS if part)):
            assert _answer(ours, path) == _answer(theirs, path), (name, path, home)
    monkeypatch.delenv("HOME")
    assert ours("~") == theirs("~")  # (no HOME: the account's home folder, as posixpath finds it)


def test_an_environment_variable_is_read_as_os_environ_holds_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Set, changed and unset through ``os.environ`` (as a test, or the demo, does) after the module loaded."""
    monkeypatch.setenv("DEJA_OSCALLS_TEST", "caf\u00e9 \udcff")
    assert oscalls.getenv("DEJA_OSCALLS_TEST") == os.environ["DEJA_OSCALLS_TEST"]
    assert oscalls.is_set("DEJA_OSCALLS_TEST") and oscalls.environment() == dict(os.environ)
    monkeypatch.setenv("DEJA_OSCALLS_TEST", "")
    assert oscalls.getenv("DEJA_OSCALLS_TEST", "unset") == "" and oscalls.is_set("DEJA_OSCALLS_TEST")
    monkeypatch.delenv("DEJA_OSCALLS_TEST")
    assert oscalls.getenv("DEJA_OSCALLS_TEST", "unset") == "unset" and not oscalls.is_set("DEJA_OSCALLS_TEST")


def test_a_descriptor_opens_as_os_fdopen_opens_it(tmp_path: Path) -> None:
    path = tmp_path / "text"
    path.write_bytes("caf\u00e9\n".encode())
    for mode, kwargs in (("r", {"encoding": "utf-8"}), ("r", {}), ("rb", {})):
        with (
            oscalls.fdopen(os.open(path, os.O_RDONLY), mode, **kwargs) as ours,
            os.fdopen(os.open(path, os.O_RDONLY), mode, **kwargs) as theirs,
        ):
            assert (ours.read(), ours.encoding if "b" not in mode else "") == (
                theirs.read(),
                theirs.encoding if "b" not in mode else "",
            )


def test_a_files_type_and_mode_are_read_as_stat_reads_them(disk: Path) -> None:
    """From each kind of file there is here: a folder, a file, a link, a FIFO, a character device."""
    os.mkfifo(disk / "fifo")
    modes = {os.lstat(path).st_mode for path in (disk / "real", disk / "real" / "file", disk / "link", disk / "fifo")}
    for mode in (*modes, os.stat("/dev/null").st_mode, 0o4755 | stat.S_IFREG, 0o1777 | stat.S_IFDIR):
        for name in ("S_IMODE", "S_ISDIR", "S_ISREG", "S_ISLNK"):
            assert getattr(oscalls, name)(mode) == getattr(stat, name)(mode), (name, oct(mode))
    assert (oscalls.S_IWUSR, oscalls.S_IXUSR) == (stat.S_IWUSR, stat.S_IXUSR)


def test_each_name_asked_of_oscalls_with_a_default_is_there_where_os_has_it() -> None:
    """``getattr(oscalls, NAME, default)`` and ``hasattr(oscalls, NAME)`` hide a name oscalls never took from
    ``posix``: the caller then runs without the flag or call it had from ``os``, and nothing fails."""
    import re

    from deja.hooks import call

    root = Path(oscalls.__file__).parents[1]
    asked = {
        name
        for source in root.rglob("*.py")
        for name in re.findall(r"(?:getattr|hasattr)\(oscalls, \"(\w+)\"", source.read_text(encoding="utf-8"))
    }
    assert "O_NOFOLLOW" in asked
    assert [name for name in sorted(asked) if hasattr(os, name) and not hasattr(oscalls, name)] == []
    assert call.CLAIM_FLAGS & os.O_NOFOLLOW


def test_a_posix_without_the_flags_its_callers_take_as_optional_still_loads_oscalls() -> None:
    """``os`` documents ``O_DIRECTORY`` (and the like) as there only where the C library defines it; deja's callers
    (``core/private.py``, ``core/regular_files.py``) take each as optional, so oscalls must load without it."""
    import subprocess
    import sys

    script = (
        "import posix\n"
        "for name in ('O_DIRECTORY', 'O_NOCTTY', 'O_NONBLOCK'):\n"
        "    delattr(posix, name)\n"
        "import deja.core.oscalls\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
