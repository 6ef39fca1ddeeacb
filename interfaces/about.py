"""Which deja this is: its version, and how it was installed, so advice to upgrade fits.

The distribution is ``deja-cursor`` (``deja`` on the package index is an unrelated
project, so ``pip install --upgrade deja`` would install someone else's code); the
command stays ``deja``.
"""

from __future__ import annotations

import json
import shlex
import sys
from importlib import metadata
from pathlib import Path
from typing import NamedTuple
from urllib.parse import unquote, urlsplit

DISTRIBUTION = "deja-cursor"


def version() -> str:
    """The installed version, or ``unknown`` when this code runs without being installed."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown"


class Checkout(NamedTuple):
    """The folder pip installed deja from, and whether it runs from there (editable) or from a copy."""

    folder: Path
    editable: bool


def _checkout() -> Checkout | None:
    """The folder deja was installed from, as pip recorded it in ``direct_url.json``; None for a package index's.

    Every copy of the metadata is asked: run from the checkout itself, the build's
    ``deja_cursor.egg-info`` there comes first and holds no such record.
    """
    recorded = next(
        filter(None, (d.read_text("direct_url.json") for d in metadata.distributions(name=DISTRIBUTION))), ""
    )
    try:
        direct = json.loads(recorded or "{}")
    except ValueError:
        return None
    if not isinstance(direct.get("dir_info"), dict):  # a wheel or an archive: nothing to pull
        return None
    url = urlsplit(str(direct.get("url", "")))
    editable = bool(direct["dir_info"].get("editable"))
    return Checkout(Path(unquote(url.path)), editable) if url.scheme == "file" else None


def upgrade_command() -> str:
    """The command that upgrades this deja the way it was installed: a checkout, pipx, or pip in its environment."""
    return upgrade_advice(_checkout(), Path(sys.prefix), sys.executable)


def upgrade_advice(checkout: Checkout | None, prefix: Path, python: str) -> str:
    """A checkout is pulled and installed again as the README installs it (``-e`` if it was, with the test extra);
    a pipx install asks pipx; any other upgrades with its own interpreter's pip."""
    if checkout is not None:
        again = "install -e" if checkout.editable else "install"
        source = shlex.quote(f"{checkout.folder}[test]")
        return f"git -C {shlex.quote(str(checkout.folder))} pull && {shlex.quote(python)} -m pip {again} {source}"
    if "pipx" in prefix.parts:
        return f"pipx upgrade {DISTRIBUTION}"
    return f"{shlex.quote(python)} -m pip install --upgrade {DISTRIBUTION}"
