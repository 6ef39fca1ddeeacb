"""Where Cursor keeps its stores, and where deja keeps its own files.

Every function reads the environment when called, so tests can point HOME and
the overrides at a temporary directory. What a hook needs of this is in
``folders.py``, as strings; these functions build on it.
"""

from __future__ import annotations

import sys
from pathlib import Path

from . import config, folders


def _setting_path(key: str, environment: bool = True) -> Path | None:
    """A folder setting (``DEJA_…`` variable, else the config file), or None when unset.

    Without ``environment``, the file alone: what Cursor's hooks and MCP server get.
    """
    value = folders.setting(key, environment)
    return Path(value) if value else None


def _env_path(name: str) -> Path | None:
    value = config.folder_variable(name)
    return Path(value) if value else None


def home() -> Path:
    return Path(folders.home())


def ide_user_root(platform: str | None = None, environment: bool = True) -> Path:
    """The Cursor IDE's ``User`` folder (``DEJA_CURSOR_ROOT`` overrides discovery)."""
    override = _setting_path("cursor_root", environment)
    if override:
        return override
    platform = platform or sys.platform
    if platform == "darwin":
        return home() / "Library" / "Application Support" / "Cursor" / "User"
    if platform.startswith("win"):
        appdata = _env_path("APPDATA") or home() / "AppData" / "Roaming"
        return appdata / "Cursor" / "User"
    xdg = _env_path("XDG_CONFIG_HOME")
    if xdg and (xdg / "Cursor" / "User").is_dir():
        return xdg / "Cursor" / "User"
    return home() / ".config" / "Cursor" / "User"


def ide_databases(root: Path | None = None) -> list[Path]:
    """``globalStorage/state.vscdb`` and every ``workspaceStorage/*/state.vscdb`` that exists."""
    root = root or ide_user_root()
    found = []
    global_db = root / "globalStorage" / "state.vscdb"
    if global_db.is_file():
        found.append(global_db)
    workspaces = root / "workspaceStorage"
    if workspaces.is_dir():
        found.extend(sorted(p for p in workspaces.glob("*/state.vscdb") if p.is_file()))
    return found


def cursor_config_dir() -> Path:
    """``${CURSOR_CONFIG_DIR:-~/.cursor}``: where Cursor reads mcp.json, hooks.json and commands (installers write here)."""
    return Path(folders.cursor_config_dir())


def cursor_data_dir() -> Path:
    """``${CURSOR_DATA_DIR:-~/.cursor}``: where cursor-agent writes ``projects/*/agent-transcripts``."""
    return _env_path("CURSOR_DATA_DIR") or home() / ".cursor"


def cursor_agent_chats_root() -> Path:
    """Where cursor-agent keeps ``chats/`` and ``acp-sessions/``.

    ``$CURSOR_CONFIG_DIR``, else ``$XDG_CONFIG_HOME/cursor`` when ``XDG_CONFIG_HOME``
    is set, else ``~/.cursor`` (cursor-agent 2026.10.01 and later; cursor-drift-2026.md §9).
    """
    explicit = _env_path("CURSOR_CONFIG_DIR")
    if explicit:
        return explicit
    xdg = _env_path("XDG_CONFIG_HOME")
    return xdg / "cursor" if xdg else home() / ".cursor"


def cli_roots(environment: bool = True) -> list[Path]:
    """The cursor-agent roots: the data root (transcripts) and the chats root, once each.

    Since 2026.10.01 transcripts and chats may live under two different roots;
    every root is searched for both, so an older build's layout (everything under
    one root) reads the same. ``DEJA_CURSOR_CLI_ROOT`` replaces discovery with one
    root holding both.
    """
    override = _setting_path("cursor_cli_root", environment)
    if override:
        return [override]
    roots = [cursor_data_dir()]
    chats = cursor_agent_chats_root()
    if chats not in roots:
        roots.append(chats)
    return roots


def missing_overrides() -> list[tuple[str, Path]]:
    """The root overrides that name a folder that does not exist (a typo reads as an empty history)."""
    missing = []
    for key in ("cursor_root", "cursor_cli_root"):
        name = (
            config.SETTINGS[key].variable if config.resolve(key).source == "env" else f"{key} in {config.config_path()}"
        )
        path = _setting_path(key)
        if path is not None and not path.is_dir():
            missing.append((name, path))
    return missing


def include_subagents() -> bool:
    return bool(config.get("include_subagents"))


def deja_home(environment: bool = True) -> Path:
    """``${DEJA_HOME:-${XDG_CACHE_HOME:-~/.cache}/deja}``: the index, hook state and logs."""
    return Path(folders.deja_home(environment))


def ai_tracking_db() -> Path:
    """Cursor's attribution of AI-written code: ``${CURSOR_DATA_DIR:-~/.cursor}/ai-tracking/ai-code-tracking.db``."""
    return (_env_path("CURSOR_DATA_DIR") or home() / ".cursor") / "ai-tracking" / "ai-code-tracking.db"
