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
    """The command that upgrades this deja the way it was installed: a checkout, pipx, uv, or pip in its
    environment (``--user`` when deja lives in the user site)."""
    return upgrade_advice(_checkout(), Path(sys.prefix), sys.executable, user=_in_user_site())


def _in_user_site() -> bool:
    """Whether this deja was installed with ``pip install --user``: its package sits in the user site (which comes
    first on ``sys.path``, so a copy pip put anywhere else would stay shadowed by it)."""
    import site

    user_site = Path(site.getusersitepackages()).resolve()
    return Path(__file__).resolve().is_relative_to(user_site)


def _uv_tool(prefix: Path) -> bool:
    """Whether ``prefix`` is a ``uv tool install``'s environment (``…/uv/tools/<name>``, or anywhere ``UV_TOOL_DIR``
    puts it, with uv's receipt in it): it holds no pip."""
    parts = prefix.parts
    in_tools = any(parts[i : i + 2] == ("uv", "tools") for i in range(len(parts) - 1))
    return in_tools or (prefix / "uv-receipt.toml").is_file()


def upgrade_advice(checkout: Checkout | None, prefix: Path, python: str, *, user: bool = False) -> str:
    """The command that upgrades deja as it was installed. pipx and uv tool installs ask their tool (no pip in
    uv's environments; pip into pipx's would go behind pipx's back), from the pulled checkout when they were made
    from one; a checkout otherwise is pulled and installed again as the README installs it (an editable one, a
    developer's, with ``-e`` and the test extra); any other install upgrades with its own interpreter's pip,
    ``--user`` if it was one."""
    pull = f"git -C {shlex.quote(str(checkout.folder))} pull && " if checkout is not None else ""
    editable = "-e " if checkout is not None and checkout.editable else ""
    folder = shlex.quote(str(checkout.folder)) if checkout is not None else ""
    if "pipx" in prefix.parts:
        return f"{pull}pipx install --force {editable}{folder}" if checkout else f"pipx upgrade {DISTRIBUTION}"
    if _uv_tool(prefix):
        return f"{pull}uv tool install --force {editable}{folder}" if checkout else f"uv tool upgrade {DISTRIBUTION}"
    pip = f"{shlex.quote(python)} -m pip install{' --user' if user else ''}"
    if checkout is not None:
        target = f"{checkout.folder}[test]" if checkout.editable else str(checkout.folder)
        return f"{pull}{pip} {editable}{shlex.quote(target)}"
    return f"{pip} --upgrade {DISTRIBUTION}"
