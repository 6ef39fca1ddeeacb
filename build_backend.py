"""setuptools' build backend, with every wheel built from an empty ``build/lib``.

``pip install .`` builds in the checkout: setuptools copies the modules into ``build/lib`` and packs all that
folder holds, so a module deleted or renamed since an earlier build there ships again (pypa/setuptools#1871).
A pulled checkout, reinstalled as the README says, would then install code it no longer has, and the tests,
which run the installed copy, would pass on a module a fresh clone lacks. Emptying the folder first makes a
wheel hold exactly the checkout's modules. Everything else is setuptools' own.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from setuptools import build_meta
from setuptools.build_meta import (
    build_editable,
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


def build_wheel(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    """setuptools' wheel, from modules staged afresh."""
    shutil.rmtree(STAGED, ignore_errors=True)
    return str(build_meta.build_wheel(wheel_directory, config_settings, metadata_directory))
