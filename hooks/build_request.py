"""The detached ``deja index`` a hook starts when there is no index it can read (none, a damaged one, or a damaged
file met while reading it): its own module, as most hooks find one and every hook loads ``hooks/call.py``.

Run as ``python -m deja.hooks.build_request``, it is that build's keeper: it runs ``deja index`` and records how the
build ended in the sentinel, so the next hook that finds no index it can read knows whether to start another.
"""

from __future__ import annotations

import os
import sys
import time

from ..core.detached import may_run
from ..core.private import private_dir
from ..core.regular_files import read_regular

#: The file saying a hook started a build: its keeper's pid, then how the build ended (``PID EXIT-STATUS``).
BUILD_SENTINEL = "index-build.requested"
#: A build a hook started that failed is not started again for this long (nor while it runs).
BUILD_RETRY_SECONDS = 600


def request_build(home: str) -> str:
    """Start one detached ``deja index`` unless the one a hook started still runs or failed in the last
    ``BUILD_RETRY_SECONDS``; what it did, for the log.

    The sentinel holds the keeper's pid, and how the build ended once it has. A build that died (killed, an OOM, a
    laptop shut mid-build: no exit status, or a signal's) is started again by the next hook, where recall stayed
    off for ``BUILD_RETRY_SECONDS`` (trialJ F4); so is one that ended well, as what a hook meets now is new damage
    (review58a F3: it was taken for damage that build left). One that failed (a full disk, a quota, a row deja
    cannot decode) is not, where every hook started a full rebuild that failed again (review57c F2, review58a F2).
    A sentinel without a pid (an older deja's, or one being written) and Windows (where no signal probes a
    process) go by its age alone.
    """
    from ..core import detached

    sentinel = os.path.join(home, BUILD_SENTINEL)
    try:
        private_dir(home)
        try:
            age = time.time() - os.stat(sentinel).st_mtime
            if age < BUILD_RETRY_SECONDS:
                pid, status = _recorded(sentinel)
                if status is None and may_run(pid):
                    return f"a build started {age:.0f} s ago is still running; not starting another"
                if status is not None and status > 0:
                    return f"the build a hook started failed {age:.0f} s ago; `deja index` says why"
            os.unlink(sentinel)
        except FileNotFoundError:
            pass
        try:  # the one process that creates the sentinel starts the build
            fd = os.open(sentinel, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return "another hook is starting a build"
        try:
            os.write(fd, b"%d" % detached.start(detached.python_module(__name__, home)))
        finally:
            os.close(fd)
        return "started a build"
    except OSError as exc:
        return f"cannot start a background index build: {exc}"


def _recorded(sentinel: str) -> tuple[int, int | None]:
    """The keeper's pid (0 where none is read) and the build's exit status, None while it runs (negative: the signal
    that ended it)."""
    try:
        fields = (read_regular(sentinel, 64) or b"").split()
        return int(fields[0]) if fields else 0, int(fields[1]) if len(fields) > 1 else None
    except (OSError, ValueError):
        return 0, None


def keep(home: str) -> int:
    """The keeper: run ``deja index`` (its output to nowhere: nobody reads it; ``deja index`` run by a person says
    why it failed) and record its exit status beside this process's pid, unless another hook has replaced the
    sentinel since (it had aged past ``BUILD_RETRY_SECONDS``). A signal that ends the keeper (``kill`` of the pid
    the sentinel names) is passed on to the build, which then ends by it: recorded as killed (review58c F4: the
    build ran on, and the next hook started a second one beside it)."""
    import signal
    import subprocess

    from ..core import detached

    received: list[int] = []
    build: subprocess.Popen[bytes] | None = None

    def pass_on(number: int, _: object) -> None:
        received.append(number)
        if build is not None:
            build.send_signal(number)

    for number in (signal.SIGTERM, signal.SIGINT, getattr(signal, "SIGHUP", signal.SIGTERM)):
        signal.signal(number, pass_on)
    if not received:  # (a signal before the build began: none is begun)
        build = subprocess.Popen(
            detached.python_module("deja.interfaces.entry", "index"),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if received:  # (one while it began)
            build.send_signal(received[0])
    status = build.wait() if build is not None else 0
    if received:  # (killed: whatever the build made of the signal, ``deja index`` exits 130 on an interrupt)
        status = -received[0]
    _record(os.path.join(home, BUILD_SENTINEL), status)
    return 0


def _record(sentinel: str, status: int) -> None:
    """Write ``PID STATUS`` into the sentinel if it still names this keeper, through one descriptor: a hook that
    replaced it meanwhile made another file, which this leaves as it is (review58c F7)."""
    try:
        fd = os.open(sentinel, os.O_RDWR)
    except OSError:
        return
    try:
        fields = os.read(fd, 64).split()
        if fields[:1] == [b"%d" % os.getpid()]:
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, b"%d %d" % (os.getpid(), status))
    finally:
        os.close(fd)


if __name__ == "__main__":
    sys.exit(keep(sys.argv[1]))
