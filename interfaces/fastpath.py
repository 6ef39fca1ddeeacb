"""``deja search`` and ``deja index`` without typer: a small parser for their usual forms, and the commands.

typer and what it pulls in (click, pydantic, annotated_types) cost about 250 ms of
CPU to import, five times what a search that finds nothing changed costs at 100k
sessions. ``entry.main`` hands these two commands here first; ``parse_search`` and
``parse_index`` accept only argument lists they read exactly as typer would (every
flag, long or short, ``--name=value``, options among the words, ``--``) and answer
None for anything else (``--help``, an unknown or repeated flag, a missing or bad
value, no words), which typer then handles and reports. The commands themselves
(``search``, ``index``) are the ones ``cli.py`` registers with typer too, so either
way a person sees the same bytes on stdout and stderr and the same exit code.
"""

from __future__ import annotations

import errno
import gc
import os
import sys
import time

from ..core import folders
from ..core.index.format import IndexKeptOut, IndexUnreadable
from ..core.private import HomeMissing
from ..core.record import Record

TYPE_CHECKING = False  # typing's own, without importing typing; type checkers know it
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from datetime import datetime
    from typing import IO, NoReturn

    from ..core.index import Codec, Index
    from ..core.indexer import RefreshResult
    from ..core.indexer.glance import Check
    from ..core.search import Filters

#: The version of every ``--json`` envelope; it changes only when a field is removed or changes meaning.
SCHEMA_VERSION = 1
SOURCES = ("cursor-ide", "cursor-cli")
#: ``deja search``'s options that take a value, by every name they answer to: the field each one sets.
SEARCH_OPTIONS = {
    "--project": "project",
    "-p": "project",
    "--source": "source",
    "-s": "source",
    "--since": "since",
    "--until": "until",
    "--limit": "limit",
    "-n": "limit",
    "--role": "role",
    "--re": "pattern",
    "--session": "session",
}
LIMIT_RANGE = (1, 200)
#: The most messages one ``show`` gives: ``deja show --limit`` refuses more, the MCP tool takes more as this and says so.
SHOW_MOST = 200


class Failed(Exception):
    """A command failed: ``deja: <message>`` on stderr and exit ``code`` (1, or 2 for a usage error)."""

    def __init__(self, message: str, code: int = 1):
        super().__init__(message)
        self.code = code


class SearchArgs(Record):
    words: list[str]
    project: str | None = None
    source: str | None = None
    since: str | None = None
    limit: int = 10
    role: str | None = None
    pattern: str | None = None
    session: str | None = None
    json: bool = False
    until: str | None = None


def run(argv: Sequence[str]) -> int | None:
    """Run ``deja search`` or ``deja index`` when typer would read ``argv`` the same way; None: leave it to typer."""
    if argv[0] == "search":
        args = parse_search(argv[1:])
        return None if args is None else guarded(lambda: search_command(args))
    if argv[0] == "index":
        flags = parse_index(argv[1:])
        return None if flags is None else guarded(lambda: index_command(**flags))
    return None


# --------------------------------------------------------------------------- parsing


def parse_search(args: Sequence[str]) -> SearchArgs | None:
    """``deja search``'s arguments as typer reads them, or None for any form left to typer."""
    words: list[str] = []
    given: dict[str, str] = {}
    at = 0
    while at < len(args):
        arg, at = args[at], at + 1
        if arg == "--":
            words += args[at:]
            break
        if not arg.startswith("-") or arg == "-":
            if arg == "-":
                return None
            words.append(arg)
            continue
        option = _option(arg, args[at] if at < len(args) else None)
        if option is None or option[0] in given:
            return None
        name, value, took_next = option
        given[name] = value
        at += took_next
    return _search_args(words, given)


def _option(arg: str, following: str | None) -> tuple[str, str, int] | None:
    """(field, value, 1 if the value was the next argument) for one option of ``deja search``; None: not ours."""
    if arg.startswith("--"):
        name, equals, value = arg.partition("=")
        if name == "--json":
            return None if equals else ("json", "", 0)
    else:
        name, equals, value = arg[:2], "", arg[2:]
        if value.startswith("="):
            return None
        equals = "=" if value else ""
    field = SEARCH_OPTIONS.get(name)
    if field is None:
        return None
    if equals:
        return field, value, 0
    if following is None or following.startswith("-"):
        return None
    return field, following, 1


def _search_args(words: list[str], given: dict[str, str]) -> SearchArgs | None:
    """The parsed arguments, or None where typer has something to say: no words, a ``--limit`` not in range."""
    limit = given.get("limit", "10")
    if not words or not (limit.isascii() and limit.isdigit() and len(limit) <= 4):  # typer says why
        return None
    if not LIMIT_RANGE[0] <= int(limit) <= LIMIT_RANGE[1]:
        return None
    return SearchArgs(
        words,
        project=given.get("project"),
        source=given.get("source"),
        since=given.get("since"),
        limit=int(limit),
        role=given.get("role"),
        pattern=given.get("pattern"),
        session=given.get("session"),
        json="json" in given,
        until=given.get("until"),
    )


def parse_index(args: Sequence[str]) -> dict[str, bool] | None:
    """``deja index``'s flags (``--full``, ``--json``), or None for any other form."""
    if len(set(args)) != len(args) or not set(args) <= {"--full", "--json"}:
        return None
    return {"full": "--full" in args, "json": "--json" in args}


# --------------------------------------------------------------------------- output


def echo(text: str, err: bool = False, nl: bool = True) -> None:
    """``text`` and a newline (unless not ``nl``), flushed, with no control character but newline and tab: what
    deja prints comes from stored chats, and a terminal must not act on an escape in one (``text.for_terminal``).
    The CLI's text output goes through here."""
    from ..core.text import for_terminal

    _write(sys.stderr if err else sys.stdout, for_terminal(text) + ("\n" if nl else ""))


#: The secrets in this command's arguments, each as the index writes it (``hide_typed``).
_TYPED: dict[str, str] = {}


def hide_typed(argv: list[str]) -> None:
    """Print no secret of ``argv`` back as typed, whatever line would echo it (an error refusing it, "No sessions
    with --project …", a JSON answer's ``query`` or ``path``): a token pasted into the wrong argument went whole
    into the terminal's scrollback or a CI log (trial13 F3, review19 R19-1). One place for every answer
    (``_write``) rather than each line that names a value; nothing to do, and no rules loaded, for arguments no
    gate takes for a secret."""
    from ..core.redaction import typed_secrets

    _TYPED.update(typed_secrets(argv))


def _write(stream: IO[str], text: str) -> None:
    """``text`` written and flushed; a reader gone ends quietly (``reader_gone``), and standard output that cannot
    take it (a full disk, ``> /dev/full``) fails in one line naming it: it said ``OSError: [Errno 28] …`` (trial13
    F6)."""
    if _TYPED:
        from ..core.redaction import hidden

        text = hidden(text, _TYPED)
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:
        reader_gone()
    except OSError as exc:
        if stream is not sys.stdout:
            raise
        # (what is left in its buffer would fail again as the process ends, and make its exit status 120)
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
        raise Failed(f"cannot write to standard output ({exc.strerror or exc}): send it where it fits") from None


def reader_gone() -> NoReturn:
    """End quietly with exit 0: what read stdout closed it (``deja sessions | head -1``), as every command does.

    Raised as SystemExit from where the write failed, before click could take the error for a failure (exit 1);
    stdout is pointed at /dev/null so the interpreter's last flush of what could not be written fails silently.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    raise SystemExit(0)


def emit_json(data: Mapping[str, object]) -> None:
    """Write one ``--json`` envelope: ``schema_version`` first, then ``data``'s fields, indented by two.

    The stdlib's ``json`` rather than orjson, whose import pulls in ``dataclasses``, ``inspect`` and ``uuid``;
    a time is written as orjson did, in ISO 8601.
    """
    import json

    from ..core.text import json_escaped_controls

    envelope = {"schema_version": SCHEMA_VERSION, **data}
    text = json_escaped_controls(json.dumps(envelope, indent=2, ensure_ascii=False, default=_iso))
    _write(sys.stdout, text + "\n")


def _iso(value: object) -> str:
    from datetime import datetime

    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"Type is not JSON serializable: {type(value).__name__}")


def guarded(body: Callable[[], object]) -> int:
    """Run a command; its exit code (0 unless it returns another), and a failure is one line on stderr, never a
    traceback (unless DEJA_DEBUG=1)."""
    try:
        code = body()
    except Failed as exc:
        say(str(exc))
        return exc.code
    except IndexKeptOut as exc:  # its permissions need fixing, or a newer deja wrote it: a rebuild would not mend it
        say(str(exc))
        return 1
    except IndexUnreadable as exc:  # a damaged file met while reading, after the index opened
        say(f"{exc}: run `deja index` to rebuild it")
        return 1
    except BrokenPipeError:  # a write other than ``echo``'s, to a reader that is gone
        reader_gone()
    except KeyboardInterrupt:
        sys.stderr.write("deja: interrupted\n")
        return 130
    except Exception as exc:  # noqa: BLE001 - the last line of defence against a traceback
        if os.environ.get("DEJA_DEBUG") == "1":
            raise
        if isinstance(exc, FileNotFoundError) and _current_folder_gone():
            say(FOLDER_GONE)
        else:
            say(f"{type(exc).__name__}: {exc} (set DEJA_DEBUG=1 for the traceback)")
        return 1
    return code if isinstance(code, int) else 0


#: What a verb says run in a folder removed under the shell.
FOLDER_GONE = "the current folder no longer exists: cd to one that does and run it again"


def _current_folder_gone() -> bool:
    """Whether the folder deja runs in was removed under the shell (a deleted worktree's terminal), which ``deja
    wip``, ``how``, ``--project .``, ``blame`` and ``export`` ask of (review12 R3, trial11 F11)."""
    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    return False


class ProgressBar:
    """A one-line bar on stderr, shown only once work has taken longer than a moment."""

    def __init__(self, label: str, delay: float = 0.5):
        self.label = label
        self.start = time.monotonic()
        self.delay = delay
        self.shown = False
        self.enabled = sys.stderr.isatty()

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or time.monotonic() - self.start < self.delay:
            return
        self.shown = True
        width = 30
        filled = int(width * done / total) if total else width
        sys.stderr.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        sys.stderr.flush()

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\n")


# --------------------------------------------------------------------------- the index, fresh


def check_roots() -> None:
    for name, path in folders.missing_overrides():
        raise Failed(f"{name}={path}: no such folder; point it at an existing folder or unset it")
    if problem := folders.not_utf8_root_problem():
        raise Failed(problem)


def open_index(fresh: bool = True, codec: Codec | None = None) -> Index:
    """The index, brought up to date first when ``fresh`` (``library.open_index``).

    When the cheap check finds nothing changed and no walk due, the index is opened
    as it stands without loading the indexer; ``codec`` decodes its records
    (msgspec Structs by default; ``light.LIGHT`` for a read that does not import msgspec).
    """
    found = None
    if fresh:
        check_roots()
        _check_readable()
        opened, found = _unchanged_index(codec)
        if opened is not None:
            return opened
    from ..core.library import IndexBeingWritten
    from ..core.library import open_index as open_fresh

    collect_from_now()

    bar = ProgressBar("indexing")
    try:
        return open_fresh(fresh=fresh, progress=bar, note=say, checked=found, codec=codec, rebuilt=rebuilt_line)
    except (IndexKeptOut, IndexBeingWritten) as exc:
        raise Failed(str(exc)) from None
    except IndexUnreadable as exc:
        raise Failed(f"{exc}: run `deja index` to rebuild it") from None
    except OSError as exc:  # there is no index, and none can be written
        raise Failed(unwritable(exc)) from None
    finally:
        bar.close()


def rebuilt_line(because: str) -> str:
    """ "rebuilt the index: <because>", and which of Cursor's entries run another deja, with the install that points
    them here (``wiring.other_deja_wired``): an upgrade left the hooks on the old deja, and the two rebuilt the index
    over each other in their formats, every hook silent, only doctor saying why (trial50 F1). Read only on a rebuild:
    a plain search never loads the installers."""
    from ..installers.files import InstallError
    from ..installers.wiring import other_deja_wired

    try:
        other = other_deja_wired()
    except InstallError:  # (a file doctor names; the rebuild is what this line is about)
        other = ""
    return f"rebuilt the index: {because}" + (f"; {other}" if other else "")


def unwritable(exc: OSError) -> str:
    """The one line for an index deja could not write; or for a file outside deja's home it could not read (a
    Cursor file: the refresh skips those it cannot read, so this is the last line of defence), named as such. A
    folder above the home is one the home was being made in (``XDG_CACHE_HOME`` not there, and its folder not this
    user's to write): no file of it was read, and the line was "cannot read ~/.cache: give your user access" (fix42c)."""
    if isinstance(exc, HomeMissing):
        return str(exc)
    home = os.path.abspath(folders.deja_home())
    where = exc.filename or home
    from ..core.private import room_fix

    if isinstance(where, str) and os.path.isabs(where) and os.path.commonpath([where, home]) not in (home, where):
        fix = room_fix(exc) if exc.errno in (errno.EMFILE, errno.ENFILE) else ""  # (EFBIG here is a reader's cap)
        return f"cannot read {where} ({exc.strerror or exc}): {fix or 'give your user access to it, or move it away'}"
    from ..core.config import file_in_path
    from ..core.index.format import INDEX
    from ..core.private import file_home_fix, leads_nowhere, nowhere_fix, refusal, refused_write

    if fix := room_fix(exc):  # (a file too large for a reader's cap is a file outside the home: said above)
        return f"cannot write the index ({where}: {exc.strerror or exc}): {fix}, then run `deja index`"

    index = os.path.join(home, INDEX)
    if target := leads_nowhere(index):  # (doctor says so too)
        return f"cannot write the index: {index} is a link to {target}, which leads nowhere: {nowhere_fix(target)}"
    if exc.errno == errno.ENOTDIR and os.path.isfile(index):  # (doctor says so too)
        return f"cannot write the index: {index} is a file, not a folder: move it aside (deja makes its index there)"
    if exc.errno == errno.ENOTDIR and (blocker := file_in_path(home)):  # (doctor says so too)
        made = "is a file, not a folder" if blocker == home else f"cannot be made: {blocker} is a file"
        return f"cannot write the index: deja's home {home} {made}: {file_home_fix(blocker)}"
    if refusal(exc) and (refused := refused_write(home)):  # (doctor says so too)
        return f"cannot write the index in {refused}"
    return f"cannot write the index ({where}: {exc.strerror or exc}): is {_home_setting()} writable?"


def _home_setting() -> str:
    """What names deja's home, as a user would change it: with ``XDG_CACHE_HOME`` a file and ``DEJA_HOME`` unset,
    the line asked about ``DEJA_HOME`` (review16)."""
    from ..core.config import folder_variable, resolve

    source = resolve("home").source
    if source == "env":
        return "DEJA_HOME"
    if source == "file":
        return "the config file's home"
    return "XDG_CACHE_HOME" if folder_variable("XDG_CACHE_HOME") else "~/.cache"  # (a relative one is ignored)


def _check_readable() -> None:
    """Failed, in one line, if this user may not read the index folder (before a refresh would trip on it)."""
    from ..core.index.format import INDEX, IndexForbidden, check_readable

    try:
        check_readable(os.path.join(folders.deja_home(), INDEX))
    except IndexForbidden as exc:
        raise Failed(str(exc)) from None


def say(message: str) -> None:
    """One line of deja's own on stderr (``deja: …``), any secret in it as the index holds it
    (``redaction.as_indexed``): an error names the value it refuses, and a token pasted into the wrong argument was
    printed back whole into the terminal's scrollback or a CI log (trial13 F3)."""
    from ..core.redaction import as_indexed

    echo(f"deja: {as_indexed(message)}", err=True)


def collect_from_now() -> None:
    """Turn the cycle collector on for a refresh, which allocates as it reads, with what exists so far frozen out of
    its sweeps (``gc.freeze``): the modules just imported, which live until the process ends.

    ``deja search`` and ``deja index`` start without the collector (``entry.main``): a search allocates little, all
    of it alive until it exits, and the imports of a refresh (msgspec, the readers, the writer) made it sweep their
    objects again and again, about 3% of the instructions of a ``deja index`` after one turn. Only a process that
    started so is frozen: one that already collects (typer's commands, a test calling a command in-process) keeps
    collecting whatever it no longer uses.
    """
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


def _unchanged_index(codec: Codec | None) -> tuple[Index | None, Check | None]:
    """The index as it stands if the cheap check finds nothing changed: what ``catch_up`` then does, starting a
    full walk in the background when one is due, without loading the indexer. The check comes back too, so
    the refresh that follows a change does not make it again."""
    from ..core.index.reader import Index
    from ..core.indexer.glance import check_home

    home = folders.deja_home()  # (a string: ``pathlib`` costs a search a few ms of imports)
    found = check_home(home)
    if not found.unchanged:
        return None, found
    try:
        return Index.open(home, codec), found
    except IndexUnreadable:
        return None, None  # let the full path check again (the walk has started), rebuild it and say why


# --------------------------------------------------------------------------- the commands


def check_source(source: str | None) -> None:
    if source and source not in SOURCES:
        raise Failed(f"unknown source {source!r}: use one of {', '.join(SOURCES)}", code=2)


def check_project(project: str | None) -> None:
    """An empty ``--project ''`` (a variable that was not set) would quietly search every project; the root folder
    (``--project /``, ``--project .`` typed in ``/``, ``--project c:\\``) is no project's, and matched the sessions
    with none (or every one on that drive)."""
    from ..core.keys import is_root

    if project is not None and not project.strip():
        raise Failed("--project is empty: give a project name or folder, or leave --project out", code=2)
    if project is not None and is_root(project):
        raise Failed(f"--project {project} is the root folder, no project's: give a project's name or folder", code=2)


def chosen_project(index: Index, project: str | None) -> str | None:
    """``--project`` as the index reads it (``project_names.meant_project``): a name two folders share is a usage
    error naming them and how to choose one, not their sessions mixed as one project's. A folder not named in UTF-8,
    as the shell gives it (``caf\\xe9-legacy``), is spelt as the index and every output spell it (trial10 F10)."""
    from .views import NO_PROJECT

    if project is None:  # (a search without --project loads no project-name code: ``core/project_names.py``)
        return None
    from ..core.keys import readable_path
    from ..core.project_names import meant_project, telling_labels

    if project == NO_PROJECT:  # (stats lists it as a row, and the answer for an unknown project sent people back there)
        raise Failed(
            f"{NO_PROJECT} is no project's name but the sessions deja placed in no folder: leave out --project to see"
            " them (`deja sessions` lists them with the rest), and give one's id to show or export it",
            code=2,
        )
    meant, folders = meant_project(index, readable_path(project) if project else project)
    if folders:
        choices = " or ".join(f"--project {label}" for label in telling_labels(folders))
        named = ", ".join(folders)
        raise Failed(f"--project {project} names {len(folders)} folders ({named}): give {choices}", code=2)
    if unknown := unknown_project(index, meant):  # (an empty index's too: `export` wrote an empty folder: review43a M1)
        raise Failed(unknown)  # (every verb alike: `search` and `stats` said it with exit 0, `export` 1: trial23 F5)
    return meant


def search_command(args: SearchArgs) -> None:
    """Find the past sessions that match the words, best first (``deja search``)."""
    from ..core.index.light import LIGHT
    from ..core.project_names import namesakes
    from ..core.redaction import searched_words
    from ..core.search import ROLE_KINDS, Filters, search
    from .views import search_json, search_text, short_id, terminal_width

    check_source(args.source)
    check_project(args.project)
    if args.role is not None and args.role not in ROLE_KINDS:
        raise Failed(f"--role {args.role!r} is not one of {', '.join(ROLE_KINDS)}", code=2)
    _check_pattern(args.pattern)
    since_at = until_at = None
    if args.since is not None or args.until is not None:  # (a plain search loads no datetime: test_clisearch_no_re)
        from datetime import UTC, datetime

        now = datetime.now(UTC)  # (one moment for both: `--since 3d --until 3d` is refused, review48f L2)
        since_at = since_option(args.since, args.words, now)
        until_at = until_option(args.until, since_at, now, args.words)
    query = " ".join(args.words).strip()
    if not query:
        raise Failed("nothing to search for: give some words, e.g. `deja search cache invalidation`", code=2)
    index = open_index(codec=LIGHT)
    if args.session is not None:
        args.session = _session_searched(index, args.session)
    filters = Filters(
        project=chosen_project(index, args.project),
        source=args.source,
        since=since_at,
        until=until_at,
        kinds=ROLE_KINDS[args.role] if args.role else frozenset(),
        session_id=args.session,
        pattern=args.pattern,
    )
    result = search(index, searched_words(query), filters=filters, limit=args.limit, relative=True)
    result.query = query  # (as asked: the JSON says what was searched for, as the text does)
    if not result.hits and not result.notice:  # (why, in the JSON's notice as in the text: trial23 F5; a --re the
        # timer stopped keeps its own notice: the filter may hold a match it never reached)
        given = {"project": args.project, "source": args.source, "since": args.since, "until": args.until}
        given["role"] = args.role
        flags = filter_flags(**given, re=args.pattern, session=args.session)
        result.notice = why_no_match(index, query, filters, flags, result.unmatched)
    if args.json:
        emit_json(search_json(result))
    elif result.hits:
        width = terminal_width()
        # (a lambda, not functools.partial: a search page loads neither functools nor collections)
        shown_id = str if width is None else lambda session_id: short_id(index, session_id)
        others = namesakes(index, (hit.project for hit in result.hits))  # (what a hit's project is told apart from)
        echo(search_text(result, width, shown_id, since=filters.since, namesakes=others))
        if result.unmatched:  # (the results were found without them: trial20 F4)
            echo(f"deja: {held_by_none(result.unmatched)}", err=True)
    else:
        echo(result.notice)


def _session_searched(index: Index, given: str) -> str:
    """The id (or prefix) ``--session`` names, as ``deja show`` reads one: without the backticks or quotes it was
    copied with, in lowercase where typed in capitals (``keys.typed_id``); Failed where no session has it."""
    from ..core.keys import typed_id

    session = typed_id(given)
    for spelt in (session, session.lower()):
        if session and index.find(spelt):
            return spelt
    from ..core.redaction import echoed

    raise Failed(f"no session {echoed(given)!r}: `deja sessions` lists them")


def _check_pattern(pattern: str | None) -> None:
    if pattern is None:
        return
    import re

    try:
        re.compile(pattern)
    except re.error as exc:
        raise Failed(f"--re {pattern!r} is not a regular expression: {exc}", code=2) from None


def since_option(since: str | None, words: Sequence[str] = (), now: datetime | None = None) -> datetime | None:
    """``--since`` as typed, as a moment (None when not given); a usage error (exit 2) when it is no time. With the
    ``words`` after it (``deja search``'s), a period the shell cut into them (``--since last week cache``: "last",
    then the words "week cache") is told to be quoted, as ``deja sessions`` tells it (trial23 F7, review42d L1).
    ``now``: the moment a span counts back from, ``until_option``'s too (``--since 3d --until 3d`` is refused)."""
    from ..core.dates import parse_since

    if since is None:
        return None
    return _moment("--since", since, parse_since, now, words)


def until_option(
    until: str | None, since: datetime | None = None, now: datetime | None = None, words: Sequence[str] = ()
) -> datetime | None:
    """``--until`` as typed, as the moment its day or period ends (``dates.parse_until``; None when not given); a
    usage error (exit 2) when it is no time, or is not after ``--since`` (no session can be between them: the same
    span back from the same ``now`` is not, review48f L2). A period the shell cut into ``words`` is told to be
    quoted, as ``since_option`` tells it."""
    if until is None:
        return None  # (before the imports: a search without --until loads no datetime, test_clisearch_no_re)
    from ..core.dates import parse_until
    from ..core.redaction import echoed

    moment = _moment("--until", until, parse_until, now, words)
    if since is not None and moment <= since:
        raise Failed(f"--until {echoed(until)!r} ends before --since begins: give an --until after it", code=2)
    return moment


def _moment(
    option: str,
    given: str,
    parse: Callable[[str, str, datetime | None], datetime],
    now: datetime | None,
    words: Sequence[str],
) -> datetime:
    """``--since`` or ``--until`` (``option``) as ``parse`` reads ``given``; a usage error (exit 2) when it is empty,
    as every option of the CLI given empty is (the MCP tools take "" for none), or no time (a moment in the future
    too: the parser says so), with the period to quote where the shell cut it into ``words`` (``dates.period_cut``)."""
    from ..core.dates import SINCE_FORMS, period_cut

    if not given.strip():
        raise Failed(f"{option} is empty: give a time, {SINCE_FORMS}", code=2)
    try:
        return parse(given, "date", now)
    except ValueError as refused:
        period = period_cut(given, words)
        if not period:
            raise Failed(f"{option} {refused}", code=2) from None
        from ..core.redaction import echoed

        said = f"{echoed(given)!r} is not a date: quote a period of several words, `{option} {quote(period)}`"
        raise Failed(f"{option} {said}", code=2) from None


def project_above(index: Index, project: str) -> str:
    """The project above ``project``, a folder no session ran in or below (``--project .`` in ``shop/api/src``), as
    ``deja wip``, ``deja how`` and the hooks take it there (``Index.nearest_project``); "" for a name, or none. A
    filter is kept as given: the answer only names it (trial11 F4)."""
    from ..core.keys import is_folder, readable_path

    if not is_folder(project):
        return ""
    folder = readable_path(os.path.abspath(os.path.expanduser(project)))
    above = index.nearest_project(folder)
    return above if above and above != folder else ""


#: The most words of a query ``held_by_none`` names (a pasted log may hold hundreds no session holds).
HELD_BY_NONE_NAMED = 5


def held_by_none(words: Sequence[str]) -> str:
    """What a search says of its ``words`` no session holds (``SearchResult.unmatched``), the first few named."""
    from ..core.redaction import echoed

    more = len(words) - HELD_BY_NONE_NAMED
    named = " ".join(echoed(word) for word in words[:HELD_BY_NONE_NAMED])
    return f"no session holds: {named}" + (f" and {more} more" if more > 0 else "")


def why_no_match(
    index: Index,
    query: str,
    filters: Filters,
    flags: list[str],
    unmatched: Sequence[str] = (),
    since: str = "--since",
) -> str:
    """Why a search found nothing: an empty index, a filter (``flags``, each as the user gave it: ``--project api``
    to the CLI, ``project='api'`` to the MCP tool), a period no session was active in (the filter to keep to one
    named as ``since``), a query of common words only, or no match at all, naming the words of the query no session
    holds (``unmatched``)."""
    from ..core.redaction import searched_words
    from ..core.search import period_alone, query_terms, search
    from .views import quoted_query

    if not index.session_count:
        return nothing_indexed()
    if not searched_words(query).strip():
        return f"No session matches {quoted_query(query)}: it is a secret, which deja never keeps as written."
    if (filters.active or filters.pattern) and (everywhere := search(index, query, limit=1, relative=True).total):
        given = " ".join(flags)
        return f"No session matches {quoted_query(query)} with {given}; drop {the_filters(flags)} to see {_that_do(everywhere)}."
    if period := period_alone(query):  # (--since given is not advised again: review43e L8)
        keep = "" if filters.since is not None else f", with {since} to keep to a period"
        return f"{no_session_in(index, period)}: give words to look for{keep}."
    words, phrases = query_terms(query)
    if not words:  # (a phrase's words are terms too: one of common words alone has no term to find it by)
        beside = ", in a phrase too; add a rarer word beside it" if phrases else "; add a rarer word"
        return f"Every word of {quoted_query(query)} is too common to search{beside}."
    meant = _meant_words(index, unmatched, filters)
    if not unmatched or len(set(query.lower().split())) == 1:  # (one word, however often: the line names it already)
        return f"No session matches {quoted_query(query)}{meant or '.'}"
    return f"No session matches {quoted_query(query)}; {held_by_none(unmatched)}{meant or '.'}"


def _meant_words(index: Index, unmatched: Sequence[str], filters: Filters) -> str:
    """ "; did you mean …?" with the indexed words nearest in spelling to those of ``unmatched`` that have one
    (``spelling.nearest_word``): ``deja search backtraking`` found nothing and suggested nothing (trial48b F11)."""
    from ..core.redaction import echoed
    from ..core.spelling import nearest_word

    meant = {word: near for word in unmatched[:HELD_BY_NONE_NAMED] if (near := nearest_word(index, word, filters))}
    if not meant:
        return ""
    if len(unmatched) == 1:
        return f"; did you mean {echoed(next(iter(meant.values())))}?"
    return "; did you mean " + ", ".join(f"{echoed(near)} for {echoed(word)}" for word, near in meant.items()) + "?"


def no_session_in(index: Index, period: str) -> str:
    """That no session was active in ``period`` (as ``search.period_alone`` reads it), and when the newest was."""
    from ..core.library import newest_sessions

    newest = newest_sessions(index, limit=1)
    when = newest[0].updated if newest else None
    return f"No session was active in {period}" + (f"; the newest is from {when:%Y-%m-%d}" if when else "")


#: What the CLI's answer for an unknown project points at (the MCP server's names its ``recent`` tool).
PROJECTS_LISTED = "`deja stats` lists the projects there are"


def unknown_project(
    index: Index, project: str | None, give: str = "--project {shell}", listed: str = PROJECTS_LISTED
) -> str:
    """What an answer for ``project`` (as the index reads it: ``chosen_project``) says when no session of it is
    indexed: the project above a folder no session ran in or below (``give``: how to name it, quoted for a shell as
    ``{shell}`` or as Python writes it as ``{python}``: ``project={python}`` to the MCP tools), else that none is (a
    misspelt name: the project it is close to, if any, and ``listed``, where the projects are; an empty index: why it
    is), not that nothing matched; "" when one is, or none is given. The CLI fails with it (``chosen_project``); the
    MCP tools answer it."""
    if not project:
        return ""
    from ..core.project_names import close_projects, project_indexed
    from ..core.redaction import PATH_CHARS, echoed

    if project_indexed(index, project):
        return ""
    if not index.session_count:
        empty = nothing_indexed()
        return f"No session of project {echoed(project, PATH_CHARS)!r} is indexed; {empty[:1].lower()}{empty[1:]}"
    if above := project_above(index, project):
        here = echoed(project_folder(project) or project, PATH_CHARS)  # (`.` named no folder: trial45 F5)
        return f"No session ran in {here} or below it; its project is {above}: give {give.format(shell=quote(above), python=repr(above))}"
    folder = project_folder(project)
    gone = folder is not None and not os.path.isdir(folder)
    close = close_projects(index, project) if not folder or gone else []  # (``packages/ap``: a label misspelt)
    named = " or ".join(give.format(shell=quote(label), python=repr(label)) for label in close)
    meant = f"did you mean {named}? " if close else ""
    # a folder written from here or home (``..``, ``~/x``) named as resolved: "project '..'" said not which (trial43 F7)
    resolved = f" ({echoed(folder, PATH_CHARS)})" if folder and project.startswith((".", "~")) else ""
    missing = " (there is no such folder)" if gone else ""
    return f"No session of project {echoed(project, PATH_CHARS)!r}{resolved} is indexed{missing}; {meant}{listed}."


def project_folder(project: str | None) -> str | None:
    """The absolute folder ``project`` names (``.``, ``~/code/api``), as the answers show it; None for a name or none.
    A Windows drive's folder (``c:\\Users\\me\\app``, a database written there and opened here) is absolute as
    written: joined to this folder, it named no folder (review45b M2)."""
    from ..core.keys import drive_path, is_folder

    if not project or not is_folder(project):
        return None
    if drive_path(project):  # (its root keeps its separator: ``c:`` alone is no drive's folder)
        return project[:3] + project[3:].rstrip("/\\")
    return os.path.abspath(os.path.expanduser(project))


def nothing_indexed() -> str:
    """What an empty index means: where deja looked for Cursor's history, and what to do."""
    from ..core import paths
    from .doctor import no_history

    nothing = no_history([paths.ide_user_root(), *paths.cli_roots()])
    return f"The index is empty: {nothing.message}. {nothing.fix[:1].upper()}{nothing.fix[1:]}."


def none_listed(index: Index) -> str:
    """Why a listing with no filter to blame (``deja sessions``, the MCP ``recent``) found none: an empty index
    (``nothing_indexed``); Failed when it holds some: a damaged file, which ``Index.verify`` names (IndexUnreadable:
    a flipped terms.idx hid every session, and "the index is empty" sent the person to their Cursor folders,
    review51c F2), or files that disagree though each holds its checksum, which a rebuild writes anew (review51d F3;
    doctor's checks pass them too)."""
    count = index.session_count
    if not count:
        return nothing_indexed()
    index.verify()
    unlisted = (
        "the 1 session in the index could not be listed"
        if count == 1
        else f"none of the {count} sessions in the index could be listed"
    )
    raise Failed(f"{unlisted}: run `deja index --full` to rebuild it")


def refuse_empty(index: Index, session_id: str | None = None) -> None:
    """A verb asked for one session (``show``, ``ctx``, ``wip`` …) fails on an index with none with the line a search
    gives it (``nothing_indexed``): "no session ran here … one that `deja sessions` lists" sent the person to a list
    of nothing (trial47 F5). An empty ``session_id`` is left to its own line, which an index with sessions gives it
    too (review47f L3)."""
    if not index.session_count and (session_id is None or session_id.strip()):
        raise Failed(FOLDER_GONE if _current_folder_gone() else nothing_indexed())


def said_empty(index: Index, json: bool = False) -> bool:
    """Whether the index holds no session, said then as a search says it (``nothing_indexed``): a verb that lists
    what it finds (``how``, ``files``, ``fix`` …) has nothing to look in, which "no command ran here" did not say
    (trial47 F5). With ``json`` nothing is said, and the answer's empty lists are the verb's to give."""
    if index.session_count or json:
        return False
    if _current_folder_gone():  # (where it ran is what the verb asks of, and is said first: review12 R3)
        raise Failed(FOLDER_GONE)
    echo(nothing_indexed())
    return True


def filter_flags(**given: str | None) -> list[str]:
    """The filters a user gave, as they typed them (``redaction.echoed``): ``--project api``, ``--source cursor-cli``."""
    from ..core.redaction import PATH_CHARS, echoed

    return [f"--{name} {echoed(value, PATH_CHARS)}" for name, value in given.items() if value]


def the_filters(flags: list[str]) -> str:
    return "the filters" if len(flags) > 1 else "the filter"


def _that_do(count: int) -> str:
    return "the one that does" if count == 1 else f"the {count} that do"


def _not_rebuilt(result: RefreshResult, data: dict[str, object] | None) -> None:
    """A rebuild that met a store it could not read kept the index as it was: the command failed (exit 1)."""
    if data is not None:
        emit_json(data)
    if result.outside_roots:
        raise Failed(_outside_roots(result.outside_roots))
    it, them = ("they", "them") if result.unreadable_kept != 1 else ("it", "it")
    from ..core.readers.unreadable import CURSOR_MENDS, MID_WRITE

    why = _why_first(result)
    # (what was read: of a store beside a transcript, not its session; a damaged file is never read: review47f L2)
    wait = "" if why == "damaged" else f"; run it again once {it} can be read"
    if why == MID_WRITE:
        wait = f"; {CURSOR_MENDS}: run it again then"
    raise Failed(
        f"the index was not rebuilt: {_unreadable_named(result, why)} could not be read this time, and a rebuild "
        f"would lose what was read from {them} before, which is kept as it was{wait}{_way_out(result, why)}"
    )


def _way_out(result: RefreshResult, why: str) -> str:
    """What to do about a file waiting never mends: one this user may not read is made readable (``_make_readable``);
    a damaged one (a truncated database stays so), the first named or any other named after a locked one (trial16
    F5), is moved away, and the rebuild goes ahead without its sessions. A locked one is only waited for."""
    if why == "permission denied":
        return f"; {_make_readable(result, 'deja index --full')}"
    from ..core.readers.unreadable import move_away, why_unreadable

    damaged = next(
        (
            path
            for i, path in enumerate(result.unreadable_files)
            if (why if i == 0 else why_unreadable(path)) == "damaged"
        ),
        "",
    )
    if not damaged:
        return ""
    what = "a damaged file" if damaged == result.unreadable_files[0] else f"{damaged} is damaged, and a damaged file"
    without = f", to rebuild without {dropped}" if (dropped := _dropped(damaged)) else ""
    return f"; {what} stays so: move it away ({move_away(damaged)}) and run it again{without}"


def _outside_roots(files: list[str]) -> str:
    """Why a rebuild was refused for stores read before under another environment's Cursor folder
    (``stores_out_of_sight``), and what to do. The store is readable, so "could not be read" would send the person
    looking for a lock; dropping its sessions unasked would lose history."""
    what, fix = stores_out_of_sight(files)
    their = "its" if len(files) == 1 else "their"
    return (
        f"the index was not rebuilt: {what}, and a rebuild would drop {their} sessions; {fix} and run it again "
        "(a plain `deja index` keeps them as they are)"
    )


def stores_out_of_sight(files: list[str]) -> tuple[str, str]:
    """What to say of stores the index read that lie under none of the Cursor folders this process reads: how many,
    the Cursor folder they were read from (not a store's own folder), the folders read now; and the fix, the
    variable that named that folder, to set as it was. ``deja index --full``'s refusal and doctor say the same."""
    roots = list(dict.fromkeys(_root_of(file) for file in files))
    folder, variable = roots[0]
    elsewhere = f" (and {plural(len(roots) - 1, 'other folder')})" if len(roots) > 1 else ""
    are, they, was = ("is", "it", "was") if len(files) == 1 else ("are", "they", "were")
    reads = ", ".join(folders.cli_roots())
    what = (
        f"{plural(len(files), 'Cursor store')} indexed from {folder}{elsewhere} {are} in none of the Cursor folders "
        f"deja reads now ({reads})"
    )
    return what, _narrowed_by() or f"set {variable} as it was when {they} {was} indexed"


def _narrowed_by() -> str:
    """What to undo when ``cursor_cli_root`` (``DEJA_CURSOR_CLI_ROOT`` or the config file) names the one Cursor folder
    deja reads: it replaces every other, so setting the variable that named the old one changes nothing (trial11
    F3); "" when it is not set."""
    from ..core import config

    given = config.resolve("cursor_cli_root")
    if given.value is None:
        return ""
    if given.source == "env":
        return "DEJA_CURSOR_CLI_ROOT replaces every other Cursor folder: unset it (or point it at that folder)"
    return "cursor_cli_root in deja's config replaces every other Cursor folder: `deja config unset cursor_cli_root`"


#: Where a store lies in a Cursor folder, and the variable that names such a folder: chats (and ACP sessions) under
#: the config root (``CURSOR_CONFIG_DIR``, or ``XDG_CONFIG_HOME``'s ``cursor``), transcripts under the data root
#: (cursor-drift §9).
_STORE_FOLDERS = (
    (f"{os.sep}chats{os.sep}", ""),
    (f"{os.sep}acp-sessions{os.sep}", ""),
    (f"{os.sep}projects{os.sep}", "CURSOR_DATA_DIR"),
)


def _root_of(source: str) -> tuple[str, str]:
    """The Cursor folder a store lies in and the variable that names such a folder (``_STORE_FOLDERS``)."""
    for marker, variable in _STORE_FOLDERS:
        if marker in source:
            folder = source[: source.rindex(marker)]
            if variable:
                return folder, f"{variable}={folder}"
            if os.path.basename(folder) == "cursor":
                return folder, f"XDG_CONFIG_HOME={os.path.dirname(folder)} (or CURSOR_CONFIG_DIR={folder})"
            return folder, f"CURSOR_CONFIG_DIR={folder}"
    return os.path.dirname(
        source
    ), "the variable that named its folder (CURSOR_DATA_DIR, CURSOR_CONFIG_DIR, XDG_CONFIG_HOME)"


def _why_first(result: RefreshResult) -> str:
    """Why the first store a refresh could not read cannot be read, looked at again now: locked, damaged, not
    readable; "" when it reads now, or none is known by name."""
    from ..core.readers.unreadable import why_unreadable

    return why_unreadable(result.unreadable_files[0]) if result.unreadable_files else ""


def _unreadable_named(result: RefreshResult, why: str) -> str:
    """The stores a refresh could not read, as a message names them (``unreadable.unreadable_named``)."""
    from ..core.readers.unreadable import unreadable_named

    return unreadable_named(result.unreadable_files, result.unreadable_kept, why)


def quote(text: str) -> str:
    """``text`` as a shell takes it as one word (``shlex.quote``, loaded only for a message that gives a command to
    paste: it loads ``re``, which a search's page never needs)."""
    import shlex

    return shlex.quote(text)


def plural(count: int, noun: str) -> str:
    """``1 Cursor store``, ``2 Cursor stores``: a count and its noun, singular or plural as the count says."""
    return f"{count} {noun_for(count, noun)}"


def noun_for(count: int, noun: str) -> str:
    """``noun`` as ``count`` of it reads: singular for one, plural otherwise (for a table's aligned counts)."""
    return noun if count == 1 else f"{noun}s"


#: When a store that could not be read is tried again: ``deja index`` tries it whatever changed (``glance``), any
#: other run once a walk is due.
_NEXT_INDEX = "by the next `deja index` (by deja on its own within a minute)"
_READ_AGAIN = f"read again {_NEXT_INDEX}"


def _report_unreadable(result: RefreshResult) -> str:
    """What a refresh could not read this time, on stderr: the first file by name, and what became of what was read
    from it before: kept, unless a rebuild could not carry it over from an index it could not read (``uncarried``),
    which a kept folder may hold (``kept_aside``). The file or folder whose chmod it gives, if it gives one."""
    if not result.unreadable_kept:
        return ""
    it_is, them, their = ("they are", "them", "their") if result.unreadable_kept != 1 else ("it is", "it", "its")
    from ..core.readers.unreadable import CURSOR_MENDS, MID_WRITE

    why = _why_first(result)
    named = _unreadable_named(result, why)
    if result.uncarried:
        where = f"; the index it replaced, kept in {result.kept_aside}, may hold them" if result.kept_aside else ""
        echo(
            f"{named} could not be read this time: the rebuilt index lacks {their} sessions until {it_is} "
            f"{_READ_AGAIN}{where}",
            err=True,
        )
        return ""
    if result.kept_aside:  # a rebuild could not carry what it held: "kept" may be true of none of it
        echo(
            f"{named} could not be read this time, and {it_is} {_READ_AGAIN}; what a rebuild could not carry over "
            f"from {them} is missing until then (the index it replaced is kept in {result.kept_aside})",
            err=True,
        )
        return ""
    if why == "damaged":  # waiting never mends it: "read by the next deja index" would be said run after run
        echo(f"{named} could not be read this time: {_damaged_kept(result, them)}", err=True)
        return ""
    if why == MID_WRITE:  # nor does waiting: Cursor rolls its journal back, a read-only reader cannot (review49d M1)
        echo(f"{named} could not be read this time: {_read_before(result, them)}; {CURSOR_MENDS}", err=True)
        return ""
    if why == "permission denied":  # nor does it mend this: only a chmod by the file's owner does (trial16 F2)
        echo(f"{named} could not be read: {_read_before(result, them)}; {_make_readable(result)}", err=True)
        return _blocker(result)
    echo(f"{named} could not be read this time: {_kept_until(result, them, it_is)}", err=True)
    return ""


def root_away(root: str, kept: int) -> str:
    """The one line for a Cursor folder that cannot be read this time whose sessions the index keeps
    (``plan.roots_away``): ``deja index`` and doctor say it alike (trial49 F8: they went with no word)."""
    return (
        f"{root} cannot be read this time (not there: a disk not mounted, a link to nowhere?): what was read from it "
        f"before ({plural(kept, 'session')}) is kept as it was, and read again once it is back; `deja index --full` "
        "rebuilds without it"
    )


def root_unlistable(root: str) -> bool:
    """Whether ``root``, a Cursor folder away this time (``plan.roots_away``), is there but may not be listed (mode
    000, another user's): not "not there" (review49d L2) but one of the folders this user may not list, said with the
    chmod that opens it (``unreadable.unlisted_folders``)."""
    return os.path.isdir(root)


def _unlisted_folders(walked: list[str] | None) -> list[str]:
    """The folders under Cursor's roots this user may not list (``unreadable.unlisted_folders``): no walk sees the
    chats in them, so no refresh counts them as unread. ``walked``: the chat folders the refresh's walk found it may
    not search (None: it walked none, and each is looked at)."""
    from ..core import folders
    from ..core.readers.unreadable import unlisted_folders

    return unlisted_folders(folders.ide_user_root(), folders.cli_roots(), walked)


def _report_unlisted(unlisted: list[str], said: str) -> None:
    """The folders this user may not list, the first by name, on stderr, with the chmod that makes them readable;
    but for ``said``, whose chmod the line about the first store a refresh could not read gave already (a folder that
    hides transcripts read before)."""
    from ..core.regular_files import readable_command

    unlisted = [folder for folder in unlisted if folder != said]
    if not unlisted:
        return
    more = len(unlisted) - 1
    named = f"{unlisted[0]} and {plural(more, 'more folder')}" if more else unlisted[0]
    them = "them" if more else "it"
    echo(
        f"deja may not list {named} (permission denied): the chats in {them} are not indexed (the index keeps what "
        f"it read from {them} before); make {them} readable: {readable_command(unlisted)}, then `deja index`",
        err=True,
    )


def _read_before(result: RefreshResult, them: str) -> str:
    """Whether anything was read before from the stores a refresh could not read, which the index keeps."""
    if result.unreadable_new == result.unreadable_kept:
        return "nothing was read from it before" if result.unreadable_kept == 1 else "nothing was read from them before"
    return f"what was read from {them} before is kept"


def _damaged_kept(result: RefreshResult, them: str) -> str:
    """What became of a damaged store's sessions, and the way out: moved away, what only it held goes with it
    (review12 R5: a damaged store was promised a read by the next `deja index`, run after run). Of several stores,
    moving the one named takes it off the line, not the line (fix47h)."""
    from ..core.readers.unreadable import move_away

    first = result.unreadable_files[0]
    goes = (
        f" and {dropped}" if (dropped := _dropped(first)) else ""
    )  # (of that store: another may be new, review47f M2)
    line = "this line" if result.unreadable_kept == 1 else "it from this line"
    return (
        f"{_read_before(result, them)}; a damaged file stays so: move it away ({move_away(first)}) to drop {line}{goes}"
    )


def _dropped(path: str) -> str:
    """What moving the damaged ``path`` away drops from the index (``moved_away.dropped_with``); "" for nothing."""
    from ..core import paths
    from ..core.moved_away import dropped_with

    return dropped_with(path, paths.deja_home(), folders.cli_roots())


def _make_readable(result: RefreshResult, then: str = "deja index") -> str:
    """The chmod that lets this user read the first store a refresh could not read for want of permission: on the
    file itself, or on the folder above it that hides it (``regular_files.forbidden``), as doctor gives it."""
    from ..core.readers.unreadable import make_readable

    return make_readable(result.unreadable_files[0], then)


def _blocker(result: RefreshResult) -> str:
    """What keeps this user from reading the first store a refresh could not read: the file, or a folder above it."""
    from ..core.regular_files import forbidden

    first = result.unreadable_files[0]
    return forbidden(first) or first


def _kept_until(result: RefreshResult, them: str, it_is: str) -> str:
    """What became of the stores it could not read, and when they are read: what was read from them before is kept,
    but a store never read before (a new chat's, locked at its first sighting) has nothing kept (trial9 F5)."""
    if not result.unreadable_new:
        return f"what was read from {them} before is kept, and {it_is} {_READ_AGAIN}"
    if result.unreadable_new == result.unreadable_kept:
        return f"nothing was read from {them} before; {it_is} read {_NEXT_INDEX}"
    before = result.unreadable_kept - result.unreadable_new
    never = f"{result.unreadable_new} never read yet"
    return f"what was read from {before} of them before is kept ({never}), and they are read {_NEXT_INDEX}"


def _say_waiting() -> None:
    """Said once another deja has held the index for half a second (a build, a walk a read started): it can take
    minutes, and a command that printed nothing meanwhile looked hung."""
    try:  # (best effort: a reader of stderr gone must not stop the refresh)
        echo("waiting for another deja writing the index to finish …", err=True)
    except OSError:
        return


def index_command(full: bool = False, json: bool = False) -> None:
    """Build the index, or refresh it with what changed since the last run (``deja index``)."""
    from ..core import paths
    from ..core.folders import not_utf8
    from ..core.indexer import WRITER_WAIT_SECONDS, refresh
    from ..core.regular_files import not_utf8_said, not_utf8_shown

    collect_from_now()
    check_roots()
    _check_readable()
    bar = ProgressBar("indexing")
    try:
        if full:
            result = refresh(full=True, progress=bar, waiting=_say_waiting)
        else:
            result = refresh(progress=bar, lock_timeout=WRITER_WAIT_SECONDS, verify=True, waiting=_say_waiting)
    except TimeoutError:
        raise Failed("another deja is building the index right now: try again when it finishes") from None
    except OSError as exc:
        raise Failed(unwritable(exc)) from None
    finally:
        bar.close()
    data: dict[str, object] = {
        "sessions": result.sessions,
        "messages": result.messages,
        "added": result.added,
        "updated": result.updated,
        "removed": result.removed,
        "seconds": result.seconds,
        "waited": result.waited,
        "unreadable_kept": result.unreadable_kept,
        "not_rebuilt": result.not_rebuilt,
        "unreadable_folders": (unlisted := _unlisted_folders(result.unsearchable)),
        "not_utf8": sorted(not_utf8_shown(path) for path in not_utf8),
        "roots_away": result.roots_away,
    }
    if result.not_rebuilt:
        _not_rebuilt(result, data if json else None)
    if json:
        emit_json(data)
        return
    if result.rebuilt_because:
        echo(rebuilt_line(result.rebuilt_because), err=True)
    # (the wait for another build is said apart: "indexed in 34.76s" for 0.6 s of work blamed the wrong thing)
    waited = f", after waiting {result.waited:.1f}s for another deja writing the index" if result.waited >= 0.1 else ""
    echo(
        f"{plural(result.sessions, 'session')}, {plural(result.messages, 'message')} indexed in {result.seconds:.2f}s "
        f"({result.added} added, {result.updated} updated, {result.removed} removed){waited}"
    )
    _report_unlisted(unlisted, _report_unreadable(result))
    if passed_over := not_utf8_said():
        echo(passed_over, err=True)
    for root, kept in result.roots_away.items():
        if not root_unlistable(root):  # (one there that may not be listed: the line of unlisted folders named it)
            echo(root_away(root, kept), err=True)
    from ..core.indexer.plan import RETRIED, THIS_TIME_FAILURES  # (loaded by the refresh already)

    # A record Cursor left empty or damaged is the same on every read: doctor lists those, once, as information. A
    # whole store it could not read is no skipped record: the line above named it, or counted it among "N more".
    stores = sum(n for reason, n in result.problems.items() if reason in THIS_TIME_FAILURES)
    skipped = sum(n for reason, n in result.problems.items() if reason in RETRIED) - min(stores, result.unreadable_kept)
    if skipped:
        echo(f"{plural(skipped, 'unreadable record')} skipped; `deja doctor` lists them", err=True)
    if not result.sessions and not result.unreadable_kept:  # (chats there, that it could not read: said above)
        from .doctor import no_history

        nothing = no_history([paths.ide_user_root(), *paths.cli_roots()])
        echo(f"{nothing.message[:1].upper()}{nothing.message[1:]}: {nothing.fix}.")
