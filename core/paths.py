"""Where Cursor keeps its stores, and where deja keeps its own files.

Every function reads the environment when called, so tests can point HOME and
the overrides at a temporary directory. What a hook needs of this is in
``folders.py``, as strings; these functions build on it.
"""

from __future__ import annotations

from pathlib import Path

from . import config, folders


def home() -> Path:
    return Path(folders.home())


def ide_user_root(platform: str | None = None, environment: bool = True) -> Path:
    """The Cursor IDE's ``User`` folder (``DEJA_CURSOR_ROOT`` overrides discovery)."""
    return Path(folders.ide_user_root(platform, environment))


def ide_user_folder() -> Path:
    """The Cursor IDE's ``User`` folder as named, its own link not followed (``folders.ide_user_folder``)."""
    return Path(folders.ide_user_folder())


def ide_databases(root: Path | None = None) -> list[Path]:
    """``globalStorage/state.vscdb`` and every ``workspaceStorage/*/state.vscdb`` that exists."""
    return [Path(db) for db in folders.ide_databases(str(root) if root else None)]


def cursor_config_dir() -> Path:
    """``${CURSOR_CONFIG_DIR:-~/.cursor}``: where Cursor reads mcp.json, hooks.json and commands (installers write here)."""
    return Path(folders.cursor_config_dir())


def cursor_data_dir() -> Path:
    """``${CURSOR_DATA_DIR:-~/.cursor}``: where cursor-agent writes ``projects/*/agent-transcripts``."""
    return Path(folders.cursor_data_dir())


def cursor_agent_chats_root() -> Path:
    """Where cursor-agent keeps ``chats/`` and ``acp-sessions/`` (``folders.cursor_agent_chats_root``)."""
    return Path(folders.cursor_agent_chats_root())


def cli_roots(environment: bool = True) -> list[Path]:
    """The cursor-agent roots, once each (``folders.cli_roots``)."""
    return [Path(root) for root in folders.cli_roots(environment)]


def missing_overrides() -> list[tuple[str, Path]]:
    """The root overrides that name a folder that does not exist (a typo reads as an empty history)."""
    return [(name, Path(path)) for name, path in folders.missing_overrides()]


include_subagents = folders.include_subagents
GLOBAL_STORAGE = folders.GLOBAL_STORAGE
WORKSPACE_JSON = folders.WORKSPACE_JSON


def deja_home(environment: bool = True) -> Path:
    """``${DEJA_HOME:-${XDG_CACHE_HOME:-~/.cache}/deja}``: the index, hook state and logs."""
    return Path(folders.deja_home(environment))


def deja_config_dir() -> Path:
    """``${XDG_CONFIG_HOME:-~/.config}/deja``: the config file, and install's ledger, which stay put when home moves."""
    return Path(config.config_path()).parent


def ai_tracking_db() -> Path:
    """Cursor's attribution of AI-written code: ``${CURSOR_DATA_DIR:-~/.cursor}/ai-tracking/ai-code-tracking.db``."""
    return cursor_data_dir() / "ai-tracking" / "ai-code-tracking.db"
