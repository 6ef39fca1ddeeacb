"""Opening Cursor's SQLite files read-only, leaving nothing behind in Cursor's folders.

Every read of a file Cursor writes (``state.vscdb``, ``store.db``,
``ai-code-tracking.db``) goes through :func:`connect_read_only` or
:func:`read_whole`. What SQLite does with a ``mode=ro`` connection decides the
rule, measured on SQLite 3.40:

- a rollback-journal database (header byte 18 is 1): readers take SQLite's
  shared lock and create no file. ``mode=ro`` is exact.
- a WAL database whose ``-wal`` and ``-shm`` both exist (Cursor has it open, or
  crashed): ``mode=ro`` joins Cursor's own locking through the ``-shm``
  wal-index, reads what the ``-wal`` holds, never a frame Cursor is still
  writing, and keeps Cursor's checkpoints off the pages it reads. It creates no
  file, cannot checkpoint (read-only) and never makes Cursor wait: a WAL reader
  does not block a writer.
- a WAL database without a ``-wal`` (Cursor closed it cleanly, the common case
  for a cursor-agent chat): ``mode=ro`` would create a 32 KB ``-shm`` and an
  empty ``-wal`` beside it and leave both there, since a read-only connection
  cannot delete them on close. Here the main file holds every committed row,
  so it is read with ``immutable=1`` (SQLite takes no lock and opens no
  companion file). What ``immutable=1`` risks is a writer starting during the
  read: its commits go to a new ``-wal`` and reach the main file only by a
  checkpoint, which could rewrite a page deja is reading. So deja first takes
  the lock SQLite itself takes for reading (a POSIX read lock on its SHARED
  bytes; a WAL writer never waits on it, as it writes without the database
  file's exclusive lock, unless it asks for exclusive locking mode, when it
  waits for this read as for any reader's). While deja holds it, a writer that
  starts cannot remove its ``-wal`` when it closes, so a read is trusted only
  if the file and its companions are as they were before it
  (:meth:`CursorConnection.still_whole`: no ``-wal`` appeared, the size and
  times did not move), and :func:`read_whole` reads again, then through
  Cursor's own locking, as the companions now exist. The ``-wal`` and ``-shm``
  such a writer leaves are Cursor's files, as after any two programs share a
  database; Cursor checkpoints them on its next close. Without POSIX locks
  (Windows) the size and times alone tell, as finely as the file system's clock.
- a WAL database with a ``-wal`` but no ``-shm`` (a crash, then the wal-index
  removed): ``mode=ro`` would create the ``-shm``, ``immutable=1`` would miss the
  ``-wal``, and ``mode=ro`` in exclusive locking mode (a wal-index in memory, no
  ``-shm``) fails with "disk I/O error" (SQLite 3.40). With the VFS that takes no
  locks (``vfs=unix-none``) that read works and creates no file, but run as root
  SQLite gives the ``-wal`` it opens its database's owner (``fchown``), which
  moves the file's change time: Cursor's file touched. No writer is running (a
  writer keeps a ``-shm``), so the database and its ``-wal`` are copied into a
  private folder under deja's home (``COPIES``), the copy is kept only if the
  originals did not change while copied, and it is read there; a copy whose
  reader was killed is removed by the next copy and the next refresh.

A writer holding a database (a rollback journal's exclusive lock, or exclusive locking mode) makes a reader wait
for SQLite's busy timeout, then fail: the database is read again next time, and what it gave before is kept. The
waits that end so, at a connection's first read, share one budget a process (:data:`LOCK_WAIT_BUDGET_SECONDS`,
given back a minute after its first such wait): once it is spent, any other database (or the same one opened
again) gets a short look, so a busy Cursor holding six workspace databases costs a run about one wait, not one per
database and per read (trial13 F11: 25 s for a first ``deja index``, 12 s for the next search). The price: while
the budget is spent, a commit that holds another database longer than the look (a rollback journal's; a WAL
writer never blocks a reader) makes that one read as locked too, and it is read by the next refresh. A wait that
ends in a read, and one in a later statement, are not counted: each is one database's, and short. Threads share
the budget without a lock (the MCP server's refresher and its tool calls): at worst a race gives one more wait.

``PRAGMA query_only`` is set on every connection: it stops any SQL write, which
``mode=ro`` already does, but says so to a reader of the code. What remains is
the instant between looking at the companions and SQLite opening them: if
Cursor closes the database exactly then, SQLite recreates the companions.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar, cast
from urllib.parse import quote

from .. import faults
from ..detached import may_run
from ..private import private_dir
from ..regular_files import check_regular, check_regular_database, open_regular

BUSY_TIMEOUT_SECONDS = 2.0
#: How long one process waits, in all, for writers holding Cursor's databases (see the module's docstring).
LOCK_WAIT_BUDGET_SECONDS = BUSY_TIMEOUT_SECONDS
#: After which the budget is whole again: a long-running process (the MCP server) waits again for a later lock.
LOCK_WAIT_RENEWED_SECONDS = 60.0
#: What a database is given once the budget is spent: long enough for a commit Cursor is finishing.
_SPENT_WAIT_SECONDS = 0.1
#: How many times :func:`read_whole` reads a database that changed under an immutable read.
READ_ATTEMPTS = 3
#: SQLite's header: the file format's write version is byte 18, 2 for WAL.
_HEADER_BYTES = 100
_WAL_VERSION = 2
_COPY_CHUNK = 1 << 20
#: SQLite's unix locking: SHARED is a read lock on the 510 bytes after PENDING_BYTE (0x40000000) + 2.
_SHARED_FIRST = 0x40000000 + 2
_SHARED_SIZE = 510
#: How long to let a writer that is closing the database finish before looking again.
_LOCKED_PAUSE_SECONDS = 0.02
#: The folder under deja's home (private, 0700) that holds a database copied to be read (a ``-wal`` without its
#: ``-shm``): there, not in ``$TMPDIR``, so a read killed on the way leaves no raw copy outside deja's home, and
#: the next one removes it.
COPIES = "read-copies"

T = TypeVar("T")
#: What identifies a file's content without reading it: inode, size, modification and change times.
FileMark = tuple[int, int, int, int]


class CursorConnection(sqlite3.Connection):
    """A read-only connection to one of Cursor's databases, opened by :func:`connect_read_only`."""

    path: Path
    #: For an immutable read, the database and its companions as they were before it; None otherwise.
    before: tuple[FileMark | None, ...] | None = None
    #: The private folder holding a copy being read, removed on close.
    scratch: str | None = None
    #: The descriptor holding SQLite's shared lock through an immutable read, released on close.
    lock_fd: int | None = None

    def still_whole(self) -> bool:
        """True unless the file changed (or a writer appeared) since an immutable read began."""
        if self.before is None:
            return True
        try:
            return _marks(self.path) == self.before
        except OSError:
            return False

    def close(self) -> None:
        super().close()
        if self.lock_fd is not None:
            os.close(self.lock_fd)
            self.lock_fd = None
        if self.scratch is not None:
            import shutil  # only a copied database has a scratch folder

            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None


def connect_read_only(path: Path, timeout: float | None = None) -> CursorConnection:
    """``path`` opened read-only by the rule in this module's docstring, so that no file appears beside it; a writer
    holding it is waited for up to ``timeout`` (``BUSY_TIMEOUT_SECONDS``), or what is left of the process's budget.

    Raises ``sqlite3.OperationalError`` for anything but a regular file (a FIFO
    would block SQLite's open forever) and for a file that is gone.
    """
    wait = BUSY_TIMEOUT_SECONDS if timeout is None else timeout
    try:
        path = Path(os.path.realpath(path, strict=True))  # SQLite names the companions after a link's target
        check_regular_database(path)
        for _ in range(READ_ATTEMPTS):
            before = _marks(path)
            _, wal, shm = before
            if not _is_wal(path) or (wal is not None and shm is not None):
                return _connect_shared(path, wait)
            if wal is None or wal[1] == 0:
                conn = _connect_immutable(path, wait)
                if conn is not None:
                    return conn
                continue
            scratch = _copy_if_still(path, before)
            if scratch is not None:
                conn = _connect(Path(scratch) / path.name, "mode=ro", wait)
                conn.scratch = scratch
                return conn
    except OSError as error:
        raise sqlite3.OperationalError(f"unable to open database file: {error.strerror}") from None
    raise sqlite3.OperationalError("database is locked: a writer kept it busy each time it was opened")


class _LockWaits:
    """What this process has waited for writers holding Cursor's databases, since when (``time.monotonic``)."""

    spent = 0.0
    since = 0.0

    def allowed(self, wanted: float) -> float:
        """The busy timeout a connection gets: ``wanted``, cut to what is left of the budget, never below a look."""
        if self.spent and time.monotonic() - self.since >= LOCK_WAIT_RENEWED_SECONDS:
            self.spent = 0.0
        return min(wanted, max(LOCK_WAIT_BUDGET_SECONDS - self.spent, _SPENT_WAIT_SECONDS))

    def charge(self, seconds: float) -> None:
        """``seconds`` waited for a database that stayed locked; the first charge starts the minute of renewal."""
        if not self.spent:
            self.since = time.monotonic()
        self.spent += seconds


_LOCK_WAITS = _LockWaits()


def _connect_shared(path: Path, wanted: float) -> CursorConnection:
    """``path`` opened ``mode=ro`` with its first read done: a writer holding the database is waited for there (the
    connection opens without looking at the file), within what is left of this process's budget, which a failed
    wait is charged to."""
    conn = _connect(path, "mode=ro", _LOCK_WAITS.allowed(wanted))
    started = time.monotonic()
    try:
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
    except sqlite3.Error as error:
        conn.close()
        if is_locked(error):
            _LOCK_WAITS.charge(time.monotonic() - started)
        raise
    return conn


#: SQLite's primary result codes for a database a writer holds (SQLITE_BUSY, SQLITE_LOCKED) and for one whose bytes
#: are not a sound database (SQLITE_CORRUPT: "malformed", SQLITE_NOTADB): waiting mends the first, never the second.
_HELD_CODES = frozenset({5, 6})
_DAMAGED_CODES = frozenset({11, 26})
#: SQLite's extended codes for a read-only open of a database a crash left a hot rollback journal beside
#: (SQLITE_READONLY_ROLLBACK, SQLITE_READONLY_RECOVERY): only a writer rolls it back, and Cursor does when it next
#: opens it; nothing is damaged (review49d M1).
_MID_WRITE_CODES = frozenset({776, 264})
#: The problem counted for a database left so.
MID_WRITE_DATABASE = "ide: left mid-write by Cursor"
#: Cursor started writing a database while it was read without locks: what was read may be torn.
CHANGED_WHILE_READ = "ide: database changed while read"
#: What ``failed_read`` says of a database left so.
MID_WRITE = "left mid-write by Cursor"


def is_locked(error: sqlite3.Error) -> bool:
    """Whether ``error`` is SQLite's for a database a writer held (SQLITE_BUSY, SQLITE_LOCKED), or ``read_whole``'s
    for one that changed under each read."""
    if _primary_code(error) in _HELD_CODES:
        return True
    message = str(error).lower()
    return "locked" in message or "busy" in message


def is_damaged(error: sqlite3.Error) -> bool:
    """Whether ``error`` is SQLite's for bytes that are no sound database (SQLITE_CORRUPT, SQLITE_NOTADB): overwritten
    pages, a truncated file, another kind of file; no later read mends it (trial49 F5)."""
    return _primary_code(error) in _DAMAGED_CODES


def is_mid_write(error: sqlite3.Error) -> bool:
    """Whether ``error`` is SQLite's for a database a Cursor crash left mid-write (``_MID_WRITE_CODES``)."""
    return getattr(error, "sqlite_errorcode", None) in _MID_WRITE_CODES


def verdict(error: sqlite3.Error) -> str:
    """Why ``error`` kept a database from being read, in the word a message says: ``MID_WRITE``, "locked",
    "damaged"; "" for any other error."""
    if is_mid_write(error):
        return MID_WRITE
    if is_locked(error):
        return "locked"
    return "damaged" if is_damaged(error) else ""


#: The files this process failed to read -> ``verdict`` of the error the read itself got: a second look may not
#: meet the damage (a count reads a table's unique index, not its pages: review49d H1).
_FAILED_READS: dict[str, str] = {}


def note_failed_read(path: Path | str, error: sqlite3.Error) -> None:
    """Keep why the read of ``path`` failed, where it failed, for the message that names it (``failed_read``)."""
    _FAILED_READS[str(path)] = verdict(error)


def failed_read(path: str) -> str:
    """``verdict`` of the error this process's last failed read of ``path`` got; "" when none failed, or for
    another cause."""
    return _FAILED_READS.get(path, "")


def _primary_code(error: sqlite3.Error) -> int | None:
    code = getattr(error, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def _connect_immutable(path: Path, timeout: float) -> CursorConnection | None:
    """``path`` read as immutable under SQLite's shared lock, or None when a writer holds it or a ``-wal`` appeared.

    The lock is taken before the file is looked at: from then on a writer that
    starts cannot remove its ``-wal`` on closing (that needs the exclusive lock),
    so :meth:`CursorConnection.still_whole` sees it even when the file's times
    did not move (they are only as fine as the kernel's clock tick).
    """
    try:
        lock_fd = _hold_shared_lock(path)
    except OSError:  # a writer is closing it: its -wal goes, then it is read as it stands
        time.sleep(_LOCKED_PAUSE_SECONDS)
        return None
    try:
        before = _marks(path)
        if before[1] is not None and before[1][1] > 0:
            raise _WriterAppeared
        conn = _connect(path, "mode=ro&immutable=1", timeout)
    except _WriterAppeared:
        _release(lock_fd)
        return None
    except BaseException:
        _release(lock_fd)
        raise
    conn.before, conn.lock_fd = before, lock_fd
    return conn


class _WriterAppeared(Exception):
    pass


def _hold_shared_lock(path: Path) -> int | None:
    """A descriptor holding the read lock SQLite takes for SHARED, or None without POSIX locks (Windows).

    Raises OSError when a writer holds the file exclusively (it is checkpointing on close).
    """
    try:
        import fcntl
    except ImportError:
        return None
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB, _SHARED_SIZE, _SHARED_FIRST)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _release(lock_fd: int | None) -> None:
    if lock_fd is not None:
        os.close(lock_fd)


def read_whole(path: Path, read: Callable[[CursorConnection], T], timeout: float | None = None) -> T:
    """``read(connection)`` on ``path``, read again when the file changed under it; the database is closed after.

    ``read`` must finish its reading before it returns (a list, not a generator).
    Raises ``sqlite3.OperationalError`` ("database is locked") when the file
    changed under each of :data:`READ_ATTEMPTS` reads.
    """
    for _ in range(READ_ATTEMPTS):
        conn = connect_read_only(path, timeout)
        try:
            found = read(conn)
            if conn.still_whole():
                return found
        finally:
            conn.close()
    raise sqlite3.OperationalError("database is locked: it changed while it was read")


def _connect(path: Path, options: str, timeout: float) -> CursorConnection:
    location = path.absolute().as_posix()
    if not location.startswith("/"):
        location = "/" + location  # a Windows drive: file:/C:/…
    uri = f"file:{quote(location, safe='/:')}?{options}"
    conn = cast(CursorConnection, sqlite3.connect(uri, uri=True, timeout=timeout, factory=CursorConnection))
    conn.path = path
    try:
        conn.execute("PRAGMA query_only = ON")
    except sqlite3.Error:
        conn.close()
        raise
    return conn


def _mark(path: str | Path) -> FileMark | None:
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return None
    return (found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)


def _marks(path: Path) -> tuple[FileMark | None, FileMark | None, FileMark | None]:
    """The database's, its ``-wal``'s and its ``-shm``'s marks (None for one that does not exist)."""
    db = _mark(path)
    if db is None:
        raise FileNotFoundError(2, "no such file", str(path))
    return db, _mark(f"{path}-wal"), _mark(f"{path}-shm")


def _is_wal(path: Path) -> bool:
    """Whether the header says WAL; a file too short to hold a header is read as it is (immutable)."""
    with open_regular(path) as handle:
        header = handle.read(_HEADER_BYTES)
    return len(header) < _HEADER_BYTES or header[18] == _WAL_VERSION


def _copy_if_still(path: Path, before: tuple[FileMark | None, ...]) -> str | None:
    """A private folder holding a copy of the database and its ``-wal``, or None when they changed while copied.

    Rarely needed, so ``shutil`` and ``tempfile`` are imported here: a refresh of one turn does not load them.
    """
    import shutil
    import tempfile

    from ..folders import deja_home

    copies = os.path.join(deja_home(), COPIES)
    private_dir(copies)
    remove_dead_copies(copies)
    scratch = tempfile.mkdtemp(prefix=f"{os.getpid()}-", dir=copies)
    try:
        for suffix in ("", "-wal"):
            source = f"{path}{suffix}"
            check_regular(source)
            with open_regular(source) as handle, open(Path(scratch) / f"{path.name}{suffix}", "wb") as copy:
                shutil.copyfileobj(handle, copy, _COPY_CHUNK)
        faults.point("database-copied")
        if _marks(path) == before:
            return scratch
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    shutil.rmtree(scratch, ignore_errors=True)
    return None


def remove_dead_copies(copies: str) -> None:
    """Remove the copies in ``copies`` whose reader is gone (killed mid-read: its ``close`` never ran).

    Each copy's folder is named after the process reading it; another deja's live read keeps its copy.
    """
    try:
        names = os.listdir(copies)
    except OSError:
        return
    for name in names:
        pid = name.partition("-")[0]
        if pid.isdigit() and not may_run(int(pid)):
            import shutil

            shutil.rmtree(os.path.join(copies, name), ignore_errors=True)


#: Older versions (before rules 5) copied a database into ``$TMPDIR/deja-read-*``; a killed read left it there.
_OLD_COPY_PREFIX = "deja-read-"
#: A read takes seconds; a copy this old in ``$TMPDIR`` is no live reader's.
_OLD_COPY_AGE = 3600.0


def remove_copies_older_versions_left() -> None:
    """Remove the raw database copies older deja versions' killed reads left in ``$TMPDIR`` (secrets and all).

    Only this user's own real folders an hour old go: a link, or another user's folder, of that name stays.
    ``tempfile`` and ``shutil`` are imported here: only a walk of every store calls this.
    """
    import shutil
    import stat
    import tempfile

    temporary = tempfile.gettempdir()
    try:
        names = [name for name in os.listdir(temporary) if name.startswith(_OLD_COPY_PREFIX)]
    except OSError:
        return
    cutoff = time.time() - _OLD_COPY_AGE
    for name in names:
        path = os.path.join(temporary, name)
        try:
            mark = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISDIR(mark.st_mode) and mark.st_uid == os.getuid() and mark.st_mtime < cutoff:
            shutil.rmtree(path, ignore_errors=True)


def table_names(conn: sqlite3.Connection) -> set[str]:
    return {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def item_value(conn: sqlite3.Connection, key: str) -> bytes | None:
    """One ``ItemTable`` value as bytes; None when the key is absent or NULL."""
    row = conn.execute("SELECT CAST(value AS BLOB) FROM ItemTable WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def count_database_error(error: sqlite3.Error, problems: Counter[str], path: Path) -> None:
    """Count ``error``, which kept ``path`` from being read, among ``problems``, and keep why (``note_failed_read``)."""
    note_failed_read(path, error)
    if is_mid_write(error):
        problems[MID_WRITE_DATABASE] += 1
    elif "not a database" in str(error).lower():
        problems["ide: not a database"] += 1
    elif is_locked(error):
        problems["ide: database locked"] += 1
    else:
        problems["ide: unreadable database"] += 1
