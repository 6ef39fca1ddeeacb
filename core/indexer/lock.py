"""The writer lock: one refresh at a time, across processes, by an ``flock`` on ``index/.lock``.

This is the lock filelock's ``UnixFileLock`` took (the same call on the same
file, so either one excludes the other), without its import: filelock pulls
in typing, logging and inspect, about 15 ms of every ``deja index``. The lock
goes with the process, so a killed writer never leaves it held. On Windows,
which has no ``flock``, it is ``msvcrt``'s lock on the file's first byte.
"""

from __future__ import annotations

import os
import sys
import time

from ..private import FILE_MODE

TYPE_CHECKING = False  # typing's own, without importing typing; type checkers know it
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from types import TracebackType

#: How often a writer waiting for another looks again.
POLL_SECONDS = 0.05
#: How long a writer waits for another before ``waiting`` is called: a wait shorter than this is not worth a line.
SAY_AFTER_SECONDS = 0.5

if sys.platform == "win32":
    import msvcrt

    #: What taking a lock another process holds raises.
    HELD: tuple[type[OSError], ...] = (OSError,)

    def _lock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)

    def _unlock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    HELD = (BlockingIOError,)

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


class WriterLock:
    """``with WriterLock(path, timeout):`` holds the lock for the block; TimeoutError after ``timeout`` seconds
    waiting (0: one try). ``waiting`` is called once when another process has held it for ``SAY_AFTER_SECONDS``
    of this one's wait, so that a person is told soon why nothing happens (a build can hold it for minutes), and not
    for the moment a hook's ingest holds it."""

    def __init__(self, path: Path, timeout: float, waiting: Callable[[], None] | None = None):
        self.path = path
        self.timeout = timeout
        self.waiting = waiting
        #: How long the last ``with`` waited for another process to let the lock go, in seconds.
        self.waited = 0.0
        self._fd: int | None = None

    def __enter__(self) -> WriterLock:
        asked = time.monotonic()
        deadline = asked + self.timeout
        told = self.waiting is None
        while (fd := self._try()) is None:
            if time.monotonic() >= deadline:
                raise TimeoutError(f"the index's writer lock {self.path} is held by another process")
            if not told and self.waiting is not None and time.monotonic() - asked >= SAY_AFTER_SECONDS:
                self.waiting()
                told = True
            time.sleep(POLL_SECONDS)
        self._fd = fd
        self.waited = time.monotonic() - asked
        return self

    def _try(self) -> int | None:
        """The lock file's descriptor, locked; None while another process holds it."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), FILE_MODE)
        try:
            if os.name != "nt" and os.fstat(fd).st_mode & 0o077:  # made before deja kept its files private
                os.fchmod(fd, FILE_MODE)
            _lock(fd)
        except HELD:
            os.close(fd)
            return None
        except BaseException:
            os.close(fd)
            raise
        if os.fstat(fd).st_nlink == 0:  # the file was removed while we waited: lock the one there now
            os.close(fd)
            return None
        return fd

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._fd is not None:
            _unlock(self._fd)
            os.close(self._fd)
            self._fd = None
