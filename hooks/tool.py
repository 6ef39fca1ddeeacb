"""preToolUse: the last runs of this Shell command, the sessions that edited this file, past work like this Task."""

from __future__ import annotations

from ..core.index import Index, Segment, asked_paths
from ..core.keys import (
    EDIT_TOOLS,
    INSPECTION,
    SHELL_TOOLS,
    call_folder,
    command_head,
    command_keys,
    normalise_command,
    path_key,
    seen_from,
    within,
)
from .call import HookCall, block_key, frame, frame_room, headed
from .describe import COMMAND_CHARS, ago, followed_line, heading, project_labels

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    from ..core.index import SessionMeta
    from ..core.model import ToolCall
    from .scope import Scope

BUDGET = 512
TASK_HEADER = "Past work related to this task:"
TASK_TOOLS = frozenset({"Task", "Agent", "Subagent"})
#: Said of a command that throws work or data away: its past runs' exit 0 says it ran, not that it is safe now.
DESTRUCTIVE_NOTE = (
    "It is destructive (it throws work or data away): deja never offers it as a fix; check what it removes."
)
RUNS_SCANNED = 200
#: How many of the latest runs are read to find the last failure.
FAILURES_SCANNED = 20
FILE_SESSIONS = 3

Run = tuple[float, Segment, int]


#: Where each tool input shape keeps the file: Cursor's Write ``{file_path, content}``, the transcripts'
#: ``{path, contents}``, the editor's ``target_file``; Claude Code's Write/Edit ``{file_path, …}``.
PATH_FIELDS = ("file_path", "path", "target_file")


def before_tool(call: HookCall) -> str:
    if call.mode == "off":
        return call.silent("recall is off")
    name = str(call.payload.get("tool_name") or "")
    args = call.tool_input()
    if name in SHELL_TOOLS:
        command = args.get("command")
        return _shell(call, command) if isinstance(command, str) else call.silent("no command in the tool input")
    if name in EDIT_TOOLS:
        path = next((args[k] for k in PATH_FIELDS if isinstance(args.get(k), str) and args[k].strip()), None)
        return _file(call, path) if path else call.silent("no file path in the tool input")
    if name in TASK_TOOLS:
        call.task_started()
        return _task(call, "\n".join(str(args.get(k) or "") for k in ("description", "prompt")))
    return call.silent(f"deja does not answer {name or 'a tool with no name'}")


def _runs_here(index: Index, key: str, here: Scope | None) -> list[Run]:
    """Runs filed under ``key`` by the sessions ``here`` holds (any session's when no folder is known), newest
    first."""
    runs = index.newest(key, limit=RUNS_SCANNED)
    return runs if here is None else [run for run in runs if here.holds(run[1], run[1].doc(run[2]).ordinal)]


def _matching_calls(calls: list[ToolCall], command: str, head: str) -> list[ToolCall]:
    """The Shell calls running ``command`` itself, else those with the same head."""
    shell = [c for c in calls if c.name in SHELL_TOOLS and isinstance(c.args.get("command"), str)]
    exact = [c for c in shell if normalise_command(c.args["command"]) == command]
    return exact or [c for c in shell if command_head(c.args["command"]) == head]


def _shell(call: HookCall, raw_command: str) -> str:
    from ..core.destructive import is_destructive
    from ..core.redaction import as_indexed

    command = normalise_command(as_indexed(raw_command))  # a secret in it: the index holds it redacted
    head = command_head(command)
    keys = command_keys(command)
    work = _after_cd(command) if head.split()[:1] == ["cd"] else ""
    if work:  # ``cd packages/web && npm run build``: the chain itself, not every chain that starts in that folder
        keys, head = keys[:1], command_head(work) or head  # (trial11 F6)
    if not head:
        return call.silent("the command names no program")
    if (program := head.split()[0]) in INSPECTION:  # (by its name alone: a value a rule missed is in its arguments)
        return call.silent(f"`{program}` only looks around")
    from .scope import Scope, command_folder  # (here: a Write's or a Task's hook asks no folder)

    folder, root = command_folder(call)
    shown = block_key("sh", folder, command)
    if shown in call.seen():
        return call.silent("this command's history was shown in this conversation already")
    index = call.index()
    if index is None:
        return call.silent("no index to read")
    project = call.project_folders(index)[root] if call.project_dir else ""
    here = Scope(index, folder, project) if folder else None
    from ..core.lines import cut

    labels = (f"`{cut(command, COMMAND_CHARS)}`", f"`{head}` commands")
    # B007: `label` names the key that matched, and the text below uses it after the loop.
    for key, label in zip(keys, labels, strict=False):  # noqa: B007
        runs = _runs_here(index, key, here)
        if runs:
            break
    else:
        return call.silent("the command never ran here before")
    count = f"{len(runs)}+" if len(runs) >= RUNS_SCANNED else str(len(runs))
    sessions = len({(segment.ref.name, segment.doc(doc).ordinal) for _, segment, doc in runs})
    days, segment, doc = runs[0]
    meta = segment.session(segment.doc(doc).ordinal)
    matching = _matching_calls(segment.message(doc).tool_calls, command, head)
    last = matching[-1] if matching else None
    status = f", exit {last.exit_code}" if last is not None and last.exit_code is not None else ""
    where = _where(folder, project)
    ran_in = call_folder(last.args, meta.project_dir) if last is not None else meta.project_dir
    there = seen_from(ran_in, folder)  # (a package's run, told at the monorepo's root: trial12 F2)
    lines = [
        f"{label} ran {count} time{'s' if count != '1' else ''} {where} before, in {sessions} session{'s' if sessions != 1 else ''}; "
        f"last {ago(days * 86400)}{f' in {there}' if there else ''}{status} (`deja show {meta.id}`)."
    ]
    if is_destructive(command):  # a clean record here read as "safe to run" (trialI F11: `sudo rm -rf …`)
        lines.append(DESTRUCTIVE_NOTE)
    failure = _last_failure(runs, command, head)
    if failure is not None:
        failed_days, segment, doc, errors, printed_by = failure
        said = f"Last failure ({ago(failed_days * 86400)}): " + " | ".join(errors)
        worked = _worked_after(segment, doc, head, errors[0], printed_by, frame_room(BUDGET, *lines, said))
        lines += headed(said, worked, frame_room(BUDGET, *lines))  # (its error first)
    call.remember([shown])
    return frame(lines, BUDGET)


def _after_cd(command: str) -> str:
    """What a chain that starts with ``cd DIR`` runs there (``npm run build`` of ``cd web && npm run build``, or of
    ``cd web; npm run build``); "" for a ``cd`` alone."""
    ends = [(at, len(op)) for op in ("&&", ";") if (at := command.find(op)) >= 0]
    if not ends:
        return ""
    at, width = min(ends)
    return command[at + width :].strip()


def _where(folder: str, project_dir: str) -> str:
    """Where the runs counted ran: this project (its folder, or one below it a Shell call named), or the folder
    the call named outside it, or anywhere."""
    if not folder:
        return "on this machine"
    return "in this project" if within(folder, project_dir) else f"in {folder}"


def _last_failure(runs: list[Run], command: str, head: str) -> tuple[float, Segment, int, list[str], str] | None:
    """When the latest failing run of the command was, where (its segment and message), its error lines and the
    command that printed them."""
    from ..core.errors import error_lines  # (here: most commands never failed)
    from ..core.lines import TRACE_HEADS

    for days, segment, doc in runs[:FAILURES_SCANNED]:
        for tool in reversed(_matching_calls(segment.message(doc).tool_calls, command, head)):
            errors = error_lines(tool.result, limit=3) if tool.exit_code and tool.result else []
            # (a traceback's header beside its exception says nothing, and read as a second error: trial59 F5)
            told = [line for line in errors if not line.startswith(TRACE_HEADS[0])]
            if errors:
                return days, segment, doc, (told or errors)[:2], tool.args["command"]
    return None


def _worked_after(segment: Segment, doc: int, head: str, error: str, printed_by: str, room: int) -> list[str]:
    """What succeeded after the failure at ``doc`` in its session, as the failure hook says it
    (``describe.followed_line``, ``deja fix``'s "fixed by"): the form of the command that then worked
    (``AWS_PROFILE=acme-dev terraform apply`` after ``terraform apply`` failed, trial21 F9); none when no run like it
    succeeded there."""
    from ..core.failures import ErrorMatch, what_followed
    from ..core.keys import error_key

    fix = what_followed(segment, doc, head, ErrorMatch(key=error_key(error, printed_by)), dated=False)
    return [followed_line(fix, "", room)] if fix.resolved_by else []


def _file(call: HookCall, path: str) -> str:
    shown = block_key("f", path)
    if shown in call.seen():
        return call.silent("this file's sessions were shown in this conversation already")
    index = call.index()
    if index is None:
        return call.silent("no index to read")
    found: list[Run] = []
    for place in asked_paths(path, call.project_dir):
        found += index.newest(path_key(place), limit=20)
    found.sort(key=lambda run: run[0], reverse=True)
    picked: dict[str, tuple[SessionMeta, float]] = {}  # (a session's id -> it and when it was updated)
    for _, segment, doc in found:
        ordinal = segment.doc(doc).ordinal
        meta = segment.session(ordinal)
        if meta.id in picked or meta.id in call.conversation_ids:
            continue
        picked[meta.id] = (meta, segment.session_keys(ordinal).updated)
        if len(picked) >= FILE_SESSIONS:
            break
    chosen = list(picked.values())
    projects = project_labels([(meta.project, meta.project_dir) for meta, _ in chosen], call.project_dir)
    lines = [
        heading(meta.title or meta.asked, where, updated, meta.id)
        for (meta, updated), where in zip(chosen, projects, strict=True)
    ]
    if not lines:
        return call.silent("no other session edited this file")
    call.remember([shown])
    return frame([f"Past sessions that edited {path}:", *lines], BUDGET)


def _task(call: HookCall, text: str) -> str:
    if not text.strip():  # (asked first: it loads none of what a recall does)
        return call.silent("the task has no description or prompt")
    call.preload_modules_of("hook-prompt")  # (its recall loads what a prompt's does)
    from .prompt import recall_for

    index = call.index()
    if index is None:
        return call.silent("no index to read")
    recall = recall_for(
        index,
        text,
        call.mode,
        call.conversation_ids,
        call.seen(),
        room=frame_room(BUDGET, TASK_HEADER),
        here=call.project_dir,
        finding=True,
        opening=True,  # (a Task's description and prompt are the agent's, written whole: they follow up on nothing)
    )
    if not recall.lines:
        return call.silent(recall.why)
    call.remember(recall.keys)
    return frame([TASK_HEADER, *recall.lines], BUDGET)
