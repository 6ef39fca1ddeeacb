"""A hook's side of the resident hook server (``hook_server``): hand the call to a process that has every hook's
modules loaded already, and end with its answer.

A hook's own work is a few ms; the rest of its 100 M instructions is Python starting and loading deja (unmarshalling
its modules, building their classes, msgspec's setup). The server pays that once and forks a child per call, so the
hook process only starts Python, loads this module and waits: it sends the server its standard streams (the
descriptors themselves, ``SCM_RIGHTS``), its arguments, its folder and its whole environment, and the server's child
answers on those streams as the hook would have. The launcher (``interfaces/hook.py``) calls ``answer`` before any
other module of deja's is loaded; it imports only what Python started with and ``_socket``.

Where there is no server (none started yet, its socket stale, another deja's server, this process's streams not
all open) the hook runs in this process as it always did, and asks for a server to be started (``start_wanted``:
``hook_server.start_beside``, once the hook has answered). Whatever goes wrong after the server took the call, the
hook exits 0 within its budget: a hook never fails the agent.
"""

from __future__ import annotations

import marshal
import sys

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    from _socket import socket
    from collections.abc import Mapping, Sequence
    from typing import Any, NoReturn

#: The socket's name in deja's home.
SOCKET_NAME = "hook-server.sock"
#: The server's lock in deja's home: held by the one server that runs, and the time the last one was started.
LOCK_NAME = "hook-server.lock"
#: The version of what client and server say to each other; a server that reads another steps aside.
PROTOCOL = 1
#: A Unix socket's path must fit ``sockaddr_un`` (108 bytes on Linux, 104 on macOS, its NUL included): a longer one
#: has no server.
LONGEST_PATH = 100
#: The variable that turns the server off (``0``, ``false``, ``no``, ``off``), as the ``hook_server`` setting does.
SWITCH = "DEJA_HOOK_SERVER"
_OFF = (b"0", b"false", b"no", b"off")
#: How long a hook waits for the server's child, in seconds: a second less than the least timeout the installers
#: give that hook in Cursor or Claude Code (``Hook.timeout``; ``tests/test_hook_server.py`` checks it), so that the
#: hook, not the harness, ends the call.
BUDGET = {"hook-context": 9.0, "hook-session-end": 29.0}
DEFAULT_BUDGET = 4.0
#: The commands a person runs that the server answers too (``entry.main``): ``deja search``, whose own process
#: would spend most of its time loading what the server has loaded (the indexer, after a turn). They have no budget
#: (a search may build the index first); the server takes the call within ``DEFAULT_BUDGET`` or the command says so.
PERSONS = frozenset({"search"})


def budget(command: str) -> float | None:
    """How long a call of ``command`` may take before its child is killed; None: as long as it takes."""
    return None if command in PERSONS else BUDGET.get(command, DEFAULT_BUDGET)


#: What the server says: the child's pid (4 bytes follow), its exit code (1 byte follows), "another deja's server:
#: run the hook yourself, and start a new one", "run the hook yourself" (settings this server cannot honour).
PID, EXIT, STALE, DECLINED = b"P", b"X", b"S", b"D"
#: What the server says first, as it takes a connection: only then does the hook send its streams (a descriptor sent
#: to a server that never reads it would keep the harness's pipe open), and where it does not say it within
#: ``READY_SECONDS`` the hook answers in its own process.
READY = b"R"
READY_SECONDS = 1.0
_INT = 4  # (the bytes of a pid, a descriptor, a length: a C int)

#: Why the server did not answer this call ("" where it was not asked, or answered): the hook's line in hooks.log,
#: answered in this process, says it (``entry.main``).
why_not = ""
#: Whether the hook, run in this process, should start a server once it has answered (``hook_server.start_beside``).
start_wanted = False
#: Whether this process is a server's child, answering a call: it never hands it on again (a ``deja search`` would
#: ask its own server, whose child would ask it again, …).
answering = False


def socket_path(environ: Mapping[bytes, bytes] | None = None) -> str:
    """Where the server's socket is: ``hook-server.sock`` in deja's home as the environment names it
    (``DEJA_HOME``, else ``$XDG_CACHE_HOME/deja``, else ``~/.cache/deja``: ``folders.deja_home`` without the config
    file, which this process has not read: ``start_beside`` starts a server only where the two agree); "" where there
    is none to ask: the server is off, the path is too long for a socket, or not absolute. ``environ``: another
    environment than this process's (the tests')."""
    from posix import _path_normpath  # type: ignore[attr-defined]
    from posix import environ as own

    environ = own if environ is None else environ

    if environ.get(SWITCH.encode(), b"").strip().lower() in _OFF:
        return ""
    encoding = sys.getfilesystemencoding()
    home = environ.get(b"HOME", b"").decode(encoding, "surrogateescape")

    def folder(name: str) -> str:
        value = environ.get(name.encode(), b"").decode(encoding, "surrogateescape").strip()
        if value == "~" or value.startswith("~/"):
            value = home + value[1:] if home.startswith("/") else ""
        return _path_normpath(value) if value.startswith("/") else ""

    deja = folder("DEJA_HOME")
    if not deja:
        if environ.get(b"DEJA_HOME", b"").strip():
            return ""  # (a relative DEJA_HOME: the hook says why and stays silent)
        cache = folder("XDG_CACHE_HOME") or (folder("HOME") and f"{folder('HOME')}/.cache")
        deja = cache and f"{cache.rstrip('/')}/deja"
    path = f"{deja}/{SOCKET_NAME}" if deja else ""
    return path if len(path.encode(encoding, "surrogateescape")) <= LONGEST_PATH else ""


def launcher(folder: str) -> str:
    """The launcher file in ``folder``, the site-packages the launcher found deja in."""
    return f"{folder.rstrip('/')}/deja/interfaces/hook.py"


def code_fingerprint(folder: str) -> tuple[Any, ...]:
    """What tells this deja's code from another's: the protocol, the interpreter and the launcher file as the disk
    has them now (a ``pip install`` of another deja, or another Python in its place, replaces them). A server whose
    code is not its caller's steps aside. The interpreter is its file, not the name it was started by: a search
    started as ``python`` where the hooks start ``python3``, or through a link, is the same code (review56b F3: the
    server stepped aside for it)."""
    from posix import stat

    code, python = stat(launcher(folder)), stat(sys.executable)
    return (
        PROTOCOL,
        (python.st_dev, python.st_ino, python.st_size, python.st_mtime_ns),
        launcher(folder),
        (code.st_ino, code.st_size, code.st_mtime_ns),
    )


def fingerprint(folder: str) -> tuple[Any, ...]:
    """``code_fingerprint``, and what Python fixed at start from the locale (the file system's encoding, the
    standard streams'): a server started in another locale declines the call."""
    streams = tuple((s.encoding, s.errors) if s is not None else None for s in (sys.stdin, sys.stdout, sys.stderr))
    return (*code_fingerprint(folder), sys.getfilesystemencoding(), sys.flags.utf8_mode, streams)


def send_call(connection: socket, message: bytes, fds: Sequence[int]) -> None:
    """Send a call on ``connection``: ``message`` after its length, with the descriptors ``fds`` (``SCM_RIGHTS``): how a
    hook hands the server its call, and the server hands it on to its spare (``hook_server.Server._handed``)."""
    from _socket import SCM_RIGHTS, SOL_SOCKET

    data = len(message).to_bytes(_INT, "little") + message
    streams = b"".join(fd.to_bytes(_INT, sys.byteorder) for fd in fds)
    sent = connection.sendmsg([data], [(SOL_SOCKET, SCM_RIGHTS, streams)])
    if sent < len(data):  # (a send of nothing raises EPIPE where the server, quick to decline, has hung up: its reply
        connection.sendall(data[sent:])  # was lost, review55d F6)


def answer(folder: str, command: str) -> None:
    """Have the server answer this hook call, and end this process with its exit code; return where it did not
    (``why_not`` says why, ``start_wanted`` whether to start one)."""
    global why_not, start_wanted
    if answering or sys.platform == "win32" or sys.flags.verbose or "importtime" in sys._xoptions:
        return  # (``-v`` and ``-X importtime`` list what the hook imports: it must import it)
    path = socket_path()
    if not path:
        return
    try:
        from _socket import AF_UNIX, SOCK_STREAM
        from _socket import socket as Socket
    except ImportError:  # (no Unix sockets here)
        return
    longest = budget(command)
    taking = DEFAULT_BUDGET if longest is None else longest  # (how long the server may take to take the call)
    from time import monotonic

    deadline = monotonic() + taking
    connection = Socket(AF_UNIX, SOCK_STREAM)
    try:
        connection.settimeout(taking)
        try:
            connection.connect(path)
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            why_not, start_wanted = f"no hook server ({exc.strerror})", True
            return
        if not _served_by_this_user(connection, path):
            why_not = "the hook server's socket is another user's"
            return
        if _receive(connection, 1, min(deadline, monotonic() + READY_SECONDS)) != READY:
            why_not = "the hook server closed the call"
            return
        from posix import environ, getcwd

        send_call(connection, marshal.dumps((fingerprint(folder), sys.argv, getcwd(), dict(environ))), (0, 1, 2))
        try:
            reply = _receive(connection, 1, deadline)
        except TimeoutError:  # (it took this call's streams, and may yet answer on them: no second answer here)
            _give_up(command, f"the hook server did not take the call within {taking:g} s")
        if reply == PID:
            pid = int.from_bytes(_receive(connection, _INT, deadline), "little")
            _end_with(connection, pid, command, None if longest is None else deadline)
        why_not = {STALE: "the hook server was another deja's", DECLINED: "the hook server declined"}.get(
            reply, "the hook server closed the call"
        )
        start_wanted = reply == STALE
    except OSError as exc:  # (a stream closed, a timeout before the server took the call, …)
        why_not = f"the hook server was not reached ({type(exc).__name__}: {exc})"
    except KeyboardInterrupt:  # (a person's Ctrl-C while the call was handed on: its child, if any, is killed)
        if command not in PERSONS:
            raise
        sys.stderr.write("deja: interrupted\n")
        from posix import _exit

        _exit(130)
    finally:
        connection.close()


def _served_by_this_user(connection: socket, path: str) -> bool:
    """Whether the process listening at ``path`` runs as this user (``SO_PEERCRED``), or where the system does not
    say (macOS), whether the socket is this user's: the hook hands it Cursor's streams and its whole environment, and
    a deja home another user can write to (one they made first in ``/tmp``) could hold their socket (review55d F2)."""
    from posix import getuid

    try:
        from _socket import SO_PEERCRED, SOL_SOCKET
    except ImportError:  # pragma: no cover - Linux has it
        from posix import lstat

        return lstat(path).st_uid == getuid()
    return same_user(connection.getsockopt(SOL_SOCKET, SO_PEERCRED, 12), getuid())


def same_user(credentials: bytes, uid: int) -> bool:
    """Whether a peer's ``SO_PEERCRED`` (``struct ucred``: pid, uid, gid, C ints) is user ``uid``'s: the server asks
    it of each hook, the hook of the server."""
    return len(credentials) >= 8 and int.from_bytes(credentials[4:8], sys.byteorder) == uid


def _end_with(connection: socket, pid: int, command: str, deadline: float | None) -> NoReturn:
    """End this process with the exit code of child ``pid`` (which took the call); ``_give_up`` where the child
    ended without one or outlived the budget. With no ``deadline`` (a person's command), a Ctrl-C here is passed on
    to the child, which ends as the command would in its own process, and a Ctrl-Z stops it with this process
    (``_stop_together``). A child left without an answer is killed (it holds the caller's streams): past its budget,
    and where the server ended before it did (review56b F2: it wrote a search's results after the search had said it
    failed), by a descriptor that names it and no other process (``_pin``)."""
    from posix import _exit

    pinned = _pin(pid)
    if deadline is None:
        _stop_together(pid)
    why = ended = "the hook server's child ended without an answer"
    while True:
        try:
            reply = _receive(connection, 2, deadline)
            break
        except KeyboardInterrupt:
            kill(pid, 2)  # (SIGINT: the child says "interrupted" and ends with 130; it alone is in the terminal's way)
        except OSError as exc:
            reply = b""
            seconds = budget(command)
            why = f"the hook server's connection failed ({exc})"
            if seconds is not None:
                why = f"the hook server's child took longer than the hook's {seconds:g} s ({exc})"
            kill(pid)
            break
    if reply[:1] == EXIT and len(reply) == 2:
        _exit(reply[1])
    if why == ended and _kill_pinned(pinned, pid):  # (the server went away, its child still at work: it is stopped)
        why = "the hook server went away before its child answered (the child was killed)"
    _give_up(command, why)


def _pin(pid: int) -> int:
    """A descriptor of process ``pid`` that names it, and no other process given its number later, while it is open
    (``pidfd_open``, Linux 5.3 and later); -1 where there is none."""
    try:
        from posix import pidfd_open

        return int(pidfd_open(pid))
    except (ImportError, OSError):
        return -1


def _kill_pinned(pinned: int, pid: int) -> bool:
    """Kill the process ``pinned`` names (``_pin``), or where there is no such descriptor (macOS, an older Linux)
    process ``pid``: whether it still ran."""
    try:
        if pinned < 0:
            from posix import kill as send

            send(pid, 9)
            return True
        from _signal import pidfd_send_signal  # type: ignore[import-not-found]

        pidfd_send_signal(pinned, 9)
    except (ImportError, OSError):
        return False
    return True


def _stop_together(pid: int) -> None:
    """Have a Ctrl-Z that stops this process stop child ``pid`` too, and ``fg`` or ``bg`` let both go on: the child
    runs in the server's session, which the terminal's signals never reach (review56b F1: it went on writing a
    search's results over the shell's prompt)."""
    import _signal  # (``signal`` would load ``enum``)
    from posix import getpid
    from posix import kill as send

    def stop(*_: object) -> None:
        kill(pid, _signal.SIGSTOP)
        _signal.signal(_signal.SIGTSTP, _signal.SIG_DFL)
        send(getpid(), _signal.SIGTSTP)  # (this process stops here, until the shell's SIGCONT)
        _signal.signal(_signal.SIGTSTP, stop)
        kill(pid, _signal.SIGCONT)

    _signal.signal(_signal.SIGTSTP, stop)


def _give_up(command: str, why: str) -> NoReturn:
    """End a call the server took but did not answer: a hook exits 0 with nothing said (the call is the server's:
    running the hook here could answer it twice) and ``why`` in hooks.log, as the hooks log their silences; a
    person's command says ``why`` on stderr and exits 1."""
    from posix import _exit

    if command in PERSONS:
        try:
            sys.stderr.write(f"deja: {why}: run it again (DEJA_HOOK_SERVER=0 runs it without the server)\n")
        finally:
            _exit(1)
    try:  # (the rare way out: it loads what the hook's log needs)
        from ..hooks.call import log

        log(f"{command} - -: silent: {why}")
    finally:
        _exit(0)


def kill(pid: int, signal_number: int = 9) -> None:
    """Send process ``pid`` SIGKILL (a child that outlived its budget holds the harness's pipes), or
    ``signal_number``, if it runs."""
    from posix import kill as signal

    try:
        signal(pid, signal_number)
    except OSError:
        return


def _receive(connection: socket, size: int, deadline: float | None) -> bytes:
    """``size`` bytes from ``connection``, fewer where it closed first; OSError (``TimeoutError``) past ``deadline``
    (None: none)."""
    from time import monotonic

    data = b""
    while len(data) < size:
        connection.settimeout(None if deadline is None else max(deadline - monotonic(), 0.001))
        chunk = connection.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data
