"""stop / preCompact / sessionEnd: ingest the turn just ended, or the closing conversation, so a read finds it indexed.

Cursor fires ``stop`` at the end of every agent turn (in the IDE and in
cursor-agent; Claude Code's ``Stop``), so the next ``deja search`` or
recall finds that turn already in the index and nothing to refresh: a refresh
inside a read pays for msgspec's import and the readers (about 10 times
``python -c pass``), which this hook pays in a process of its own, off the
turn. ``stop`` may answer with a ``followup_message`` that Cursor submits as
the next prompt: this hook prints nothing.

cursor-agent exits a second or two after sending ``sessionEnd`` and takes the
hook's process group with it, so the hook only hands the work on: it starts a
detached process (``core.detached``: a session and process group of its own,
stdio closed) that runs this hook again with ``DEJA_INGEST_WAIT=1``, and
returns at once. That process waits for the index's writer lock (a bounded
while: the next refresh picks the chat up anyway) and ingests the chat with
whatever else the read's cheap check (``glance``) finds changed, recording
what that check saw, so the next read's check finds nothing changed, a new
chat's folder included. When that check finds nothing changed and compared the
chat itself (the session end after the last turn's ingest), it stops there,
without loading the indexer; an ingest that starts while another still runs
waits for it, and finds the chat as recorded: it reads nothing again.
"""

from __future__ import annotations

from ..core import oscalls
from ..core.cjson import dump_json
from .call import HookCall

TYPE_CHECKING = False  # typing's own, without importing typing; type checkers know it
if TYPE_CHECKING:
    from pathlib import Path

#: Set in the detached process: it ingests, waiting for the writer lock.
WAIT_VARIABLE = "DEJA_INGEST_WAIT"
#: How long that process waits for the lock before giving up (the next refresh picks the chat up anyway).
BACKGROUND_LOCK_SECONDS = 300.0
#: The lock an ingest holds while it waits for the index's writer lock (``_wait_for_the_index``).
WAITING_NAME = ".ingest-waiting"
#: What the detached process needs of the payload (the rest can be megabytes of nothing it reads).
KEPT_FIELDS = ("hook_event_name", "conversation_id", "session_id", "transcript_path", "cursor_version")


def session_end(call: HookCall) -> str:
    if oscalls.getenv(WAIT_VARIABLE) == "1":
        return _ingest(call)
    if call.event.lower() == "precompact":
        call.forget()  # the compacted conversation no longer holds what it was shown
    if not call.for_cursor:  # (Claude Code's own Stop, PreCompact or SessionEnd: trial44b F6)
        said = f"Claude Code's own {call.event}: deja indexes Cursor's chats, not Claude Code's; nothing to ingest"
        return call.silent(said)
    if not call.conversation_ids and not isinstance(call.payload.get("transcript_path"), str):
        return call.silent("no conversation id or transcript to ingest")
    pid = _ingest_later(call.payload)
    if pid is None:
        return call.silent("could not start the background ingest")
    return call.silent(f"ingesting in a background process (pid {pid})")


def _ingest(call: HookCall) -> str:
    """The detached process's work (it loads the indexer, ``pathlib`` with it: the hook itself has returned)."""
    from pathlib import Path

    from ..core.index import MANIFEST, IndexForbidden, IndexKeptOut, check_readable, index_dir
    from ..core.indexer import glance

    ids = set(call.conversation_ids)
    transcript = call.payload.get("transcript_path")
    if isinstance(transcript, str) and transcript.endswith(".jsonl"):
        ids.add(Path(transcript).stem)
    home = Path(call.home)
    try:
        check_readable(index_dir(home))
    except IndexForbidden as exc:  # a build could not write it either
        return call.silent(str(exc))
    if not (index_dir(home) / MANIFEST).exists():
        return call.silent(call.request_build("no index yet"))
    waited = _wait_for_the_index(index_dir(home))
    if waited:
        return call.silent(f"not ingested {', '.join(sorted(ids))} here: {waited}")
    found = glance.check(index_dir(home))  # (no walk recorded yet: no targets; the next read walks)
    if found.unchanged and ids <= found.compared:  # (the sessionEnd after the last turn's ingest, most often)
        return call.silent(
            f"ingested {', '.join(sorted(ids))}: 0 added, 0 updated (nothing changed since the last refresh)"
        )
    from ..core.indexer import refresh  # (msgspec, the readers: only when there is something to read)
    from ..core.private import room_fix

    try:
        result = refresh(
            home, only_chat_ids=ids | found.targets, lock_timeout=BACKGROUND_LOCK_SECONDS, seen_folders=found.folders
        )
    except IndexKeptOut as exc:  # (a newer deja's index: left as it is)
        return call.silent(f"not ingested {', '.join(sorted(ids))}: {exc}")
    except TimeoutError:
        return call.silent(
            f"the index stayed locked for {BACKGROUND_LOCK_SECONDS:.0f} s; gave up on {', '.join(sorted(ids))} until the next refresh"
        )
    except OSError as exc:  # (any other failure is logged as the hook's own)
        if not (fix := room_fix(exc)):
            raise
        return call.silent(f"not ingested {', '.join(sorted(ids))}: cannot write the index ({exc.strerror}): {fix}")
    # (Claude Code's own transcript lies under none of Cursor's folders, and no setting would make it Cursor's)
    outside = "" if result.added or result.updated or not call.for_cursor else _outside_every_root(transcript)
    if outside:
        return call.silent(f"not ingested {', '.join(sorted(ids))}: {outside}")
    read = result.added or result.updated or result.unreadable_kept
    if call.for_cursor and not read and (nowhere := _found_nowhere(home, ids, transcript)):
        return call.silent(f"not ingested {', '.join(sorted(ids))}: {nowhere}")
    said = f"ingested {', '.join(sorted(ids))}: {result.added} added, {result.updated} updated"
    if result.unreadable_kept:  # (a turn not taken read as nothing new without it: trial13 F4)
        said += f"; {_unreadable(result.unreadable_files, result.unreadable_kept, home)}"
    return call.silent(said)


def _unreadable(files: list[str], count: int, home: Path) -> str:
    """The stores a refresh could not read, as the CLI names them (the detached ingest may wait for a lock once
    more to say why), and what becomes of them: one this user may not read is read by no refresh until its owner
    makes it readable, and a damaged one by none until it is moved away, as `deja index` says (the log line said
    a damaged store was "read again by the next refresh", which never mends it: fix47h)."""
    from ..core.readers.unreadable import CURSOR_MENDS, MID_WRITE, make_readable, unreadable_named, why_unreadable

    why = why_unreadable(files[0]) if files else ""
    named = unreadable_named(files, count, why)
    if why == "permission denied":
        return f"{named} could not be read: kept as it was; {make_readable(files[0], 'deja index')}"
    if why == "damaged":
        return f"{named} could not be read this time: kept as it was; {_move_away(files[0], home)}"
    if why == MID_WRITE:
        return f"{named} could not be read this time: kept as it was; {CURSOR_MENDS}"
    return f"{named} could not be read this time: kept as it was, read again by the next refresh"


def _move_away(damaged: str, home: Path) -> str:
    """The ``mv`` that moves a damaged store out of deja's way, and what the index is then without
    (``moved_away.dropped_with``), as doctor gives them."""
    from ..core.folders import cli_roots
    from ..core.moved_away import dropped_with
    from ..core.readers.unreadable import move_away

    goes = f", and without {lost}" if (lost := dropped_with(damaged, home, cli_roots())) else ""
    return f"a damaged file stays so: move it away ({move_away(damaged)}); `deja index` then reads on without it{goes}"


def _wait_for_the_index(directory: Path) -> str:
    """Wait while another process writes the index (a build, a rebuild), one ingest at a time; why this one gives
    up, else "".

    Each turn starts an ingest: behind a long build, one waiting process per turn piled up for minutes. The one
    that waits holds ``WAITING_NAME``; a later one finds it held and leaves, since the waiting one checks what
    changed once the index is free, and so reads that later turn too.
    """
    from ..core.indexer import LOCK_NAME
    from ..core.indexer.lock import WriterLock

    waiting = WriterLock(directory / WAITING_NAME, 0)
    try:
        waiting.__enter__()
    except TimeoutError:
        return "another ingest is waiting for the index, and reads this turn once it is free"
    try:
        with WriterLock(directory / LOCK_NAME, BACKGROUND_LOCK_SECONDS):
            return ""  # (the index is free: the check and the refresh follow, as they would have)
    except TimeoutError:
        return f"the index stayed locked for {BACKGROUND_LOCK_SECONDS:.0f} s; gave up until the next refresh"
    finally:
        waiting.__exit__(None, None, None)


def _outside_every_root(transcript: object) -> str:
    """Why the transcript Cursor named was not read, when it lies under none of the roots deja reads; else "".

    The transcript is not read from where it lies: a session indexed from outside every root is one no later walk
    of this environment sees, so every ``deja index --full`` run here would be refused for it (``_outside_roots``
    in the indexer), or would drop it. The log says so instead of "ingested: 0 added", naming the roots.
    """
    from ..core.folders import cli_roots, real_folder

    if not isinstance(transcript, str) or not oscalls.isabs(transcript):
        return ""
    roots = cli_roots()
    # (where the links lead on both sides, as the roots are named: ``~/.cursor`` may be a link, and Cursor may name
    # the file either way)
    real = real_folder(transcript)
    import os  # (the detached ingest's: it has imported os anyway)

    if any(os.path.commonpath([root, real]) == root for root in roots):
        return ""
    return (
        f"{transcript} is under none of the folders deja reads here ({', '.join(roots)}); a `deja index` run with"
        " CURSOR_DATA_DIR set to the folder holding its projects/ reads it"
    )


def _found_nowhere(home: Path, ids: set[str], transcript: object) -> str:
    """Why a chat the refresh read nothing of was not ingested, when there is nothing of it to read: the transcript
    Cursor named is not there, and the index never read any of it (a cursor-agent that writes its files elsewhere,
    or later); else "" (a chat read before, unchanged since). The log said "ingested …: 0 added" (trial18 F16)."""
    from ..core.bookkeeping import Bookkeeping
    from ..core.folders import cli_roots, ide_user_root
    from ..core.index import IndexUnreadable, index_dir, read_manifest

    if isinstance(transcript, str) and oscalls.lexists(transcript):
        return ""
    directory = index_dir(home)
    try:
        book = Bookkeeping.recorded(directory, read_manifest(directory).state)
        if any(book.chat(chat_id) is not None for chat_id in ids):
            return ""
    except IndexUnreadable:  # (what the index holds is unknown: say what the refresh said)
        return ""
    roots = ", ".join(cli_roots())
    return (
        f"no transcript or chat store of it found (looked under {roots}: projects/*/agent-transcripts, chats/), "
        f"nor an editor chat in {oscalls.join(ide_user_root(), 'globalStorage', 'state.vscdb')}"
    )


def _ingest_later(payload: dict) -> int | None:
    """This hook again, detached from the caller, with the payload's ids; its pid, or None when it cannot start."""
    from ..core import detached

    kept = dump_json({k: payload[k] for k in KEPT_FIELDS if k in payload})
    argv = detached.python_module("deja.interfaces.entry", "hook-session-end")
    try:
        return detached.start(argv, stdin=kept, env={**oscalls.environment(), WAIT_VARIABLE: "1"})
    except OSError:
        return None
