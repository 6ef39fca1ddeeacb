"""The ``deja`` command line for people: index, search, sessions, show, stats and the rest.

Hook commands (``deja hook-*``) never reach this module: ``entry.main`` sends
them to ``deja.hooks`` before typer is imported.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from typer.core import TyperCommand, TyperGroup

from ..core import paths
from ..core.index import Index, SessionMeta
from ..core.library import NotFound, find_session, newest_sessions, sessions_left_out
from ..core.redaction import PATH_CHARS, echoed
from .about import version
from .fastpath import (
    SHOW_MOST,
    SearchArgs,
    check_project,
    check_source,
    chosen_project,
    echo,
    emit_json,
    filter_flags,
    guarded,
    index_command,
    none_listed,
    nothing_indexed,
    noun_for,
    open_index,
    plural,
    project_folder,
    quote,
    refuse_empty,
    say,
    search_command,
    since_option,
    the_filters,
    until_option,
)
from .options import JsonFlag, ProjectOption, SinceOption, SourceOption, UntilOption
from .verbs import register as register_work_verbs
from .views import (
    NO_PROJECT,
    fit,
    more_line,
    named,
    padded,
    session_json,
    session_rows,
    show_json,
    show_text,
    terminal_width,
    text_columns,
    window_note,
)

if TYPE_CHECKING:  # installers load only for the commands that write files
    from typer._click import Context, HelpFormatter, Parameter
    from typer.core import TyperOption

    from ..installers.files import Change


def _show_help(ctx: Context, param: Parameter, value: bool) -> None:
    """``--help`` printed as every answer is (``echo``): click printed it itself, and a standard output that could
    not take it said ``OSError: [Errno 28] …`` where every other command says so in one line (review19 R19-4)."""
    if value and not ctx.resilient_parsing:
        echo(ctx.get_help())
        ctx.exit()


def _echoed(option: TyperOption | None) -> TyperOption | None:
    """click's help option, printing through ``_show_help``."""
    if option is not None:
        option.callback = _show_help
    return option


class Group(TyperGroup):
    """deja and its command groups, whose ``--help`` is printed as every answer is (``_show_help``)."""

    def get_help_option(self, ctx: Context) -> TyperOption | None:
        return _echoed(super().get_help_option(ctx))

    def resolve_command(self, ctx: Context, args: list[str]) -> tuple[str | None, TyperCommand | None, list[str]]:
        """typer's, with a "did you mean" for a command typed in other case too: ``deja Search`` got one and
        ``deja SESSIONS`` (caps lock) none, as difflib tells case apart (trial43 F7)."""
        from difflib import get_close_matches

        from typer._click.exceptions import UsageError

        try:
            return super().resolve_command(ctx, args)  # type: ignore[return-value]
        except UsageError as error:
            meant = get_close_matches(args[0].lower(), self.commands, n=1) if args else []
            if meant and "Did you mean" not in error.message:
                error.message = f"{error.message.rstrip('.')}. Did you mean {meant[0]!r}?"
            raise


app = typer.Typer(
    name="deja",
    cls=Group,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help (click's): ID and WORDS as written, flags without a type; no boxes to wrap.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def fail(message: str, code: int = 1) -> NoReturn:
    say(message)
    raise typer.Exit(code)


class Command(TyperCommand):
    """A subcommand with plain help: arguments by name (``ID``, ``WORDS...``), values by name (``--limit N``).

    ``plain_help`` gives it to every command, however it was registered; its ``--help`` is printed as every
    answer is (``_show_help``).
    """

    def get_help_option(self, ctx: Context) -> TyperOption | None:
        return _echoed(super().get_help_option(ctx))

    def collect_usage_pieces(self, ctx: Context) -> list[str]:
        return [self.options_metavar or "", *map(_argument_name, _params(self, ctx, "argument"))]

    def format_options(self, ctx: Context, formatter: HelpFormatter) -> None:
        arguments = [(_argument_name(p), getattr(p, "help", None) or "") for p in _params(self, ctx, "argument")]
        options = [row for p in _params(self, ctx, "option") if (row := _option_row(p, ctx))]
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


def _params(command: TyperCommand, ctx: Context, kind: str) -> list[Parameter]:
    return [p for p in command.get_params(ctx) if p.param_type_name == kind and not getattr(p, "hidden", False)]


def _argument_name(param: Parameter) -> str:
    name = param.metavar or (param.name or "").upper()
    return f"{name}..." if param.nargs != 1 else name


def _option_row(param: Parameter, ctx: Context) -> tuple[str, str] | None:
    """``-n, --limit N`` and its help (defaults and ranges included); a flag is its names alone."""
    record = param.get_help_record(ctx)
    if record is None:
        return None
    names = ", ".join(sorted([*param.opts, *param.secondary_opts], key=lambda name: name.startswith("--")))
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return names, record[1]
    return f"{names} {param.metavar or (param.name or '').upper()}", record[1]


def plain_help(typer_app: typer.Typer) -> None:
    """Give every command registered so far plain help (``Command``); run once the last one is registered.

    A command that asked for a class of its own keeps it.
    """
    for info in typer_app.registered_commands:
        if info.cls in (None, TyperCommand):
            info.cls = Command


def _print_version(wanted: bool) -> None:
    if wanted:
        echo(f"deja {version()}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def main(
    ctx: typer.Context,
    show_version: Annotated[
        bool, typer.Option("--version", is_eager=True, callback=_print_version, help="Print deja's version and exit.")
    ] = False,
) -> None:
    """Memory for Cursor: search, show and resume your past Cursor sessions, and recall them in new ones."""
    if ctx.invoked_subcommand is None:
        echo(ctx.get_help())


@app.command("index")
def index_cli(
    full: Annotated[
        bool, typer.Option("--full", help="Read every chat again into a new index instead of refreshing.")
    ] = False,
    json: JsonFlag = False,
) -> None:
    """Build the index, or refresh it with what changed since the last run."""
    index_command(full=full, json=json)


@app.command("search")
def search_cli(
    words: Annotated[
        list[str],
        typer.Argument(metavar="WORDS", help="What to look for. Quote a phrase to match it exactly: '\"cache key\"'."),
    ],
    project: ProjectOption = None,
    source: SourceOption = None,
    since: SinceOption = None,
    until: UntilOption = None,
    limit: Annotated[
        int, typer.Option("--limit", "-n", metavar="N", min=1, max=200, help="How many sessions to show.")
    ] = 10,
    role: Annotated[
        str | None,
        typer.Option(
            "--role", metavar="ROLE", help="Only matches in: user, assistant, tool (output), command or edit."
        ),
    ] = None,
    pattern: Annotated[
        str | None,
        typer.Option("--re", metavar="PATTERN", help="Only sessions whose matching messages also match this regex."),
    ] = None,
    session: Annotated[
        str | None, typer.Option("--session", metavar="ID", help="Search inside this one session (id or prefix).")
    ] = None,
    json: JsonFlag = False,
) -> None:
    """Find the past sessions that match WORDS, best first."""
    search_command(SearchArgs(words, project, source, since, limit, role, pattern, session, json, until))


@app.command("sessions")
def sessions_command(
    project: ProjectOption = None,
    source: SourceOption = None,
    since: SinceOption = None,
    until: UntilOption = None,
    limit: Annotated[int, typer.Option("--limit", "-n", metavar="N", min=1, help="How many sessions to list.")] = 20,
    json: JsonFlag = False,
) -> None:
    """List sessions, newest first."""
    check_source(source)
    check_project(project)
    from datetime import UTC, datetime

    now = datetime.now(UTC)
    since_at = since_option(since, now=now)
    until_at = until_option(until, since_at, now)
    period = (since_at.timestamp() if since_at else 0.0, until_at.timestamp() if until_at else 0.0)
    index = open_index()
    meant = chosen_project(index, project)  # (the filter as the index reads it; messages name it as typed)
    chosen = newest_sessions(index, project=meant, source=source, limit=limit, since=period[0], until=period[1])
    full = len(chosen) == limit
    more = (
        sessions_left_out(index, limit, project=meant, source=source, since=period[0], until=period[1]) if full else 0
    )
    flags = filter_flags(project=project, source=source, since=since, until=until)
    why = "" if chosen else _no_sessions(index, flags)
    if json:  # (an empty listing's notice says why, as the text does: trial23 F5)
        emit_json({"sessions": [session_json(m) for m in chosen], "more": more, "notice": why})
    elif chosen:
        echo("\n".join(session_rows(index, chosen, terminal_width())))
        if more:
            echo(more_line(more))
    else:
        echo(why)


def _no_sessions(index: Index, flags: list[str]) -> str:
    """Why ``deja sessions`` listed none: the filters (``flags``, as typed) left none of the index's, or it has none;
    Failed when it holds some and none could be listed (a damaged file named by ``verify``, or files that disagree
    though each holds its checksum: a rebuild writes them anew, review51d F3)."""
    if index.session_count and flags:
        return f"No sessions with {' '.join(flags)}; drop {the_filters(flags)} to see the {index.session_count} in the index."
    return none_listed(index)  # (with no filter, only an empty or a damaged index lists none)


@app.command("show")
def show_command(
    session_id: Annotated[str, typer.Argument(metavar="ID", help="A session id, or a unique prefix of one.")],
    offset: Annotated[int, typer.Option("--offset", min=0, help="The first message to show (0 is the first).")] = 0,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=SHOW_MOST, help="How many messages to show.")] = 50,
    full: Annotated[bool, typer.Option("--full", help="Each tool result whole, not its head and tail.")] = False,
    json: JsonFlag = False,
) -> None:
    """Show one session: its messages in order (50 at a time), with tool calls and their results."""
    index = open_index()
    refuse_empty(index, session_id)
    try:
        segment, meta = find_session(index, session_id)
    except NotFound as exc:
        fail(str(exc))
    messages = segment.messages(meta)
    if offset and offset >= len(messages):
        fail(f"--offset {offset} is past the end: session {meta.id} has {len(messages)} messages", code=2)
    shown = messages[offset : offset + limit]
    if json:
        emit_json(show_json(meta, shown, offset, len(messages)))
    else:
        window = f" --offset {offset}" if offset else ""
        window += f" --limit {limit}" if limit != 50 else ""
        whole = None if full else f"`deja show {meta.id}{window} --full`"
        hint = f"`deja show {meta.id} --offset {{offset}}{' --full' if full else ''}`"
        echo(show_text(meta, shown, whole) + window_note(offset, len(shown), len(messages), hint))


@app.command("stats")
def stats_command(project: ProjectOption = None, json: JsonFlag = False) -> None:
    """How much history the index holds: sessions and messages per source and project, size and age."""
    check_project(project)
    index = open_index()
    meant = chosen_project(index, project)  # (as ``deja search`` reads it; its lines name it as typed)
    if meant:  # (one project's sessions, the folders below its own too, as the other verbs count them)
        metas = newest_sessions(index, project=meant, limit=max(index.session_count, 1))
        totals = len(metas), sum(meta.messages for meta in metas)
    else:
        metas, totals = [meta for _, _, meta in index.sessions()], (index.session_count, index.message_count)
    per_source, projects = _stats_rows(metas)
    size, built_at = index.size_bytes(), _iso_epoch(index.manifest.built_at)
    if json:
        emit_json(
            {
                "sessions": totals[0],
                "messages": totals[1],
                "sources": per_source,
                "projects": projects,
                "index_path": str(index.directory),
                "index_bytes": size,
                "built_at": built_at,
                "age_seconds": round(time.time() - index.manifest.built_at, 1),
            }
        )
        return
    of = f" in {echoed(project_folder(meant) or meant, PATH_CHARS)}" if meant else ""  # (`.`'s folder: review41a L3)
    echo(f"{plural(totals[0], 'session')}, {plural(totals[1], 'message')}{of}")
    if meant and len(projects) == 1:  # (its one row said the line above again: trial23 F7.7)
        projects = {}
    listed = [(named(name), row) for name, row in list(projects.items())[:STATS_PROJECTS]]
    name_width, source_width, digits = max([24, *(text_columns(name) for name, _ in listed)]), 12, _STATS_DIGITS
    if (width := terminal_width()) is not None:  # (a name too long for the terminal is cut, the counts kept)
        room = width - len(_stats_row("", 0, _NO_COUNTS, digits))
        if room < 24:  # a narrow terminal: the counts take the digits they need, the names what is left (cut)
            digits = _digits([*per_source.values(), *(row for _, row in listed)])
            room = min(24, max(_STATS_NAME_LEAST, width - len(_stats_row("", 0, _NO_COUNTS, digits))))
            source_width = min(source_width, room)
        name_width = min(name_width, room)
    for name, row in per_source.items():
        echo(_stats_row(name, source_width, row, digits))
    if projects:
        echo("projects:")
    for name, row in listed:
        echo(_stats_row(name, name_width, row, digits))
    if len(projects) > len(listed):  # (an unknown project's message sends people here to find the one they meant)
        echo(f"  … and {len(projects) - len(listed)} more: `deja stats --json` lists every project")
    echo(f"index: {index.directory} ({size / 1e6:.1f} MB, built {built_at})")
    if not index.session_count:  # (its zeros alone said not why: trial47 F5)
        echo(nothing_indexed())


def _stats_rows(metas: Iterable[SessionMeta]) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, int]]]:
    """The sessions and messages of ``metas`` per source, and per project (the most sessions first, each named as
    ``--project`` names it: ``_project_rows``)."""
    per_source: dict[str, dict[str, int]] = {}
    per_project: dict[str, dict[str, int]] = {}
    keys: dict[str, str] = {}  # a folder as sessions spell it -> as the index compares it (one row each)
    shown: dict[str, tuple[str, str]] = {}  # a row's key -> its project's name and folder, as first met
    for meta in metas:
        key = _row_key(meta, keys)
        shown.setdefault(key, (meta.project or NO_PROJECT, meta.project_dir))
        for table, row_key in ((per_source, meta.source), (per_project, key)):
            row = table.setdefault(row_key, {"sessions": 0, "messages": 0})
            row["sessions"] += 1
            row["messages"] += meta.messages
    return per_source, dict(sorted(_project_rows(per_project, shown).items(), key=lambda kv: -kv[1]["sessions"]))


def _row_key(meta: SessionMeta, keys: dict[str, str]) -> str:
    """The row a session counts in: its folder as the index compares folders (an NFD and an NFC spelling, a link
    and its target are one: review12 R6; ``keys`` keeps each folder's, asked once), else its project's name."""
    from ..core.keys import project_spelling

    if not meta.project_dir:
        return meta.project or NO_PROJECT
    key = keys.get(meta.project_dir)
    if key is None:
        key = keys[meta.project_dir] = f"/{project_spelling(meta.project_dir)}"
    return key


def _project_rows(per_key: dict[str, dict[str, int]], shown: dict[str, tuple[str, str]]) -> dict[str, dict[str, int]]:
    """The rows named as ``--project`` names them: by the project's name, or, where two folders share it
    (``shop/packages/api``, ``other/api``), by as much of its folder's end as tells it apart (trial11 F7)."""
    from ..core.keys import telling_tail

    named: dict[str, list[str]] = {}  # a name -> the rows' folders that share it
    for name, folder in shown.values():
        named.setdefault(name.lower(), []).append(folder)
    rows: dict[str, dict[str, int]] = {}
    for key, row in per_key.items():
        name, folder = shown[key]
        alike = [other for other in named[name.lower()] if other and other != folder]
        label = telling_tail(folder, alike) if folder and alike else name
        counts = rows.setdefault(label, {"sessions": 0, "messages": 0})  # (a name with no folder beside one with)
        counts["sessions"] += row["sessions"]
        counts["messages"] += row["messages"]
    return rows


#: The columns ``deja stats`` gives the counts of sessions and of messages, right-aligned: fewer on a narrow
#: terminal, where they take the digits they need (``stats_command``).
_STATS_DIGITS = (6, 8)
#: How many projects ``deja stats`` lists, the most sessions first (``--json`` has every one).
STATS_PROJECTS = 20
#: The fewest columns a name keeps on a terminal too narrow for the counts and a name (below about 35 columns).
_STATS_NAME_LEAST = 8
_NO_COUNTS = {"sessions": 0, "messages": 0}


def _digits(rows: list[dict[str, int]]) -> tuple[int, int]:
    """The columns the counts of sessions and of messages of ``rows`` take at most."""
    return (
        max((len(str(row["sessions"])) for row in rows), default=1),
        max((len(str(row["messages"])) for row in rows), default=1),
    )


def _stats_row(name: str, width: int, row: dict[str, int], digits: tuple[int, int] = _STATS_DIGITS) -> str:
    """One row of ``deja stats``: the name in ``width`` columns (cut to them), its counts right-aligned in
    ``digits`` columns, each read as a count (1 session, 2 sessions)."""
    sessions, messages = row["sessions"], row["messages"]
    return (
        f"  {padded(fit(name, width), width)} {sessions:>{digits[0]}} {noun_for(sessions, 'session'):<8}"
        f" {messages:>{digits[1]}} {noun_for(messages, 'message')}"
    )


TargetArg = Annotated[
    str, typer.Argument(metavar="TARGET", help="cursor, cursor-auto (with hooks), claude or claude-auto.")
]
DryRunFlag = Annotated[
    bool, typer.Option("--dry-run", help="Print the diff of every file it would change; write nothing.")
]


def _check_target(target: str) -> None:
    from ..installers import TARGETS

    if target not in TARGETS:
        fail(f"{target!r} is not a target deja installs into: choose one of {', '.join(TARGETS)}", code=2)


def _print_changes(target: str, changes: Iterable[Change], dry_run: bool) -> None:
    from ..installers.files import backup_through_a_link

    for change in changes:
        if change.used_by:  # (left on purpose, so not "unchanged")
            kept = "would keep" if dry_run else "kept"
            echo(f"{target}: {kept} {change.path}: deja's install in {change.used_by} uses it too")
            continue
        if change.action == "unchanged" and change.reason:  # (a file deja leaves and says why: a killed run's)
            echo(f"{target}: {change.path}: {change.reason}")
            continue
        action = f"would be {change.action}" if dry_run and change.action != "unchanged" else change.action
        echo(f"{target}: {action} {change.path}")
        if change.backup is not None and change.action != "unchanged":
            echo(f"{target}: {'would keep' if dry_run else 'kept'} your file as it was in {change.backup}")
            if through_a_link := backup_through_a_link(change.path, change.backup):
                echo(f"{target}: {through_a_link}")
        for sentence in change.edited_hooks:  # (a reinstall put deja's timeout back silently: trial44 F6)
            echo(f"{target}: {change.path}: {sentence}")
        if change.kept_backup:
            echo(f"{target}: {change.kept_backup}")
        if change.unplaced_record:
            echo(f"{target}: {change.unplaced_record}")
        if change.reason:
            echo(f"{target}: {change.path}: {change.reason}")
        if dry_run and change.diff:
            echo(change.diff.rstrip("\n"))


@app.command("install")
def install_command(target: TargetArg, dry_run: DryRunFlag = False) -> None:
    """Wire deja into Cursor (MCP server, skill, /deja command; hooks with cursor-auto) or Claude Code."""
    from ..installers import InstallError, double_run_findings, install, install_notes

    _check_target(target)
    try:
        notes = install_notes(target, dry_run=dry_run)
        changes = install(target, dry_run=dry_run)
    except InstallError as exc:
        fail(str(exc))
    _print_changes(target, changes, dry_run)
    for note in notes:
        echo(f"{target}: {note}")
    for finding in double_run_findings() if target.endswith("-auto") and not dry_run else ():
        echo(f"{target}: {finding.message}; fix: {finding.fix}")  # (the edits it kept, as doctor says: trial44b F7)


@app.command("uninstall")
def uninstall_command(target: TargetArg, dry_run: DryRunFlag = False) -> None:
    """Remove exactly what `deja install` wrote for a target, and nothing else."""
    from ..installers import InstallError, ledger, uninstall

    _check_target(target)
    try:
        recorded = ledger.load()
        changes = uninstall(target, dry_run=dry_run)
    except InstallError as exc:
        fail(str(exc))
    # A file that is not there was not left unchanged: it was never deja's to remove.
    changes = [c for c in changes if c.action != "unchanged" or c.path.exists()]
    if all(change.action == "unchanged" and not change.reason for change in changes):
        echo(f"{target}: nothing of deja's to remove")
        return
    _print_changes(target, changes, dry_run)
    if not dry_run:
        from .hook_server import stop

        stop()
    if not any(str(change.path) in recorded for change in changes):  # (trial17 F7: it said nothing)
        echo(
            f"{target}: no record of deja's install in {ledger.ledger_path()} (was XDG_CONFIG_HOME different when you "
            f"installed?): {'would take' if dry_run else 'took'} out deja's entries and files only; a file whose .bak "
            f"holds the same settings {'would get' if dry_run else 'got'} its bytes back"
        )


@app.command("mcp")
def mcp_command() -> None:
    """Serve deja's tools to agents over MCP (stdio); this is what mcp.json runs."""
    from .mcp_server import main as serve_mcp

    serve_mcp()


@app.command("resume")
def resume_command(
    session_id: Annotated[
        str, typer.Argument(metavar="ID", help="A cursor-agent chat's id, or a unique prefix of one.")
    ],
    run_it: Annotated[bool, typer.Option("--exec", help="Run the command instead of printing it.")] = False,
) -> None:
    """Print the line that reopens a cursor-agent chat where it ran: cd <project> && cursor-agent --resume <id>
    (CURSOR_CONFIG_DIR=<folder> before cursor-agent, the folder the chat is filed under)."""

    from ..core.resume import ResumeRefused, command_line, resume_target

    index = open_index()
    refuse_empty(index, session_id)
    try:
        _, meta = find_session(index, session_id)
        target = resume_target(meta, index)
    except (NotFound, ResumeRefused) as exc:
        fail(str(exc))
    line = command_line(target)
    if not run_it:
        echo(line)
        return
    agent = shutil.which("cursor-agent")
    if agent is None:
        fail(f"cursor-agent is not on PATH: install Cursor's CLI, or run it yourself: {line}")
    sys.stdout.flush()
    try:
        os.chdir(target.directory)
        os.execve(
            agent, [agent, "--resume", target.chat_id], {**os.environ, "CURSOR_CONFIG_DIR": str(target.config_dir)}
        )
    except OSError as exc:
        fail(f"cannot run {agent} in {target.directory}: {exc.strerror or exc}")


@app.command("doctor")
def doctor_command(json: JsonFlag = False) -> None:
    """Whether deja can see and serve your Cursor history: the stores, the index, the wiring, and what to fix."""
    from .doctor import diagnose, report_json, report_text

    report = diagnose()
    if json:
        emit_json(report_json(report))
    else:
        echo(report_text(report, width=terminal_width()))
    if not report.healthy:
        raise typer.Exit(1)


@app.command("demo")
def demo_command(
    keep: Annotated[
        bool, typer.Option("--keep", help="Keep the sample history and its index, and print where.")
    ] = False,
) -> None:
    """Try deja on a small sample Cursor history: search, show, resume and every hook; no Cursor needed."""
    from .demo import run_demo

    run_demo(keep=keep)


register_work_verbs(app)
plain_help(app)


def _iso_epoch(epoch: float) -> str:
    from datetime import datetime

    return datetime.fromtimestamp(epoch).astimezone().isoformat(timespec="seconds")


def run() -> None:
    """Run the CLI. A usage error is one line and exit 2; an unexpected error one line unless DEJA_DEBUG=1
    (``fastpath.guarded``, which runs ``deja search`` and ``deja index`` without typer too)."""
    sys.exit(guarded(_typer_main))


def _typer_main() -> int:
    try:
        code = typer.main.get_command(app).main(prog_name="deja", standalone_mode=False)
    except typer.TyperException as exc:  # typer's (click's) usage errors carry exit code 2 and their context
        message = " ".join(exc.format_message().split()).rstrip(".")
        ctx = getattr(exc, "ctx", None)
        hint = f" (see `{ctx.command_path} --help`)" if exc.exit_code == 2 and ctx is not None else ""
        said = _out_of_range(exc) or _missing_value(exc)
        say(said or f"{message}{_sessions_hint(exc, ctx) or _quote_hint(message, ctx) or hint}")
        return exc.exit_code
    except typer.Abort:
        sys.stderr.write("deja: interrupted\n")
        return 130
    return code if isinstance(code, int) else 0


def _out_of_range(exc: typer.TyperException) -> str:
    """For a number option given a number out of its range, or no number (``--limit 0``, ``--offset -1``, ``-n x``),
    the flag, the value and the range, as deja's other usage errors say them: typer said pydantic's "Input should be
    greater than or equal to 1" (trial23 F7.10)."""
    param = getattr(exc, "param", None)
    low, high = getattr(param, "min", None), getattr(param, "max", None)  # (each ranged option of deja's has a min)
    errors = getattr(exc.__cause__, "errors", None)  # (pydantic's, which typer's message is: the value is in it)
    if param is None or low is None or not callable(errors):
        return ""
    error = errors()[0]
    flag = _as_typed(param.opts, sys.argv[1:])
    said = "is not a whole number" if error.get("type") == "int_parsing" else "is not allowed"
    wanted = f"{low} to {high}" if high is not None else f"{low} or more"
    return f"{flag} {echoed(str(error.get('input', '')))} {said}: give {wanted}"


def _as_typed(opts: list[str], args: list[str]) -> str:
    """The spelling of an option that ``args`` used (``-n``, ``-n0``, ``--limit=0``), the long one where none is seen:
    ``deja hooks log -n 0`` said ``--limit 0 is not allowed`` (trial43 F7)."""
    for arg in reversed(args):
        for opt in opts:
            if arg == opt or arg.startswith(f"{opt}=") or (len(opt) == 2 and arg.startswith(opt)):
                return opt
    return max(opts, key=len)


def _missing_value(exc: typer.TyperException) -> str:
    """For an option given no value (``deja sessions --project`` at the end of the line), that it needs one and the
    command's help: click's own line (``Option '--project' requires an argument``) named no next step, and carries no
    context to name the command by, so it is read from the command line (trial43 F7)."""
    from typer._click.exceptions import BadOptionUsage

    option = getattr(exc, "option_name", None)
    if not isinstance(exc, BadOptionUsage) or not option or "requires an argument" not in exc.format_message():
        return ""
    names, command = ["deja"], typer.main.get_command(app)
    for arg in sys.argv[1:]:  # (the subcommands named, down to the one given the option: not its words)
        subcommands = getattr(command, "commands", {})
        if arg not in subcommands:
            break
        names.append(arg)
        command = subcommands[arg]
    return f"{option} needs a value (see `{' '.join(names)} --help`)"


def _sessions_hint(exc: typer.TyperException, ctx: typer.Context | None) -> str:
    """For ``deja search --since 7d`` with no words, the command that lists a period's sessions (of the project and
    source given too), when ``deja sessions`` takes those flags."""
    from ..core.dates import parse_since
    from .fastpath import Failed

    given = ctx.params if ctx is not None and ctx.command_path == "deja search" else {}
    words = getattr(exc, "param", None) if isinstance(exc, typer.BadParameter) else None  # (missing: it takes any)
    if not given.get("since") or words is None or words.name != "words":
        return ""
    try:
        parse_since(given["since"])
        check_source(given.get("source"))
        check_project(given.get("project"))
    except (ValueError, Failed):
        return ""
    flags = " ".join(f"--{name} {quote(given[name])}" for name in ("project", "source", "since") if given.get(name))
    return f": `deja sessions {flags}` lists the sessions of that period, without words"


def _quote_hint(message: str, ctx: typer.Context | None) -> str:
    """For ``deja sessions --since last week`` (or ``--until last tuesday``) typed unquoted (typer reads "week" as an
    extra argument), the period quoted, as the shell needs it, found as a plain search finds it
    (``dates.period_cut``: trial23 F7, review48f L2)."""
    from ..core.dates import period_cut

    _, opened, extra = message.partition("unexpected extra argument")
    words = extra.rpartition("(")[2].rpartition(")")[0].split()
    if ctx is None or not opened or not words:
        return ""
    for name in ("since", "until"):
        if (given := ctx.params.get(name)) and (period := period_cut(given, words)):
            return f": quote a period of several words, `--{name} {quote(period)}`"
    return ""


__all__ = ["app", "run", "paths"]


# --------------------------------------------------------------------------- settings and hook decisions

config_app = typer.Typer(
    cls=Group,
    help="deja's settings: one file every entrypoint reads (hooks and the MCP server too); variables override it.",
    invoke_without_command=True,
)
app.add_typer(config_app, name="config")


@config_app.callback()
def config_command(ctx: typer.Context, json: JsonFlag = False) -> None:
    """Each setting's effective value and where it came from: the environment, the config file, or the default."""
    if ctx.invoked_subcommand:
        return
    from .settings import settings_json, settings_text

    if json:
        emit_json(settings_json())
    else:
        echo(settings_text())


@config_app.command("set")
def config_set_command(
    key: Annotated[str, typer.Argument(metavar="KEY", help="home, recall, include_subagents, redact, …")],
    value: Annotated[str, typer.Argument(metavar="VALUE")],
) -> None:
    """Check VALUE and write it into the config file, where Cursor's hooks and the MCP server read it."""
    from ..core import config

    try:
        stored = config.set_value(key, value)
    except config.ConfigError as exc:
        fail(str(exc), 2)
    except OSError as exc:
        fail(_config_unwritten(exc, key, value))
    shown = echoed(stored, PATH_CHARS) if isinstance(stored, str) else str(stored).lower()
    echo(f"{key} = {shown} in {config.config_path()}")
    if config.SETTINGS[key].kind == "path" and not Path(value).expanduser().is_absolute():
        echo(f"note: {echoed(value, PATH_CHARS)} is relative; stored as {shown}, since the hooks run in another folder")
    setting = config.SETTINGS[key]
    if relative := config.relative_variable(setting):  # (the case that needs the note most: review18 R18-3)
        echo(f"note: {relative}, so every command here refuses it; {config.absolute_fix(setting)}")
    elif config.resolve(key).source == "env":
        echo(f"note: {setting.variable} is set in this shell and overrides it here; Cursor's hooks use the file")
    elif key == "home":
        echo(_home_index_line(stored))
    _note_a_file_cursor_does_not_read()


def _note_a_file_cursor_does_not_read() -> None:
    """Doctor's warning, where ``XDG_CONFIG_HOME`` set in this shell alone put the change in a file Cursor's hooks
    and MCP server do not read: whoever turned recall off there kept getting it, and only doctor said why (trial59
    F4)."""
    from .doctor import config_file_elsewhere

    for finding in config_file_elsewhere():
        echo(f"note: {finding.message}: {finding.fix}")


def _home_index_line(home: str) -> str:
    """Whether the home just set holds an index: a new one holds none until something builds it, which a person who
    moved deja's home expects to see said, not found out from a slow first search (trial55)."""
    from ..core.index import MANIFEST, index_dir

    shown = echoed(home, PATH_CHARS)
    if (index_dir(Path(home)) / MANIFEST).is_file():
        return f"{shown} already holds an index"
    return f"no index in {shown} yet: the next search or `deja index` builds it there"


def _config_unwritten(exc: OSError, key: str, value: str) -> str:
    """Why the config file could not be written; on a read-only file system, the variable that sets ``key`` to
    ``value`` without it (``DEJA_HOME`` for ``home``), or a config folder elsewhere: no write there can succeed
    (trial49 F10)."""
    import errno

    from ..core import config

    said = f"cannot write {config.config_path()}: {exc.strerror or exc}"
    if exc.errno != errno.EROFS:
        return said
    setting = config.SETTINGS.get(key)
    instead = (
        f"set {setting.variable}={quote(config.variable_value(setting, value))} instead, or "
        if setting and value
        else ""
    )
    return f"{said}: {instead}set XDG_CONFIG_HOME to a folder on a writable disk"


@config_app.command("unset")
def config_unset_command(
    key: Annotated[str, typer.Argument(metavar="KEY", help="home, recall, include_subagents, redact, …")],
) -> None:
    """Remove KEY from the config file, keeping the others: the setting goes back to its default."""
    from ..core import config

    try:
        removed = config.unset_value(key)
    except config.ConfigError as exc:
        fail(str(exc), 2)
    except OSError as exc:
        fail(_config_unwritten(exc, key, ""))
    where = config.config_path()
    echo(f"removed {key} from {where}" if removed else f"{key} is not set in {where}; nothing to remove")
    _note_a_file_cursor_does_not_read()


hooks_app = typer.Typer(cls=Group, help="deja's hooks: what they did.", invoke_without_command=True)
app.add_typer(hooks_app, name="hooks")


@hooks_app.callback()
def hooks_command(ctx: typer.Context) -> None:
    """deja's hooks: what they did (`deja hooks log`)."""
    if not ctx.invoked_subcommand:
        fail("give a subcommand: `deja hooks log` lists what the hooks did", code=2)


@hooks_app.command("log")
def hooks_log_command(
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="How many of the newest decisions to list.")] = 20,
    json: JsonFlag = False,
) -> None:
    """deja's newest hook decisions from hooks.log: what each hook gave, or why it stayed silent."""
    from .delivery import decisions_text, hook_decisions, log_unwritable

    decisions = hook_decisions(limit=limit)
    unwritable = log_unwritable()
    if json:
        from ..core.lean_msgspec import msgspec

        emit_json({"decisions": msgspec.to_builtins(decisions)})
    elif decisions or not unwritable:  # (a log it cannot read is no sign that no hook ran: review21 R21-3)
        echo(decisions_text(decisions))
    if unwritable:
        echo(f"note: {unwritable[0]}; fix: {unwritable[1]}", err=True)


plain_help(config_app)  # (they had typer's own help, ``{KEY} <str>``, printed by click: review19 R19-4)
plain_help(hooks_app)
