"""Which deja the tests run: the installed one, which must hold this checkout's code.

The README installs deja as a user gets it (a regular ``pip install``), so ``import deja`` in a test loads the
copy in the environment's site-packages, not the checkout's folders. Edit the checkout and forget to reinstall,
and every test would pass or fail on the old code; ``tests/conftest.py`` stops the run first, with one line
saying what to run. An editable install loads the checkout itself, so there is nothing to compare.
"""

from __future__ import annotations

import importlib.util
import shlex
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
#: The checkout's folders that install as ``deja.<folder>`` (pyproject.toml, ``[tool.setuptools]``).
LAYERS = ("core", "hooks", "installers", "interfaces")
#: How many differing files the message names before it counts the rest.
NAMED = 3


def installed_package() -> Path:
    """The folder ``import deja`` loads deja's modules from: ``…/site-packages/deja``, or an editable install's
    checkout."""
    spec = importlib.util.find_spec("deja.core")
    if spec is None or spec.origin is None:
        raise ImportError("deja is not installed in this environment")
    return Path(spec.origin).resolve().parents[1]


def _files(root: Path) -> set[Path]:
    """Every file in ``root``'s layer folders, relative to ``root``; no bytecode."""
    return {
        path.relative_to(root)
        for layer in LAYERS
        for path in (root / layer).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


def differences(package: Path, checkout: Path = CHECKOUT) -> list[str]:
    """The files, relative to both, in which the installed ``package`` is not ``checkout``: changed since the
    install, a module installed that the checkout no longer has, or a checkout module not installed yet."""
    if package == checkout.resolve():
        return []
    installed = _files(package)
    beside = _files(checkout)
    ours = {path for path in beside if path.suffix == ".py"} | (installed & beside)  # (not an editor's stray file)
    changed = {path for path in installed & ours if (package / path).read_bytes() != (checkout / path).read_bytes()}
    return sorted(str(path) for path in changed | (installed ^ ours))


def stale_install(package: Path, checkout: Path = CHECKOUT) -> str | None:
    """One line saying the tests would run another deja than this checkout's and what to run, or None."""
    differing = differences(package, checkout)
    if not differing:
        return None
    named = ", ".join(differing[:NAMED]) + (f" and {len(differing) - NAMED} more" if len(differing) > NAMED else "")
    reinstall = f"cd {shlex.quote(str(checkout))} && {shlex.quote(sys.executable)} -m pip install '.[test]'"
    return (
        f"the tests would run the deja installed in {package}, which is not this checkout's code ({named}): "
        f"reinstall it with `{reinstall}`, or install it with -e to work on deja (README, Development)"
    )
