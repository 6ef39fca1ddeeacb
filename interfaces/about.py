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
from urllib.parse import unquote, urlsplit

DISTRIBUTION = "deja-cursor"


def version() -> str:
    """The installed version, or ``unknown`` when this code runs without being installed."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown"


def _editable_source() -> Path | None:
    """The checkout an editable install runs from, as pip recorded it in ``direct_url.json``.

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
    if not direct.get("dir_info", {}).get("editable"):
        return None
    url = urlsplit(str(direct.get("url", "")))
    return Path(unquote(url.path)) if url.scheme == "file" else None


def upgrade_command() -> str:
    """The command that upgrades this deja the way it was installed: a checkout, pipx, or pip in its environment."""
    return upgrade_advice(_editable_source(), Path(sys.prefix), sys.executable)


def upgrade_advice(checkout: Path | None, prefix: Path, python: str) -> str:
    """An editable install pulls its checkout; a pipx one asks pipx; any other upgrades with its own interpreter's pip."""
    if checkout is not None:
        return f"git -C {shlex.quote(str(checkout))} pull && {shlex.quote(python)} -m pip install -e {shlex.quote(str(checkout))}"
    if "pipx" in prefix.parts:
        return f"pipx upgrade {DISTRIBUTION}"
    return f"{shlex.quote(python)} -m pip install --upgrade {DISTRIBUTION}"
