"""The ``os`` calls and ``os.path`` functions a hook makes, without importing ``os``.

A hook starts with ``python -I -S`` (``interfaces/hook.py``), where nothing has imported ``os`` yet, and importing it
costs 6.4 M instructions (``_collections_abc``'s classes, ``posixpath``, ``stat``): 16% of ``python -c pass``, 6% of
a recalling prompt. ``os``'s calls are ``posix``'s, a module built in and loaded at start; the ``os.path`` functions a
hook uses are a few lines each on strings, here as ``posixpath`` has them for strings, and any rarer case (a
``~user``, a link on a ``realpath``'s way) goes to ``posixpath`` itself. On Windows they all are ``os``'s own.

What a hook never calls (``os.walk``, ``os.replace``, ``os.path.commonpath``, …) stays ``os``'s: the function using it
imports ``os`` (tests replace ``os.replace`` and ``os.fsync`` to watch a refresh's writes: those stay ``os``'s too).
"""

from __future__ import annotations

import builtins
import sys

#: (named here, so that type checkers take them as this module's own)
__all__ = [
    "O_APPEND",
    "O_CREAT",
    "O_DIRECTORY",
    "O_EXCL",
    "O_NOCTTY",
    "O_NOFOLLOW",
    "O_NONBLOCK",
    "O_RDONLY",
    "O_TRUNC",
    "O_WRONLY",
    "R_OK",
    "X_OK",
    "DirEntry",
    "_exit",
    "access",
    "chmod",
    "close",
    "fchmod",
    "fspath",
    "fstat",
    "getcwd",
    "geteuid",
    "getpid",
    "getuid",
    "kill",
    "listdir",
    "lstat",
    "mkdir",
    "open",
    "read",
    "readlink",
    "scandir",
    "stat",
    "stat_result",
    "strerror",
    "unlink",
    "S_IMODE",
    "S_ISDIR",
    "S_ISLNK",
    "S_ISREG",
    "S_IWUSR",
    "S_IXUSR",
    "PRIO_PROCESS",
    "WNOHANG",
    "get_inheritable",
    "getpriority",
    "pipe",
    "setpriority",
    "waitpid",
    "write",
    "POSIX_SPAWN_CLOSE",
    "POSIX_SPAWN_DUP2",
    "POSIX_SPAWN_OPEN",
    "posix_spawn",
]

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    from typing import IO, Any

    from _typeshed import StrPath

if sys.platform == "win32":  # pragma: no cover - the tests run on POSIX
    from os import *  # noqa: F403
    from os import _exit, environ, fdopen
    from os.path import (
        abspath,
        basename,
        dirname,
        exists,
        expanduser,
        isabs,
        isdir,
        isfile,
        islink,
        join,
        lexists,
        normpath,
        realpath,
        split,
    )
    from posixpath import normpath as posix_normpath
    from stat import S_IMODE, S_ISDIR, S_ISLNK, S_ISREG, S_IWUSR, S_IXUSR

    def getenv(name: str, default: str = "") -> str:
        """``os.environ.get``, "" where unset."""
        return environ.get(name, default)

    def is_set(name: str) -> bool:
        """``name in os.environ``."""
        return name in environ

    def environment() -> dict[str, str]:
        """``dict(os.environ)``."""
        return dict(environ)

else:
    import posix as _posix
    from posix import (
        O_APPEND,
        O_CREAT,
        O_EXCL,
        O_RDONLY,
        O_TRUNC,
        O_WRONLY,
        PRIO_PROCESS,
        R_OK,
        WNOHANG,
        X_OK,
        DirEntry,
        _exit,
        access,
        chmod,
        close,
        fchmod,
        fspath,
        fstat,
        get_inheritable,
        getcwd,
        geteuid,
        getpid,
        getpriority,
        getuid,
        kill,
        listdir,
        lstat,
        mkdir,
        open,
        pipe,
        read,
        readlink,
        scandir,
        setpriority,
        stat,
        stat_result,
        strerror,
        unlink,
        waitpid,
        write,
    )
    from posix import environ as _environ

    # (flags a C library may lack, which callers ask for with a default: review52b F1, F2)
    if hasattr(_posix, "O_DIRECTORY"):
        from posix import O_DIRECTORY
    if hasattr(_posix, "O_NOCTTY"):
        from posix import O_NOCTTY
    if hasattr(_posix, "O_NONBLOCK"):
        from posix import O_NONBLOCK
    if hasattr(_posix, "O_NOFOLLOW"):
        from posix import O_NOFOLLOW

    if hasattr(
        _posix, "posix_spawn"
    ):  # (what ``core/detached.py`` starts its process with, where the C library has it)
        from posix import POSIX_SPAWN_CLOSE, POSIX_SPAWN_DUP2, POSIX_SPAWN_OPEN, posix_spawn

    sep = "/"
    devnull = "/dev/null"

    # A file's type and permission bits in ``st_mode``, as POSIX numbers them (``stat``'s, without importing ``_stat``:
    # 0.2 M instructions a hook)
    S_IWUSR = 0o200
    S_IXUSR = 0o100
    _S_IFMT = 0o170000

    def S_IMODE(mode: int) -> int:
        """``stat.S_IMODE``: the permission bits."""
        return mode & 0o7777

    def S_ISDIR(mode: int) -> bool:
        """``stat.S_ISDIR``."""
        return mode & _S_IFMT == 0o040000

    def S_ISREG(mode: int) -> bool:
        """``stat.S_ISREG``."""
        return mode & _S_IFMT == 0o100000

    def S_ISLNK(mode: int) -> bool:
        """``stat.S_ISLNK``."""
        return mode & _S_IFMT == 0o120000

    _ENCODING = sys.getfilesystemencoding()

    def getenv(name: str, default: str = "") -> str:
        """``os.environ.get``, "" where unset: ``posix.environ`` is the dictionary ``os.environ`` keeps its bytes in
        (what a test's ``monkeypatch.setenv`` sets is there too), decoded as ``os.environ`` decodes it."""
        value = _environ.get(name.encode(_ENCODING, "surrogateescape"))
        return default if value is None else value.decode(_ENCODING, "surrogateescape")

    def is_set(name: str) -> bool:
        """``name in os.environ``."""
        return name.encode(_ENCODING, "surrogateescape") in _environ

    def environment() -> dict[str, str]:
        """``dict(os.environ)``."""
        return {
            key.decode(_ENCODING, "surrogateescape"): value.decode(_ENCODING, "surrogateescape")
            for key, value in _environ.items()
        }

    def fdopen(fd: int, mode: str = "r", **kwargs: Any) -> IO[Any]:
        """``os.fdopen``: ``io.open`` of a descriptor, text in the locale's encoding unless one is given."""
        import io

        if "b" not in mode:
            kwargs["encoding"] = io.text_encoding(kwargs.get("encoding"))
        return builtins.open(fd, mode, **kwargs)

    def join(first: StrPath, *rest: StrPath) -> str:
        """``os.path.join``: each part after a ``/`` unless it starts with one, when it starts the path anew."""
        path = fspath(first)
        for each in rest:
            part = fspath(each)
            if part.startswith("/"):
                path = part
            elif not path or path.endswith("/"):
                path += part
            else:
                path += "/" + part
        return path

    def split(path: StrPath) -> tuple[str, str]:
        """``os.path.split``: the folder (its trailing slashes dropped, unless it is all slashes) and the last name."""
        path = fspath(path)
        cut = path.rfind("/") + 1
        head, tail = path[:cut], path[cut:]
        if head and head != "/" * len(head):
            head = head.rstrip("/")
        return head, tail

    def dirname(path: StrPath) -> str:
        """``os.path.dirname``."""
        return split(path)[0]

    def basename(path: StrPath) -> str:
        """``os.path.basename``."""
        path = fspath(path)
        return path[path.rfind("/") + 1 :]

    def isabs(path: StrPath) -> bool:
        """``os.path.isabs``."""
        return fspath(path).startswith("/")

    def exists(path: StrPath) -> bool:
        """``os.path.exists``."""
        try:
            stat(path)
        except (OSError, ValueError):
            return False
        return True

    def lexists(path: StrPath) -> bool:
        """``os.path.lexists``."""
        try:
            lstat(path)
        except (OSError, ValueError):
            return False
        return True

    def isdir(path: StrPath) -> bool:
        """``os.path.isdir``."""
        try:
            return S_ISDIR(stat(path).st_mode)
        except (OSError, ValueError):
            return False

    def isfile(path: StrPath) -> bool:
        """``os.path.isfile``."""
        try:
            return S_ISREG(stat(path).st_mode)
        except (OSError, ValueError):
            return False

    def islink(path: StrPath) -> bool:
        """``os.path.islink``."""
        try:
            return S_ISLNK(lstat(path).st_mode)
        except (OSError, ValueError):
            return False

    try:
        from posix import _path_normpath  # type: ignore[attr-defined]  # (posixpath's own, where this Python has it)
    except ImportError:  # pragma: no cover - a Python without it: posixpath's, through os

        def _path_normpath(path: str) -> str:
            import posixpath

            return posixpath.normpath(path)

    def normpath(path: StrPath) -> str:
        """``os.path.normpath``."""
        return _path_normpath(fspath(path)) or "."

    #: ``posixpath.normpath``, a path of ``/``-separated names on every system (a transcript's).
    posix_normpath = normpath

    def abspath(path: StrPath) -> str:
        """``os.path.abspath``."""
        path = fspath(path)
        return normpath(path if path.startswith("/") else join(getcwd(), path))

    def expanduser(path: StrPath) -> str:
        """``os.path.expanduser``: ``~`` and ``~/…`` from ``HOME``; ``~user`` or no ``HOME``, ``posixpath``'s."""
        path = fspath(path)
        if not path.startswith("~"):
            return path
        end = path.find("/", 1)
        end = len(path) if end < 0 else end
        if end != 1 or not is_set("HOME"):
            import posixpath

            return posixpath.expanduser(path)
        return (getenv("HOME").rstrip("/") + path[end:]) or "/"

    def realpath(path: StrPath) -> str:
        """``os.path.realpath``, where no link lies on the path's way (what a hook's folders are); else
        ``posixpath``'s, which follows them."""
        path = fspath(path)
        resolved = "/" if path.startswith("/") else ""
        for name in path.split("/"):
            if not name or name == ".":
                continue
            if name == "..":
                if resolved:
                    resolved, name = split(resolved)
                    if name == "..":
                        resolved = join(resolved, "..", "..")
                else:
                    resolved = ".."
                continue
            step = join(resolved, name)
            try:
                link = S_ISLNK(lstat(step).st_mode)
            except OSError:
                link = False
            if link:
                import posixpath

                return posixpath.realpath(path)
            resolved = step
        return abspath(resolved)
