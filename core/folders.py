"""The folders a hook needs (the user's home, deja's home, Cursor's config folder), as plain strings.

A hook works these out on every call, and ``pathlib`` would cost it about 5 ms
of imports (``re``, ``enum``, ``functools``, ``collections``, ``urllib.parse``,
``ipaddress``): more than its own work. So they are found here with
``os.path``, and ``paths.py`` builds its ``Path`` API on these same functions
for the rest of deja.

Every function reads the environment when called, so tests can point HOME and
the overrides at a temporary directory.
"""

from __future__ import annotations

import os

from . import config

#: What a hook imports from outside the standard library (``tests/test_layers.py`` checks it).
HOOK_DEPENDENCIES = ("Stemmer",)


def launcher_folder(package: str) -> str | None:
    """The folder to put on ``sys.path`` for the package ``deja`` at ``package`` and every module a hook needs, or
    None where only ``site`` finds them (an editable install; PyStemmer in another site-packages).

    The hook launcher (``interfaces/hook.py``, started with ``-I -S``) skips ``site`` where this is a folder, and
    the installers write that launcher only then: one answer for both, so no hook is written that cannot start.
    """
    if os.path.basename(package) != "deja":
        return None
    folder = os.path.dirname(package)
    # The import system's own finder (``importlib.machinery.PathFinder``, from the module the interpreter started
    # with: importing ``importlib`` would load ``warnings`` too). Its listing of the folder serves the imports after.
    from _frozen_importlib_external import PathFinder

    return folder if all(PathFinder.find_spec(name, [folder]) for name in HOOK_DEPENDENCIES) else None


def setting(key: str, environment: bool = True) -> str:
    """A folder setting (``DEJA_…`` variable, else the config file), or "" when unset.

    Without ``environment``, the file alone: what Cursor's hooks and MCP server get.
    """
    value = config.resolve(key, environment=environment).value
    return str(value) if value else ""


def home() -> str:
    """The user's home folder (as ``HOME`` names it, tidied: no trailing slash)."""
    return os.path.normpath(os.path.expanduser("~"))


def cursor_config_dir() -> str:
    """``${CURSOR_CONFIG_DIR:-~/.cursor}``: where Cursor reads mcp.json, hooks.json and commands (installers write here)."""
    return config.folder_variable("CURSOR_CONFIG_DIR") or os.path.join(home(), ".cursor")


def deja_home(environment: bool = True) -> str:
    """``${DEJA_HOME:-${XDG_CACHE_HOME:-~/.cache}/deja}``: the index, hook state and logs."""
    return setting("home", environment) or os.path.join(
        config.folder_variable("XDG_CACHE_HOME") or os.path.join(home(), ".cache"), "deja"
    )
