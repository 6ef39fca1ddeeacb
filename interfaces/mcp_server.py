"""deja's MCP server: the agent pulls from its own history.

Hooks push context into a chat; these tools let the agent ask for it:
``search`` past sessions, ``show`` a window of one, list ``recent`` work and
get the command that would ``resume`` a CLI chat. ``deja mcp`` serves them over
stdio through the official MCP SDK; hooks never import this module.

Every tool answers from the prebuilt index, in two forms: readable text for
the model and, as structured content, the JSON the CLI prints with ``--json``.
While the SDK answers ``initialize`` and ``tools/list``, a background thread
loads the engine, opens the index and searches it once, so that the first tool
call finds it ready; a call that comes sooner waits only for the engine's
import and the index's opening. No call ever waits for a refresh: at most every
``REFRESH_SECONDS`` a call asks a child process (``mcp_refresh``) for the cheap
freshness check (``core.indexer.glance``: a few thousand stats at 100k
sessions, never a walk over every chat) and the reading of what it finds
changed, never waiting for another writer, and answers from the index as it
stands; a later call reads what that refresh wrote. The refresher starts
before the SDK is imported and checks at once, and runs at a lower priority
than the server, so that on a busy machine a call gets the core before it. A
full walk that is due runs in a detached process. The index is never built
inline: a missing index is built by a detached ``deja index`` while the tools
say so in one sentence.
"""

from __future__ import annotations

import errno
import gc
import inspect
import math
import os
import signal
import sys
import threading
import time
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, NoReturn

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from ..core import detached, paths
from ..core.dates import SINCE_FORMS, parse_since, parse_until
from ..core.folders import not_utf8_root_problem
from ..core.keys import readable_path
from ..core.redaction import PATH_CHARS, echoed
from .about import version
from .fastpath import SHOW_MOST, project_folder
from .mcp_refresh import Refresher
from .mcp_stdio import answering_stdio

# The engine (index, search, views) loads in the warm-up's thread, beside the handshake, never on the import path:
# start-up is the SDK's import and little else (bench/bench_mcp.py measures both).
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from datetime import datetime

    from ..core.index import Index, Segment, SessionMeta
    from ..core.model import Message
    from ..core.search import Filters, SearchResult

STILL_INDEXING = "deja is still indexing your history; try again in a few seconds."
#: What every tool call answers once deja was installed again under a running server (trial50 F2): its code in memory
#: is the old one, which may not read the index the new one writes ("still indexing" for ever) or may mix old modules
#: with new ones it imports later; only a new process runs the new code, and only the client can start one.
UPGRADED = (
    "deja was upgraded since this MCP server started, and it still runs the old code: restart it "
    "(in Cursor: Customize → MCPs, turn deja off and on, or reload the window; in Claude Code: /mcp, then reconnect "
    "deja; in another client, restart its MCP servers)"
)
#: The installed file whose stat says deja was installed again: the index format's module, which ``pip install``
#: replaces with every other file (a new inode) and which an editable checkout changes when the format changes.
#: Found beside this package, not imported, so that a stamp taken before the engine loads names the files it loads.
INSTALLED_MARKER = os.path.join(os.path.dirname(os.path.dirname(__file__)), "core", "index", "format.py")
#: How long one freshness check holds for the tool calls that follow it.
REFRESH_SECONDS = 1.0
#: How long after the call that asks for a refresh the refresher is asked (a search answers in well under this).
AFTER_CALL_SECONDS = 0.1
#: What the warm-up searches for (its answer is thrown away).
WARM_QUERY = "error"
#: The search text stops adding sessions at this many UTF-8 bytes (at least one is kept).
SEARCH_TEXT_BYTES = 4096
#: The most sessions one search gives (a larger ``limit`` is taken as this, and the text says so).
SEARCH_LIMIT = 20
#: How an agent sees the sessions a search left out (``deja search``'s footer names its flag, which an agent cannot
#: pass): a larger ``limit`` while it is below the most, else a narrower search...
SEE_MORE = f"pass a larger limit (up to {SEARCH_LIMIT}) or narrow the search"
NARROW = "narrow the search (a project, since, more distinctive words)"
#: The tools that list session ids and find one: an agent calls these, not the CLI's commands (trial43 F9).
TOOL_FINDERS = ("`recent`", "`search`")
#: What ``wip``'s lines of why it has no session point to (``library.no_wip``): the tools, not the CLI's commands.
TOOL_POINTERS = ("`recent`", "`work` ctx with its id", "`work` wip of {}")
#: A show window stops adding messages once their JSON passes this many bytes (at least one is kept)...
SHOW_WINDOW_BYTES = 32 * 1024
#: ...and cuts a message's text and each tool result, so that one huge paste cannot fill it.
MESSAGE_CHARS = 8000
RESULT_CHARS = 2000
#: A work answer's text stops at this many UTF-8 bytes.
WORK_TEXT_BYTES = 4096
#: How many runs the work tool's ``how`` lists, newest first.
HOW_RUNS = 15
#: How many files the work tool's ``files`` lists, in ``work.topic_files``' order.
FILES_LISTED = 20

INSTRUCTIONS = (
    "deja holds this person's past Cursor chats (IDE and cursor-agent CLI), already indexed and redacted. "
    "Before re-deriving something that may have been worked out before (an error seen again, a decision, "
    "a command, how a piece of this project works), call `search` with a few distinctive words; read a "
    "promising hit with `show`; `recent` lists the latest sessions and `resume` gives the command that "
    "reopens a CLI chat; `work` answers which chat edited a file, what fixed an error before and how a command was run. Say in one line when a past session helped; never report how much history exists."
)

READ_ONLY = {"read_only_hint": True, "destructive_hint": False, "open_world_hint": False}

SessionId = Annotated[
    str,
    Field(description="A session id from search or recent, or a unique prefix of one (8 characters usually suffice)."),
]
Project = Annotated[
    str | None, Field(description="Only sessions of this project: its folder name (e.g. 'api') or full path.")
]


def _since_at(since: str | None, now: datetime | None = None) -> datetime | None:
    """A tool's ``since`` as a moment (None when not given), a span back from ``now`` (``_until_at``'s too); a
    ToolError naming it when it is no time."""
    if not since:
        return None
    try:
        return parse_since(since, "time", now)
    except ValueError as refused:
        raise ToolError(f"since={refused}") from None


def _until_at(until: str | None, since: datetime | None, now: datetime | None = None) -> datetime | None:
    """A tool's ``until`` as the moment its day or period ends (``dates.parse_until``; None when not given); a
    ToolError naming it when it is no time, or ends before ``since`` begins."""
    if not until:
        return None
    try:
        moment = parse_until(until, "time", now)
    except ValueError as refused:
        raise ToolError(f"until={refused}") from None
    if since is not None and moment <= since:
        raise ToolError(f"until={echoed(until)!r} ends before since begins: give an until after it")
    return moment


#: ``recent``'s ``until`` (``search`` reads a day from its query's words: "what did I do last tuesday").
Until = Annotated[str | None, Field(description="Only sessions updated before the end of then.")]


def _checked_project(project: str | None) -> str | None:
    """The project a tool was given, unless it names a root folder (``.`` where the server runs in ``/``, a drive's
    ``c:\\``: ``keys.is_root``): no project's folder, which matched the sessions with none (``deja search --project /``
    refuses it too)."""
    from ..core.keys import is_root

    if project and project.strip() and is_root(project):
        raise ToolError(
            f"project={echoed(project, PATH_CHARS)!r} is the root folder, no project's: give the project's full path or its folder name"
        )
    return project


def _one_project(index: Index, project: str | None) -> str | None:
    """``project`` as the index reads it (``project_names.meant_project``): a name two folders share is refused,
    naming them and how to choose one, not their sessions mixed as one project's."""
    from ..core.project_names import meant_project, telling_labels

    meant, folders = meant_project(index, project)
    if folders:
        choices = " or ".join(f"project={label!r}" for label in telling_labels(folders))
        named = ", ".join(folders)
        raise ToolError(f"project={project!r} names {len(folders)} folders ({named}): give {choices}")
    return meant


class LiveIndex:
    """The index the tools read: kept open between calls, refreshed by another process, never built while a tool waits.

    A call answers from the index as it stands: it waits for nothing but the
    engine's import and the index's opening (the warm-up's, when one runs), and
    opens a new manifest itself when another deja swapped one in (half a
    millisecond at 100k sessions). At most every ``refresh_every`` seconds a
    call asks the refresher (``mcp_refresh``, a child process) for the cheap
    freshness check and the reading of what it finds changed, and answers
    without waiting for it; once the refresher is done a thread here opens the
    new index, so that a later call sees what this one could not. The check
    runs in a process of its own, at a lower priority, so that its CPU never
    holds this interpreter's lock while a call runs nor takes a core from one.
    Tool functions run on the SDK's worker threads, hence the lock.
    """

    def __init__(
        self, home: Path | None = None, refresh_every: float = REFRESH_SECONDS, refresher: Refresher | None = None
    ):
        self.home = home or paths.deja_home()
        self.refresh_every = refresh_every
        self._asked_at = -math.inf
        self._index: Index | None = None
        self._opened: tuple[int, int, int] | None = None
        #: The pid of the ``deja index`` started to build a missing or unreadable index.
        self._builder: int | None = None
        self._warmer: threading.Thread | None = None
        #: Started with the server (``Refresher.beside_start``), else by the first ask.
        self._refresher = refresher
        #: Set by the first tool call: the warm-up's search is then the call's own.
        self._asked = threading.Event()
        #: The line of names not UTF-8 a refresh passed over, which the next answer carries (``take_untold``).
        self._untold = ""
        self._lock = threading.Lock()
        if refresher is not None:
            refresher.listen(self._reopen)

    def warm(self) -> None:
        """Load the engine and open the index in a background thread, once, and search it once unless a tool call came
        first: what the first call would otherwise pay before it answers (at 100k sessions, about forty milliseconds
        of CPU). Then it sets aside what start-up made from the garbage collector's scans."""
        with self._lock:
            if self._warmer is None:
                self._warmer = threading.Thread(target=self._warm_up, name="deja-warm-up", daemon=True)
                self._warmer.start()

    def _warm_up(self) -> None:
        self._warm_search()
        # The SDK's and the engine's objects (some 90k) live as long as the server: a full collection scanning them
        # costs about 70 ms of CPU, which would land on whichever call set it off. Frozen, they are never scanned.
        gc.freeze()

    def _warm_search(self) -> None:
        """The engine loaded, the index opened and, unless a call came first, searched once (nothing without an
        index to read: the first tool call has it built aside, or says what it cannot read)."""
        from ..core.index import IndexUnreadable

        try:
            index = self._current()  # a tool call arriving meanwhile waits for this, and only for this
        except (IndexUnreadable, OSError):
            return
        # One search pays what only the first pays: the stemmer, the term tables' first pages, the text view; a call
        # already asked pays it instead, rather than wait for the CPU while this one does.
        with suppress(IndexUnreadable, OSError):  # a damaged or vanished index: the tool calls say so
            from ..core.search import search
            from .views import search_text

            if not self._asked.is_set():
                search_text(search(index, WARM_QUERY, limit=1))

    def get(self) -> Index | None:
        """The index as it stands, or None while a first build (or a rebuild of an unreadable one) runs.

        Never waits for a refresh: at most every ``refresh_every`` seconds it asks the refresher for one, whose
        result the calls after it read.
        """
        from ..core.index import IndexKeptOut, IndexUnreadable

        self._asked.set()
        try:
            index = self._current()
        except IndexKeptOut as exc:  # a build would not mend it: the user must fix its permissions, or upgrade deja
            raise ToolError(str(exc)) from None
        except IndexUnreadable:
            if problem := not_utf8_root_problem():  # no build can record it: "still indexing" for ever
                raise ToolError(problem) from None
            self._check_writable()
            self._start_build()
            return None
        self._ask_refresh()
        return index

    def _check_writable(self) -> None:
        """ToolError with the CLI's line when no index can be written under deja's home (a file in its place, a
        folder this user may not write): the build started for it would fail every time, and every call would say
        it is still indexing, for ever."""
        from ..core.index.format import index_dir
        from ..core.private import private_dir

        folder = index_dir(self.home)
        try:
            private_dir(folder)
            if not folder.is_dir():  # (a file in its place: the CLI's line says to move it aside, review19 R19-6)
                raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(folder))
            if not os.access(folder, os.W_OK | os.X_OK):
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(folder))
        except OSError as exc:
            from .fastpath import unwritable

            raise ToolError(unwritable(exc)) from None

    def _ask_refresh(self) -> None:
        """Ask the refresher for a check once the call that asks has answered (``AFTER_CALL_SECONDS``), unless one was
        asked for less than ``refresh_every`` seconds ago or is still running; an ask that finds no refresher starts
        one (which checks as it starts)."""
        with self._lock:
            now = time.monotonic()
            if now - self._asked_at < self.refresh_every or (self._refresher is not None and self._refresher.busy):
                return
            self._asked_at = now
        asking = threading.Timer(AFTER_CALL_SECONDS, self._send_ask)
        asking.daemon = True
        asking.start()

    def _send_ask(self) -> None:
        with self._lock:
            refresher = self._start_refresher()
            if refresher is not None and not refresher.busy:
                refresher.ask()

    def _start_refresher(self) -> Refresher | None:
        """The refresher, started here unless it runs already (asked under the lock); None when there is no process
        to spare, which is no error: the next ask tries again."""
        if self._refresher is None or not self._refresher.alive:
            try:
                self._refresher = Refresher(str(self.home))
            except OSError:
                self._refresher = None
            else:
                self._refresher.listen(self._reopen)
        return self._refresher

    def _reopen(self, passed_over: str) -> None:
        """The refresher is done: open the index it left, if it is a new one, before the next call asks; keep the
        line of the names it passed over, if any, for the next answer (an MCP user never sees ``deja index``'s)."""
        from ..core.index import IndexUnreadable

        if passed_over:
            with self._lock:
                self._untold = passed_over
        with suppress(IndexUnreadable, OSError):
            self._current()

    def take_untold(self) -> str:
        """The line of names passed over that no answer has carried yet ("" when none), now said."""
        with self._lock:
            untold, self._untold = self._untold, ""
        return untold

    def _current(self) -> Index:
        """The index the manifest names now, opened once per manifest; IndexUnreadable for one that may hold what
        redaction now hides (built with ``DEJA_NO_REDACT=1`` in a shell): a rebuild comes first."""
        from ..core.index import Index, IndexUnreadable
        from ..core.redaction import withheld

        with self._lock:
            stamp = self._manifest_stamp()
            if self._index is None or stamp != self._opened:
                self._index, self._opened = Index.open(self.home), stamp
            if why := withheld(self._index.manifest.redaction):
                raise IndexUnreadable(why)
            return self._index

    def _manifest_stamp(self) -> tuple[int, int, int]:
        """What changes whenever a writer swaps in a new manifest (it is replaced, never rewritten in place)."""
        from ..core.index import MANIFEST, IndexForbidden, IndexUnreadable, index_dir

        try:
            stat = (index_dir(self.home) / MANIFEST).stat()
        except PermissionError:
            raise IndexForbidden(index_dir(self.home)) from None
        except OSError:
            raise IndexUnreadable(f"no index under {self.home}") from None
        return stat.st_ino, stat.st_mtime_ns, stat.st_size

    def _start_build(self) -> None:
        """A detached ``deja index``, unless the one started before still runs (no process to spare: the next call
        tries again)."""
        with self._lock:
            if self._builder is not None and detached.running(self._builder):
                return
            try:
                self._builder = detached.start_index()
            except OSError:
                self._builder = None


def within(name: str, value: int, low: int, high: int | None = None) -> int:
    """``value``, at most ``high``: a model asking for 100 gets the most there is; below ``low`` is a one-line error.

    The schema states no bounds, so the SDK never answers with pydantic's multi-line text and its URL.
    """
    if value < low:
        raise ToolError(f"{name}={value} is too small: give {low} or more")
    return value if high is None else min(value, high)


def over_the_most(limit: int, most: int, what: str) -> str:
    """The line under an answer a ``limit`` above the tool's most cut: taken as the most, as a model asking for "all"
    expects, and said, where ``show`` gave 200 of ``limit: 1000`` without a word (trial48 F10)."""
    return f"limit={limit} is more than {most}, the most: at most {most} {what} are given."


def answer(text: str, data: dict[str, Any] | None = None) -> CallToolResult:
    """The text for the model, and the data of the CLI's ``--json`` envelope, ``schema_version`` first as there
    (README: a client parses one shape from both)."""
    from .fastpath import SCHEMA_VERSION

    envelope = None if data is None else {"schema_version": SCHEMA_VERSION, **data}
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=envelope)


def said_empty(index: Index, session_id: str) -> CallToolResult | None:
    """The answer of a tool asked for one session (``show``, ``resume``, ``work``'s ``ctx``) on an index with none:
    the line a search gives it (``fastpath.nothing_indexed``), not "no session has the id", which sent the agent to
    list ids with ``recent``, of which there were none; an empty id is left to its own line, as the CLI leaves it
    (``fastpath.refuse_empty``). None on an index with sessions."""
    from .fastpath import nothing_indexed

    return None if index.session_count or not session_id.strip() else answer(nothing_indexed())


def fit_text(
    result: SearchResult,
    limit: int,
    budget: int = SEARCH_TEXT_BYTES,
    since: datetime | None = None,
    namesakes: Sequence[str] = (),
) -> str:
    """The text of ``result``'s hits, as many as fit within ``budget`` bytes (at least one), its footer saying how
    to see the rest: a larger ``limit`` only where one would show them, never where the budget cut them; ``since``
    and ``namesakes``: as ``views.search_text`` takes them."""
    from .views import search_text

    more = SEE_MORE if limit < SEARCH_LIMIT else NARROW
    text = search_text(result, more=more, since=since, namesakes=namesakes)
    hits = list(result.hits)
    while len(hits) > 1 and len(text.encode()) > budget:
        hits.pop()
        cut = result.replace(hits=hits, total=len(hits))
        text = search_text(cut, since=since, namesakes=namesakes) + _cut_footer(result, len(hits))
    return text


def _cut_footer(result: SearchResult, shown: int) -> str:
    """What the text of ``shown`` hits says of the rest: those the structured content holds, then those only a
    narrower search shows (a larger limit would loop: trial43 F3). "22 more sessions match" counted the 12 the
    structured content held with those it did not (review43e L7)."""
    held = len(result.hits) - shown
    beyond = result.total - len(result.hits)
    footer = f"\n{held} more session{'s are' if held != 1 else ' is'} in the structured content only: the text stops at 4 KiB"
    return footer + (f"; {beyond} more match: {NARROW} to see them." if beyond else ".")


def clip(message: Message) -> Message:
    """``message`` with its text cut to ``MESSAGE_CHARS`` and each tool result to ``RESULT_CHARS``."""
    from ..core.lean_msgspec import msgspec

    def cut(text: str, limit: int) -> str:
        """Not ``lines.cut``: the agent is told how much more there is (``show`` gives the rest), cut at ``limit``."""
        return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit} more characters)"

    calls = [
        msgspec.structs.replace(c, result=cut(c.result, RESULT_CHARS)) if c.result else c for c in message.tool_calls
    ]
    return msgspec.structs.replace(message, text=cut(message.text, MESSAGE_CHARS), tool_calls=calls)


def window(messages: list[Message], offset: int, limit: int, budget: int = SHOW_WINDOW_BYTES) -> list[Message]:
    """Up to ``limit`` clipped messages from ``offset``, stopping once their JSON passes ``budget`` bytes."""
    from ..core.lean_msgspec import msgspec

    chosen: list[Message] = []
    used = 0
    for message in messages[offset : offset + limit]:
        message = clip(message)
        used += len(msgspec.json.encode(message))
        if chosen and used > budget:
            break
        chosen.append(message)
    return chosen


def fit_bytes(text: str, budget: int) -> str:
    """``text`` cut at a line boundary to ``budget`` UTF-8 bytes, saying so."""
    from .views import lines_within

    if len(text.encode()) <= budget:
        return text
    kept = lines_within(text.splitlines(), budget - 40)  # room for the note below
    return "\n".join(kept) + "\n(cut to fit; ask a narrower question)"


def unknown_project(index: Index, project: str | None) -> str:
    """What an empty answer says when no indexed session ran in ``project``, as the CLI says it
    (``fastpath.unknown_project``), naming the tools' ``project`` and ``recent``."""
    from .fastpath import unknown_project as unknown

    return unknown(
        index, project, "project={python}", "`recent` without a project lists the latest sessions and their projects"
    )


def no_match(
    index: Index, query: str, filters: Filters, given: dict[str, str | None], unmatched: Sequence[str] = ()
) -> str:
    """Why a search found nothing, as ``deja search`` says it (``fastpath.why_no_match``): an unknown project, words
    too common to search, the filters (named as given: ``project='shop'``) that turned its matches away, or the words
    no session holds (``unmatched``)."""
    from .fastpath import why_no_match

    flags = [f"{name}={echoed(value, PATH_CHARS)!r}" for name, value in given.items() if value]
    return unknown_project(index, filters.project) or why_no_match(index, query, filters, flags, unmatched, "since")


def work_answer(index: Index, mode: str, query: str, project: str | None) -> tuple[str, dict[str, Any]]:
    """The text and the JSON of one work question: the same shapes as ``deja blame``/``files``/``fix``/``how``/…"""
    from ..core import work
    from ..core.keys import is_folder
    from ..core.library import session_digest
    from ..core.redaction import as_indexed
    from . import work_views as views

    if mode == "blame":
        found = work.blame(index, in_folder(query, named_folder(index, project)), paths.ai_tracking_db(), limit=10)
        return views.blame_text(found), views.blame_json(found)
    if mode == "files":
        return files_answer(index, query, project)
    if mode in ("fix", "how"):
        # an error or command as the index holds it: a secret in it is not matched, nor echoed
        query = as_indexed(query)
    if mode == "fix":
        history = work.error_history(index, query, limit=3)
        return views.fix_text(query, history, views.COMMAND_CHARS), views.fix_json(query, history)
    if mode == "how":
        return how_answer(index, query, project)
    if mode == "wip":  # a relative folder is taken in the project's, as `blame` takes a relative path; a name is one
        folder = in_folder(query, named_folder(index, project)) if is_folder(query) else query
        return wip_answer(index, folder or project or readable_path(os.getcwd()))
    summary, others = session_digest(index, query, TOOL_FINDERS)
    also = f"\n\nAlso matching: {', '.join(others)} (ask `ctx` with an id for one of them)." if others else ""
    return views.ctx_markdown(summary, WORK_TEXT_BYTES - len(also)) + also, views.digest_json(summary)


def files_answer(index: Index, query: str, project: str | None) -> tuple[str, dict[str, Any]]:
    """The files the work on a topic touched, in ``deja files``'s words: for a project given as a folder, as it
    answers run there (``work.how_scope``, as ``how`` counts); for a project's name, as with ``--project``; for none,
    every project's, as with ``--all-projects``. ``deja files`` answers unasked for the folder it runs in, but this
    server's folder is not the agent's (trial45 F6: Cursor may start it in ``~/.cursor``), so narrowing to it would
    answer for no project or the wrong one (review45g L6). With no file there, a last line says when the work touched
    files in other projects, and how to see them."""
    from ..core import work
    from . import work_views as views

    folder = project_folder(project)
    here_only = None
    if folder:
        project, here_only = work.how_scope(index, readable_path(folder))
    uses = work.topic_files(index, query, project, limit=FILES_LISTED, sessions=here_only)
    note = "" if uses else unknown_project(index, project)
    text = views.files_text(query, uses, project or "")
    if not uses and project is not None and work.topic_files(index, query, None, limit=1):
        text += "\nthe work on it touched files in other projects: leave out `project` to see them"
    return note or text, views.files_json(query, uses, project or "")


def how_answer(index: Index, query: str, project: str | None) -> tuple[str, dict[str, Any]]:
    """The runs of a command: a project given as a folder counts them as ``deja how`` there does (the nearest folder
    above it that sessions ran in, when none ran in it or below: ``work.how_scope``). The text lists the newest
    ``HOW_RUNS``, fewer when they pass ``WORK_TEXT_BYTES``, and ends saying how many older ones it left out: cut to the
    bytes at the end, that line went first (review40b L2). The JSON lists ``HOW_RUNS``, uncut."""
    from ..core import work
    from . import work_views as views

    folder = project_folder(project)
    here_only = None
    if folder:
        project, here_only = work.how_scope(index, readable_path(folder))
    ran = work.invocations(index, query, project, limit=None, sessions=here_only)
    found = ran.runs
    runs, more = found[:HOW_RUNS], max(len(found) - HOW_RUNS, 0)
    note = "" if runs else unknown_project(index, project)
    where = f"in {project}" if project else "on this machine"
    shown = len(runs)  # the newest that fit the answer's bytes with the note of the rest, which a cut would drop
    while True:
        text = views.how_text(query, runs[:shown], ran.left_out, where, (folder and project) or "", views.COMMAND_CHARS)
        if left := len(found) - shown:
            text += f"\n{left} older run{'s' if left != 1 else ''} not listed: add words to narrow the command"
        if shown <= 1 or len(text.encode()) <= WORK_TEXT_BYTES:
            return note or text, views.how_json(query, runs, more, ran.left_out)
        shown -= 1


def named_folder(index: Index, project: str | None) -> str | None:
    """The folder ``project`` names: itself when it is one, else the one folder the sessions of the project of that
    name ran in. A model names a project by its name (``web``), as every other mode takes it, and a relative path
    given with it was taken in this server's folder: another project's file, or no file (trial14 F3). A name of no
    one folder is left as it is (:func:`in_folder` then takes the server's)."""
    from ..core.keys import is_folder
    from ..core.project_names import project_folders

    if not project or is_folder(project):
        return project
    folders = project_folders(index, project, 1)
    return folders[0] if len(folders) == 1 else project


def in_folder(path: str, project: str | None) -> str:
    """``path`` taken in ``project``'s folder when it is relative and the project is a folder: the agent's folder,
    not this server's, which the agent cannot know. A project named by a name that is no one folder's
    (``project_names.meant_project``), or none, leaves a relative path to the server's folder. A Windows drive's path
    (``c:\\Users\\…``, as ``files`` lists them from a database written on Windows) is absolute, as ``deja blame`` takes
    it: joined to the project's folder, it named no file."""
    from ..core.keys import drive_path

    folder = project_folder(project)
    relative = not os.path.isabs(os.path.expanduser(path)) and not drive_path(path)
    return os.path.join(folder, path) if folder and relative else path


def wip_answer(index: Index, folder: str) -> tuple[str, dict[str, Any]]:
    """Where the last session in ``folder`` stopped; a folder no session ran in is an empty answer saying so, as an
    error that never came up is for ``fix`` (not a tool error: nothing is wrong with the question), and so is one
    that is not there. The root folder, however it is spelled, is no project's: refused, as ``deja wip /`` is."""
    from ..core import work
    from ..core.library import NO_FOLDER, ROOT_FOLDER, find_session, no_wip, wip_project, wip_session
    from . import work_views as views
    from .fastpath import nothing_indexed

    asked = project_folder(folder)  # a folder is taken as `deja wip` takes it: else the nearest above with sessions
    here = readable_path(asked) if asked else folder
    project, why, below = wip_project(index, here, asked or "")
    if why == ROOT_FOLDER:
        raise LookupError(no_wip(index, here, why, TOOL_POINTERS))
    chosen = wip_session(index, project, below) if project else None
    if chosen is None:  # (a project's name, no folder: as any tool says of a project no session ran in)
        empty = not index.session_count and why != NO_FOLDER  # (a missing folder is said first, as the CLI says it)
        said = nothing_indexed() if empty else no_wip(index, here, why, TOOL_POINTERS)
        return (not asked and unknown_project(index, project)) or said, {
            "session": None,
            "goal": "",
            "settled": [],
            "files": [],
            "commands": [],
            "last_command": None,
            "stopped": "",
            "failed_last": "",
            "task": "",
            "resumed": None,
            "newer": [],
            "reverted_later": None,
        }
    segment, meta = find_session(index, chosen[0].id)
    summary = work.digest(segment, meta)
    summary.newer = chosen[1]
    where = "here" if project == here else f"in {project}"
    text = views.wip_text(summary, where, project if asked else "", views.COMMAND_CHARS)  # (a name: no folder)
    return text, views.digest_json(summary)


class Tools:
    """The five tools over one live index; the methods are what the server registers (``build_server``)."""

    def __init__(
        self, home: Path | None = None, refresh_every: float = REFRESH_SECONDS, refresher: Refresher | None = None
    ):
        self.live = LiveIndex(home, refresh_every, refresher)

    def search(
        self,
        query: Annotated[
            str,
            Field(
                description="A few distinctive words: an error message, a function or file name, a topic. Quote a phrase to match it exactly: '\"cache key\"'. A date or 'yesterday', 'last week' ranks the sessions from then first."
            ),
        ],
        project: Project = None,
        source: Annotated[
            Literal["cursor-ide", "cursor-cli"] | None,
            Field(
                description="Only chats from the Cursor editor (cursor-ide) or from cursor-agent in a terminal (cursor-cli)."
            ),
        ] = None,
        since: Annotated[
            str | None,
            Field(description=f"Only sessions updated since then: {SINCE_FORMS}."),
        ] = None,
        limit: Annotated[
            int,
            Field(description="At most this many sessions, 1–20 (the text fewer if it would pass 4 KiB; more is 20)."),
        ] = 5,
    ) -> CallToolResult:
        """Search this person's past Cursor sessions for the query; the best sessions come first, each with its id,
        project, date and the passages that matched. Use it before solving something that may have been solved
        before. Pass an id to `show` to read the session."""
        from ..core.project_names import namesakes
        from ..core.redaction import searched_words
        from ..core.search import Filters, search
        from .fastpath import held_by_none
        from .views import search_json

        if not query.strip():
            raise ToolError("the query is empty: give a few words to look for, e.g. 'cache invalidation'")
        project = _checked_project(project)
        since_at = _since_at(since)
        index = self.live.get()
        if index is None:
            return answer(STILL_INDEXING)
        filters = Filters(project=_one_project(index, project), source=source, since=since_at)
        words = searched_words(query).strip()
        taken = within("limit", limit, 1, SEARCH_LIMIT)
        result = search(index, words, filters=filters, limit=taken, relative=True)
        # (the words it was found without named last, as deja search names them on stderr, within the same budget)
        held = f"\n{held_by_none(result.unmatched)}." if result.unmatched else ""
        if taken < limit and result.total > taken:  # (not when every match is given: review43e L7)
            held += f"\n{over_the_most(limit, SEARCH_LIMIT, 'sessions')}"
        if result.hits:  # (the structured content keeps every hit, as deja search --json does)
            room = SEARCH_TEXT_BYTES - len(held.encode())
            text = fit_text(result, taken, room, filters.since, namesakes(index, (hit.project for hit in result.hits)))
            return answer(text + held, search_json(result))
        given = {"project": project, "source": source, "since": since}
        # (why, in the structured content's notice too, as `deja search --json` says it: review43a M3)
        result.notice = no_match(index, query.strip(), filters, given, result.unmatched)
        return answer(result.notice, search_json(result))

    def show(
        self,
        session_id: SessionId,
        offset: Annotated[int, Field(description="Index of the first message to return (0 is the first).")] = 0,
        limit: Annotated[
            int,
            Field(
                description=f"At most this many messages, 1–{SHOW_MOST} (fewer if they are long; more is {SHOW_MOST})."
            ),
        ] = 50,
    ) -> CallToolResult:
        """Read a past session: its messages in order, with the tool calls made and their results. Returns a window
        of the session; when more follows, the answer says which offset to ask for next."""
        from .views import show_json, show_text, window_note

        index = self.live.get()
        if index is None:
            return answer(STILL_INDEXING)
        if empty := said_empty(index, session_id):
            return empty
        segment, meta = self._find(index, session_id)
        messages = segment.messages(meta)
        offset, taken = within("offset", offset, 0), within("limit", limit, 1, SHOW_MOST)
        if offset and offset >= len(messages):
            raise ToolError(f"offset={offset} is past the end: session {meta.id} has {len(messages)} messages")
        shown = window(messages, offset, taken)
        text = show_text(meta, shown, "this answer's structured content")  # (it holds each result whole)
        text += window_note(offset, len(shown), len(messages), "call show with offset={offset}")
        if taken < limit and len(shown) == taken < len(messages) - offset:  # (the most cut it, not the byte budget)
            text += f"\n{over_the_most(limit, SHOW_MOST, 'messages')}"
        return answer(text, show_json(meta, shown, offset, len(messages)))

    def recent(
        self,
        project: Project = None,
        since: Annotated[
            str | None,
            Field(description=f"Only sessions updated since then: {SINCE_FORMS}."),
        ] = None,
        until: Until = None,
        limit: Annotated[int, Field(description="At most this many sessions, 1–50 (more is 50).")] = 10,
    ) -> CallToolResult:
        """List the most recently active Cursor sessions, newest first, optionally only those of one project or
        period: one line each with id, last activity, source, project and title. Use it to pick up recent work, or
        to say what was done this past week (since="7d")."""
        from datetime import UTC, datetime

        from ..core.library import newest_sessions, sessions_left_out
        from ..core.project_names import namesakes
        from .fastpath import Failed, none_listed
        from .views import session_json, session_line, shown_projects

        project = _checked_project(project)
        now = datetime.now(UTC)
        since_at = _since_at(since, now)
        until_at = _until_at(until, since_at, now)
        index = self.live.get()
        if index is None:
            return answer(STILL_INDEXING)
        project = _one_project(index, project)
        after, before = (moment.timestamp() if moment else 0.0 for moment in (since_at, until_at))
        limit = within("limit", limit, 1, 50)
        sessions = newest_sessions(index, project=project, limit=limit, since=after, until=before)
        more = (
            sessions_left_out(index, limit, project=project, since=after, until=before) if len(sessions) == limit else 0
        )
        if sessions:
            shown = shown_projects(sessions, namesakes(index, (meta.project for meta in sessions)))
            text = "\n".join(map(session_line, sessions, shown))
            if more:  # (an agent asked what was done this week must not take a page for all of it)
                hint = f"limit={limit + more}" if limit + more <= 50 else "a shorter since or a project"
                text += f"\n{more} more; ask with {hint} to see them"
        elif (since or until) and index.session_count:
            of = f" of project {echoed(project, PATH_CHARS)!r}" if project else ""
            given = ", ".join(
                f"{name}={echoed(value)}" for name, value in (("since", since), ("until", until)) if value
            )
            text = unknown_project(index, project) or f"No session{of} was updated in that period ({given})."
        else:
            try:
                text = unknown_project(index, project) or none_listed(index)
            except Failed as exc:  # (none of an index's sessions listed: the CLI's line, review51d F3)
                raise ToolError(str(exc)) from None
        notice = "" if sessions else text  # (why none, as `deja sessions --json` says it: review43a M3)
        return answer(text, {"sessions": [session_json(meta) for meta in sessions], "more": more, "notice": notice})

    def resume(self, session_id: SessionId) -> CallToolResult:
        """Get the shell command that reopens a past cursor-agent (CLI) chat where it left off, or the reason it cannot
        be reopened (editor chats reopen from the Cursor UI). Give the command to the person; do not run it."""
        from ..core.resume import ResumeRefused, resume_line
        from .views import session_json

        index = self.live.get()
        if index is None:
            return answer(STILL_INDEXING)
        if empty := said_empty(index, session_id):
            return empty
        _, meta = self._find(index, session_id)
        try:
            command = resume_line(meta, index)
        except ResumeRefused as refused:
            text = f"{meta.id} cannot be resumed: {refused.reason}. Read it with `show` instead."
            return answer(text, {"session": session_json(meta), "command": None, "reason": refused.reason})
        return answer(command, {"session": session_json(meta), "command": command, "reason": None})

    def work(
        self,
        mode: Annotated[
            Literal["blame", "files", "fix", "how", "wip", "ctx"],
            Field(description="Which question to ask of the work history (see the tool description)."),
        ],
        query: Annotated[
            str,
            Field(
                description="blame: a file path or path:line (a relative one is taken in `project`'s folder, else "
                "in the server's); files, how: a few words; fix: the error text; "
                "wip: a project folder (none: `project`'s, else the server's folder); ctx: a session id or words."
            ),
        ] = "",
        project: Project = None,
    ) -> CallToolResult:
        """Ask this machine's work history directly: `blame` which chats edited a file (or wrote a line), `files` which
        files the work on a topic touched, `fix` what ran after this error before until it stopped, `how` how a
        command was really run here (flags, exit codes), `wip` where the last session in a folder stopped, `ctx` a
        compact digest of one session to continue from."""
        if not query.strip() and mode != "wip":
            raise ToolError(f"mode={mode} needs a query: see the query's description")
        project = _checked_project(project)
        index = self.live.get()
        if index is None:
            return answer(STILL_INDEXING)
        project = _one_project(index, project)
        if mode == "ctx" and (empty := said_empty(index, query)):
            return empty
        try:
            text, data = work_answer(index, mode, query.strip(), project)
        except LookupError as exc:
            raise ToolError(str(exc)) from None
        if mode in ("blame", "files", "fix", "how") and not index.session_count:
            from .fastpath import nothing_indexed

            # (a project no session ran in said first, as the CLI says it; the data, lists of nothing, as ``--json``)
            text = unknown_project(index, project) or nothing_indexed()
        return answer(fit_bytes(text, WORK_TEXT_BYTES), data)

    @staticmethod
    def _find(index: Index, session_id: str) -> tuple[Segment, SessionMeta]:
        from ..core.library import NotFound, find_session

        try:
            return find_session(index, session_id, TOOL_FINDERS)
        except NotFound as exc:
            raise ToolError(str(exc)) from None


class _Server(MCPServer):
    """The SDK's server, with arguments it cannot take refused in one line: a name no tool has (the SDK ignores it,
    so a misspelt filter would quietly not filter), or a value of the wrong shape (the SDK's own message is
    pydantic's, over several lines, with a link)."""

    def __init__(self, arguments: dict[str, frozenset[str]], untold: Callable[[], str], **settings: Any):
        super().__init__(**settings)
        self._arguments = arguments
        #: The line a refresh left for the next answer (``LiveIndex.take_untold``).
        self._untold = untold
        #: deja's files on disk as the server found them when it started (``installed_stamp``), and the marker's bytes.
        self._installed = installed_stamp()
        self._installed_digest = _marker_digest()

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        """The tool's answer; an error's line with any secret in it as the index holds it: a tool's error names the
        value it refuses, and a token given as a session id went whole into the model's context (trial13 F3).
        Its text, its error and each string of its structured content with no control character but newline and
        tab, as the CLI prints them (``text.for_terminal``): an escape sequence or a right-to-left override of a
        stored chat, or of the query an error echoes, reached the model (trial44 F2). The structured content is read
        by the model too, and JSON escapes only C0 controls: a bidirectional override went as it is, and an escaped
        ESC is a sequence for a model to decode; the CLI's ``--json``, read by programs, keeps them as stored.
        The line of names not UTF-8 a refresh passed over ends the next answer's text, once (``take_untold``): an
        MCP user sees no ``deja index`` (review49c L4)."""
        from ..core.redaction import as_indexed, hidden, typed_secrets
        from ..core.text import for_terminal

        typed = typed_secrets(_strings(arguments))  # (a token given as a project: "No session of project 'ghp_…'")
        try:
            answer = await self._answer(name, arguments, context)
        except ToolError as exc:
            raise ToolError(for_terminal(hidden(as_indexed(str(exc)), typed))) from exc.__cause__
        if isinstance(answer, CallToolResult):
            if answer.content and isinstance(answer.content[0], TextContent) and (untold := self._untold()):
                answer.content[0].text += f"\n\n{untold}"  # (apart: not a stored chat's last line, review50d L1)
            for block in answer.content:
                if isinstance(block, TextContent):
                    block.text = for_terminal(hidden(block.text, typed))
            if answer.structured_content is not None:
                answer.structured_content = _as_shown(answer.structured_content, typed)
        return answer

    def _upgraded(self) -> bool:
        """Whether deja was installed again since the server started: ``INSTALLED_MARKER`` is another file, or was
        rewritten; or its change time moved and its bytes are not those it had (a tool that overwrites it in place
        and sets its modification time back, the size the same, escaped the stat: fixb50). A change time moved by a
        hard link or a chmod alone reads the file once, then is taken as the new one."""
        now = installed_stamp()
        if now is None or self._installed is None or now[:3] != self._installed[:3]:
            return now != self._installed
        if now[3] != self._installed[3]:
            if _marker_digest() != self._installed_digest:
                return True
            self._installed = now
        return False

    async def _answer(self, name: str, arguments: dict[str, Any], context: Any) -> Any:
        from ..core.config import REPAIR, file_problem, relative_folder

        if self._upgraded():  # (one stat: a few microseconds of a call)
            raise ToolError(f"Error executing tool {name}: {UPGRADED}")
        if problem := file_problem():  # its settings unknown: no answer from another home's index, or unredacted
            raise ToolError(f"Error executing tool {name}: {problem}; {REPAIR}")
        if problem := relative_folder():  # (not the index of the home deja falls back to, which no one asked for)
            raise ToolError(f"Error executing tool {name}: {problem}")
        known = self._arguments.get(name)
        if known is not None and (unknown := sorted(set(arguments) - known)):
            raise ToolError(
                f"Error executing tool {name}: unknown argument {', '.join(unknown)}; it takes {', '.join(sorted(known))}"
            )
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            from pydantic import ValidationError

            from ..core.index import IndexUnreadable

            if isinstance(exc.__cause__, IndexUnreadable):  # (a damaged file met while reading: the SDK said no more
                # than "Error executing tool recent" of it; the line the CLI gives, naming the file and the fix)
                raise ToolError(f"{exc.__cause__}: run `deja index` to rebuild it") from None
            if not isinstance(exc.__cause__, ValidationError):
                raise
            wrong = "; ".join(
                f"{'.'.join(map(str, error['loc'])) or 'arguments'}: {error['msg']}" for error in exc.__cause__.errors()
            )
            raise ToolError(f"Error executing tool {name}: {wrong}") from exc.__cause__


def installed_stamp() -> tuple[int, int, int, int] | None:
    """What an install changes (``INSTALLED_MARKER``'s inode, modification time and size), and its change time; None
    without it. pip moves the old files aside before it writes the new ones, and uv links them from its cache, so the
    new file never takes the old one's inode; pip's copy is written at install time. The change time alone is no
    install: a hard link (uv linking another venv from the same cached wheel, or pruning its cache) or a chmod that
    changes nothing moves it, and the agent was refused every call until a restart no install called for
    (review50b); ``_Server._upgraded`` reads the file's bytes then."""
    try:
        stat = os.stat(INSTALLED_MARKER)
    except OSError:
        return None
    return stat.st_ino, stat.st_mtime_ns, stat.st_size, stat.st_ctime_ns


def _marker_digest() -> int:
    """The CRC-32 of ``INSTALLED_MARKER``'s bytes (-1 when it cannot be read): a check against a rewrite, not an
    attacker (zlib is loaded with the index; hashlib would load OpenSSL)."""
    import zlib

    try:
        with open(INSTALLED_MARKER, "rb") as marker:
            return zlib.crc32(marker.read())
    except OSError:
        return -1


def _strings(value: Any) -> list[str]:
    """Every string in a tool call's arguments, however nested."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list | tuple):
        return [s for item in value for s in _strings(item)]
    return []


def _as_shown(value: Any, typed: dict[str, str]) -> Any:
    """``value`` (a structured answer) with each string as the text shows it: its typed secrets as the index writes
    them, and no control character but newline and tab (``text.for_terminal``)."""
    from ..core.redaction import hidden
    from ..core.text import for_terminal

    if isinstance(value, str):
        return for_terminal(hidden(value, typed) if typed else value)
    if isinstance(value, dict):
        return {key: _as_shown(item, typed) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_shown(item, typed) for item in value]
    return value


async def _said_uninitialized(ctx: Any, call_next: Any) -> Any:
    """The SDK's answer to a request sent before ``initialize``, saying so: it answers ``-32602 "Invalid request
    parameters"`` with empty data (its code kept for clients that key off it), which sent a client's author looking
    at the call's arguments (trial48 F10). A middleware, so every request the SDK's gate refuses is seen here."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS

    try:
        return await call_next(ctx)
    except MCPError as exc:
        gated = (exc.code, exc.message, exc.data) == (INVALID_PARAMS, "Invalid request parameters", "")
        if not gated or ctx.session.client_params is not None:
            raise
        said = f"Not initialized: send initialize, then notifications/initialized, before {ctx.method}"
        raise MCPError(code=INVALID_PARAMS, message=said, data=ctx.method) from None


def build_server(tools: Tools | None = None) -> MCPServer:
    """The MCP server of ``tools`` (over the index under ``DEJA_HOME`` when none are given)."""
    tools = tools or Tools()
    methods = (tools.search, tools.show, tools.recent, tools.resume, tools.work)
    arguments = {tool.__name__: frozenset(inspect.signature(tool).parameters) for tool in methods}
    server = _Server(
        arguments,
        tools.live.take_untold,
        name="deja",
        instructions=INSTRUCTIONS,
        version=version(),
        log_level="WARNING",
        middleware=[_said_uninitialized],
    )
    for tool, title in (
        (tools.search, "Search past Cursor sessions"),
        (tools.show, "Read a past session"),
        (tools.recent, "List recent sessions"),
        (tools.resume, "Command to resume a CLI chat"),
        (tools.work, "Ask the work history"),
    ):
        description = " ".join((inspect.getdoc(tool) or "").split())
        server.add_tool(
            tool, title=title, description=description, annotations=ToolAnnotations(title=title, **READ_ONLY)
        )
    return server


def main(refresher: Refresher | None = None) -> None:
    """``deja mcp``: serve, saying what this is when a person starts it in a terminal.

    ``entry.main`` calls it before typer is imported, so the first answer waits only for the SDK's import, and
    hands it the ``refresher`` it started before that import.
    """
    if sys.stdin is None:  # started with its stdin closed (``<&-``): there is nothing to serve on
        sys.stderr.write(
            "deja mcp: its stdin is closed; it speaks JSON-RPC on stdin: let Cursor start it from mcp.json\n"
        )
        raise SystemExit(1)
    if sys.stdin.isatty():
        signal.signal(signal.SIGINT, _stop_now)
        sys.stderr.write(
            "deja mcp: deja's MCP server. Cursor starts it from mcp.json and speaks JSON-RPC on its stdin; "
            "there is nothing to type here. Ctrl-C stops it.\n"
        )
        sys.stderr.flush()
    serve(refresher)


def _stop_now(signum: int, frame: object) -> NoReturn:
    """Ctrl-C on a server started by hand: its stdin reader blocks in a thread no exception reaches, so exit here.

    The server only reads; an index refresh cut short leaves the previous index whole. The line goes
    straight to the file descriptor: the signal may land inside a write to ``sys.stderr``, which must not re-enter.
    """
    os.write(2, b"\ndeja mcp: stopped\n")
    os._exit(0)


def serve(refresher: Refresher | None = None) -> None:
    """Serve the tools over stdio until the client closes the connection, answering every unreadable line; the
    index warms up beside the handshake."""
    tools = Tools(refresher=refresher)
    # Started before the SDK builds the tools' schemas and answers initialize, so that a call sent as soon as the tool
    # list is answered finds the engine loaded and the index open: the warm-up's CPU (about 40 ms at 100k sessions)
    # is paid before the first answers instead of by that call.
    tools.live.warm()
    anyio.run(_serve_stdio, build_server(tools))


async def _serve_stdio(server: MCPServer) -> None:
    """``MCPServer.run_stdio_async`` over deja's transport (the SDK offers no public seam for one)."""
    lowlevel = server._lowlevel_server
    async with answering_stdio() as (read_stream, write_stream):
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
