"""deja in Cursor.

``cursor`` writes the MCP server into ``mcp.json``, the deja-history skill and
the ``/deja`` command; ``cursor-auto`` adds deja's hooks to ``hooks.json``, so
recall arrives without being asked for. Uninstalling either removes all of it,
hooks included, but for the skill while deja's install in another config folder
uses it (``other_installs``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, NamedTuple

from ..core.paths import cursor_config_dir
from . import guidance, ledger
from .entries import (
    Earlier,
    Hook,
    Ours,
    Stripped,
    carried_hook,
    deja_hook,
    hook_command,
    plan_hooks,
    plan_server,
    stripped,
)
from .files import Change, shape_error

HOOKS = (
    Hook("sessionStart", "hook-context", None, 10),
    # The interactive TUI and the IDE fire it; headless `cursor-agent -p` skips it.
    Hook("beforeSubmitPrompt", "hook-prompt", None, 5),
    # A regex on tool_name, so deja does not start on every read and grep.
    Hook("preToolUse", "hook-tool", "^(Shell|Write|Task)$", 5),
    Hook("postToolUse", "hook-tool-after", "^Shell$", 5),
    Hook("postToolUseFailure", "hook-tool-after", "^Shell$", 5),
    # So the turn just ended, and the session just compacted or closed, are searchable without a read refreshing
    # them first: the hook hands the ingest to a detached process and returns (``hooks/session_end.py``).
    Hook("stop", "hook-session-end", None, 30),
    Hook("preCompact", "hook-session-end", None, 30),
    Hook("sessionEnd", "hook-session-end", None, 30),
)

# What a new hooks.json starts with; a file left with nothing more is removed.
PREAMBLE = {"version": 1}

# Every event name Cursor accepts: one it does not know makes it ignore the whole hooks.json.
KNOWN_EVENTS = frozenset({
    "sessionStart", "sessionEnd", "beforeSubmitPrompt", "preToolUse", "postToolUse", "postToolUseFailure",
    "preCompact", "beforeShellExecution", "afterShellExecution", "beforeMCPExecution", "afterMCPExecution",
    "beforeReadFile", "afterFileEdit", "stop", "subagentStart", "subagentStop", "afterAgentResponse",
    "afterAgentThought", "beforeTabFileRead", "afterTabFileEdit", "workspaceOpen",
})  # fmt: skip


#: The files deja writes in Cursor's config folder, by their path in it: what an older deja's records keyed by a
#: relative CURSOR_CONFIG_DIR's spelling can be of (``ledger.placed``).
MCP_JSON, HOOKS_JSON, COMMAND = "mcp.json", "hooks.json", os.path.join("commands", "deja.md")
IN_CONFIG_FOLDER = (MCP_JSON, HOOKS_JSON, COMMAND)


def mcp_path() -> Path:
    return cursor_config_dir() / MCP_JSON


def hooks_path() -> Path:
    return cursor_config_dir() / HOOKS_JSON


def command_path() -> Path:
    return cursor_config_dir() / COMMAND


def other_installs() -> list[Path]:
    """The config folders, other than this one, of the Cursor installs of deja still there: those whose ``/deja``
    command install recorded (``ledger``) is still deja's. Each uses the one shared skill (``guidance``)."""
    mine = os.path.realpath(command_path())
    recorded = ledger.recorded_files(ledger.load(), IN_CONFIG_FOLDER)
    commands = {path for path in recorded if path.parts[-2:] == command_path().parts[-2:]}
    others = (path for path in commands if os.path.realpath(path) != mine and guidance.is_deja_file(path))
    return sorted(path.parent.parent for path in others)


def server_entry(deja: str) -> dict[str, Any]:
    return {"command": deja, "args": ["mcp"]}


def hook_entry(deja: str, hook: Hook) -> dict[str, Any]:
    entry: dict[str, Any] = {"command": hook_command(deja, hook.subcommand)}
    if hook.matcher:
        entry["matcher"] = hook.matcher
    entry["timeout"] = hook.timeout
    return entry


class Unloadable(NamedTuple):
    """Something in hooks.json that stops Cursor running what it lists: the key it is at, and what is wrong."""

    key: str
    problem: str


def unloadable(document: dict[str, Any]) -> list[Unloadable]:
    """What in hooks.json, deja's or not, makes Cursor skip it: a version other than the number 1, an event name
    it does not know. Install refuses such a file (adding to it would change nothing) and doctor names it."""
    found = []
    version = document.get("version", 1)
    if version != 1 or isinstance(version, bool):
        found.append(Unloadable("version", f'"version" is {json.dumps(version)}; Cursor reads version 1 (a number)'))
    hooks = document.get("hooks")
    for event in hooks if isinstance(hooks, dict) else ():
        if event not in KNOWN_EVENTS:
            found.append(Unloadable(event, f"unknown event {event!r} makes Cursor ignore the whole file"))
    return found


def plan_install(deja: str, *, hooks: bool) -> list[Change]:
    changes = [plan_server(mcp_path(), server_entry(deja)), *guidance.plan_install(deja, command_path())]
    if hooks:
        wanted = {hook.event: hook_entry(deja, hook) for hook in HOOKS}
        changes.append(
            plan_hooks(hooks_path(), wanted, strip_entries, carried_hook, preamble=PREAMBLE, refuse=_refuse_unloadable)
        )
    return changes


def _refuse_unloadable(path: Path, text: str | None, document: dict[str, Any]) -> None:
    for key, problem in unloadable(document)[:1]:
        raise shape_error(path, text, key, f"{problem}, so deja's hooks would never run")


def plan_uninstall(earlier: Earlier) -> list[Change]:
    return [
        plan_server(mcp_path(), None),
        *guidance.plan_uninstall(command_path(), other_installs()),
        plan_hooks(hooks_path(), {}, strip_entries, carried_hook, preamble=PREAMBLE, earlier=earlier(hooks_path())),
    ]


def strip_entries(entries: list[Any]) -> Stripped:
    """One event's entries without deja's, the one whose changes install keeps and the index it held (deja's entry
    takes its place: where the user's edited copy stood), and the commands of deja's the user edited (``stripped``)."""
    kept: list[Any] = []
    ours: list[Ours] = []
    for entry in entries:
        found = deja_hook(entry.get("command")) if isinstance(entry, dict) else None
        if found is None:
            kept.append(entry)
            continue
        ours.append(Ours(entry, found, len(kept)))
    return stripped(kept, ours)
