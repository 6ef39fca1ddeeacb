"""The refresh itself: under the writer lock, plan, read, write, record and swap.

``plan`` says what changed, ``reads`` reads it, ``records`` turns sessions
into new segments; this module holds the lock-held sequence that ties them
together, drops the old copies of what changed, merges small segments once
there are many and swaps the manifest, so readers see the old index or the
new one, never a mix.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from .. import config, faults, paths
from ..bookkeeping import (
    Bookkeeping,
    ChatState,
    IdeDbState,
    Location,
    State,
    read_record,
    remove_strays,
    remove_unreferenced,
    shard_of,
    unreferenced,
)
from ..folders import cli_roots
from ..index import (
    FORMAT_VERSION,
    MANIFEST,
    Index,
    IndexKeptOut,
    IndexNewerFormat,
    IndexUnreadable,
    Manifest,
    SegmentRef,
    index_dir,
    read_manifest,
    remove_failed_writes,
    remove_left,
    remove_segments,
    remove_stale_segments,
    retire_segments,
    segments_and_temporaries,
    stale_segments,
    write_manifest,
)
from ..lean_msgspec import msgspec
from ..private import private_dir, tighten
from ..readers.vscdb import COPIES, remove_copies_older_versions_left, remove_dead_copies
from ..redaction import mode as redaction_mode
from ..regular_files import gone
from . import freshness, glance
from .carry import Carried, carry_unread, kept_indexes
from .glance import FolderState
from .lock import WriterLock
from .parts import Written, write_changes
from .plan import (
    DATABASE_FAILURES,
    THIS_TIME_FAILURES,
    Plan,
    blocked_chat,
    chat_files,
    on_disk,
    out_of_sight_sources,
    plan_refresh,
    source_of,
    transcript_unread,
)
from .reads import Placements, keep_unread_database, segment_at
from .records import SEGMENT_MAX_DOCS, NewSegments, session_from_index

MAX_SEGMENTS = 8
#: A segment with at least this share of its sessions replaced (a grown chat is written anew and its old copy
#: marked deleted) is written again with the rest: every reader, each hook included, decodes the deleted ordinals.
REWRITE_DELETED_SHARE = 0.25
LOCK_NAME = ".lock"
#: The longest a refresh waits for another writer before giving up with TimeoutError: no wait is unbounded.
WRITER_WAIT_SECONDS = 600.0

Progress = Callable[[int, int], None]


class RefreshResult(msgspec.Struct):
    sessions: int
    messages: int
    added: int
    updated: int
    removed: int
    #: The refresh's own time, without ``waited``.
    seconds: float
    problems: dict[str, int] = {}
    #: How long it waited for another process writing the index (a build, a rebuild) before it could begin.
    waited: float = 0.0
    rebuilt_because: str = ""
    #: Stores and databases that could not be read this time (locked, damaged): their sessions were kept as they were.
    unreadable_kept: int = 0
    #: A rebuild met a store it could not read, so the index stayed as it was (``_kept_instead``).
    not_rebuilt: bool = False
    #: The first of the ``unreadable_kept`` files (``plan.UNREADABLE_NAMED``), which the messages name.
    unreadable_files: list[str] = []
    #: Those of the ``unreadable_kept`` stores nothing was read from before (a new chat's store): none of theirs kept.
    unreadable_new: int = 0
    #: This rebuild may lack sessions of the ``unreadable_kept`` stores: the index it replaced, which may hold them,
    #: could not be read (``carry``), so "what was read from them before is kept" is not true this time.
    uncarried: bool = False
    #: The newest folder a rebuild kept an older index in (``carry.kept_indexes``), when a store could not be read.
    kept_aside: str = ""
    #: A rebuild was refused: the live index holds sessions read from these files, still on disk under none of the
    #: Cursor folders this run reads (``_outside_roots``).
    outside_roots: list[str] = []
    #: The transcripts' chat folders this refresh's walk found it may not search (``Plan.unsearchable``); None when
    #: it walked none.
    unsearchable: list[str] | None = None
    #: The cursor-agent roots not there this time -> the chats read from them before, kept (``Plan.roots_away``).
    roots_away: dict[str, int] = {}


class _Tally(msgspec.Struct):
    """The previous segments with the changed sessions marked deleted, and what the refresh did per chat."""

    segments: list[SegmentRef]
    added: int = 0
    updated: int = 0
    removed: int = 0


def refresh(
    home: Path | None = None,
    *,
    full: bool = False,
    only_chat_ids: Iterable[str] | None = None,
    progress: Progress | None = None,
    lock_timeout: float = WRITER_WAIT_SECONDS,
    verify: bool = False,
    seen_folders: dict[str, FolderState] | None = None,
    waiting: Callable[[], None] | None = None,
    sweep: bool = True,
) -> RefreshResult:
    """Bring the index up to date with the stores on disk: cost follows the change, not the history.

    ``only_chat_ids`` limits the CLI side to those chats (the session-end
    hook's path, and a read's after the cheap check: no walk over every
    transcript); the IDE databases are always checked, cheaply, and
    ``seen_folders`` are the folders that check looked at, recorded with the
    result. ``verify`` reads every byte of the index against its checksums
    first (``deja index``). Whatever damage is found, before or on the way,
    the index is rebuilt whole and ``rebuilt_because`` says why. ``waiting`` is called once if another process
    writes the index and this one starts to wait for it (``WriterLock``). Without ``sweep`` (a read's refresh), what
    past refreshes left (the segments they retired, once their grace is over, and the bookkeeping they replaced)
    stays: a read never waits on unlinking them, and the refreshes nobody waits on (a hook's catch-up, a walk, the
    session-end ingest, the MCP server's refresher) and ``deja index`` remove them, after letting the lock go.
    """
    home = home or paths.deja_home()
    damage = "" if full or not verify else _damage(index_dir(home))
    targets = set(only_chat_ids) if only_chat_ids is not None else None
    try:
        if full or damage:  # a rebuild reads every chat; one asked for keeps a sound index it could not fully read
            scope = _Scope(None, keep_live=not damage, damage=damage, sweep=sweep)
            return _refresh(home, True, scope, progress, lock_timeout, waiting)
        return _refresh(home, False, _Scope(targets, seen_folders, sweep=sweep), progress, lock_timeout, waiting)
    except IndexKeptOut:  # (a newer deja's index: rebuilt here, it would be rebuilt back there, trial49 F9)
        raise
    except IndexUnreadable as exc:  # a damaged file met on the way: the live index cannot be built upon
        if full or damage:
            raise
        result = _refresh(home, True, _Scope(None, sweep=sweep), progress, lock_timeout, waiting)
        result.rebuilt_because = "; ".join(part for part in (str(exc), result.rebuilt_because) if part)
        return result


def catch_up(
    home: Path | None = None,
    *,
    progress: Progress | None = None,
    lock_timeout: float = 0.0,
    verify: bool = False,
    found: glance.Check | None = None,
    walk: bool = True,
    sweep: bool = True,
) -> RefreshResult:
    """Refresh what the cheap check (``glance``) finds changed, or ``found``, the check the caller has just made;
    when nothing changed, the index's counts as they are: what a read does first (without ``walk``, no walk is
    started: a hook's catch-up; without ``sweep``, nothing past refreshes left is removed: a read's, see ``refresh``).

    Without a record of a full walk (a first build, a damaged index), this walks every chat. A walk that is due
    otherwise starts in a detached process after this refresh, which does not wait for it. (``deja index`` walks
    every chat each time, with ``refresh``: the cheap check sees a turn appended to a chat outside the newest it
    looks at only once a walk falls due, and ``deja index`` must not say "0 updated" meanwhile.)
    """
    started = time.perf_counter()
    home = home or paths.deja_home()
    tighten(home)  # every run keeps deja's home private, whether or not anything is written
    directory = index_dir(home)
    if found is None:
        found = glance.check(directory)
    if found.manifest is None:
        return refresh(home, progress=progress, lock_timeout=lock_timeout, verify=verify, sweep=sweep)
    result = _as_it_stands(found.manifest, started)
    if found.changed or verify:
        result = refresh(
            home,
            only_chat_ids=found.targets,
            progress=progress,
            lock_timeout=lock_timeout,
            verify=verify,
            seen_folders=found.folders,
            sweep=sweep,
        )
    if found.walk_due and walk:
        glance.start_walk(directory)
    return result


def _as_it_stands(manifest: Manifest, started: float) -> RefreshResult:
    """The result of a refresh that had nothing to read."""
    return RefreshResult(
        sessions=sum(ref.sessions - len(ref.deleted) for ref in manifest.segments),
        messages=sum(ref.messages - ref.deleted_messages for ref in manifest.segments),
        added=0,
        updated=0,
        removed=0,
        seconds=round(time.perf_counter() - started, 3),
    )


def _damage(directory: Path) -> str:
    """What is wrong with the index's files, read whole ("" when nothing is, or there is no index yet).

    A file read whole before and not changed since is not read again (see ``checked``).
    """
    from .checked import Checked  # (``deja index`` and a rebuild's: a read's refresh verifies nothing)

    if not (directory / MANIFEST).exists():
        return ""
    checked = Checked(directory)
    try:
        index = Index(directory, read_manifest(directory))
        for segment in index.segments:
            if not all([checked.vouches_for(Path(segment.path, name)) for name in segment.ref.files]):
                segment.verify()
        book = Bookkeeping.recorded(directory, index.manifest.state)
        book.verify(skip=checked.vouches_for)
    except IndexUnreadable as exc:
        return str(exc)
    checked.save()
    return ""


class _Scope(msgspec.Struct):
    """Which cursor-agent chats a refresh looks at (None: walk them all) and the folders a check saw."""

    targets: set[str] | None
    seen_folders: dict[str, FolderState] | None = None
    #: A rebuild that meets a store it cannot read keeps the live index instead (not one found damaged).
    keep_live: bool = False
    #: What was found wrong with the index's files before the lock was taken, which a rebuild then mends: looked
    #: at again once it is held, since a process that held it may have rebuilt the index meanwhile.
    damage: str = ""
    #: Remove what past refreshes left, retired segments past their grace and old bookkeeping, once the writer lock
    #: is let go (not on a read's path: ``refresh``).
    sweep: bool = True


def _refresh(
    home: Path,
    full: bool,
    scope: _Scope,
    progress: Progress | None,
    lock_timeout: float,
    waiting: Callable[[], None] | None = None,
) -> RefreshResult:
    lock = WriterLock(index_dir(home) / LOCK_NAME, lock_timeout, waiting)
    leftovers: list[str] | None = [] if scope.sweep else None
    result = _refresh_under(lock, home, full, scope, progress, leftovers)
    result.waited = round(lock.waited, 3)
    # What past refreshes left goes once the lock is let go: a read's refresh that came meanwhile would have
    # answered from the index as it stood, without the turn it came for (review57b F1: 100 leftovers held the lock
    # 3.75 s on a busy disk).
    remove_left(leftovers or ())
    return result


def _refresh_under(
    lock: WriterLock, home: Path, full: bool, scope: _Scope, progress: Progress | None, leftovers: list[str] | None
) -> RefreshResult:
    """The refresh, done under ``lock``; its ``seconds`` leave out the wait for another writer (``waited``). What
    past refreshes left (retired segments past their grace, bookkeeping no manifest names) is added to
    ``leftovers`` for the caller to remove once the lock is let go (None: a read's refresh, which leaves them)."""
    started = time.perf_counter()
    directory = index_dir(home)
    private_dir(directory)
    tighten(home)
    with lock, _undone_on_failure(directory):
        started += lock.waited  # (another writer's time, not this refresh's: said apart, as ``waited``)
        _refuse_newer(directory)
        if scope.damage and not _damage(directory):  # another process rebuilt it while this one waited (an upgrade)
            full, scope = False, _Scope(None)
        remove_strays(directory)
        remove_dead_copies(str(home / COPIES))  # a database copy a killed read left (``vscdb``)
        if scope.targets is None:
            remove_copies_older_versions_left()
        walk_started = time.time()
        roots = cli_roots()
        folders = freshness.snapshot_folders(roots) if scope.targets is None else scope.seen_folders
        mode = redaction_mode()  # decided once: what is written, and what the manifest says, agree
        manifest, state, index, why = _load(directory, full, mode)
        if scope.keep_live and (refused := _outside_roots(directory, mode, roots)):
            return _outside_refused(*refused, started)
        book = Bookkeeping(directory, state)
        problems: Counter[str] = Counter()
        plan = plan_refresh(book, state, scope.targets, problems)
        if scope.keep_live and (kept := _refused_up_front(directory, mode, plan)):
            return _not_rebuilt(kept, plan, started, dict(problems), why)
        tried = set() if scope.targets is None else {*plan.cli_reads, *plan.cli_appends, *plan.unread_chats}
        placements = Placements(book, index) if manifest is not None else Placements.replaced(directory)
        written = _write_changes(plan, book, placements, index, problems, directory, progress, mode)
        tally = _record_changes(manifest, index, book, plan, written, park=scope.targets is None)
        if scope.keep_live and (kept := _kept_instead(directory, book, written.segments, mode, plan)):
            return _not_rebuilt(kept, plan, started, _problems(state, problems, _Skipped(plan, written)), why)
        # A rebuild keeps the sessions of the stores it could not read this time (``carry``).
        carried = (
            carry_unread(directory, book, plan, problems, mode, written.segments) if manifest is None else Carried()
        )
        live = [ref for ref in tally.segments if len(ref.deleted) < ref.sessions] + written.segments + carried.segments
        ide = {**plan.ide_unseen, **plan.ide_dbs}
        walked = scope.targets is None
        rewrite = walked and any(_mostly_replaced(ref) for ref in live)
        skipped = _Skipped(plan, written, None if walked else tried, state.unread)
        merged_problems = _problems(state, problems, skipped)
        changed = manifest is None or written.segments or tally.removed or book.changed or ide != state.ide or rewrite
        if changed or merged_problems != state.problems or skipped.unread != state.unread:  # (doctor reports them)
            live = _compact(directory, live, book, mode, rewrite_replaced=walked)
            swapped = manifest or _live_manifest(directory)
            _swap(directory, swapped, live, book, ide, (merged_problems, skipped.unread), mode, leftovers=leftovers)
        elif manifest is not None and leftovers is not None:  # what past swaps left goes, change or not
            leftovers += unreferenced(directory, state, manifest.state)
            leftovers += stale_segments(directory, [ref.name for ref in manifest.segments])
        if scope.targets is None:
            freshness.record_walk(directory, book, plan, walk_started, folders or {}, roots)
        else:
            freshness.record_targets(directory, book, plan, scope.targets, folders)
        return RefreshResult(
            sessions=sum(ref.sessions - len(ref.deleted) for ref in live),
            messages=sum(ref.messages - ref.deleted_messages for ref in live),
            added=tally.added - carried.again,
            updated=tally.updated + carried.again,
            removed=tally.removed + carried.removed,
            seconds=round(time.perf_counter() - started, 3),
            problems=merged_problems,
            rebuilt_because="; ".join(part for part in (scope.damage, why, carried.note) if part),
            unreadable_kept=plan.unreadable,
            unreadable_files=plan.unreadable_files,
            unreadable_new=0 if carried.segments else plan.unreadable_new,  # (carried: read before, by the old index)
            uncarried=carried.uncarried,
            kept_aside=carried.kept or _kept_aside(directory, plan),
            unsearchable=plan.unsearchable,
            roots_away=plan.roots_away,
        )


@contextmanager
def _undone_on_failure(directory: Path) -> Iterator[None]:
    """Remove what a refresh wrote when it fails (a full disk, an error): its segments, temps and bookkeeping that
    the manifest on disk does not name, so that failed tries do not fill a disk. The index named before is
    untouched; a kill still leaves them, for the next refresh's sweep."""
    before = segments_and_temporaries(directory)
    try:
        yield
    except BaseException:
        _remove_unnamed(directory, before)
        raise


def _remove_unnamed(directory: Path, before: set[str]) -> None:
    """Delete what no manifest names and was not there ``before``; nothing when the manifest on disk cannot be
    read now (what it names is then unknown)."""
    try:
        manifest = read_manifest(directory)
        state = read_record(directory / manifest.state, State)
    except IndexUnreadable:
        if (directory / MANIFEST).exists():
            return
        remove_failed_writes(directory, before, [])
        remove_strays(directory)
        return
    remove_failed_writes(directory, before, [ref.name for ref in manifest.segments])
    remove_unreferenced(directory, state, manifest.state)


def _kept_aside(directory: Path, plan: Plan) -> str:
    """The newest index a rebuild kept aside, when this refresh could not read a store (it may hold its sessions)."""
    kept = kept_indexes(directory) if plan.unreadable else []
    return str(kept[-1]) if kept else ""


def _refuse_newer(directory: Path) -> None:
    """Raise IndexNewerFormat when a newer deja wrote the index: taken back to this deja's format, the newer one
    would rebuild it again on its next read, each undoing the other (trial49 F9). Any other unreadable index is the
    refresh's to rebuild."""
    try:
        read_manifest(directory)
    except IndexNewerFormat:
        raise
    except IndexUnreadable:
        pass


def _load(directory: Path, full: bool, mode: str) -> tuple[Manifest | None, State, Index | None, str]:
    """The live manifest, state and index, or nothing (and why) when they cannot be trusted."""
    if full:
        return None, State(), None, ""
    try:
        manifest = read_manifest(directory)
        if manifest.redaction != mode:
            return None, State(), None, _redaction_changed(manifest.redaction, mode)
        index = Index(directory, manifest)
        state = read_record(directory / manifest.state, State)
        Bookkeeping(directory, state).check()
        return manifest, state, index, ""
    except IndexUnreadable as exc:
        first_build = not (directory / MANIFEST).exists()
        return None, State(), None, "" if first_build else str(exc)


class _Skipped:
    """The cursor-agent chats unreadable after a refresh (``State.unread``) and those it read again whole."""

    def __init__(
        self, plan: Plan, written: Written, tried: set[str] | None = None, before: dict[str, str] | None = None
    ) -> None:
        """``tried``: the chats a refresh of some chats read, or tried to (None: a walk, which tries every one);
        ``before``: the chats unreadable after the refresh before it."""
        now = {**plan.unread_chats, **written.unread.chats}
        kept = {} if tried is None else {sid: why for sid, why in (before or {}).items() if sid not in tried}
        self.walked = tried is None
        self.unread = dict(sorted({**kept, **now}.items()))
        self.healed = Counter(why for sid, why in (before or {}).items() if sid in (tried or ()) and sid not in now)


def _problems(before: State, now: Counter[str], skipped: _Skipped) -> dict[str, int]:
    """The problems to record: this refresh's, and the earlier ones of what it did not read again, but not an
    earlier refresh's stores that could not be read then, which this one tried again (every editor database; every
    chat store on a walk; on a refresh of some chats, those of them it read whole this time)."""
    tried = THIS_TIME_FAILURES if skipped.walked else DATABASE_FAILURES
    kept = Counter({kind: count for kind, count in before.problems.items() if kind not in tried})
    kept.subtract(skipped.healed)
    return dict(+kept | now)


def _kept_instead(
    directory: Path, book: Bookkeeping, written: list[SegmentRef], mode: str, plan: Plan
) -> Manifest | None:
    """The live index, kept as it is when a rebuild that could not read every store would lose sessions it holds
    (the segments just written go); None when the rebuild loses none (a store that never held a session), or there
    is no index it may keep (none, a damaged one, one built without the redaction now asked for).

    A session lost with every file it was read from (a chat folder moved away: ``on_disk``) is no loss a refusal
    keeps: the next refresh drops it anyway, so it does not hold a rebuild back for a store that cannot be read but
    never held a session (review12 R5b); nor is an editor chat its database, read by this rebuild, no longer yields
    (``_dropped_from_read_database``). The messages name first a store whose sessions the refusal keeps.

    A store the rebuild could not find because it cannot be read this time (a folder above it at mode 000, a FIFO
    in its place, a folder it could not list: ``blocked_chat``) counts as one it could not read, into
    ``plan.unreadable``.
    """
    kept = _keepable(directory, mode)
    if kept is None:
        return None
    live, before = kept
    lost = {
        sid: chat
        for sid in sorted(_indexed(before) - _indexed(book))
        if (chat := before.chat(sid)) is not None and on_disk(chat)
    }
    for sid in _dropped_from_read_database(lost, plan):
        del lost[sid]
    stuck = [chat for sid, chat in lost.items() if blocked_chat(sid, chat)]
    if len(stuck) > plan.unreadable:  # (a store it found and could not read is one of them too)
        plan.note_unreadable([source_of(chat) for chat in stuck], len(stuck) - plan.unreadable)
    hidden = _transcripts_unread(before, book)
    plan.note_unreadable(hidden)
    stores = _stores_unread(before, book)
    if not (lost or hidden or stores) or not plan.unreadable or _damage(directory):
        return None
    plan.only_held({path for chat in lost.values() for path in chat_files(chat)} | {*hidden, *stores})
    remove_segments(directory, [ref.name for ref in written])
    return live


def _refused_up_front(directory: Path, mode: str, plan: Plan) -> Manifest | None:
    """The live index, kept as it is, when the plan already shows that a rebuild would lose sessions: a chat the
    live index read has every file of it that is still there among the stores the plan found it cannot read (an
    editor database locked, damaged or at mode 000 when the plan took its fingerprints; a transcript or store that
    a FIFO or a folder above at mode 000 hides from the walk). The rebuild is refused before any chat is read (it
    read and built every other chat first), naming those stores only. A chat's ``store.db`` locked or damaged shows
    so only when the build reads it (the plan opens none), as does a store named through another spelling (a link)
    than the plan's: that refusal comes after the build (``_kept_instead``)."""
    if not plan.unreadable_files:
        return None
    unreadable = set(plan.unreadable_files)
    kept = _keepable(directory, mode)
    if kept is None:
        return None
    live, before = kept
    held: set[str] = set()
    for _, chat in before.items():
        files = chat_files(chat) if chat.where is not None else []
        if any(path in unreadable for path in files) and all(path in unreadable or gone(path) for path in files):
            held.update(path for path in files if path in unreadable)
    if not held or _damage(directory):
        return None
    plan.only_held(held)
    return live


def _dropped_from_read_database(lost: dict[str, ChatState], plan: Plan) -> list[str]:
    """Those of the ``lost`` editor chats whose database this rebuild read, with no other file of theirs still there:
    the database no longer yields them (deleted in Cursor, or a row that no longer decodes), so the next refresh
    drops them too and a refusal (for another store that cannot be read) would not keep them (twins32). A database
    that failed on the way has no signature recorded (``keep_unread_database``): its chats still count. Asked as
    ``plan.read_database`` asks, so the answer is the same for an index an earlier deja built through a link."""
    return [
        sid
        for sid, chat in lost.items()
        if chat.ide_db
        and plan.read_database(chat.ide_db)
        and all(gone(path) for path in chat_files(chat) if path != chat.ide_db)
    ]


def _indexed(book: Bookkeeping) -> set[str]:
    """The chats ``book`` records a session of."""
    return {sid for sid, chat in book.items() if chat.where is not None}


def _stores_unread(had: Bookkeeping, rebuilt: Bookkeeping) -> list[str]:
    """The stores of the cursor-agent chats ``had`` read that were rebuilt without them (a locked ``store.db``
    beside a transcript: the session would come back without its title and its commands' outputs)."""
    stores = []
    for sid, chat in had.items():
        now = rebuilt.chat(sid)
        read_before = chat.where is not None and chat.cli is not None and bool(chat.cli.store_sig)
        if read_before and now is not None and now.cli is not None and now.cli.chat_dir and not now.cli.store_sig:
            stores.append(os.path.join(now.cli.chat_dir, "store.db"))
    return stores


def _transcripts_unread(had: Bookkeeping, rebuilt: Bookkeeping) -> list[str]:
    """The transcripts ``had`` read that the rebuild went without (``transcript_unread``)."""
    return [chat.cli.transcript for sid, chat in had.items() if chat.cli and transcript_unread(chat, rebuilt.chat(sid))]


def _not_rebuilt(live: Manifest, plan: Plan, started: float, problems: dict[str, int], why: str) -> RefreshResult:
    """What a rebuild that kept the live index says: a store that cannot be read this time never erases what was
    read from it before, so a rebuild without it would lose those sessions."""
    result = _as_it_stands(live, started)
    result.problems, result.rebuilt_because, result.not_rebuilt = problems, why, True
    result.unreadable_kept, result.unreadable_files = plan.unreadable, plan.unreadable_files
    return result


def _outside_roots(directory: Path, mode: str, roots: list[str]) -> tuple[Manifest, list[str]] | None:
    """The stores the live index read that lie under none of this run's ``roots``, still on disk (another
    environment's ``CURSOR_DATA_DIR`` or ``XDG_CONFIG_HOME`` found them): a rebuild asked for would drop their sessions
    though nothing is wrong with them, so it is refused before anything is built: the live index and those files.
    None when there are none, or for an index a rebuild must replace whatever it loses (one that cannot be read,
    one built with other redaction)."""
    kept = _keepable(directory, mode)
    outside = out_of_sight_sources(kept[1], [Path(root) for root in roots]) if kept else []
    return (kept[0], outside) if kept and outside else None


def _keepable(directory: Path, mode: str) -> tuple[Manifest, Bookkeeping] | None:
    """The live index and its bookkeeping when a rebuild asked for may keep it instead; None when there is none it
    may keep (none, a damaged one, one built without the redaction now asked for)."""
    live = _live_manifest(directory)
    if live is None or (live.redaction != mode and mode != "off"):
        return None
    try:
        return live, Bookkeeping.recorded(directory, live.state)
    except IndexUnreadable:  # its bookkeeping is damaged: the rebuild is what mends it
        return None


def _outside_refused(live: Manifest, outside: list[str], started: float) -> RefreshResult:
    """What a rebuild refused for stores outside this run's roots says: the live index, kept as it is."""
    result = _as_it_stands(live, started)
    result.not_rebuilt, result.outside_roots = True, outside
    return result


def _redaction_changed(built_with: str, mode: str) -> str:
    """Why the index is rebuilt for redaction, in the words the person used to change it."""
    source = config.resolve("redact").source
    said = {"env": "DEJA_NO_REDACT in this shell", "file": f"redact in {config.config_path()}"}.get(
        source, "the default"
    )
    if mode == "off":
        return f"redaction is now off ({said}), so the index is rebuilt without it"
    if built_with == "off":
        return f"redaction is now on ({said}), so the index is rebuilt with it"
    return "deja's redaction rules changed since the index was built, so it is rebuilt with the new ones"


def _write_changes(
    plan: Plan,
    book: Bookkeeping,
    placements: Placements,
    index: Index | None,
    problems: Counter[str],
    directory: Path,
    progress: Progress | None,
    mode: str,
) -> Written:
    """Read what the plan names into new segments (``parts``), redacted as ``mode`` says; record what could not be
    read.

    A chat that could not be read this time is left out of the records written, so its record (and its session
    in the index) stays; read-as-empty IDE chats drop out of the index too, their owner recorded so they are not
    re-read (``parts``). A chat read with no project keeps the one the index it refreshes or
    replaces placed it in (``placements``).
    """
    written = write_changes(plan, book, index, problems, directory, progress, mode != "off", placements)
    for db, ids in written.unread.databases.items():
        keep_unread_database(plan, book, db, ids)
    plan.note_unreadable(written.unread.files, written.unread.stores, written.unread.new)
    return written


def _record_changes(
    manifest: Manifest | None, index: Index | None, book: Bookkeeping, plan: Plan, written: Written, *, park: bool
) -> _Tally:
    """Mark the old copies of the changed chats deleted and point each chat's record at its new place.

    A bookkeeping shard at a time: with ``park`` (a walk over every chat), each is set aside once recorded
    (``Bookkeeping.park``), so a full build of a big history holds one shard's records, not every chat's. A
    refresh of a few named chats keeps their shards: each is written once, by ``save``, and read once (a shard
    set aside was written twice, renamed, and read again to record the hot chats: about 600 KB each at 100k).
    """
    segments = [
        msgspec.structs.replace(ref, deleted=list(ref.deleted)) for ref in (manifest.segments if manifest else [])
    ]
    by_name = {ref.name: ref for ref in segments}
    tally = _Tally(segments)
    removed: dict[int, set[str]] = {}
    for sid in plan.removed:
        removed.setdefault(shard_of(sid), set()).add(sid)
    for number, where, chats in written.shards():
        for sid in sorted(chats.keys() | removed.pop(number, set())):
            _record_chat(sid, book, index, by_name, tally, where.get(sid), chats.get(sid))
        if park:
            book.park(number)
    for sid in sorted(set().union(*removed.values())):
        _record_chat(sid, book, index, by_name, tally, None, None)
    return tally


def _record_chat(
    sid: str,
    book: Bookkeeping,
    index: Index | None,
    by_name: dict[str, SegmentRef],
    tally: _Tally,
    new: Location | None,
    chat: ChatState | None,
) -> None:
    """One chat's record: its old copy marked deleted, then its new place (None: its sources are gone)."""
    record = book.chat(sid)
    was = record.where if record else None
    if was is not None and was.segment in by_name:
        ref = by_name[was.segment]
        ref.deleted.append(was.ordinal)
        ref.deleted_messages += _message_count(index, was)
    book.put(sid, None if chat is None else msgspec.structs.replace(chat, where=new))
    if new is not None:
        tally.added += was is None
        tally.updated += was is not None
    elif was is not None:
        tally.removed += 1


def _message_count(index: Index | None, where: Location) -> int:
    segment = segment_at(index, where)
    return segment.session(where.ordinal).messages if segment else 0


def _live_manifest(directory: Path) -> Manifest | None:
    """The manifest a full rebuild replaces, if it can be read (its generation and segments carry on)."""
    try:
        return read_manifest(directory)
    except IndexUnreadable:
        return None


def _swap(
    directory: Path,
    previous: Manifest | None,
    live: list[SegmentRef],
    book: Bookkeeping,
    ide: dict[str, IdeDbState],
    skipped: tuple[dict[str, int], dict[str, str]],
    mode: str,
    *,
    leftovers: list[str] | None,
) -> None:
    """Make ``live`` and the bookkeeping describing it current in one ``os.replace`` of the manifest, as redacted
    with ``mode`` (the refresh's one decision: what its segments were written with); ``skipped`` is what the
    bookkeeping records of what could not be read (``State.problems`` and ``State.unread``).

    Everything is written under new names first, so a kill at any point leaves
    the previous manifest, its segments and its bookkeeping whole; the files of the new segments and
    bookkeeping are synced together with the new manifest's, in one wait before its rename. The
    segments the swap retires stay a grace period for readers that have just
    read the previous manifest, and are added to ``leftovers`` once it is over (those of a redaction that changed
    go at once, whatever the refresh); the previous bookkeeping is added too (only writers read it, under the lock,
    so it needs no grace). A read's refresh (``leftovers`` None) leaves both, as unlinking right after the
    manifest's sync waited on the journal, about 5 ms of a search after a turn at 1k.
    """
    generation = (previous.generation + 1) if previous else 1
    state_file = book.save(f"{generation}-{os.urandom(4).hex()}", ide, *skipped)
    faults.point("before-manifest-swap")
    names = [ref.name for ref in live]
    retire_segments(directory, [ref.name for ref in previous.segments] if previous else [], names)
    manifest = Manifest(
        version=FORMAT_VERSION,
        generation=generation,
        built_at=time.time(),
        segments=live,
        state=state_file,
        redaction=mode,
    )
    before = {ref.name for ref in previous.segments} if previous else set()
    written = [directory / ref.name / name for ref in live if ref.name not in before for name in ref.files]
    write_manifest(directory, manifest, sync_along=[*book.unsynced, *written])
    faults.point("after-manifest-swap")
    # Segments written before redaction was turned on hold what it now hides: they go at once, not after a grace
    # (then no retired segment is left for a sweep to find).
    if previous is not None and previous.redaction != manifest.redaction:
        remove_stale_segments(directory, names, grace_seconds=0)
    elif leftovers is not None:
        leftovers += stale_segments(directory, names)
    if leftovers is not None:
        leftovers += unreferenced(directory, book.state, state_file)


def _live_docs(ref: SegmentRef) -> float:
    return ref.docs * (1 - len(ref.deleted) / ref.sessions) if ref.sessions else 0


def _mostly_replaced(ref: SegmentRef) -> bool:
    return len(ref.deleted) >= REWRITE_DELETED_SHARE * ref.sessions


def _compact(
    directory: Path, segments: list[SegmentRef], book: Bookkeeping, mode: str, *, rewrite_replaced: bool
) -> list[SegmentRef]:
    """Merge the smallest segments once there are too many small ones and, when ``rewrite_replaced``, write
    again any segment whose sessions were mostly replaced (``REWRITE_DELETED_SHARE``).

    Only a walk over every chat rewrites (``deja index``, the detached walk a read starts): a build's segment
    can hold half the history, and a refresh of a few named chats runs where someone waits for it (a
    ``deja search`` that found a change, the session-end ingest).

    A segment a build filled (about ``SEGMENT_MAX_DOCS``, fewer as its sessions are
    replaced) is otherwise left as it is: merging it would only write the same segment again.
    """
    small = [ref for ref in segments if _live_docs(ref) < SEGMENT_MAX_DOCS // 2]
    merge = sorted(small, key=_live_docs)[: len(small) - MAX_SEGMENTS // 2] if len(small) > MAX_SEGMENTS else []
    if rewrite_replaced:
        merge += [ref for ref in segments if _mostly_replaced(ref) and ref not in merge]
    if not merge:
        return segments
    keep = [ref for ref in segments if ref not in merge]
    writer = NewSegments(directory, mode != "off")
    opened = Index(directory, Manifest(version=FORMAT_VERSION, generation=0, built_at=0, segments=merge))
    try:
        for segment in opened.segments:
            for _, meta in segment.live_sessions():
                messages = segment.messages(meta)  # (stored by this redaction ``mode``: not redacted again)
                writer.add(session_from_index(meta, messages), len(messages))
        writer.flush()
    except BaseException:
        writer.abandon()
        raise
    for sid, where in writer.where.items():
        record = book.chat(sid)
        if record is not None:
            book.put(sid, msgspec.structs.replace(record, where=where))
    return keep + writer.done
