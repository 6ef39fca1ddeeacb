"""preToolUse: the last runs of this Shell command, the sessions that edited this file, past work like this Task."""

from __future__ import annotations

from deja.core.index import Index, name_hash
from deja.core.keys import EDIT_TOOLS, SHELL_TOOLS, command_head, command_keys, error_lines, normalise_command, path_key
from deja.core.model import ToolCall
from deja.hooks.call import HookCall, frame
from deja.hooks.describe import ago, heading

BUDGET = 512
TASK_TOOLS = frozenset({"Task", "Agent", "Subagent"})
#: Commands that only look around: their history says nothing worth the tokens.
INSPECTION = frozenset(
    "ls cd cat pwd echo head tail grep rg find which wc less more tree file stat du df env printenv date whoami clear history man sed awk sort uniq".split()
)
RUNS_SCANNED = 200


def before_tool(call: HookCall) -> str:
    if call.mode == "off":
        return ""
    name = str(call.payload.get("tool_name") or "")
    args = call.tool_input()
    if name in SHELL_TOOLS and isinstance(args.get("command"), str):
        return _shell(call, args["command"])
    if name in EDIT_TOOLS:
        path = args.get("path") or args.get("file_path")
        return _file(call, path) if isinstance(path, str) and path else ""
    if name in TASK_TOOLS:
        return _task(call, " ".join(str(args.get(k) or "") for k in ("description", "prompt")))
    return ""


def _project_runs(call: HookCall, index: Index, key: str) -> list[tuple[float, object, int]]:
    """Runs filed under ``key`` in this project (any project when it is unknown), newest first."""
    wanted = name_hash(call.project_dir) if call.project_dir else None
    runs = []
    for days, segment, doc in index.newest(key, limit=RUNS_SCANNED):
        ordinal = segment.doc(doc)[0]
        if wanted is not None and segment.session_keys(ordinal)[1] != wanted:
            continue
        runs.append((days, segment, doc))
    return runs


def _matching_call(calls: list[ToolCall], command: str, head: str) -> ToolCall | None:
    shell = [c for c in calls if c.name in SHELL_TOOLS and isinstance(c.args.get("command"), str)]
    exact = [c for c in shell if normalise_command(c.args["command"]) == command]
    same_head = [c for c in shell if command_head(c.args["command"]) == head]
    return (exact or same_head or [None])[-1]


def _shell(call: HookCall, raw_command: str) -> str:
    command = normalise_command(raw_command)
    head = command_head(command)
    if not head or head.split()[0] in INSPECTION:
        return ""
    index = call.index()
    if index is None:
        return ""
    keys = command_keys(command)
    labels = [f"`{command[:120]}`", f"`{head}` commands"]
    for key, label in zip(keys, labels):
        runs = _project_runs(call, index, key)
        if runs:
            break
    else:
        return ""
    count = f"{len(runs)}+" if len(runs) >= RUNS_SCANNED else str(len(runs))
    days, segment, doc = runs[0]
    meta = segment.session(segment.doc(doc)[0])
    last = _matching_call(segment.message(doc).tool_calls, command, head)
    status = f", exit {last.exit_code}" if last is not None and last.exit_code is not None else ""
    where = "in this project" if call.project_dir else "on this machine"
    lines = [f"{label} ran {count} time{'s' if count != '1' else ''} {where} before; last {ago(meta.updated)}{status} (`deja show {meta.id[:12]}`)."]
    if last is not None and last.exit_code and last.result:
        errors = error_lines(last.result, limit=2)
        if errors:
            lines.append("Last error: " + " | ".join(e[:160] for e in errors))
    return frame(lines, BUDGET)


def _file(call: HookCall, path: str) -> str:
    index = call.index()
    if index is None:
        return ""
    lines: list[str] = []
    shown: set[str] = set()
    for _, segment, doc in index.newest(path_key(path), limit=20):
        meta = segment.session(segment.doc(doc)[0])
        if meta.id in shown or meta.id in call.conversation_ids:
            continue
        shown.add(meta.id)
        lines.append(heading(meta.title or meta.asked, meta.project, meta.updated, meta.id))
        if len(shown) >= 3:
            break
    if not lines:
        return ""
    return frame([f"Past sessions that edited {path}:", *lines], BUDGET)


def _task(call: HookCall, text: str) -> str:
    from deja.hooks.prompt import recall_for

    index = call.index()
    if index is None or not text.strip():
        return ""
    lines, keys = recall_for(index, text[:4000], call.mode, call.conversation_ids, call.seen())
    if not lines:
        return ""
    call.remember(keys)
    return frame(["Past work related to this task:", *lines], BUDGET)
