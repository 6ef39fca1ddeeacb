"""The resident hook server: a process that has loaded every hook's modules once and forks a child per hook call
(and per ``deja search``, whose modules it has loaded too: ``SEARCHING``).

A hook is mostly Python starting and loading deja (``hook_client`` says how much); a child forked from a process
that did both starts at the hook's own work. The launcher (``interfaces/hook.py``) starts the server, as
``<python> -I -S <launcher> serve-hooks``, the first time a hook finds none (``start_beside``: detached, its
standard streams on the null device, so it never holds Cursor's pipes). It listens on ``hook-server.sock`` in deja's
home (a 0700 folder; the socket 0600), takes calls from its own user only, and hands each to a child that puts the
caller's standard streams, folder, environment and arguments in place of its own and runs the hook as the launcher
does (``deja.interfaces.entry.main``); when the child ends the server sends the caller its exit code. The child is
forked ahead of the call where it can be (the spare: ``Server._fork_spare``), else when the call comes.

No module a hook imports keeps state taken at import from the environment, the folder, the time or the files (the
settings, the folders, the time zone are read when called; ``tests/test_hook_server.py`` runs calls from two homes
and two folders through one server): the child's answer is the in-process one.

The server steps aside (its socket removed, calls still running answered) when it has had no call for
``IDLE_SECONDS``, when the launcher or the interpreter on disk is no longer the one it loaded (a reinstall), when
its socket is gone or another's, or when a caller with another deja's fingerprint asks it.
"""

from __future__ import annotations

import marshal
import sys
import time

from ..core import oscalls
from . import hook_client
from .hook_client import DECLINED, EXIT, PID, READY, STALE, kill

TYPE_CHECKING = False  # typing's own, without importing typing; type checkers know it
if TYPE_CHECKING:
    from _socket import socket
    from collections.abc import Callable
    from typing import Any, NoReturn

#: How long the server waits without a call before it ends.
IDLE_SECONDS = 600.0
#: How often it looks at its socket and its code on disk.
CHECK_SECONDS = 1.0
#: How long it waits for a caller's message once connected (a caller sends it at once).
RECEIVE_SECONDS = 1.0
#: How long handing a call on to the spare may take (a spare that said it is ready reads it at once).
HAND_SECONDS = 1.0
#: A server started less than this long ago (the lock's time) is not started again: one that cannot start is not
#: retried on every hook call.
RESTART_SECONDS = 30.0
#: The argument of the launcher that runs the server.
COMMAND = "serve-hooks"
_MESSAGE_LIMIT = 16 << 20  # (a caller's arguments, folder and environment)
_CODE = 4  # (how many fields of ``hook_client.fingerprint`` are ``code_fingerprint``'s: the rest is the locale's)


#: The lock is never opened through a link put in its place (its pid would be written into the file it names:
#: review55d F3).
LOCK_FLAGS = getattr(oscalls, "O_NOFOLLOW", 0)


def start_beside(folder: str) -> None:
    """Start a server for the launcher in ``folder`` (a site-packages), detached, once a hook ran without one
    (``hook_client.start_wanted``): where the ``hook_server`` setting is on, deja's home is where the client looks
    (the config file does not move it), and none was started in the last ``RESTART_SECONDS``."""
    from ..core import config

    path = hook_client.socket_path()
    if not path or not config.get("hook_server") or _home_moved(path):
        return
    lock = oscalls.join(oscalls.dirname(path), hook_client.LOCK_NAME)
    try:
        if time.time() - oscalls.stat(lock).st_mtime < RESTART_SECONDS:
            return
    except FileNotFoundError:
        pass
    except OSError:
        return
    from posix import utime

    from ..core import detached

    try:
        oscalls.close(oscalls.open(lock, oscalls.O_WRONLY | oscalls.O_CREAT | LOCK_FLAGS, 0o600))
        utime(lock)
        # (in the UTF-8 mode of the hook that starts it: with no locale, Python coerces this process's LC_CTYPE to
        # C.UTF-8 and turns the mode on, and a server started with that LC_CTYPE had it off, so it declined every
        # hook Cursor started without a locale: review55d F1)
        utf8 = f"utf8={sys.flags.utf8_mode}"
        argv = [sys.executable, "-I", "-S", "-X", utf8, hook_client.launcher(folder), COMMAND]
        detached.start(argv, background=False)
    except OSError:
        return


def _home_moved(path: str) -> bool:
    """Whether deja's home, as the config file may set it, is not the folder of the socket at ``path`` (which the
    client finds without reading the config file): no server is started or kept there."""
    from ..core import folders

    return oscalls.normpath(folders.deja_home()) != oscalls.dirname(path)


def state() -> str:
    """Whether a hook server runs for this environment's hooks, in words (``deja doctor``)."""
    from ..core import config, folders

    if not config.get("hook_server"):
        return "off (the hook_server setting): each hook runs in a process of its own"
    if sys.platform == "win32":  # (as ``hook_client.answer`` asks none there)
        return "none on Windows (no Unix sockets, no fork): each hook runs in a process of its own"
    path = hook_client.socket_path()
    if not path:
        return f"none: the path of its socket in {folders.deja_home()} is too long; each hook runs in its own process"
    if _home_moved(path):
        return "none: the config file moves deja's home, where the hooks cannot look for it without reading the file"
    from _socket import AF_UNIX, SOCK_STREAM
    from _socket import socket as Socket

    probe = Socket(AF_UNIX, SOCK_STREAM)
    try:
        probe.settimeout(1.0)
        probe.connect(path)
    except OSError:
        return _not_running(oscalls.dirname(path))
    finally:
        probe.close()
    try:
        with open(oscalls.join(oscalls.dirname(path), hook_client.LOCK_NAME), encoding="ascii") as lock:
            pid = lock.read().strip()
    except OSError:
        pid = "?"
    return f"runs (pid {pid}): its children answer the hooks{_unserved_searches(pid)}"


def _not_running(home: str) -> str:
    """What the next hook does where no server runs: starts one, unless no socket can be made in deja's home
    ``home`` (or the home made: ``cannot_write`` of the nearest folder there is), where doctor said "starts one" of a
    server that never came up (trial58 T7)."""
    from ..core.private import cannot_write, nearest_folder

    if why := cannot_write(nearest_folder(home)):
        return f"not running, and none can start: no socket can be made in {home} ({why}); each hook runs in its own process"
    return "not running: the next hook answers in its own process and starts one"


def _unserved_searches(pid: str) -> str:
    """The clause doctor adds where the server runs in another UTF-8 mode than this process, which a search from the
    same shell has too (a Cursor that gave its hooks no locale started it in UTF-8 mode): it declines every such
    search (trial57 F4: doctor said "runs" alone; the server's other checks of a caller are not asked here). Read
    from the server's command line (``start_beside`` writes ``-X utf8=N``) where ``/proc`` shows it (Linux); ""
    elsewhere (macOS has no ``/proc``: doctor says "runs" alone there)."""
    try:
        with open(f"/proc/{int(pid)}/cmdline", "rb") as cmdline:
            argv = cmdline.read().split(b"\0")
    except (OSError, ValueError):
        return ""
    modes = [
        arg[5:] for before, arg in zip(argv, argv[1:], strict=False) if before == b"-X" and arg.startswith(b"utf8=")
    ]
    if not modes or modes[-1] == str(sys.flags.utf8_mode).encode():
        return ""
    server, shell = ("", " not") if modes[-1] == b"1" else (" not", "")
    return (
        f"; this shell's searches run in their own process (the server runs{server} in Python's UTF-8 mode, this "
        f"shell does{shell}: a Cursor started without a locale starts it in that mode)"
    )


def stop() -> None:
    """Have the server of this environment's deja home step aside (its socket removed: it ends within
    ``CHECK_SECONDS``, the calls it runs answered): ``deja uninstall`` leaves no server of the hooks it took out. The
    lock's time goes back too, so that a hook of a reinstall starts a new one at once (trial56 F2: none started
    within ``RESTART_SECONDS`` of the last start, while doctor said the next hook would)."""
    from stat import S_ISSOCK

    path = hook_client.socket_path()
    try:
        if path and S_ISSOCK(oscalls.lstat(path).st_mode):
            oscalls.unlink(path)
            from posix import utime

            utime(oscalls.join(oscalls.dirname(path), hook_client.LOCK_NAME), (0, 0), follow_symlinks=False)
    except OSError:
        return


def _peer(conn: socket) -> int | None:
    """The pid of the peer on ``conn`` where it runs as this process's user (0 where the system does not say: no
    ``SO_PEERCRED`` on macOS, where the socket's 0600 mode in a 0700 folder is the check); None for another user."""
    try:
        from _socket import SO_PEERCRED, SOL_SOCKET
    except ImportError:  # pragma: no cover - Linux has it
        return 0
    credentials = conn.getsockopt(SOL_SOCKET, SO_PEERCRED, 12)
    if not hook_client.same_user(credentials, oscalls.getuid()):
        return None
    return int.from_bytes(credentials[:4], sys.byteorder)


#: The namespaces a caller must share with the server for its child to be the caller's equal (a sandbox such as
#: bubblewrap's or a container gives its processes their own).
_NAMESPACES = ("mnt", "user", "net", "pid", "ipc", "uts", "cgroup")


def _confinement(pid: int | str) -> tuple[Any, ...] | None:
    """What a sandbox or a lower priority sets on process ``pid`` that a child of the server would not keep: whether
    it may gain no privileges and its seccomp mode (Landlock, seccomp sandboxes, Cursor's agent sandbox), its
    namespaces, its niceness (``/proc``); None where ``/proc`` does not say (not Linux, or the process is gone)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as status:
            kept = [line for line in status.read().splitlines() if line.startswith((b"NoNewPrivs:", b"Seccomp:"))]
        with open(f"/proc/{pid}/stat", "rb") as stat:
            niceness = stat.read().rsplit(b")", 1)[1].split()[16]
        namespaces = [oscalls.readlink(f"/proc/{pid}/ns/{name}") for name in _NAMESPACES]
    except (OSError, IndexError):
        return None
    return (*kept, niceness, *namespaces)


def serve() -> None:
    """Run the server for the launcher this process was started with, until it steps aside."""
    path = hook_client.socket_path()
    from . import preload

    folder = preload._folder or oscalls.dirname(oscalls.dirname(oscalls.dirname(oscalls.abspath(__file__))))
    if not path or not oscalls.isdir(oscalls.dirname(path)):
        return
    lock = _locked(oscalls.join(oscalls.dirname(path), hook_client.LOCK_NAME))
    if lock is None:
        return  # (another server runs, or is starting)
    searching = _load_every_call(folder)
    Server(path, folder, lock, searching).run()


def _locked(path: str) -> int | None:
    """The lock file at ``path``, held (``flock``) and holding this process's pid; None where another server holds
    it for more than a second (one stepping aside lets go within that)."""
    import fcntl
    from posix import O_RDWR

    fd = oscalls.open(path, O_RDWR | oscalls.O_CREAT | LOCK_FLAGS, 0o600)
    for _ in range(20):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            time.sleep(0.05)
            continue
        from posix import ftruncate

        ftruncate(fd, 0)
        oscalls.write(fd, b"%d\n" % oscalls.getpid())
        return fd
    oscalls.close(fd)
    return None


#: What hooks import beyond ``preload``'s lists, as some events need it (``python -X importtime`` of each hook on
#: the sample history): a Shell command's failure and scope, a prompt's stems and dates, a session end's ingest.
ON_DEMAND = (
    "Stemmer",
    "datetime",
    "deja.core.ending",
    "deja.core.errors",
    "deja.core.destructive",
    "deja.core.failures",
    "deja.hooks.scope",
    "deja.core.detached",
    "unicodedata",
)
#: What ``deja search`` imports beyond the hooks' modules (``hook_client.PERSONS``; ``python -X importtime`` of one
#: that finds nothing changed and of one right after a turn, which refreshes the index first: the indexer, its
#: readers, msgspec, sqlite3). A module left off is imported by the child that needs it: a slower answer, never
#: another.
SEARCHING = (
    "deja.interfaces.fastpath",
    "deja.interfaces.views",
    "deja.core.passages",
    "deja.core.project_names",
    "deja.core.indexer.glance",
    "deja.core.indexer.driver",
    "deja.core.library",
    "deja.core.readers.chat_cwds",
    "threading",
    "json",  # (``--json``'s output, as a script asks for it)
)


def _load_every_call(folder: str) -> bool:
    """Import what every hook and ``deja search`` import (``preload``'s lists, from the ``.pyc`` files where it can;
    ``ON_DEMAND``, ``SEARCHING``), and freeze it out of the collector's sight: the children share those pages with
    the server until they write to them. Whether ``SEARCHING`` could be imported (``_load_searching``)."""
    import gc

    from ..hooks.run import HANDLERS
    from . import preload

    gc.disable()  # (as a hook runs: ``interfaces/entry.py``)
    for command in preload.HOOK_MODULES:
        preload.preload(command, folder)
    for module, _, _ in HANDLERS.values():
        __import__(f"deja.hooks.{module}")
    for name in (*preload.OPENING_THE_INDEX, *ON_DEMAND):
        __import__(name)
    searching = _load_searching()
    _warm()
    gc.freeze()
    return searching


def _load_searching() -> bool:
    """Import ``SEARCHING`` from where pip's ``deja`` script finds its modules (``site``'s folders: the launcher
    skips ``site`` where the hooks need nothing outside deja's own folder, and a search needs msgspec, sqlite3,
    typer for what ``fastpath`` leaves to it); False where one cannot be imported: the server then declines every
    search, which runs in its own process (and finds what it needs there, or says what is missing)."""
    if "site" not in sys.modules:  # (as the launcher runs it where it needs it: ``interfaces/hook.py``)
        import site

        site.main()
        if sys.prefix == sys.base_prefix:
            site.addsitedir(site.getusersitepackages())
    try:
        for name in SEARCHING:
            __import__(name)
    except ImportError:
        return False
    return True


def _warm() -> None:
    """Build once what a searching hook builds on its first use from deja's own constants (the thesaurus's tables,
    the stemmer): made in every child, they cost every call again. Nothing here reads the environment or a file."""
    from ..core import text, thesaurus

    thesaurus.related("warm cache", ["warm", "cache"])
    text.stem("warming")
    text.terms("warm-cache_key")  # (its tokenizer: the pattern compiled once ``re`` is loaded, as ``SEARCHING`` is)


class Server:
    """The listening socket and the calls its children answer."""

    def __init__(self, path: str, folder: str, lock: int, searching: bool) -> None:
        from _socket import AF_UNIX, SOCK_STREAM
        from _socket import socket as Socket
        from posix import umask

        self.path = path
        self.folder = folder
        self.lock = lock
        self.searching = searching  # (whether it loaded what a search needs: it declines searches where not)
        self.confinement = _confinement("self")
        self.fingerprint = hook_client.fingerprint(folder)
        self.listener = Socket(AF_UNIX, SOCK_STREAM)
        _remove(path)  # (a stale one: this process holds the lock, so no server listens there)
        mask = umask(0o177)  # (0600 from the start)
        try:
            self.listener.bind(path)
        finally:
            umask(mask)
        self.listener.listen(64)
        self.own = _identity(path)
        self.calls: dict[int, tuple[socket, float]] = {}
        self.last_call = time.monotonic()
        self.stopping = False
        self.wake_read, self.wake_write = oscalls.pipe()
        #: The child forked ahead of the next call (``_fork_spare``), and whether one is wanted where there is none:
        #: from the start, but not after a spare that ended without a call (killed, say) or one that could not be
        #: forked, until a call has ended (it could go so again and again).
        self.spare: _Spare | None = None
        self.spare_wanted = True
        self._catch_children()

    def _catch_children(self) -> None:
        """Wake the loop when a child ends (``SIGCHLD`` on a pipe it selects on), so its caller hears at once."""
        import _signal  # type: ignore[import-not-found]  # (``signal`` would load ``enum`` into every child)
        from posix import set_blocking

        set_blocking(self.wake_write, False)
        _signal.set_wakeup_fd(self.wake_write)
        _signal.signal(_signal.SIGCHLD, lambda *_: None)
        # (a Ctrl-C is a caller's, passed on to its child: one that reached the server, or a child before it took
        # the call's handler, would raise in the server's own code)
        _signal.signal(_signal.SIGINT, _signal.SIG_IGN)

    def run(self) -> None:
        """Take calls until it steps aside, then answer the calls still running and end."""
        import select

        while not self.stopping or self.calls:
            if self.spare is None and self.spare_wanted and not self.stopping:
                self._fork_spare()
            listening = [] if self.stopping else [self.listener]
            watched: list[Any] = [*listening, self.wake_read, *(conn for conn, _ in self.calls.values())]
            if self.spare is not None and not self.spare.ready:
                watched.append(self.spare.channel)
            ready, _, _ = select.select(watched, [], [], CHECK_SECONDS)
            if self.wake_read in ready:
                oscalls.read(self.wake_read, 512)
            if self.spare is not None and self.spare.channel in ready:
                self._hear_spare()
            self._reap()
            for pid, (conn, _) in list(self.calls.items()):
                if conn in ready:  # (the caller sends nothing more: it is gone, and its child with it)
                    kill(pid)
            if self.listener in ready and not self.stopping:
                self._take()
            self._kill_overdue()
            if not self.stopping and self._should_stop():
                self._stop_listening()
        self.listener.close()

    def _take(self) -> None:
        """Accept one call and hand it to a child; the caller is told why where it is not."""
        from _socket import socket as Socket

        try:
            fd, _ = self.listener._accept()  # type: ignore[attr-defined]
        except OSError:
            return
        conn = Socket(fileno=fd)
        fds: list[int] = []
        try:
            peer = _peer(conn)
            if peer is None:
                conn.close()
                return
            conn.sendall(READY)
            message = _receive(conn, fds)
            self.last_call = time.monotonic()
            reply = self._refusal(message, fds, peer)
            if reply:
                conn.sendall(reply)
                conn.close()
                return
            if _gone(conn):  # (it gave up waiting to be taken, and answered nothing: no one may answer now)
                conn.close()
                return
            self._start_child(conn, fds, message)
        except (OSError, ValueError, EOFError, TypeError):  # (a caller gone, or what no client sends)
            conn.close()
        finally:
            for each in fds:
                oscalls.close(each)

    def _start_child(self, conn: socket, fds: list[int], message: Any) -> None:
        """A child for the call on ``conn``: the spare where one is ready (``_handed``), else one forked now; its
        caller is told its pid (the caller kills it past its budget)."""
        _, argv, cwd, environment = message
        pid = self._handed(fds, message)
        if pid is None:
            from posix import fork

            pid = fork()
            if pid == 0:
                conn.close()  # (the server's end alone: where the server dies, its caller hears it at once)
                self._child(lambda: (fds, argv, cwd, environment))
        try:
            conn.sendall(PID + pid.to_bytes(4, "little"))
        except OSError:
            kill(pid)
            raise
        budget = hook_client.budget(argv[1] if len(argv) > 1 else "")
        self.calls[pid] = (conn, float("inf") if budget is None else time.monotonic() + budget + 1)

    def _fork_spare(self) -> None:
        """Fork the child that takes the next call: it rehearses one (``_rehearse``) and says it is ready. A call
        handed to it starts at its own work, where a child forked for the call waited for the fork (about 1 ms) and
        then paid, on its first writes, what the rehearsal paid (about 2 ms more of a recalling prompt at 1k
        sessions). It is forked as soon as the spare before it has taken its call, so it rehearses while that call
        runs (on the core its caller, waiting, leaves idle), and is ready for the next even when hooks come one right
        after another (a tool's pre- and post-hook)."""
        from _socket import AF_UNIX, SOCK_STREAM, socketpair
        from posix import fork

        try:
            ours, theirs = socketpair(AF_UNIX, SOCK_STREAM)
        except OSError:
            self.spare_wanted = False
            return
        try:
            pid = fork()
        except OSError:
            ours.close()
            theirs.close()
            self.spare_wanted = False
            return
        if pid == 0:
            ours.close()
            self._child(lambda: _wait_for_a_call(theirs, oscalls.dirname(self.path)))
        theirs.close()
        self.spare = _Spare(pid, ours)

    def _hear_spare(self) -> None:
        """The spare said it is ready, or ended (its socket closed)."""
        spare = self.spare
        assert spare is not None
        try:
            said = spare.channel.recv(1)
        except OSError:
            said = b""
        if said == READY:
            spare.ready = True
        else:
            self._spare_ended()

    def _handed(self, fds: list[int], message: Any) -> int | None:
        """Hand the call (its streams ``fds`` and ``message``) to the spare where it is ready: its pid, or None
        (none ready, or it could not take the call, and is let go)."""
        spare = self.spare
        if spare is None or not spare.ready:
            return None
        try:
            spare.channel.settimeout(HAND_SECONDS)
            hook_client.send_call(spare.channel, marshal.dumps(message), fds)
        except OSError:
            kill(spare.pid)
            self._drop_spare()
            return None
        spare.channel.close()
        self.spare = None
        return spare.pid

    def _drop_spare(self) -> None:
        """Let the spare go: its socket closed, it ends without a call (``_wait_for_a_call``); in a child, its copy
        of the socket closed."""
        if self.spare is not None:
            self.spare.channel.close()
            self.spare = None

    def _spare_ended(self) -> None:
        """The spare ended without a call: let it go, and want no other until a call has ended."""
        self._drop_spare()
        self.spare_wanted = False

    def _refusal(self, message: Any, fds: list[int], peer: int) -> bytes:
        """What to answer instead of a child: STALE to a caller of another deja (this server steps aside), DECLINED
        to one whose locale or folder it cannot take on, or that runs confined otherwise than the server (a sandbox, a
        lower priority: its child would run free of them, and a walk it starts too); b"" to take the call."""
        printed, argv, cwd, environment = message
        if len(fds) != 3 or not isinstance(environment, dict) or not isinstance(argv, list):
            return DECLINED
        if self.confinement is not None and (not peer or _confinement(peer) != self.confinement):
            return DECLINED
        if tuple(printed[:_CODE]) != self.fingerprint[:_CODE]:
            same_launcher = printed[2:3] == self.fingerprint[2:3] and printed[:1] == self.fingerprint[:1]
            if same_launcher:  # (a reinstall: the caller's code is newer than this server's)
                self._stop_listening()
                return STALE
            return DECLINED  # (another deja sharing this home: its hooks run in their own processes)
        if tuple(printed[_CODE:]) != self.fingerprint[_CODE:] or not oscalls.isdir(cwd):
            return DECLINED
        if argv[1:2] and argv[1] in hook_client.PERSONS and not self.searching:
            return DECLINED
        return b""

    def _child(self, call: Callable[[], tuple[list[int], list[str], str, dict[bytes, bytes]]]) -> NoReturn:
        """Let go of what is the server's, take the ``call`` (its streams, folder, environment and arguments: at
        once, or once a spare is handed one), become the caller's hook and do the launcher's run."""
        import _signal

        code = 0
        hook_client.answering = True
        try:
            _signal.set_wakeup_fd(-1)
            _signal.signal(_signal.SIGCHLD, _signal.SIG_DFL)
            # (a Ctrl-C the caller passes on ends the child as it would the caller's own process: "interrupted", 130)
            _signal.signal(_signal.SIGINT, _signal.default_int_handler)
            self.listener.close()
            for conn, _ in self.calls.values():
                conn.close()
            for fd in (self.wake_read, self.wake_write, self.lock):
                oscalls.close(fd)
            self._drop_spare()
            fds, argv, cwd, environment = call()
            from posix import chdir, dup2

            for target, fd in enumerate(fds):
                dup2(fd, target)
            for fd in fds:
                if fd > 2:
                    oscalls.close(fd)
            chdir(cwd)
            take_environment(environment)
            sys.argv = list(argv)
            self._step_aside_if_off()
            from .entry import main

            main()
        except _NoCall:
            oscalls._exit(0)  # (a spare let go: nothing to answer, nothing to flush)
        except SystemExit as exc:
            code = _exit_code(exc)
        except KeyboardInterrupt:  # (a Ctrl-C passed on before the command's own guard: as the guard says it)
            sys.stderr.write("deja: interrupted\n")
            code = 130
        except BaseException:  # noqa: BLE001 - as Python would end: the traceback on stderr, exit 1
            sys.excepthook(*sys.exc_info())
            code = 1
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):
                continue
        oscalls._exit(code)

    def _step_aside_if_off(self) -> None:
        """In a child: where the caller's settings turn the server off (the config file's ``hook_server``; the
        variable turns it off in the client) or move deja's home away from its socket (the config file's ``home``,
        where no server is started: ``start_beside``), the call is still answered, and the server's socket removed:
        the server ends, and the next hook runs in its own process (trial56 F1: a server started before ``deja
        config set home`` went on serving, while doctor said none ran)."""
        from ..core import config

        if (_home_moved(self.path) or not config.get("hook_server")) and _identity(self.path) == self.own:
            _remove(self.path)

    def _reap(self) -> None:
        """Tell the caller of each child that ended its exit code (none where a signal ended it); a spare that ended
        is let go, and the next spare is wanted once a call has ended."""
        while True:
            try:
                pid, status = oscalls.waitpid(-1, oscalls.WNOHANG)
            except ChildProcessError:
                return
            if not pid:
                return
            if self.spare is not None and pid == self.spare.pid:
                self._spare_ended()
            conn, _ = self.calls.pop(pid, (None, 0.0))
            if conn is None:
                continue
            self.spare_wanted = True
            from posix import WEXITSTATUS, WIFEXITED

            try:
                if WIFEXITED(status):
                    conn.sendall(EXIT + bytes([WEXITSTATUS(status) & 0xFF]))
            except OSError:
                pass
            conn.close()

    def _kill_overdue(self) -> None:
        now = time.monotonic()
        for pid, (_, deadline) in list(self.calls.items()):
            if now > deadline:
                kill(pid)

    def _should_stop(self) -> bool:
        """Whether to step aside: idle, its socket gone or another's, or its code on disk replaced."""
        if not self.calls and time.monotonic() - self.last_call > IDLE_SECONDS:
            return True
        if _identity(self.path) != self.own:
            self.own = None  # (not its own to remove)
            return True
        try:
            return hook_client.code_fingerprint(self.folder) != self.fingerprint[:_CODE]
        except OSError:
            return True

    def _stop_listening(self) -> None:
        """Take no more calls: its socket removed (where it is still its own) and closed, so that a caller waiting
        to be taken hears at once and answers in its own process."""
        self.stopping = True
        self.listener.close()
        if self.spare is not None:  # (one stuck in its rehearsal, on a hung disk, would not see its socket close)
            kill(self.spare.pid)
        self._drop_spare()
        if self.own is not None and _identity(self.path) == self.own:
            _remove(self.path)
        self.own = None


class _Spare:
    """The child forked ahead of the next call: its pid, the server's end of the socket it is handed the call on,
    and whether it said it is ready (``READY``: it has rehearsed)."""

    def __init__(self, pid: int, channel: socket) -> None:
        self.pid, self.channel, self.ready = pid, channel, False


class _NoCall(Exception):
    """The spare was let go without a call (the server stepped aside, or ended)."""


#: What a spare asks the index of the server's home before it has a call (``_rehearse``): words of a coding question
#: that most histories hold some of.
REHEARSAL = "why did the build fail again after the last change to the config, and how were the tests fixed"


def _wait_for_a_call(server: socket, home: str) -> tuple[list[int], list[str], str, dict[bytes, bytes]]:
    """In the spare: rehearse, say so, and wait for the call the server hands over on ``server`` (a caller's message
    and its streams, as ``_receive`` reads them from a caller); ``_NoCall`` where the server lets it go instead."""
    import select

    _rehearse(home)
    fds: list[int] = []
    try:
        server.sendall(READY)
        select.select([server], [], [])
        _, argv, cwd, environment = _receive(server, fds)
    except (OSError, ValueError, EOFError, TypeError):
        raise _NoCall from None
    return fds, argv, cwd, environment


def _rehearse(home: str) -> None:
    """Do, in a spare before it has a call, what a prompt hook does with the index of the server's home (``home``):
    open it and recall for ``REHEARSAL``, nothing shown nor written. The pages of the server's objects a call writes
    to (their reference counts, the interpreter's caches in the code it runs) are copied into the spare now, rather
    than one by one as the call first touches them (a recalling prompt at 1k sessions: about 1,230 of those copies
    became about 500, and its work 2 ms shorter). Nothing read from the index is kept for the call, which reads the
    index, the settings and its caller's environment as its own: what stays is what pure functions of a text
    remember (its terms, a pattern compiled), and the fault points' counts start again (``faults.forget_passes``). A
    rehearsal that fails (no index yet, another deja's format) leaves the spare as a child forked for the call."""
    from ..core import faults

    try:
        from ..core.index.light import LIGHT
        from ..core.index.reader import Index
        from ..hooks.prompt import recall_for

        recall_for(Index.open(home, LIGHT), REHEARSAL, "safe", set(), set())
    except Exception:  # noqa: BLE001 - whatever a rehearsal meets is no call's failure
        return
    finally:
        faults.forget_passes()


def take_environment(environment: dict[bytes, bytes]) -> None:
    """Make ``environment`` this process's, for Python (``os.environ`` keeps its bytes in ``posix.environ``) and for
    the C library (``putenv``: the local time's zone, read again by ``time.tzset``)."""
    from posix import environ, putenv, unsetenv

    for key in [key for key in environ if key not in environment]:
        unsetenv(key)
        del environ[key]
    for key, value in environment.items():
        putenv(key, value)
        environ[key] = value
    time.tzset()


def _receive(conn: socket, fds: list[int]) -> Any:
    """A caller's message (``hook_client.answer``'s); the descriptors it sent with it are put in ``fds`` (whatever
    follows: the caller closes them)."""
    from _socket import CMSG_SPACE, SCM_RIGHTS, SOL_SOCKET

    conn.settimeout(RECEIVE_SECONDS)
    size = 4
    data, ancillary, _, _ = conn.recvmsg(1 << 16, CMSG_SPACE(3 * size))
    fds += [
        int.from_bytes(payload[i : i + size], sys.byteorder)
        for level, kind, payload in ancillary
        if level == SOL_SOCKET and kind == SCM_RIGHTS
        for i in range(0, len(payload) - size + 1, size)
    ]
    if len(data) < size:
        raise EOFError("no message")
    length = int.from_bytes(data[:size], "little")
    if length > _MESSAGE_LIMIT:
        raise ValueError("message too long")
    while len(data) < size + length:
        chunk = conn.recv(size + length - len(data))
        if not chunk:
            raise EOFError("message cut short")
        data += chunk
    return marshal.loads(data[size:])


def _gone(conn: socket) -> bool:
    """Whether the caller on ``conn`` has closed its end (it sends nothing after its message)."""
    import select

    return bool(select.select([conn], [], [], 0)[0])


def _identity(path: str) -> tuple[int, int] | None:
    try:
        found = oscalls.lstat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _remove(path: str) -> None:
    try:
        oscalls.unlink(path)
    except OSError:
        return


def _exit_code(exc: SystemExit) -> int:
    """The exit code Python gives ``exc`` (a message is printed on stderr, and is 1)."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code & 0xFF
    print(exc.code, file=sys.stderr)
    return 1
