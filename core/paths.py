"""Where Cursor keeps its stores, and where deja keeps its own files.

Every function reads the environment when called, so tests can point HOME and
the overrides at a temporary directory. What a hook needs of this is in
``folders.py``, as strings; these functions build on it.
"""

from __future__ import annotations

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
    return Path(folders.ide_user_root(platform, environment))


def ide_databases(root: Path | None = None) -> list[Path]:
    """``globalStorage/state.vscdb`` and every ``workspaceStorage/*/state.vscdb`` that exists."""
    return [Path(db) for db in folders.ide_databases(str(root) if root else None)]


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
    return [(name, Path(path)) for name, path in folders.missing_overrides()]


include_subagents = folders.include_subagents


def deja_home(environment: bool = True) -> Path:
    """``${DEJA_HOME:-${XDG_CACHE_HOME:-~/.cache}/deja}``: the index, hook state and logs."""
    return Path(folders.deja_home(environment))


def ai_tracking_db() -> Path:
    """Cursor's attribution of AI-written code: ``${CURSOR_DATA_DIR:-~/.cursor}/ai-tracking/ai-code-tracking.db``."""
    return (_env_path("CURSOR_DATA_DIR") or home() / ".cursor") / "ai-tracking" / "ai-code-tracking.db"
