"""The folders of remote windows: Remote-SSH, a dev container, WSL, a tunnel, a codespace.

Cursor names such a window's folder ``vscode-remote://ssh-remote+devbox/home/me/infra``. Its path is a folder on that
other machine (or container, or distro), which a folder of this one may share (the same user name and layout on a
laptop and a dev box, a container's ``/workspaces/app``): taken for a local path, a dev box's chat was this folder's
"last session here" (trial57 F2). So a remote folder is carried through the project signals spelt
``vscode-remote://WHERE/path`` (``WHERE`` the place it names, decoded once here), and a chat placed in it gets a
project named after the folder and that place (``infra (devbox)``) and no folder on this machine
(``projects.Found.apply``).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, unquote, urlsplit

SCHEME = "vscode-remote"
PREFIX = f"{SCHEME}://"

#: How a kind of remote names its place: a WSL distro, a tunnel or a codespace by its kind and name; a container by
#: its kind (a dev container's name is a JSON of its local folder and configuration, not a place).
_KINDS = {"wsl": "WSL", "tunnel": "tunnel", "codespaces": "codespace"}
_CONTAINERS = frozenset({"dev-container", "attached-container", "k8s-container"})
_HEX = re.compile(r"(?:[0-9A-Fa-f]{2})+")


def remote_folder(uri: Any) -> str:
    """The remote folder ``uri`` (a URI string or a VS Code URI object) names, spelt ``vscode-remote://WHERE/path``
    with ``WHERE`` the place (``where``) percent-quoted; "" for anything else."""
    if isinstance(uri, dict):
        if uri.get("scheme") == SCHEME and isinstance(authority := uri.get("authority"), str):
            path = uri.get("path")
            return _spelt(authority, path if isinstance(path, str) else "")
        uri = uri.get("external")
    if not isinstance(uri, str) or uri[: len(PREFIX)].lower() != PREFIX:
        return ""
    parts = urlsplit(uri)
    return _spelt(unquote(parts.netloc), unquote(parts.path))


def remote_place(folder: str) -> tuple[str, str] | None:
    """``(where, path)`` of a folder ``remote_folder`` spelt; None for a folder of this machine."""
    if not folder.startswith(PREFIX):
        return None
    where, _, path = folder[len(PREFIX) :].partition("/")
    return unquote(where), "/" + path


def where(authority: str) -> str:
    """The place a remote URI's authority names: ``devbox`` for ``ssh-remote+devbox`` (also when the host is given as
    JSON, hex-encoded or not: ``{"hostName":"devbox"}``), ``WSL Ubuntu``, ``tunnel mybox``, ``codespace NAME``,
    ``dev container``; an unknown kind of remote by its kind and name."""
    kind, _, name = authority.partition("+")
    given = _json_host(name)
    if kind == "ssh-remote":  # (its user part left out: a gateway's user form can carry a token, review57d F6)
        host = given.get("hostName") if given is not None else name
        return host.rpartition("@")[2] or "ssh" if isinstance(host, str) else "ssh"
    if kind in _CONTAINERS:
        container = given.get("containerName") if given is not None else None
        named = container.strip("/") if isinstance(container, str) else ""
        return f"container {named}" if named else kind.replace("-", " ")
    label = _KINDS.get(kind, kind)
    return f"{label} {name}" if name and given is None else label


def _json_host(name: str) -> dict[str, Any] | None:
    """The JSON object a remote's name may be, hex-encoded (``7b22…``) or not; None when it is a plain name."""
    import orjson

    if _HEX.fullmatch(name):
        try:
            name = bytes.fromhex(name).decode("utf-8")
        except UnicodeDecodeError:
            return None
    if not name.startswith("{"):
        return None
    try:
        found = orjson.loads(name)
    except orjson.JSONDecodeError:
        return None
    return found if isinstance(found, dict) else None


def _spelt(authority: str, path: str) -> str:
    return f"{PREFIX}{quote(where(authority), safe=' ')}/{path.lstrip('/')}"
