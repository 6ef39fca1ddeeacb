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
from .entries import (
    Earlier,
    Hook,
    Stripped,
    carried_hook,
    carried_keys,
    deja_hook,
    hook_command,
    is_deja_hook,
    plan_hooks,
    plan_server,
)
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
        changes.append(plan_hooks(settings_path(), wanted, strip_groups, carried_group))
    return changes


def plan_uninstall(earlier: Earlier) -> list[Change]:
    return [
        plan_server(mcp_path(), None),
        plan_hooks(settings_path(), {}, strip_groups, carried_group, earlier=earlier(settings_path())),
    ]


def strip_groups(groups: list[Any]) -> Stripped:
    """One event's matcher groups without deja's hooks, the index of deja's first own group, that group, and the
    commands of deja's the user edited.

    A group that held only deja's hooks goes; one the user shares with deja
    keeps its own hooks.
    """
    kept: list[Any] = []
    first = slot = None
    edited: list[str] = []
    for group in groups:
        inner = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(inner, list):
            kept.append(group)
            continue
        ours = [hook for hook in inner if isinstance(hook, dict) and is_deja_hook(hook.get("command"))]
        edited += [hook["command"] for hook in ours if _edited(hook["command"])]
        others = [hook for hook in inner if not any(hook is our for our in ours)]
        if not ours:
            kept.append(group)
        elif others:
            kept.append({**group, "hooks": others})
        elif slot is None:
            first, slot = group, len(kept)
    return Stripped(kept, slot, first, edited)


def _edited(command: str) -> bool:
    found = deja_hook(command)
    return found is not None and found.edited


def carried_group(wanted: dict[str, Any], old: object) -> tuple[dict[str, Any], list[str]]:
    """deja's group ``wanted`` with the user's changes to the one it replaces (``old``) kept (``carried_hook``): its
    matcher, and its deja hook's command ending and timeout."""
    inner = old.get("hooks") if isinstance(old, dict) else None
    if not isinstance(old, dict) or not isinstance(inner, list) or not inner:
        return wanted, []
    group, kept = carried_keys(wanted, old, skip="hooks")
    hook, kept_in_hook = carried_hook(wanted["hooks"][0], inner[0])
    group["hooks"] = [hook]
    return (old if group == old else group), kept + kept_in_hook
