"""deja in Claude Code.

``claude`` writes the MCP server into ``~/.claude.json`` (user scope, as
``claude mcp add --scope user`` does); ``claude-auto`` adds deja's hooks to
``~/.claude/settings.json``. Both honour ``CLAUDE_CONFIG_DIR``. The hook
command strings are the very ones written for Cursor: Cursor also runs
Claude's hooks and drops those whose command string equals one of its own,
so a machine wired for both runs each hook once.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..core.paths import home
from .entries import Earlier, Hook, hook_command, is_deja_hook, plan_hooks, plan_server
from .files import Change

HOOKS = (
    Hook("SessionStart", "hook-context", None, 10),
    Hook("UserPromptSubmit", "hook-prompt", None, 5),
    Hook("PreToolUse", "hook-tool", "Bash|Write|Edit|Task", 5),
    Hook("PostToolUse", "hook-tool-after", "Bash", 5),
    Hook("Stop", "hook-session-end", None, 30),
    Hook("PreCompact", "hook-session-end", None, 30),
    Hook("SessionEnd", "hook-session-end", None, 30),
)


def _config_override() -> Path | None:
    value = os.environ.get("CLAUDE_CONFIG_DIR", "").strip()
    return Path(value).expanduser() if value else None


def mcp_path() -> Path:
    return (_config_override() or home()) / ".claude.json"


def settings_path() -> Path:
    return (_config_override() or home() / ".claude") / "settings.json"


def server_entry(deja: str) -> dict[str, Any]:
    return {"type": "stdio", "command": deja, "args": ["mcp"]}


def hook_group(deja: str, hook: Hook) -> dict[str, Any]:
    group: dict[str, Any] = {"matcher": hook.matcher} if hook.matcher else {}
    group["hooks"] = [{"type": "command", "command": hook_command(deja, hook.subcommand), "timeout": hook.timeout}]
    return group


def plan_install(deja: str, *, hooks: bool) -> list[Change]:
    changes = [plan_server(mcp_path(), server_entry(deja))]
    if hooks:
        wanted = {hook.event: hook_group(deja, hook) for hook in HOOKS}
        changes.append(plan_hooks(settings_path(), wanted, strip_groups))
    return changes


def plan_uninstall(earlier: Earlier) -> list[Change]:
    return [
        plan_server(mcp_path(), None),
        plan_hooks(settings_path(), {}, strip_groups, earlier=earlier(settings_path())),
    ]


def strip_groups(groups: list[Any]) -> tuple[list[Any], int | None]:
    """One event's matcher groups without deja's hooks, and the index of deja's first own group.

    A group that held only deja's hooks goes; one the user shares with deja
    keeps its own hooks.
    """
    kept: list[Any] = []
    slot = None
    for group in groups:
        inner = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(inner, list):
            kept.append(group)
            continue
        others = [hook for hook in inner if not (isinstance(hook, dict) and is_deja_hook(hook.get("command")))]
        if len(others) == len(inner):
            kept.append(group)
        elif others:
            kept.append({**group, "hooks": others})
        else:
            slot = len(kept) if slot is None else slot
    return kept, slot
