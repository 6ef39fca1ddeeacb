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
    Ours,
    Stripped,
    carried_hook,
    carried_keys,
    deja_hook,
    hook_command,
    plan_hooks,
    plan_server,
    stripped,
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
#: The name Cursor gives each of these events when it runs Claude Code's hooks (cursor-hooks.md A5).
CURSOR_EVENTS = {
    "SessionStart": "sessionStart",
    "UserPromptSubmit": "beforeSubmitPrompt",
    "PreToolUse": "preToolUse",
    "PostToolUse": "postToolUse",
    "Stop": "stop",
    "PreCompact": "preCompact",
    "SessionEnd": "sessionEnd",
}


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
    """One event's matcher groups without deja's hooks, where deja's group goes, the one whose changes install
    keeps, and the commands of deja's the user edited (``stripped``).

    A group that held only deja's hooks goes; one the user shares with deja
    keeps its own hooks. Each deja hook counts as a group of its own, with the
    matcher of the group it stood in: an edited one the user put in a group of
    theirs, or beside a second deja hook, keeps its edit as one alone does. An
    unedited copy in a group of theirs (``shared``) does not: deja's own group,
    with its matcher, is the one kept (review44f M1).
    """
    kept: list[Any] = []
    ours: list[Ours] = []
    for group in groups:
        inner = group.get("hooks") if isinstance(group, dict) else None
        hooks = inner if isinstance(inner, list) else []
        found = [(hook, deja_hook(hook.get("command")) if isinstance(hook, dict) else None) for hook in hooks]
        others = [hook for hook, hook_found in found if hook_found is None]
        if len(others) == len(hooks):
            kept.append(group)
            continue
        shared = bool(others)
        ours += [
            Ours({**group, "hooks": [hook]}, hook_found, len(kept), shared) for hook, hook_found in found if hook_found
        ]
        if others:
            kept.append({**group, "hooks": others})
    return stripped(kept, ours)


def carried_group(wanted: dict[str, Any], old: object) -> tuple[dict[str, Any], list[str]]:
    """deja's group ``wanted`` with the user's changes to the one it replaces (``old``) kept (``carried_hook``): its
    matcher, and its deja hook's command ending and timeout (``strip_groups`` gives groups of one deja hook)."""
    inner = old.get("hooks") if isinstance(old, dict) else None
    if not isinstance(old, dict) or not isinstance(inner, list) or not inner:
        return wanted, []
    group, kept = carried_keys(wanted, old, skip="hooks")
    hook, kept_in_hook = carried_hook(wanted["hooks"][0], inner[0])
    group["hooks"] = [hook]
    return (old if group == old else group), kept + kept_in_hook
