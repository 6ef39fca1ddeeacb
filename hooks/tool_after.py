"""postToolUse / postToolUseFailure: when a Shell command failed, where that error came up before and what fixed it."""

from __future__ import annotations

from ..core.cjson import load_host_json
from ..core.keys import SHELL_TOOLS, command_head
from .call import HookCall, block_key, fit, frame, frame_room, headed
from .describe import followed_line, heading, project_labels

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    from typing import Any

    from ..core.failures import Fix
    from ..core.index import Index, Segment

BUDGET = 512


def failure(call: HookCall) -> str | None:
    """The failed command's output, or None when it did not fail."""
    error = call.payload.get("error_message")
    if isinstance(error, str) and error.strip():
        return _without_exit_code(error)
    raw: Any = call.payload.get("tool_output", call.payload.get("tool_response"))
    if isinstance(raw, str):
        try:
            raw = load_host_json(raw)
        except ValueError:
            return None
    if not isinstance(raw, dict):
        return None
    code = raw.get("exitCode", raw.get("exit_code", raw.get("returncode")))
    output = "\n".join(str(raw.get(k) or "") for k in ("output", "stdout", "stderr")).strip()
    if isinstance(code, int) and code != 0:
        return output or f"exit code {code}"
    if code is None and raw.get("stderr") and (raw.get("interrupted") is False or "is_error" in raw):
        return output
    return None


def _without_exit_code(error: str) -> str:
    """``error`` and, after it, the same without a leading ``Exit code N:`` (or that line): the status an agent's
    tool puts before a failed command's output (trial59 F5) hid its first line, the error, from the failures deja
    holds keyed by it. Both are looked up: a program may print its error so itself (review59b F6)."""
    text = error.lstrip()
    if text[:10].lower() != "exit code ":
        return error
    end = 10 + len(text[10:]) - len(text[10:].lstrip("-0123456789"))
    if end == 10 or end < len(text) and text[end] not in ":\n":
        return error
    rest = text[end + 1 :].strip()
    return f"{error}\n{rest}" if rest else error


def after_tool(call: HookCall) -> str:
    if call.mode == "off":
        return call.silent("recall is off")
    if str(call.payload.get("tool_name") or "") not in SHELL_TOOLS:
        return call.silent("deja answers only failed Shell commands")
    output = failure(call)
    if not output:
        return call.silent("the command did not fail")
    # Here, not at the top: most commands succeed, and their events never load failures.py and the redaction rules.
    from ..core.failures import scan_window
    from ..core.redaction import as_indexed

    output = as_indexed(scan_window(output))  # a secret in it: the index holds it redacted
    index = call.index()
    if index is None:
        return call.silent("no index to read")
    command = call.tool_input().get("command")
    # (as written: only an HTTP status line's host is read of it, which redaction never changes, and redacting a
    # command holding a token loaded the rules on every failure of it: 55 -> 118 M instructions, review54e F3)
    command = command if isinstance(command, str) else ""
    return _recall_error(index, call, output, command)


def _recall_error(index: Index, call: HookCall, output: str, command: str) -> str:
    from ..core.failures import SESSIONS_COUNTED, asked_failure, past_failures, what_followed

    head = command_head(command)
    for match, rows in past_failures(index, output, SESSIONS_COUNTED, call.conversation_ids, command):
        if not rows:
            continue
        (segment, docs), ours = _in_project(index, call, rows)
        doc = asked_failure(segment, docs, match)
        meta = segment.session(segment.doc(doc).ordinal)
        # Keyed by the session shown too: a failure that only shares the wording (another quoted name) is news; and
        # by the failure shown when it is not the session's newest: another test's id, asked after, is news too.
        shown = block_key("e", match.key, meta.id, *([] if doc == docs[0] else [str(doc - meta.first_doc)]))
        if shown in call.seen():
            return call.silent("this error's history was shown in this conversation already")
        sessions = len(rows)  # one row a session
        fix = what_followed(segment, doc, head, match, dated=False)
        stopped, concluded = _ending(segment, doc, fix)
        latest = _latest(ours, call)
        head_line = f"This error came up before, in {sessions} past session{'s' if sessions != 1 else ''}; {latest}:"
        # dated by the failure's own message, not the chat's last update: a chat resumed since is newer (trial48 F1)
        when = fix.seconds if fix.seconds is not None else segment.session_keys(segment.doc(doc).ordinal).updated
        (where,) = project_labels([(meta.project, meta.project_dir)], call.project_dir)
        title = heading(meta.title or meta.asked, where, when, meta.id)
        room = frame_room(BUDGET, head_line)
        ending = f"The session {stopped}." if stopped else f"Concluded: {concluded}" if concluded else ""
        rest = room - len(title.encode()) - 1  # (what ``headed`` leaves the two lines)
        # ``headed`` gives the first line what the conclusion leaves whole, else half of ``rest``
        # (``call.line_room``): "What followed", unless left to a conclusion that names its steps, fits at least
        # that half (its commands cut shorter), so a cut falls on the conclusion, not on "succeeded" (trial53)
        beside = rest - (len(ending.encode()) + 1 if ending else 0) - 1
        followed = followed_line(fix, concluded, beside, at_least=rest // 2 - 1)
        block = headed(title, [line for line in (followed, _ending_beside(ending, followed, rest)) if line], room)
        call.remember([shown])
        return frame([head_line, *block], BUDGET)
    # (not "no other session hit this error": deja fix, which also reads what was written, may list some; counting them
    # here would load the work history and a search on every new failure: trial43 F2)
    return call.silent("no past failed command printed this error (deja fix also looks where it was written)")


#: The bytes the session's ending ("Concluded: …") keeps at least where "What followed" takes more than half.
ENDING_AT_LEAST = 32


def _ending_beside(ending: str, followed: str, rest: int) -> str:
    """``ending`` cut to what ``followed`` leaves of ``rest`` bytes when even the shortest form of "What followed" is
    more than half of them (a long title: ``headed`` would cut it at half, before "succeeded", review53f F2), as long
    as the ending keeps ``ENDING_AT_LEAST`` bytes; else as it is."""
    left = rest - len(followed.encode()) - 2  # (each line's newline)
    return fit(ending, left) if ending and followed and left >= ENDING_AT_LEAST else ending


def _ending(segment: Segment, doc: int, fix: Fix) -> tuple[str, str]:
    """How the session of the failure at ``doc`` ended, as far as that ending is the failure's: ``stopped after `X`
    failed: …`` (``ending.failed_at_end``), else the answer it concluded with; "" for either that is not.

    A last answer written before the last failure concluded nothing. Nor is an ending after the chat was resumed
    (``failures.episode_end``) the failure's: a psql error's "Concluded:" was the answer about a flaky test given two
    weeks later (trial48 F1). Nor, when no rerun fixed the failure, is its next answer, said as such, its conclusion
    (trial46 F6).
    """
    from ..core.ending import failed_at_end, last_answer_doc
    from ..core.failures import episode_end

    meta = fix.session
    end = meta.first_doc + meta.messages
    stopped = failed_at_end(segment, meta)
    if stopped:
        return (stopped if episode_end(segment, doc, end) == end else ""), ""
    if not meta.concluded:
        return "", ""
    last = last_answer_doc(segment, meta)
    if not fix.resolved_by and fix.answer and fix.answer_doc == last:
        return "", ""
    # (an answer before the failure concludes nothing of it: a long chat's is its title's part's, and the failure
    # may be in a chore after that part: ``SessionMeta.after_part``)
    return "", (meta.concluded if doc < last < episode_end(segment, doc, last + 1) else "")


def _latest(ours: str, call: HookCall) -> str:
    """How the session shown is introduced: as this project's, its repository's, another's, or (no project known)
    the newest."""
    if ours:
        return f"the latest in this {ours}"
    return "the latest, in another project" if call.project_dir else "the latest"


def _in_project(
    index: Index, call: HookCall, rows: list[tuple[Segment, list[int]]]
) -> tuple[tuple[Segment, list[int]], str]:
    """The newest of ``rows`` (newest first, each a session's failures, newest first) in the folder the command ran
    in (``Scope``), else the newest in the hook's project (its folder or a folder below it), else in the repository
    the project lies in, with where it was found ("project" or "repository"); the newest of all and "" when none of them has one or no folder is known.

    Postgres, Docker and auth errors are shared words: the newest session anywhere told an agent in ``api`` to move
    its database to another project's port (trialI F1), while its own project's fix was one session older; and a
    monorepo opened at its root was shown another repository's fix before its own packages' (review7b #5), as was a
    new package of it before its siblings' (review8c #5).
    """
    from .scope import Scope, command_folder, repository_root

    folder, root = command_folder(call)
    opened = call.project_dirs[root] if call.project_dir else ""  # (the workspace's folder the command runs in)
    project = call.project_folders(index)[root] if opened else ""
    scopes = [(Scope(index, folder, project), "project")] if folder else []
    if project == opened and folder != project:  # (a folder above the workspace's: its own sessions only,
        scopes.append((Scope(index, project, project), "project"))  # which the first scope holds; not a sibling's)
    repository = repository_root(opened) if opened else ""
    if repository:
        scopes.append((Scope(index, repository, repository), "repository"))
    for scope, where in scopes:
        found = next((row for row in rows if scope.holds(row[0], row[0].doc(row[1][0]).ordinal)), None)
        if found is not None:
            return found, where
    return rows[0], ""
