"""The work verbs' answers as JSON and as text, shared by the CLI and the MCP server.

Each ``*_json`` is what ``deja VERB --json`` prints; each ``*_text`` is what a
person (or, through MCP, a model) reads.
"""

from __future__ import annotations

import shlex
from typing import Any

from ..core.failures import RERUN_OTHER, RERUN_SAME, Fix, Step, bare_retry, fixed_by, not_rerun, rerun_differs
from ..core.index import SessionMeta, in_project
from ..core.keys import seen_from
from ..core.lines import chat_began, cut, own_words
from ..core.readers.ai_tracking import Attribution
from ..core.redaction import PATH_CHARS, echoed, repeated
from ..core.work import Blame, Digest, Edit, ErrorHistory, FileUse, Invocation, asks_for_file
from .views import KEPT_ELSEWHERE, iso, lines_within, session_json, when

#: How much of an error an answer repeats (an error line is longer than a word or an id).
ERROR_CHARS = 160
#: How much of an edit's old and new text a text answer shows.
EDIT_CHARS = 400
#: How much of a command a bounded answer (an MCP tool's, a ctx digest) shows; the CLI's listings show it whole.
COMMAND_CHARS = 1000


def _cut(text: str, limit: int = EDIT_CHARS) -> str:
    return cut(text.rstrip(), limit)


def command_shown(command: str, limit: int | None = None) -> str:
    """``command`` whole, or with ``limit`` cut to that many characters, ending in ``…`` and saying how to get the rest:
    a command cut short and taken for whole is a broken one to whoever copies it (trial20 F5)."""
    shown = cut(command, limit)
    if shown == command:
        return command
    return f"{shown} (cut: {len(command) - len(shown) + 1} more characters; show its session for the whole)"


def _indent(text: str, prefix: str) -> list[str]:
    return [prefix + line for line in _cut(text).splitlines()] or [prefix]


# --------------------------------------------------------------------------- blame


def edit_json(edit: Edit) -> dict[str, Any]:
    return {
        "session_id": edit.session_id,
        "title": edit.title,
        "project": edit.project,
        "timestamp": iso(edit.timestamp),
        "tool": edit.tool,
        "path": edit.path,
        "old": edit.old,
        "new": edit.new,
    }


def attribution_json(found: Attribution, session: SessionMeta | None) -> dict[str, Any]:
    return {
        "conversation_id": found.conversation_id,
        "file": found.file,
        "model": found.model,
        "timestamp": iso(found.timestamp),
        "line_match": found.line_match,
        "session": session_json(session) if session else None,
    }


def blame_json(blame: Blame) -> dict[str, Any]:
    out: dict[str, Any] = {
        "path": repeated(blame.path),
        "edits": [edit_json(e) for e in blame.edits],
        "discussed": [session_json(m) for m in blame.discussed],
    }
    if blame.line is not None:
        out["line"] = {
            "number": blame.line,
            "text": blame.line_text,
            "written_by": edit_json(blame.wrote_line) if blame.wrote_line else None,
            "cursor_attribution": [attribution_json(a, s) for a, s in blame.attributions],
        }
    return out


def _edit_lines(edit: Edit) -> list[str]:
    lines = [f"{when(edit.timestamp)}  {edit.tool}  {edit.title or edit.session_id}  (deja show {edit.session_id})"]
    if edit.old:
        lines += _indent(edit.old, "    - ")
    if edit.new:
        lines += _indent(edit.new, "    + ")
    return lines


def _line_author(blame: Blame) -> list[str]:
    head = f"line {blame.line}: {_cut((blame.line_text or '').strip(), 120)}"
    cursor = [(a, s) for a, s in blame.attributions if a.line_match]
    if cursor:
        found, session = cursor[0]
        named = f"{session.title or session.asked} (deja show {session.id})" if session else found.conversation_id
        return [head, f"written by {named}, according to Cursor's AI attribution ({found.model or 'model unknown'})"]
    if blame.wrote_line:
        edit = blame.wrote_line
        return [
            head,
            f"written by {edit.title or edit.session_id} (deja show {edit.session_id}), {when(edit.timestamp)}",
        ]
    writers = [f"{s.title or s.asked} (deja show {s.id})" for _, s in blame.attributions if s is not None]
    if writers:
        return [
            head,
            "no chat's edit holds this line; Cursor says AI code in this file came from: " + "; ".join(writers[:3]),
        ]
    return [head, "no chat deja knows wrote this line"]


def blame_text(blame: Blame) -> str:
    lines = _line_author(blame) + [""] if blame.line is not None else []
    if blame.edits:
        lines.append(f"{len(blame.edits)} edit{'s' if len(blame.edits) != 1 else ''} of {blame.path}, newest first:")
        for edit in blame.edits:
            lines += _edit_lines(edit)
    else:
        lines.append(f"no session edited {echoed(blame.path, PATH_CHARS)}")
    if blame.discussed:
        lines += ["", "also discussed in:"]
        lines += [f"  {when(m.updated)}  {m.title or m.asked}  (deja show {m.id})" for m in blame.discussed]
    return "\n".join(lines)


# --------------------------------------------------------------------------- files


def files_json(query: str, uses: list[FileUse], project: str = "") -> dict[str, Any]:
    """The files as ``files_text`` lists them, and the project they are one's (null: every project's, as
    ``--all-projects``), which a program reading it could not tell apart (trial46 F8)."""
    return {
        "query": repeated(query),
        "project": project or None,
        "files": [
            {"path": u.path, "edits": u.edits, "reads": u.reads, "sessions": u.sessions, "last": iso(u.last)}
            for u in uses
        ],
    }


def files_text(query: str, uses: list[FileUse], project: str = "") -> str:
    """The files, each with its edits (and reads where any file listed was read: an editor history of code blocks
    records no read, and printed ``0 reads`` on every line: trial43 F11); ``project``, when the answer is one
    project's, is named, as ``how`` names it."""
    where = f" in {project}" if project else ""
    if not uses:
        return f"no session about {echoed(query)!r}{where} touched a file"
    lines = [f"files the work on {echoed(query)!r} touched{where}, {_files_order(query, uses)}:"]
    any_read = any(use.reads for use in uses)
    for use in uses:
        counts = f"{use.edits} edit{'s' if use.edits != 1 else ''}"
        counts += f", {use.reads} read{'s' if use.reads != 1 else ''}" if any_read else ""
        lines.append(
            f"  {use.path}  ({counts} in {len(use.sessions)} session{'s' if len(use.sessions) != 1 else ''}, last {when(use.last)})"
        )
    return "\n".join(lines)


def _files_order(query: str, uses: list[FileUse]) -> str:
    """The order ``work.topic_files`` listed ``uses`` in, in words: the file named first, then those of the chats
    holding more of the words, then most edited; each part said only where it ordered them (review50c L1: "most
    edited first" headed a 1-edit file listed above a 3-edit one)."""
    named = asks_for_file(query, uses[0].path)
    by_words = len({use.words_held for use in (uses[1:] if named else uses)}) > 1
    if named:
        return f"the one named first, then {'those of chats holding more of the words, then ' if by_words else ''}most edited"
    return "those of chats holding more of the words first, then most edited" if by_words else "most edited first"


# --------------------------------------------------------------------------- fix


def step_json(step: Step) -> dict[str, Any]:
    return {"command": step.command, "exit_code": step.exit_code, "destructive": step.destructive}


def fix_json(error: str, history: ErrorHistory) -> dict[str, Any]:
    fixes = history.fixes
    return {
        "error": repeated(error),
        "sessions": history.sessions,
        "occurrences": [
            {
                "session": session_json(f.session),
                "timestamp": iso(f.timestamp),
                "error": f.error,
                "steps": [step_json(s) for s in f.steps],
                "resolved_by": f.resolved_by,
                "fixed_by": fixed_by(f),
                "flaky": bare_retry(f),
                "rerun_differs": rerun_differs(f),
                "edited": f.edited,
                "answer": f.answer,
                "mentioned": f.mentioned,
                "command": f.command,
            }
            for f in fixes
        ],
    }


def _step_line(step: Step, command_chars: int | None) -> str:
    status = "ok" if step.exit_code == 0 else f"exit {step.exit_code}" if step.exit_code is not None else "?"
    warning = "  [destructive: history only, not a fix]" if step.destructive else ""
    return f"    $ {command_shown(step.command, command_chars)}  ({status}){warning}"


def fix_text(error: str, history: ErrorHistory, command_chars: int | None = None) -> str:
    """The sessions the error came up in, newest first, with what ran after it; each command whole, or cut to
    ``command_chars`` (``command_shown``)."""
    fixes, count = history.fixes, history.sessions
    if not fixes:
        return f"this error has not come up in a past session: {echoed(error.strip(), ERROR_CHARS)}"
    if fixes[0].mentioned:
        return _mentions_text(history, command_chars)
    shown = "newest first" if count == len(fixes) else f"the newest {len(fixes)}"
    lines = [f"this error came up in {count} past session{'s' if count != 1 else ''}, {shown}:"]
    for fix in fixes:
        meta = fix.session
        lines.append(_fix_session_line(fix))
        if fix.error:
            lines.append(f"  error: {_cut(fix.error, 200)}")
        steps = fixed_by(fix)
        if bare_retry(fix):
            lines.append(f"  passed when {RERUN_SAME}")
        elif rerun_differs(fix):
            rerun = command_shown(fix.resolved_by, command_chars)
            lines.append(f"  passed when {RERUN_OTHER}: {rerun}")
        elif steps:
            lines.append(f"  fixed by: {', then '.join(command_shown(step, command_chars) for step in steps)}")
        elif fix.resolved_by and fix.answer:
            lines.append(f"  what followed: {fix.answer}")
        elif not fix.resolved_by:
            lines.append(f"  {not_rerun(fix.answer)}")
        if fix.edited:  # (named from the project, as "fixed by" names them: review40b L3)
            named = [in_project(path, meta.project_dir) for path in fix.edited[:5]]
            lines.append(
                f"  edited: {', '.join(named)}" + (f" and {len(fix.edited) - 5} more" if len(fix.edited) > 5 else "")
            )
        if fix.steps:
            lines.append("  ran:")
            lines += [_step_line(s, command_chars) for s in fix.steps[:8]]
    return "\n".join(lines)


def _fix_session_line(fix: Fix) -> str:
    """A session's heading in ``deja fix``: when the error came up in it (else when it was last updated), its title,
    and how to read it, one form for a failed run and for a mention."""
    meta = fix.session
    return f"{when(fix.timestamp or meta.updated)}  {meta.title or meta.asked}  (deja show {meta.id})"


def _mentions_text(history: ErrorHistory, command_chars: int | None = None) -> str:
    """Sessions whose messages hold the error (pasted, quoted), or whose commands printed it and did not fail
    (``kubectl logs … | grep jwt``), though no failed command printed it, likeliest to tell the fix first
    (``work._likeliest_first``): the answer that closed the turn is shown as what was answered, never as a fix
    (nothing ran that says it worked)."""
    fixes, count = history.fixes, history.sessions
    shown = "likeliest fix first" if count == len(fixes) else f"the {len(fixes)} likeliest to hold the fix"
    plural = "s" if count != 1 else ""
    how = "written or printed" if any(fix.command for fix in fixes) else "written"
    lines = [f"no failed command printed this error; it was {how} in {count} past session{plural}, {shown}:"]
    for fix in fixes:
        lines.append(_fix_session_line(fix))
        if fix.command:
            lines.append(f"  printed by: {command_shown(fix.command, command_chars)}")
        lines.append(f"  {'output' if fix.command else 'said'}: {_cut(fix.error, 200)}")
        if fix.answer:
            lines.append(f"  answered after it: {fix.answer}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- how


def how_json(words: str, runs: list[Invocation], more: int, left_out: list[str]) -> dict[str, Any]:
    """The runs as ``deja how --json`` gives them; ``more``: how many older ones the answer left out; ``left_out``:
    the words of the query no run had with the others, which the runs listed need not hold (the text's first line
    names them: an agent reading the JSON alone took the runs for the whole query's, review50c M1)."""
    return {
        "query": repeated(words),
        "left_out": [repeated(word) for word in left_out],
        "invocations": [
            {
                "command": r.command,
                "exit_code": r.exit_code,
                "timestamp": iso(r.timestamp),
                "session_id": r.session_id,
                "project": r.project,
                "cwd": r.cwd,
            }
            for r in runs
        ],
        "more": more,
    }


def how_text(
    words: str,
    runs: list[Invocation],
    left_out: list[str],
    where: str,
    folder: str = "",
    command_chars: int | None = None,
) -> str:
    """The runs, newest first, found without the words ``left_out`` (``work.Runs``); ``where`` says where they were
    looked for (``in FOLDER`` or on this machine), and a run that ran in another folder than ``folder`` says which.
    Each command is whole, or cut to ``command_chars`` (``command_shown``)."""
    if not runs:
        return f"no command with {echoed(words)!r} ran {where}"
    lines = [_how_header(words, left_out, where)]
    several = len({run.project for run in runs}) > 1  # then each run says which project's it was
    statuses = [_run_status(run.exit_code) for run in runs]
    width = max(map(len, statuses))  # (the commands line up whatever the widest status: `exit 255`, trial47 F7)
    for run, status in zip(runs, statuses, strict=True):
        project = f"{run.project or 'no project'}: " if several else ""
        lines.append(
            f"  {when(run.timestamp)}  {status:<{width}}  {project}$ {command_shown(run.command, command_chars)}  "
            f"({elsewhere(run.cwd, folder)}deja show {run.session_id})"
        )
    return "\n".join(lines)


def _how_header(words: str, left_out: list[str], where: str) -> str:
    """``how 'WORDS' ran WHERE, newest first:``, naming the words ``work.words_run`` left out when no run had them
    all (``deja how run the tests`` lists the runs of ``tests``, and says so, trial50 F4): its answer, not a test of
    its own (review50c L2: a substring test here named ``the`` matched, inside ``test_other.py``)."""
    matched, dropped = [], list(left_out)
    for word in words.split():  # (those left out come in the order given, each before any kept word alike)
        if dropped and word == dropped[0]:
            dropped.pop(0)
        else:
            matched.append(word)
    said = ", ".join(repr(echoed(word)) for word in left_out)
    left = f" ({said} left out: no run has every word)" if left_out else ""
    return f"how {echoed(' '.join(matched))!r} ran {where}, newest first{left}:"


def _run_status(exit_code: int | None) -> str:
    """A run's outcome as ``deja how`` lists it: ``ok``, ``exit 2``, ``exit ?`` (no exit code recorded)."""
    return "ok" if exit_code == 0 else f"exit {exit_code}" if exit_code is not None else "exit ?"


def elsewhere(ran_in: str, folder: str) -> str:
    """``in PATH, `` when ``ran_in`` is not ``folder`` (``keys.seen_from``), else ""."""
    path = seen_from(ran_in, folder)
    return f"in {path}, " if path else ""


# --------------------------------------------------------------------------- wip and ctx


def digest_json(d: Digest) -> dict[str, Any]:
    return {
        "session": session_json(d.session),
        "goal": d.goal,
        "settled": d.settled,
        "files": d.files,
        "commands": [step_json(s) for s in d.commands],
        "last_command": step_json(d.last_command) if d.last_command else None,
        "stopped": d.stopped,
        "failed_last": d.failed_last,
        "task": d.task,
        "resumed": iso(d.resumed),
        "newer": [session_json(m) for m in d.newer],
        "reverted_later": {"session": session_json(d.reverted[0]), "says": d.reverted[1]} if d.reverted else None,
    }


def wip_text(d: Digest, where: str = "here", folder: str = "", command_chars: int | None = None) -> str:
    """The digest of the last session ``where`` it ran ("here", or "in FOLDER" for a folder above the one asked
    about, which a person would not call here); a session that ran in another folder than ``folder`` (a package,
    below it) says which: its files are named from there. Its last command is whole, or cut to ``command_chars``."""
    meta = d.session
    lines = [
        f"last {'unfinished ' if d.newer else ''}session {where}: {meta.title or meta.asked}  "
        f"({elsewhere(meta.project_dir, folder)}{when(meta.updated)}, deja show {meta.id})",
        f"task: {own_words(d.task, 300)}{began(d, 100, '  ')}",
    ]
    if not meta.messages and meta.source == "cursor-ide":
        lines.append(KEPT_ELSEWHERE)
    if d.failed_last:
        lines.append(d.failed_last)
    elif d.settled:
        lines.append(f"settled: {d.settled[-1]}")
    if d.files:
        lines.append(f"files in flight: {', '.join(d.files)}")
    if d.last_command:
        step = d.last_command
        outcome = "failed" if step.exit_code else "succeeded" if step.exit_code == 0 else "exit status not recorded"
        lines.append(  # (no status: "ended unknown" read as a riddle: trial23 F7.2)
            f"last command: {command_shown(step.command, command_chars)} ({outcome}{f', exit {step.exit_code}' if step.exit_code else ''})"
        )
    lines += [
        f"newer, a settled question: {m.title or m.asked}  ({when(m.updated)}, deja show {m.id})" for m in d.newer
    ]
    return "\n".join(lines)


def began(d: Digest, chars: int, gap: str) -> str:
    """``(chat began DATE: FIRST ASK)`` after ``gap`` when the chat was resumed (``d.task`` is a later ask than
    the first), else ""."""
    return f"{gap}{chat_began(d.session.started, d.goal, chars)}" if d.resumed else ""


def ctx_markdown(d: Digest, budget: int) -> str:
    """A compact Markdown digest of the session, cut to ``budget`` UTF-8 bytes at a line boundary."""
    meta = d.session
    parts = [f"# Context from a past session: {meta.title or meta.asked}", ""]
    parts += [f"Session `{meta.id}` ({meta.project or 'no project'}, {when(meta.updated)}).", ""]
    if d.reverted:  # (read before taking its fix: trial48b F4)
        later, says = d.reverted
        parts += [
            f"**Reverted later?** A later session of this project, {later.title or later.asked} "
            f"({when(later.updated)}, `deja show {later.id}`), says: {says}",
            "",
        ]
    parts += ["## Goal", own_words(d.task, 800) + began(d, 400, "\n\n"), ""]  # (as wip: trial46 F7)
    if d.settled:
        parts += ["## Decisions and findings", *[f"- {s}" for s in d.settled], ""]
    if d.files:
        parts += ["## Files", *[f"- `{f}`" for f in d.files], ""]
    if d.commands:
        parts += [
            "## Commands that mattered",
            *[f"- `{command_shown(s.command, COMMAND_CHARS)}`{_outcome(s.exit_code)}" for s in d.commands],
            "",
        ]
    if d.failed_last:
        before = f" Its last answer, written before that: {d.stopped}" if d.stopped else ""
        parts += ["## Where it stopped", f"It {d.failed_last}.{before}", ""]
    elif d.stopped and not any(d.stopped in line for line in d.settled):
        parts += ["## Where it stopped", d.stopped, ""]  # (not the last finding again: review44b M4)
    return "\n".join(lines_within(parts, budget)).rstrip() + "\n"


def _outcome(exit_code: int | None) -> str:
    """How a command ended, as a digest lists it: `` → ok``, `` → exit N``, or nothing when no exit code was kept."""
    if exit_code is None:
        return ""
    return " → ok" if exit_code == 0 else f" → exit {exit_code}"


def handoff_line(d: Digest, budget: int) -> str:
    """The shell line that starts a new cursor-agent chat in the session's folder, primed with its digest."""
    prompt = "Continue this earlier work.\n\n" + ctx_markdown(d, budget)  # (its heading starts a line of its own)
    agent = f"cursor-agent {shlex.quote(prompt)}"
    directory = d.session.project_dir
    return f"cd {shlex.quote(directory)} && {agent}" if directory else agent
