"""What the CLI and the MCP server share: a fresh index to read, and a session found by id."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

from . import paths
from .index import SOURCE_CODES, Index, IndexKeptOut, IndexUnreadable, Segment, SessionMeta, check_readable, index_dir
from .indexer import Progress, RefreshResult, catch_up, refresh
from .keys import holds_home, is_root, project_spelling, sessions_key, spelt_homes, typed_id
from .private import refusal, refused_write, room_fix

TYPE_CHECKING = False  # typing's own, without importing typing; type checkers know it
if TYPE_CHECKING:
    from .index import Codec
    from .indexer.glance import Check
    from .work import Digest

#: How far down the newest-first list a source filter may look.
SOURCE_SCAN_LIMIT = 20_000
#: Why ``wip_project`` found no project: each interface words it in its own form (an exit code, an empty answer).
ROOT_FOLDER, NO_FOLDER, NO_SESSION, HOME_FOLDER = "root folder", "no folder", "no session", "home folder"


class NotFound(LookupError):
    """No session, or more than one, answers to an id; the message says which."""


def open_index(
    home: Path | None = None,
    *,
    fresh: bool = True,
    progress: Progress | None = None,
    note: Callable[[str], None] | None = None,
    checked: Check | None = None,
    codec: Codec | None = None,
    rebuilt: Callable[[str], str] = "rebuilt the index: {}".format,
) -> Index:
    """The index, brought up to date first when ``fresh`` by the cheap check (see ``indexer.glance``), or from
    ``checked``, the check a caller has just made; its records decoded by ``codec`` (``Index.open``). A refresh that
    rebuilt the index whole tells ``note`` the line ``rebuilt`` makes of why (the CLI adds what it knows of the wiring).

    Reading needs no write access: if the refresh cannot take the writer lock
    (another deja holds it) or cannot write (a read-only or full disk), it is
    skipped, ``note`` is told why in one line, and the index as it stands is read; when there is none to read,
    the OSError that kept it from being written is raised, or IndexBeingWritten while another deja rebuilds it.
    An index found damaged on opening is rebuilt by a full refresh, which says why.
    """
    home = home or paths.deja_home()
    if not fresh:
        return Index.open(home, codec)
    check_readable(index_dir(home))
    say = note or (lambda _: None)
    # (no sweep: a read waits on no retired segment's removal; the refreshes nobody waits on do it, see ``refresh``)
    kept_out = _update(lambda: catch_up(home, progress=progress, found=checked, sweep=False), say, rebuilt)
    try:
        index = Index.open(home, codec)
    except IndexKeptOut:  # (forbidden, or a newer deja's: a rebuild would not mend it)
        raise
    except IndexUnreadable as exc:
        if kept_out is None:
            kept_out = _update(lambda: refresh(home, progress=progress, lock_timeout=0, sweep=False), say, rebuilt)
        if isinstance(kept_out, TimeoutError):  # no index to answer from yet: the one thing to say
            raise IndexBeingWritten(
                f"{exc}; another deja is rebuilding it now: run this again when it is done"
            ) from None
        if kept_out is not None:
            raise kept_out from None  # no index to answer from, and none can be written: the one thing to say
        return Index.open(home, codec)
    if kept_out is not None:
        say(f"{not_updated(home, kept_out)}; answering from the index as it stands")
    return index


def not_updated(home: Path, kept_out: OSError) -> str:
    """Why the index at ``home`` was not brought up to date, in one line naming the file and what to do: what the
    CLI and the MCP server's refresher say (which wrote a traceback to Cursor's MCP log, trial49 F3)."""
    if isinstance(kept_out, TimeoutError):
        return "another deja is updating the index"
    if refusal(kept_out) and (refused := refused_write(home)):
        return f"cannot update the index in {refused}"
    where = kept_out.filename or index_dir(home)
    fix = f": {room}" if (room := room_fix(kept_out)) else ""
    return f"cannot update the index ({where}: {kept_out.strerror or kept_out}){fix}"


class IndexBeingWritten(Exception):
    """The index cannot be read as it stands (an upgrade's older format) and another deja holds the writer lock,
    rebuilding it: a read has nothing to answer from until it is done."""


def _update(
    run: Callable[[], RefreshResult | None], say: Callable[[str], None], rebuilt: Callable[[str], str]
) -> OSError | None:
    """Run an update of the index; what kept it from writing (a TimeoutError: another deja holds the writer lock), for
    the caller to say or raise. A rebuild is said in the line ``rebuilt`` makes of why."""
    try:
        result = run()
    except OSError as exc:  # (TimeoutError is one)
        return exc
    if result is not None and result.rebuilt_because:
        say(rebuilt(result.rebuilt_because))
    return None


#: What lists session ids and what finds one, as a person at the CLI runs them (the MCP server names its tools).
ID_FINDERS = ("`deja sessions`", "`deja search`")


def find_session(index: Index, prefix: str, finders: tuple[str, str] = ID_FINDERS) -> tuple[Segment, SessionMeta]:
    """The session ``prefix`` names; NotFound naming ``finders``, what lists ids and what finds one, where none does.
    The backticks or quotes an id is copied with are no part of it (``keys.typed_id``)."""
    prefix = typed_id(prefix)
    if not prefix:
        raise NotFound(f"an empty session id matches nothing: give an id or a unique prefix (see {finders[0]})")
    found = index.find(prefix) or index.find(prefix.lower())  # ids are lowercase; a prefix typed in capitals is too
    if not found:
        from .redaction import echoed  # (an id pasted wrong may be a blob of megabytes: named by its start)

        raise NotFound(
            f"no session has the id {echoed(prefix)!r}: list ids with {finders[0]} or find one with {finders[1]}"
        )
    if len(found) > 1:
        ids = ", ".join(sorted(meta.id for _, _, meta in found)[:10])
        more = f" and {len(found) - 10} more" if len(found) > 10 else ""
        raise NotFound(f"the prefix {prefix!r} matches {len(found)} sessions ({ids}{more}): give more of the id")
    segment, _, meta = found[0]
    return segment, meta


def newest_sessions(
    index: Index,
    *,
    project: str | None = None,
    source: str | None = None,
    limit: int = 20,
    below: bool = True,
    since: float = 0.0,
    until: float = 0.0,
) -> list[SessionMeta]:
    """The most recently updated sessions, of one project (a name, or a folder with the folders below it unless
    ``below`` is False) and source if given, updated at ``since`` (epoch seconds) or after and, when ``until`` is
    given, before it.

    Reads the index's newest-first list for the project (or for all sessions),
    so the cost follows ``limit``, not the size of the history.
    """
    wanted = SOURCE_CODES.get(source, -1) if source else None
    found: list[SessionMeta] = []
    seen: set[str] = set()
    for segment, ordinal in _newest(index, sessions_key(project, below), wanted, limit, since, until):
        meta = segment.session(ordinal)
        if meta.id not in seen:
            seen.add(meta.id)
            found.append(meta)
        if len(found) >= limit:
            break
    return found


def _newest(
    index: Index, key: str, wanted: int | None, limit: int, since: float, until: float = 0.0
) -> Iterator[tuple[Segment, int]]:
    """The live sessions filed under ``key``, newest first, of source ``wanted`` (a code; None for any) and updated at
    ``since`` or after (and before ``until`` when given, ``Index.newest``): (segment, ordinal), read from
    ``sessions.idx`` without decoding them; at most ``limit`` without a source filter, and with one as many as the
    ``SOURCE_SCAN_LIMIT`` newest of the period hold (``limit`` unused)."""
    scan = SOURCE_SCAN_LIMIT if wanted is not None else limit
    for _, segment, doc in index.newest(key, limit=scan, scan_limit=max(scan, 2000), since=since, until=until):
        ordinal = segment.doc(doc).ordinal
        session_keys = segment.session_keys(ordinal)
        if session_keys.updated < since:  # (newest first: every one after it is older still)
            return
        if wanted is None or session_keys.source == wanted:
            yield segment, ordinal


def sessions_left_out(
    index: Index,
    shown: int,
    *,
    project: str | None = None,
    source: str | None = None,
    since: float = 0.0,
    until: float = 0.0,
) -> int:
    """How many sessions a listing of the ``shown`` newest (``newest_sessions`` with these filters) left out: the
    index's count, or a count of the live sessions filed under the filter's key (a live row is one session, as
    ``Index.session_count`` counts them), each told by its row in ``sessions.idx`` (its source and time), not
    decoded, and in no order (how many the listing found beyond its page matters, not which). But a source filter
    over more than the newest ``SOURCE_SCAN_LIMIT`` sessions of the period, which the listing looks no further than:
    those are counted in order (``_newest``). An ``until`` filter's count starts at the first posting before it
    (``Segment.postings_after``), as the listing does."""
    if not project and not source and not since and not until:
        return max(index.session_count - shown, 0)
    key = sessions_key(project)
    wanted = SOURCE_CODES.get(source, -1) if source else None
    spans = []  # (segment, its postings under the key, the first before ``until``, how many at ``since`` or after)
    for segment in index.segments:
        p_off, posted, _ = segment.lookup(key)
        first = segment.postings_after(p_off, posted, until) if until else 0
        spans.append(
            (segment, p_off, first, segment.postings_after(p_off, posted, since, at=True) if since else posted)
        )
    if wanted is not None and sum(stop - first for _, _, first, stop in spans) > SOURCE_SCAN_LIMIT:
        return sum(1 for _ in _newest(index, key, wanted, SOURCE_SCAN_LIMIT, since, until)) - shown
    end = until or float("inf")
    count = 0
    for segment, p_off, first, stop in spans:
        _, _, sources, updated, _ = segment.session_columns()
        deleted = segment.deleted
        for _, ordinal, _ in segment.postings(p_off, first, stop):  # (a float32 day's step finds some just beside)
            if (
                ordinal not in deleted
                and since <= updated[ordinal] < end
                and (wanted is None or sources[ordinal] == wanted)
            ):
                count += 1
    return count - shown


def wip_project(index: Index, folder: str, on_disk: str) -> tuple[str, str, bool]:
    """The project ``deja wip`` and the MCP ``work`` tool's ``wip`` mean by ``folder`` (as the index spells it;
    ``on_disk``: as the disk has it, "" for a project's name, which is that project) and "", or "" and why there is
    none (``ROOT_FOLDER``, ``NO_FOLDER``, ``NO_SESSION``, ``HOME_FOLDER``): one rule for both, which only word it
    differently; and whether the sessions below the project are its own too (``wip_session``'s ``below``).

    A root folder, however it is spelled (``/``, ``../../..``, ``c:\\``: ``keys.is_root``), is no project's (refused, as
    ``--project /`` is); a
    folder that is not there and no session ran in is missing, not one no session ran in (trial9 F12); else the
    folder or the nearest above it that sessions ran in (``Index.nearest_project``). A folder that is its own project
    is the sessions below it too (a monorepo's root), but for the home folder or one above it (every project's); a
    folder above is this one's project by its own sessions: the others below it ran in a sibling (``shop/api`` seen
    from ``shop/web/src``), which is not "here". Whether ``folder`` holds the home folder is asked once.
    """
    if is_root(folder):
        return "", ROOT_FOLDER, False
    spelt = project_spelling(folder)
    at_home = holds_home(spelt, spelt_homes())
    if not on_disk:
        return folder, "", not at_home
    if not os.path.exists(on_disk) and not newest_sessions(index, project=folder, limit=1):
        return "", NO_FOLDER, False
    project = index.nearest_project(folder, at_home)
    if project:
        return project, "", project == folder and not at_home
    return "", HOME_FOLDER if at_home else NO_SESSION, False


#: What the CLI's lines of why ``wip`` has no session point to: what lists sessions and where they ran, what digests
#: one by its id, and what asks ``wip`` of a folder (``{}``: the folder, as a shell word). The MCP server names its tools.
WIP_POINTERS = ("`deja sessions`", "`deja ctx ID`", "`deja wip {}`")


def no_wip(index: Index, folder: str, why: str, pointers: tuple[str, str, str] = WIP_POINTERS) -> str:
    """The one line that says why ``wip`` has no session for ``folder`` (as the index spells it; ``why``:
    ``wip_project``'s), the CLI's and the MCP server's alike but for the commands each points to (``pointers``): each
    said it in its own words, and the two had drifted apart. The latest session's folder is named where every project
    is below the one asked: the newest whose folder is here."""
    from .redaction import PATH_CHARS, echoed

    shown = echoed(folder, PATH_CHARS)
    lists, digests, asks = pointers
    if why == ROOT_FOLDER:
        return f"{shown} is the root folder, no project's: give a project's folder"
    if index.session_count:  # (a damaged terms file finds no folder's keys: the file named, not "no session ran")
        index.verify()
    if why == NO_FOLDER:
        return f"no folder {shown}: give a project's folder; {lists} lists where sessions ran"
    if (elsewhere := projects_with_no_folder(index)) is not None:  # (trial43 F8: not "every project is below it")
        if not elsewhere:
            return (
                f"no session ran in {shown}, and none has a project (deja placed none in a folder): {digests} digests "
                f"one that {lists} lists"
            )
        named = ", ".join(echoed(name, PATH_CHARS) for name in elsewhere[:_NAMESAKES_SHOWN])
        more = f" and {len(elsewhere) - _NAMESAKES_SHOWN} more" if len(elsewhere) > _NAMESAKES_SHOWN else ""
        return (
            f"no session ran in {shown}, nor in any folder of this machine: their projects ({named}{more}) have no "
            f"folder here (a remote window's, a folder gone): {digests} digests one that {lists} lists"
        )
    if why == HOME_FOLDER:
        from .text import shell_word

        # (below the folder asked, and there: a folder gone is none to ask of, trial58b B5; nor one outside it,
        # ``/srv/app`` for ``~``, review59b F9)
        below = project_spelling(folder).rstrip("/") + "/"
        here = [
            meta.project_dir
            for meta in newest_sessions(index, limit=20)
            if project_spelling(meta.project_dir).startswith(below) and os.path.isdir(meta.project_dir)
        ][:1]
        named = f" (the newest project here: {asks.format(shell_word(here[0]))})" if here else ""
        return f"no session ran in {shown} itself, and every project is below it: give a project's folder{named}"
    said = f"no session ran in {shown}, below it or in a folder above it"
    if namesakes := _same_named(index, folder):
        from .text import shell_word

        where = ", ".join(echoed(named, PATH_CHARS) for named in namesakes[:_NAMESAKES_SHOWN])
        more = f" and {len(namesakes) - _NAMESAKES_SHOWN} more" if len(namesakes) > _NAMESAKES_SHOWN else ""
        return f"{said}; sessions ran in {where}{more}, of the same name: {asks.format(shell_word(namesakes[0]))}"
    return f"{said}; {lists} lists where sessions ran"


#: How many folders of the name asked that sessions ran in ``no_wip`` names; the rest are counted.
_NAMESAKES_SHOWN = 3


def _same_named(index: Index, folder: str) -> list[str]:
    """The folders sessions ran in that share ``folder``'s name but not its path: a history copied from another
    machine (``/home/alice/code/shop`` there, ``/home/bob/code/shop`` here) is nobody's project here by path, and
    the line that says so names where it ran (trial49 F7)."""
    from .project_names import project_folders

    name = folder.rstrip("/\\").replace("\\", "/").rpartition("/")[2]
    return [named for named in project_folders(index, name, 1) if named != folder] if name else []


def projects_with_no_folder(index: Index) -> list[str] | None:
    """None where deja placed some session in a folder of this machine; else the names of the projects its sessions
    have all the same, newest first: a remote window's (``readers.remote``), a transcript folder's name whose folder is
    gone. Where there are none either (editor chats no workspace lists), ``wip`` says none has a project, not that
    every project is below the folder asked (trial43 F8); where there are, it names them (review57d F5: a person who
    works only over SSH was told none had a project while ``deja sessions`` listed each under ``infra (devbox)``)."""
    newest: dict[str, float] = {}
    for _, _, meta in index.sessions():
        if meta.project_dir:
            return None
        if meta.project:
            updated = meta.updated.timestamp() if meta.updated else 0.0
            newest[meta.project] = max(updated, newest.get(meta.project, updated))
    return sorted(newest, key=lambda name: -newest[name])


#: How long before a folder's newest session an unfinished one is still the work ``deja wip`` means (seconds): a test
#: run that failed on Friday is Monday's work in progress, whatever question was asked and answered since.
WIP_RECENT = 3 * 24 * 3600
#: How many of a folder's newest sessions ``deja wip`` reads for one that stopped unfinished.
WIP_READ = 10


def wip_session(index: Index, project: str, below: bool) -> tuple[SessionMeta, list[SessionMeta]] | None:
    """The session of ``project`` ``deja wip`` means (``wip_project``'s project and ``below``), and the newer ones it
    passed over: its newest, unless that settled a question (``ending.settled_question``) and an older one, updated at
    most ``WIP_RECENT`` before it with only settled questions since, stopped unfinished (``ending.unfinished``): a
    failed test run, an ask not answered, edits not concluded (trial48b F8: "how do I profile memory" answered today
    hid yesterday's export that stopped on a failed pytest). None when the project has no session."""
    from .ending import settled_question, unfinished

    read: dict[str, tuple[Segment, SessionMeta]] = {}
    for segment, ordinal in _newest(index, sessions_key(project, below), None, WIP_READ, 0.0):
        meta = segment.session(ordinal)
        read.setdefault(meta.id, (segment, meta))
    if not read:
        return None
    (_, newest), *older = read.values()
    passed = [newest]
    if not settled_question(*read[newest.id]):
        return newest, []
    for segment, meta in older:
        if newest.updated and meta.updated and (newest.updated - meta.updated).total_seconds() > WIP_RECENT:
            break
        if unfinished(segment, meta):
            return meta, passed
        if not settled_question(segment, meta):
            break
        passed.append(meta)
    return newest, []


def session_digest(index: Index, query: str, finders: tuple[str, str] = ID_FINDERS) -> tuple[Digest, list[str]]:
    """The digest of the session ``query`` names (an id or a unique prefix), else of the best match for its words,
    and the ids of the next best (up to ``RUNNERS_UP``), which a person told of can pick instead (``deja ctx double
    charge`` chose the diagnosis chat, not the fix, without a word of the other: trial20 F15); ``finders`` as for
    ``find_session``."""
    from .redaction import echoed, searched_words
    from .search import search
    from .work import digest, reverted_later  # only the digest commands pay for the work history's import

    def marked(segment: Segment, meta: SessionMeta) -> Digest:
        summary = digest(segment, meta)
        summary.reverted = reverted_later(index, meta)
        return summary

    try:
        segment, meta = find_session(index, query, finders)
    except NotFound as not_an_id:
        words = searched_words(query)
        if not words.strip():
            raise LookupError(
                f"{echoed(query)} is a secret, which deja never keeps as written: give a session's id or other words"
            ) from None
        hits = search(index, words, limit=1 + RUNNERS_UP, snippets=0).hits
        if not hits:
            raise LookupError(f"{not_an_id}; no session's words match it either") from None
        segment, meta = find_session(index, hits[0].session_id)
        return marked(segment, meta), [hit.session_id for hit in hits[1:]]
    return marked(segment, meta), []


#: How many other sessions matching its words a digest chosen by words names.
RUNNERS_UP = 2


__all__ = ["Index", "IndexUnreadable", "NotFound", "find_session", "newest_sessions", "open_index"]
