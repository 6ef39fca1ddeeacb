"""The work-history verbs of the CLI: blame, files, fix, how, wip, export, ctx and handoff.

Each answers from the index (``core/work.py``) in text or, with ``--json``, in
the shape ``work_views`` defines, which the MCP server's ``work`` tool shares.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..core.keys import readable_path
from ..core.library import NotFound, find_session, newest_sessions
from ..core.redaction import echoed
from .fastpath import echo
from .options import AllProjectsFlag, JsonFlag, ProjectOption

if TYPE_CHECKING:
    from ..core.index import Index, Segment, SessionMeta
    from ..core.work import Digest, Invocation

#: ``deja ctx`` keeps its digest within this many UTF-8 bytes unless told otherwise.
CTX_BYTES = 4000

Words = Annotated[list[str], typer.Argument(metavar="WORDS", help="What the work was about, in a few words.")]


def _session_of(index: Index, session_id: str) -> tuple[Segment, SessionMeta]:
    from .cli import fail

    try:
        return find_session(index, session_id)
    except NotFound as exc:
        fail(str(exc))


def blame_command(
    target: Annotated[str, typer.Argument(metavar="PATH[:LINE]", help="A file, or a file and a line number.")],
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=200, help="How many edits to show.")] = 20,
    json: JsonFlag = False,
) -> None:
    """Which sessions edited or discussed a file, newest first; with :LINE, which chat wrote that line."""
    from ..core import paths
    from ..core.work import BadLocation, blame, split_location
    from .cli import emit_json, fail
    from .fastpath import open_index, said_empty
    from .work_views import blame_json, blame_text

    try:
        split_location(target)  # a usage error is said before the index is opened
        index = open_index()
        if said_empty(index, json):
            return
        found = blame(index, target, paths.ai_tracking_db(), limit)
    except BadLocation as exc:
        fail(str(exc), code=2)
    except LookupError as exc:
        fail(str(exc))
    emit_json(blame_json(found)) if json else echo(blame_text(found))


def files_command(
    words: Words, project: ProjectOption = None, all_projects: AllProjectsFlag = False, json: JsonFlag = False
) -> None:
    """Which files the work on a topic touched: this project's (as for `deja how`), or every project's."""
    from ..core.redaction import PATH_CHARS, echoed
    from ..core.work import asks_for_file, topic_files
    from .cli import emit_json, fail
    from .fastpath import check_project, chosen_project, open_index, said_empty
    from .work_views import files_json, files_text

    query = _words_given(words, "deja files stripe webhooks")
    check_project(project)
    if project is not None and all_projects:
        fail("give --project or --all-projects, not both", code=2)
    index = open_index()
    project = chosen_project(index, project)
    if said_empty(index, json):
        return
    here_only = None
    if project is None and not all_projects:
        project, here_only = _project_here(index)
    uses = topic_files(index, query, project, sessions=here_only)
    if json:
        emit_json(files_json(query, uses, project or ""))
        return
    echo(files_text(query, uses, project or ""))
    if project is None or all_projects or any(asks_for_file(query, use.path) for use in uses):
        return
    elsewhere = topic_files(index, query, None, limit=1)
    if elsewhere and asks_for_file(query, elsewhere[0].path):  # (the file named, in another project: trial48b F10)
        echo(f"{echoed(elsewhere[0].path, PATH_CHARS)} is another project's: add --all-projects to see it")
    elif not uses and elsewhere:
        echo("the work on it touched files in other projects: add --all-projects to see them")


def _project_here(index: Index) -> tuple[str | None, Callable[[SessionMeta], bool] | None]:
    """The project ``deja files`` answers for unless told: the current folder's, and which of its sessions ran here,
    as ``deja how`` counts them (``work.how_scope``); every project (None) from a folder in none. Every project's
    answer, most edited first, put a file of an unrelated project that one loose word matched above this one's
    (trial45 F2)."""
    from ..core.work import how_scope

    here = str(Path(readable_path(os.getcwd())))
    if not index.nearest_project(here):
        return None, None
    return how_scope(index, here)


def fix_command(
    error: Annotated[list[str], typer.Argument(metavar="ERROR", help="The error text, or - to read it from stdin.")],
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=50, help="How many past sessions.")] = 5,
    json: JsonFlag = False,
) -> None:
    """Past sessions where the same error came up, and what ran or changed after it until it stopped."""
    from ..core.redaction import as_indexed
    from ..core.work import error_history
    from .cli import emit_json, fail
    from .fastpath import open_index, said_empty
    from .work_views import fix_json, fix_text

    text = sys.stdin.read() if error == ["-"] else " ".join(error)
    if not text.strip():
        fail('no error text: give the error, e.g. `deja fix "ModuleNotFoundError: No module named api"`', code=2)
    text = as_indexed(text)  # a secret in it: looked up as the index holds it, and never printed
    index = open_index()
    if said_empty(index, json):
        return
    history = error_history(index, text, limit=limit)
    emit_json(fix_json(text, history)) if json else echo(fix_text(text, history))


def _words_given(words: list[str], example: str) -> str:
    """The words as one query; only blanks (``deja how ""``) are a usage error, as for ``deja search``."""
    from .cli import fail

    query = " ".join(words).strip()
    if not query:
        fail(f"nothing to look for: give some words, e.g. `{example}`", code=2)
    return query


def how_command(
    words: Words,
    all_projects: AllProjectsFlag = False,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=200, help="How many runs.")] = 20,
    json: JsonFlag = False,
) -> None:
    """The real invocations of a tool or task on this machine, with flags and exit codes, newest first."""
    from ..core.redaction import as_indexed
    from ..core.work import how_scope, invocations
    from .cli import emit_json
    from .fastpath import open_index, said_empty
    from .views import more_line
    from .work_views import how_json, how_text

    query = as_indexed(_words_given(words, "deja how alembic"))
    index = open_index()
    if said_empty(index, json):
        return
    here = Path(readable_path(os.getcwd()))
    project, here_only = (None, None) if all_projects else how_scope(index, str(here))
    found = invocations(index, query, project, None, sessions=here_only)
    runs, more = found.runs[:limit], max(len(found.runs) - limit, 0)
    where = "on this machine" if project is None else f"in {project}"
    if json:
        emit_json(how_json(query, runs, more, found.left_out))
        return
    echo(how_text(query, runs, found.left_out, where, project or ""))
    if more:
        echo(more_line(more))
    if here_only and (others := _ran_beside(index, query, project, runs)):
        echo(f"it also ran in {others}, beside this folder: add --all-projects to see those runs")
    elif not runs and project is not None:
        echo(_way_on(index, query))


def _way_on(index: Index, query: str) -> str:
    """What to try when nothing ran here: ``--all-projects`` when it ran elsewhere, else a search of what the chats
    say (an editor chat runs no command; trial44b F8: at a folder of no project the answer gave no way on), as a
    line that runs as printed: ``--`` before words such as ``--lf``, which ``deja search`` would read as its options
    (review45a L1)."""
    from ..core.work import invocations

    if invocations(index, query, None, 1).runs:
        return "it ran in other projects: add --all-projects to see them"
    words = query.split()
    ends_options = ["--"] if any(word.startswith("-") for word in words) else []
    search = echoed(shlex.join(["deja", "search", *ends_options, *words]))
    return f"it ran in no other project either: `{search}` looks for it in what the chats say"


def _ran_beside(index: Index, query: str, project: str | None, shown: list[Invocation]) -> str:
    """Where the project's runs not counted here ran (a sibling's sessions' folders, the first three), as the Shell
    pre-hook says where others ran; "" when there are none."""
    from ..core.work import invocations

    seen = {(run.session_id, run.command) for run in shown}
    other = [run for run in invocations(index, query, project, 50).runs if (run.session_id, run.command) not in seen]
    folders = list(dict.fromkeys(run.cwd or run.project for run in other))
    return ", ".join(folders[:3]) + (" and others" if len(folders) > 3 else "")


def wip_command(
    directory: Annotated[str | None, typer.Argument(metavar="[DIR]", help="A project folder (default: here).")] = None,
    json: JsonFlag = False,
) -> None:
    """What the last session in this directory was doing: its task, what it settled, files, last command."""
    from ..core.keys import drive_path
    from ..core.library import wip_session
    from ..core.work import digest
    from .cli import emit_json
    from .fastpath import open_index, project_folder
    from .work_views import digest_json, wip_text

    index = open_index()
    # (a Windows drive's folder, a database written there and opened here, is that folder: review45b M2)
    drive = project_folder(directory) if directory and drive_path(directory) else None
    asked = drive or str(Path(directory or os.getcwd()).expanduser().resolve())
    folder = readable_path(asked)
    project, below = _wip_project(index, folder, asked)
    chosen = wip_session(index, project, below)
    assert chosen is not None  # (wip_project found the project by its sessions)
    segment, meta = find_session(index, chosen[0].id)
    summary = digest(segment, meta)
    summary.newer = chosen[1]
    emit_json(digest_json(summary)) if json else echo(
        wip_text(summary, "here" if project == folder else f"in {project}", project)
    )


def _wip_project(index: Index, folder: str, asked: str) -> tuple[str, bool]:
    """The project ``deja wip`` means by ``folder`` and whether the sessions below it are its own
    (``library.wip_project``; ``asked`` is where the disk has it), else the one line that says why there is none
    (``library.no_wip``): the root folder is a usage error (exit 2), as ``--project /`` is."""
    from ..core.library import NO_FOLDER, ROOT_FOLDER, no_wip, wip_project
    from .cli import fail
    from .fastpath import refuse_empty

    project, why, below = wip_project(index, folder, asked)
    if why not in (ROOT_FOLDER, NO_FOLDER):  # (a usage error and a missing folder are said first: review47f L3)
        refuse_empty(index)
    if not project:
        fail(no_wip(index, folder, why), code=2 if why == ROOT_FOLDER else 1)
    return project, below


def ctx_command(
    query: Annotated[
        list[str], typer.Argument(metavar="ID|WORDS", help="A session id or prefix, or words to find one.")
    ],
    budget: Annotated[int, typer.Option("--bytes", min=500, max=100_000, help="The digest's size limit.")] = CTX_BYTES,
    json: JsonFlag = False,
) -> None:
    """A compact Markdown digest of one session (goal, decisions, files, commands, where it stopped)."""
    from .cli import emit_json
    from .work_views import ctx_markdown, digest_json

    summary = _digest_of(query)
    emit_json(digest_json(summary)) if json else echo(ctx_markdown(summary, budget), nl=False)


def _digest_of(query: list[str]) -> Digest:
    """The digest of the session ``ctx`` and ``handoff`` are asked for, by id or by words; one chosen by words names
    the others that match next on stderr, so a person can pick one of them by its id."""
    from ..core.library import session_digest
    from .cli import fail
    from .fastpath import open_index, refuse_empty

    asked = " ".join(query).strip()
    if not asked:
        fail("give a session id or a few words", code=2)
    index = open_index()
    refuse_empty(index)
    try:
        summary, others = session_digest(index, asked)
    except LookupError as exc:
        fail(str(exc))
    if others:
        echo(f"deja: also matching: {', '.join(others)}; give an id to take one of them", err=True)
    return summary


def handoff_command(
    query: Annotated[
        list[str], typer.Argument(metavar="ID|WORDS", help="A session id or prefix, or words to find one.")
    ],
    budget: Annotated[int, typer.Option("--bytes", min=500, max=20_000, help="The digest's size limit.")] = CTX_BYTES,
    json: JsonFlag = False,
) -> None:
    """Print the cursor-agent command line that starts a new chat with a session's digest.

    The line changes into the session's folder first, so a folder that is gone is refused, as `deja resume` refuses
    it: a pasted line would fail there. A session with no folder gets the bare line and, on stderr, where to run it.
    """
    from .cli import emit_json, fail
    from .work_views import handoff_line

    summary = _digest_of(query)
    meta = summary.session
    if meta.project_dir and not os.path.isdir(meta.project_dir):
        fail(
            f"{meta.id} ran in {meta.project_dir}, which is gone; in the folder the work goes on in, "
            f'`cursor-agent "$(deja ctx {meta.id})"` starts a chat with its digest'
        )
    line = handoff_line(summary, budget)
    if json:
        emit_json({"session_id": meta.id, "directory": meta.project_dir or None, "command": line})
        return
    echo(line)
    if not meta.project_dir:
        echo(f"deja: {meta.id} ran in no project folder: run this line in the folder the work goes on in", err=True)


def export_command(
    session_id: Annotated[str | None, typer.Argument(metavar="ID", help="A session id or prefix.")] = None,
    fmt: Annotated[str | None, typer.Option("--format", "-f", help="md (the default), json or html.")] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write here instead of stdout (- is stdout).")
    ] = None,
    project: Annotated[
        str | None, typer.Option("--project", "-p", help="Export every session of a project to the -o folder.")
    ] = None,
    json: Annotated[bool, typer.Option("--json", help="The same as --format json.")] = False,
) -> None:
    """One session as Markdown, JSON or a self-contained HTML page; --project writes a folder of them."""
    from .cli import fail
    from .export import FORMATS, file_name, render, write_text
    from .fastpath import check_project, chosen_project, open_index, refuse_empty

    if json and fmt not in (None, "json"):
        fail(f"--json is --format json: give one of --json and --format {fmt}", code=2)
    fmt = "json" if json else fmt or "md"
    if fmt not in FORMATS:
        fail(f"unknown format {fmt!r}: use md, json or html", code=2)
    if session_id is None and project is None:
        fail("give the session ID to export (or --project P -o FOLDER for a whole project)", code=2)
    if session_id is not None and project is not None:
        fail("give a session ID or --project P, not both", code=2)
    check_project(project)
    if output is not None and str(output) == "-":
        output = None  # ``-o -`` is stdout, as for other tools that write files
    index = open_index()
    if project is not None:
        _export_project(index, chosen_project(index, project) or project, fmt, output)
        return
    refuse_empty(index, session_id)
    segment, meta = _session_of(index, session_id or "")
    text = render(meta, segment.messages(meta), fmt)
    if output is None:
        echo(text, nl=False)
    else:
        target = _output_file(output, file_name(meta, fmt))
        write_text(target, text)
        echo(f"wrote {target}", err=True)


def _output_file(output: Path, name: str) -> Path:
    """Where ``-o OUTPUT`` puts one session: ``OUTPUT/NAME`` for an existing folder, else OUTPUT itself.

    A missing parent folder is refused rather than created, so a mistyped path makes no folders.
    """

    if output.is_dir():
        return output / name
    _refuse_missing_parent(output)
    return output


def _refuse_missing_parent(output: Path) -> None:
    """The folder ``-o`` writes in must exist: a mistyped path makes no folders (and a file is not a folder)."""
    from .cli import fail

    if output.parent.exists() and not output.parent.is_dir():
        fail(f"{output.parent} is a file, not a folder; give -o a path in an existing folder")
    if not output.parent.is_dir():
        fail(f"{output.parent}: no such folder; create it first or give -o an existing folder")


def _output_folder(output: Path) -> Path:
    """The ``--project`` folder: made if missing, but only inside a folder that exists."""
    from ..core.private import private_dir
    from .cli import fail

    if output.exists() and not output.is_dir():
        fail(f"{output} is a file; --project writes a folder of sessions: give -o a folder", code=2)
    _refuse_missing_parent(output)
    private_dir(output)  # (a new folder of private history is 0700, as its files are 0600: ``export.write_text``)
    return output


def _export_project(index: Index, project: str, fmt: str, output: Path | None) -> None:
    from .cli import fail
    from .export import file_name, index_page, index_page_name, render, replaceable, write_text
    from .fastpath import plural

    if output is None:
        fail("--project writes one file per session: give the folder with -o FOLDER", code=2)
    chosen = newest_sessions(index, project=project, limit=100_000)
    output = _output_folder(output)
    label = _project_label(index, project, chosen)
    page, head = index_page_name(fmt)
    names = {meta.id: file_name(meta, fmt) for meta in chosen}
    # (before any file is written: a refusal changes nothing)
    if not replaceable(output / page, head, fmt, set(names.values()), lambda id: _is_session(index, id)):
        fail(f"{output / page} is not an index deja wrote for {label}: move it aside, or give -o another folder")
    written = []
    for meta in chosen:
        segment, found = find_session(index, meta.id)
        write_text(output / names[meta.id], render(found, segment.messages(found), fmt))
        written.append((found, names[meta.id]))
    write_text(output / page, index_page(written, fmt, f"deja: {label}")[1])
    echo(f"wrote {plural(len(written), 'session')} and {page} to {output}", err=True)  # (a note: trial23 F7.4)


def _is_session(index: Index, session_id: str) -> bool:
    """Whether the index holds a live session of exactly this id (not one it is the prefix of)."""
    return any(meta.id == session_id for _, _, meta in index.find(session_id))


def _project_label(index: Index, project: str, chosen: list[SessionMeta]) -> str:
    """The project as an export's index page titles it, and as ``deja stats`` and listings name it: its folder's
    name in the folder's own case, however ``--project`` gave it (``.``, a path, a name in other capitals), and as
    much of its path as tells it from another project of that name (``a/api``, ``work/api``: review59a F1, F2); a
    project with no folder here by its name as the index holds it. (What tells deja's page of this project from
    another's is the sessions it lists: ``export.replaceable``.)"""
    from ..core.keys import project_spelling
    from ..core.project_names import namesakes
    from .fastpath import project_folder
    from .views import shown_projects

    folder = project_folder(project)
    if folder is None:  # a name: the one folder its sessions ran in, or the name as the index holds it
        named = [meta for meta in chosen if meta.project.lower() == project.lower()]
        folders = {meta.project_dir for meta in named if meta.project_dir}
        folder = folders.pop() if len(folders) == 1 else None
        if folder is None:  # (a remote window's ``infra (devbox)``, typed in other capitals: review59b F4)
            return named[0].project if named else project
    key = project_spelling(folder)
    own = next((meta for meta in chosen if meta.project_dir and project_spelling(meta.project_dir) == key), None)
    if own is None:  # (a folder whose sessions all ran in folders below it: a monorepo's root)
        return os.path.basename(folder.rstrip("/")) or folder
    return shown_projects([own], namesakes(index, [own.project]))[0]


#: The verbs by command name, in the order ``deja --help`` lists them.
VERBS: dict[str, Callable[..., None]] = {
    "blame": blame_command,
    "files": files_command,
    "fix": fix_command,
    "how": how_command,
    "wip": wip_command,
    "ctx": ctx_command,
    "handoff": handoff_command,
    "export": export_command,
}


def register(app: typer.Typer) -> None:
    """Add the work verbs to the ``deja`` command line."""
    for name, command in VERBS.items():
        app.command(name)(command)
