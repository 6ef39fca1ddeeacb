"""setuptools' build backend, with every wheel built from an empty ``build/lib`` and deja's own ``deja`` script.

``pip install .`` builds in the checkout: setuptools copies the modules into ``build/lib`` and packs all that
folder holds, so a module deleted or renamed since an earlier build there ships again (pypa/setuptools#1871).
A pulled checkout, reinstalled as the README says, would then install code it no longer has, and the tests,
which run the installed copy, would pass on a module a fresh clone lacks. Emptying the folder first makes a
wheel hold exactly the checkout's modules.

The ``deja`` command pip makes from ``[project.scripts]`` imports ``re`` and rewrites ``sys.argv[0]`` with a
pattern before deja runs (about 1.5 ms of every ``deja search``, whose whole budget is three ``python -c pass``).
Each wheel (regular or editable) therefore carries ``deja`` as a script of its own instead (``SCRIPT``, in the
wheel's ``.data/scripts``, whose ``#!python`` line pip points at the environment's Python, as it does for the
script it would have made), and its entry point is taken out so pip makes no second one. Not on Windows, where
pip's ``deja.exe`` is the only way to run the command, nor for a Python whose path cannot be a ``#!`` line (a space
in it, which ends the interpreter's name there, or longer than a kernel reads: trial17 F2): pip writes that path
bare into ``#!python``, so that ``deja`` could never start, while the launcher it makes from the entry point
starts Python through ``/bin/sh`` then, and works wherever the environment is. Everything else is setuptools' own.
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import stat
import sys
import zipfile
from pathlib import Path
from typing import Any

from setuptools import build_meta
from setuptools.build_meta import (
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

__all__ = [
    "build_editable",
    "build_sdist",
    "build_wheel",
    "get_requires_for_build_editable",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
    "prepare_metadata_for_build_editable",
    "prepare_metadata_for_build_wheel",
]

#: Where setuptools stages the modules it packs (a build hook runs in the checkout's root).
STAGED = Path("build") / "lib"
#: The entry point ``[project.scripts]`` declares, and the script that takes its place in a wheel.
ENTRY_POINT = "deja = deja.interfaces.entry:main"
SCRIPT = b"""#!python
# deja's command: its entry, without the re import of pip's generated launcher (build_backend.py says why).
import sys

from deja.interfaces.entry import main

if __name__ == "__main__":
    sys.exit(main())
"""


def build_wheel(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    """setuptools' wheel, from modules staged afresh."""
    shutil.rmtree(STAGED, ignore_errors=True)
    name = str(build_meta.build_wheel(wheel_directory, config_settings, metadata_directory))
    own_script(Path(wheel_directory) / name)
    return name


def build_editable(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    """setuptools' editable wheel, with deja's own script."""
    name = str(build_meta.build_editable(wheel_directory, config_settings, metadata_directory))
    own_script(Path(wheel_directory) / name)
    return name


def own_script(wheel: Path, python: str = sys.executable) -> None:
    """``wheel`` rewritten with ``SCRIPT`` as its ``deja`` command and without the entry point, when ``python`` (the
    interpreter pip installs with, which runs this backend) fits on a ``#!`` line; not on Windows.

    The choice is made where the wheel is built, which is where it is installed as long as deja is installed from
    its source, as the README does; a wheel built here and copied to Windows would have no ``deja.exe``.
    """
    if os.name == "nt" or not fits_a_shebang(python):
        return
    with zipfile.ZipFile(wheel) as packed:
        files = {info.filename: packed.read(info) for info in packed.infolist()}
    dist_info = next(name.split("/")[0] for name in files if name.endswith(".dist-info/RECORD"))
    points = f"{dist_info}/entry_points.txt"
    lines = [line for line in files.get(points, b"").decode().splitlines() if line.strip() != ENTRY_POINT]
    if any(line.strip() and not line.startswith("[") for line in lines):
        files[points] = "\n".join(lines).encode() + b"\n"
    else:
        files.pop(points, None)
    files[f"{dist_info.removesuffix('.dist-info')}.data/scripts/deja"] = SCRIPT
    record = f"{dist_info}/RECORD"
    files[record] = b"".join(_record_line(name, data) for name, data in files.items() if name != record)
    files[record] += f"{record},,\n".encode()
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as out:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (stat.S_IFREG | (0o755 if name.endswith("/scripts/deja") else 0o644)) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            out.writestr(info, data)


def fits_a_shebang(python: str) -> bool:
    """Whether ``#!<python>`` starts ``python``: no blank in the path (the kernel ends the interpreter's name at one)
    and no longer than pip allows before it starts Python through ``/bin/sh`` instead (its ``distlib``: 127 bytes
    with ``#!`` and the newline, 512 on macOS)."""
    limit = 512 if sys.platform == "darwin" else 127
    return not any(character.isspace() for character in python) and len(os.fsencode(python)) + 3 <= limit


def _record_line(name: str, data: bytes) -> bytes:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}\n".encode()
