"""Starting a process that outlives its starter: the background builds, walks and ingests deja hands work to.

A hook hands an ingest on and returns (cursor-agent takes the hook's process
group with it when it exits), a read starts a full walk it does not wait for,
the MCP server a build. Each process started here runs in a session of its
own, reads the bytes given (or the null device) on stdin, writes to the null
device, and holds no file descriptor of its starter's but those three. It is
background work, so it runs ``NICE`` steps below its starter (``lower_priority``):
on a busy machine a tool call or a hook that a person waits for gets the core
first, and on an idle one the work runs at full speed all the same.

On POSIX it is started with ``os.posix_spawn``: nothing to import (``subprocess``
would cost a hook ``threading``, ``selectors``, ``signal`` and ``locale``,
about 2 ms), and safe in a process with threads such as the MCP server, where
``os.fork`` is not. Elsewhere (Windows), and where the C library cannot start
a session, through ``subprocess``. A long-lived starter reaps what it started
on its next start, so it leaves no zombie behind.
"""

from __future__ import annotations

import sys

from . import oscalls

TYPE_CHECKING = False  # typing's own, without importing typing; type checkers know it
if TYPE_CHECKING:
    from collections.abc import Mapping
    from subprocess import Popen

#: How many steps of niceness below its starter background work runs (the scheduler gives a process at 10 about a
#: tenth of the share of one at 0 while both want the same core).
NICE = 10

#: Processes spawned here that may still run (reaped by ``running``), and those started through ``subprocess``.
_spawned: set[int] = set()
_popened: dict[int, Popen[bytes]] = {}


def start(argv: list[str], *, stdin: bytes = b"", env: Mapping[str, str] | None = None, background: bool = True) -> int:
    """Start ``argv`` detached, ``stdin`` on its standard input; its pid. Raises OSError when it cannot start. Not
    ``background`` (the resident hook server, whose children answer hooks a person waits for), it keeps this
    process's priority."""
    for pid in list(_spawned):
        running(pid)  # reap what has ended
    environment = oscalls.environment() if env is None else dict(env)
    read, write = oscalls.pipe() if stdin else (None, None)
    try:
        spawned = _spawn(argv, environment, read) if hasattr(oscalls, "posix_spawn") else None
        pid = spawned if spawned is not None else _popen(argv, environment, read)
    except BaseException:
        if write is not None:
            oscalls.close(write)
        raise
    finally:
        if read is not None:
            oscalls.close(read)
    if background:
        lower_priority(pid, own_session=True)
    if write is not None:
        _feed(write, stdin)
    return pid


def lower_priority(pid: int, *, own_session: bool) -> None:
    """Run process ``pid`` (started by this one) ``NICE`` steps below this one, as far as the system allows.

    Where Linux's autogroups are on (most desktops), the scheduler first shares the machine between sessions and
    only then between a session's processes by their niceness: a process in a session of its own is lowered
    through its session's group, one that shares its starter's session (the MCP server's refresher) by its own
    niceness, which is set for both so that it holds where there are no autogroups. Raising a niceness needs no
    privilege; where it cannot be set the process runs as it is.
    """
    try:
        oscalls.setpriority(oscalls.PRIO_PROCESS, pid, min(19, oscalls.getpriority(oscalls.PRIO_PROCESS, 0) + NICE))
    except (AttributeError, OSError):  # no such call (Windows, which has no autogroups either), or it has ended
        return
    if own_session:
        try:
            group = oscalls.open(f"/proc/{pid}/autogroup", oscalls.O_WRONLY)
        except OSError:  # no autogroups here (or the process has ended)
            return
        try:
            oscalls.write(group, b"%d" % NICE)
        except OSError:
            pass
        finally:
            oscalls.close(group)


def python_module(module: str, *args: str) -> list[str]:
    """The command that runs ``module`` in this interpreter with ``-P``: the caller's folder (a hook's or the MCP
    server's may be a cloned repository) is not put first on the import path, so a ``msgspec.py`` there is not what
    deja's process imports (review41b M6)."""
    return [sys.executable, "-P", "-m", module, *args]


def start_index() -> int:
    """``deja index`` started detached, as this interpreter runs it: the build a hook or the MCP server hands a
    missing or unreadable index to. Its pid; raises OSError when it cannot start."""
    return start(python_module("deja.interfaces.entry", "index"))


def start_catch_up() -> int:
    """``python -m deja.core.indexer catch-up`` started detached: what a read does before it answers (the cheap
    check, a refresh of what it finds changed; no walk), handed on by a hook that answers from the index as it
    stands. Its pid; raises OSError when it cannot start."""
    return start(python_module("deja.core.indexer", "catch-up"))


def may_run(pid: int) -> bool:
    """Whether process ``pid``, started by anyone, may still run: False only when its pid is known and gone (its
    files left behind are then a killed run's to sweep). Another user's process holding that pid now, or no right to
    ask, counts as running; so does any pid on Windows, where signal 0 would be CTRL_C_EVENT."""
    if pid <= 0 or sys.platform.startswith("win"):
        return True
    try:
        oscalls.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def running(pid: int) -> bool:
    """Whether process ``pid``, started by ``start``, still runs (it is reaped once it has ended)."""
    if pid in _popened:
        if _popened[pid].poll() is None:
            return True
        del _popened[pid]
        return False
    try:
        ended, _ = oscalls.waitpid(pid, oscalls.WNOHANG)
    except ChildProcessError:
        ended = pid
    if ended:
        _spawned.discard(pid)
    return not ended


def _spawn(argv: list[str], env: dict[str, str], stdin: int | None) -> int | None:
    """``argv`` started by ``os.posix_spawn`` with ``stdin`` as its fd 0; None where the C library cannot give it a
    session of its own."""
    actions = [
        (oscalls.POSIX_SPAWN_OPEN, 0, oscalls.devnull, oscalls.O_RDONLY, 0)
        if stdin is None
        else (oscalls.POSIX_SPAWN_DUP2, stdin, 0),
        (oscalls.POSIX_SPAWN_OPEN, 1, oscalls.devnull, oscalls.O_WRONLY, 0),
        (oscalls.POSIX_SPAWN_DUP2, 1, 2),
        *((oscalls.POSIX_SPAWN_CLOSE, fd) for fd in _inheritable()),
    ]
    try:
        pid = oscalls.posix_spawn(argv[0], argv, env, file_actions=actions, setsid=True)
    except NotImplementedError:
        return None
    _spawned.add(pid)
    return pid


def _inheritable() -> list[int]:
    """This process's descriptors above 2 that a child would inherit (Python's own are not inheritable)."""
    for listing in ("/proc/self/fd", "/dev/fd"):
        try:
            names = oscalls.listdir(listing)
        except OSError:
            continue
        found = []
        for name in names:
            try:
                if int(name) > 2 and oscalls.get_inheritable(int(name)):
                    found.append(int(name))
            except (ValueError, OSError):  # the listing's own descriptor, closed by now
                pass
        return found
    return []


def _popen(argv: list[str], env: dict[str, str], stdin: int | None) -> int:
    import subprocess

    process = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL if stdin is None else stdin,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
        close_fds=True,
    )
    _popened[process.pid] = process
    return process.pid


def _feed(pipe: int, data: bytes) -> None:
    """``data`` written to the pipe to a child's stdin, which is then closed; a child that ended without reading it
    is no error."""
    try:
        while data:
            data = data[oscalls.write(pipe, data) :]
    except BrokenPipeError:
        return
    finally:
        oscalls.close(pipe)
