"""Opening Cursor's files so that nothing in their place can hang deja or fill its memory.

deja reads files it does not own, under names it only guesses. Something else
can sit under such a name: a FIFO (opening it waits for a writer, forever), a
symlink to ``/dev/zero`` (reading it never ends) or a terminal. Each would hang
a hook, and with it the writer lock. So every file deja reads from a Cursor
store is checked to be a regular file before it is opened, opened without
blocking, and checked again on the open descriptor (the name may have changed
in between); SQLite, which opens its files itself, gets the check before.

A regular file can still be huge: ``capped_lines`` reads lines in bounded
chunks, and passes over a line longer than its cap without holding it (keeping its head and tail when asked).
"""

from __future__ import annotations

import errno

from . import oscalls
from .folders import not_utf8, utf8_named

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:  # (and collections.abc: it loads collections, which a hook that reads no store never needs)
    from collections.abc import Iterator
    from typing import BinaryIO

    from _typeshed import StrPath

#: How much ``capped_lines`` reads at a time while it passes over an over-long line.
CHUNK_BYTES = 1 << 20
#: The files SQLite opens beside a database: each must be a regular file too, when present.
SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")


class NotRegularFile(OSError):
    """A name deja expected to be a file is something else (a FIFO, a device, a folder)."""

    def __init__(self, path: StrPath) -> None:
        super().__init__(errno.EINVAL, "not a regular file", str(path))


def check_regular(path: StrPath) -> oscalls.stat_result:
    """The file's status, following symlinks; raises NotRegularFile for anything but a regular file."""
    found = oscalls.stat(path)
    if not oscalls.S_ISREG(found.st_mode):
        raise NotRegularFile(path)
    return found


def gone(path: StrPath) -> bool:
    """Whether nothing is at ``path``: no such name (ENOENT), or a folder above it is gone or is a file (ENOTDIR).

    Anything else is there, readable or not: a regular file, something else in
    its place (a FIFO, a folder, a link to a device or to nowhere), a link loop, a name that a
    folder above hides from this user (EACCES). deja cannot read such a name this
    time, but must not forget what it read from it before: only a source that is
    gone gives up its sessions.
    """
    try:
        oscalls.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return not oscalls.lexists(path)  # a link to nowhere in a file's place is something there
    except OSError:
        return False
    return False


def forbidden(path: StrPath) -> str:
    """What keeps this user from reading ``path`` for want of permission: the file itself (mode 000), or the
    highest folder above it that cannot be searched (its name alone shows, not its files); "" when nothing does
    (readable, gone, or unreadable for another reason: a FIFO, a link loop)."""
    path = oscalls.fspath(path)
    try:
        oscalls.stat(path)
    except PermissionError:
        folder = path
        while (parent := oscalls.dirname(folder)) != folder and not oscalls.access(parent, oscalls.X_OK):
            folder = parent
        return folder
    except (OSError, ValueError):
        return ""
    return "" if oscalls.access(path, oscalls.R_OK) else path


def readable_command(paths: list[str], own: list[str] | None = None) -> str:
    """The command that lets this user read ``paths``: on each one's ``forbidden`` blocker (the file, or the folder
    above it that hides it), else on the path itself, each quoted for a shell. A file gets ``chmod u+r``: ``-R`` and
    ``X`` mean nothing to a file (trial23 F7.6); a folder of Cursor's or deja's gets ``chmod -R u+rX``, which opens
    what is in it too, and one above them (``~/.config``, a shared ``XDG_CONFIG_HOME``) ``chmod u+rx``, the folder
    alone: the files of every other program in it are not deja's to open or take (review43c L2, as review42d H1 for
    the index). One another user owns (Cursor once run with ``sudo``) is this user's only after a ``sudo chown``: its
    owner alone may ``chmod`` it, and the ``u`` of a ``chmod`` is its owner, never this user
    (``private.owned_by_another``); the ``chmod`` follows, for one at mode 000. ``own``: the folders whose trees are
    Cursor's or deja's (``_own_folders`` when not given)."""
    blockers = [forbidden(path) or path for path in paths]
    files = [path for path in blockers if oscalls.isfile(path)]
    folders = [path for path in blockers if not oscalls.isfile(path)]
    own = _own_folders() if own is None else own
    trees = [path for path in folders if _within(path, own)]
    alone = [path for path in folders if path not in trees]
    commands = [
        _command('sudo chown "$USER"', [path for path in files + alone if _owned_by_another(path)]),
        _command('sudo chown -R "$USER"', [path for path in trees if _owned_by_another(path)]),
        _command("chmod u+r", files),
        _command("chmod u+rx", alone),
        _command("chmod -R u+rX", trees),
    ]
    return " && ".join(command for command in commands if command)


def _own_folders() -> list[str]:
    """The folders whose whole tree is Cursor's or deja's: Cursor's own folder (``Cursor`` above its ``User``
    folder), the cursor-agent roots, deja's home and config folder. (Read from the settings: the config file's own
    message names its folder instead.)"""
    from . import config, folders

    user = folders.ide_user_folder()
    cursor = oscalls.dirname(user) if oscalls.basename(user) == "User" else user
    return [cursor, *folders.cli_roots(), folders.deja_home(), oscalls.dirname(config.config_path())]


def _within(path: str, folders: list[str]) -> bool:
    """Whether ``path`` is one of ``folders`` or inside one."""
    import os  # (a hook never asks: it never imports os)

    for folder in folders:
        try:
            if os.path.commonpath([path, folder]) == folder:
                return True
        except ValueError:  # (another drive, or one path relative and one absolute)
            continue
    return False


def _command(head: str, paths: list[str]) -> str:
    """``head`` with ``paths``, each quoted for a shell; "" for none."""
    from shlex import quote  # (loaded only for a message that gives the command: no hook pays for it)

    return f"{head} {' '.join(map(quote, paths))}" if paths else ""


def _owned_by_another(path: str) -> bool:
    """Whether another user owns ``path`` (``private.owned_by_another``); not when it cannot be looked at."""
    from .private import owned_by_another

    try:
        return owned_by_another(oscalls.stat(path))
    except OSError:
        return False


def blocked(path: StrPath) -> bool:
    """Whether something is at ``path`` that cannot be read as a regular file this time (see ``gone``)."""
    return not gone(path) and not oscalls.isfile(path)


def open_regular(path: StrPath) -> BinaryIO:
    """``path`` opened for binary reading, never blocking; raises NotRegularFile for anything but a regular file."""
    check_regular(path)  # so a device is never even opened
    flags = (
        oscalls.O_RDONLY
        | getattr(oscalls, "O_NONBLOCK", 0)
        | getattr(oscalls, "O_NOCTTY", 0)
        | getattr(oscalls, "O_BINARY", 0)
    )
    fd = oscalls.open(path, flags)
    try:
        if not oscalls.S_ISREG(oscalls.fstat(fd).st_mode):  # swapped after the check
            raise NotRegularFile(path)
        return open(fd, "rb")  # (``os.fdopen`` of a binary mode: ``open`` itself)
    except BaseException:
        oscalls.close(fd)
        raise


def read_regular(path: StrPath, limit: int) -> bytes:
    """A small regular file's bytes; raises OSError (EFBIG) when it holds more than ``limit``."""
    with open_regular(path) as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise OSError(errno.EFBIG, f"larger than {limit} bytes", str(path))
    return data


def check_regular_database(path: StrPath) -> None:
    """Before SQLite opens ``path``: it and its journal files, when present, are regular files."""
    check_regular(path)
    for suffix in SQLITE_COMPANIONS:
        companion = f"{path}{suffix}"
        if oscalls.lexists(companion):
            check_regular(companion)


def capped_lines(
    handle: BinaryIO, cap: int, chunk_bytes: int = CHUNK_BYTES, keep: int = 0
) -> Iterator[tuple[bytes, int]]:
    """Each line (with its newline) and its size in bytes, never holding more than ``cap + 1`` bytes of one.

    A line longer than ``cap`` is passed over ``chunk_bytes`` at a time as it
    streams, never held whole: it comes out as its first ``keep`` bytes and its
    last ``keep`` (its newline among them, none when the file ends inside it, as
    a short last line comes; ``b"\\n"`` when ``keep`` is 0, ``b""`` when the file
    ends inside it) with its true size, so a caller can tell it by its size, keep
    what it can of it, and still know where the next line starts. (A last line
    cut short, one still being written, is the caller's to tell from a whole one:
    a long one was given as ``b""``, and a finished last line of a file that ends
    without a newline was lost: review49c L2.)
    """
    while line := handle.readline(cap + 1):
        if len(line) <= cap:
            yield line, len(line)
            continue
        size, ended = len(line), line.endswith(b"\n")
        head, tail = line[:keep], line[len(line) - keep :]
        del line
        while not ended and (rest := handle.readline(chunk_bytes)):
            size += len(rest)
            ended = rest.endswith(b"\n")
            tail = (tail + rest)[-keep:] if keep else b""
        yield (head + tail) if keep else (b"\n" if ended else b""), size


def subfolders(folder: StrPath) -> list[oscalls.DirEntry[str]]:
    """The folders in ``folder``, sorted by name (an order that does not depend on the file system), or none when it
    cannot be listed: Cursor's folders are walked in this order, and the first holding a chat id wins."""
    try:
        with oscalls.scandir(folder) as found:
            return sorted((e for e in found if utf8_named(e.path, e.name) and e.is_dir()), key=lambda e: e.name)
    except OSError:
        return []


def not_utf8_shown(path: str) -> str:
    """``path``, one of ``not_utf8``, as a person can read it: each byte that is not UTF-8 as ``\\xNN``, and a
    secret in it as the index would hold it (a name is read off the disk, not out of the redacted index, and reaches
    stderr, ``--json`` and, through the MCP server, the model: review50d M1)."""
    import os

    from .redaction import as_indexed

    return as_indexed(os.fsencode(path).decode("utf-8", "backslashreplace"))


def not_utf8_finding(paths: set[str] | None = None) -> tuple[str, str] | None:
    """What ``deja index`` and doctor say of the names passed over so far (``not_utf8``; or of ``paths``, some of
    them), the first by name, and what to do about them; None when there are none."""
    shown = sorted(not_utf8_shown(path) for path in (not_utf8 if paths is None else paths))
    if not shown:
        return None
    if len(shown) == 1:
        return (
            f"deja passes over {shown[0]}: its name is not UTF-8, which the index cannot record",
            "give it a UTF-8 name (nothing in it is read until then), then `deja index`",
        )
    return (
        f"deja passes over {shown[0]} and {len(shown) - 1} more: their names are not UTF-8, which the index cannot "
        "record",
        "give them UTF-8 names (nothing in them is read until then), then `deja index`",
    )


def not_utf8_said(paths: set[str] | None = None) -> str:
    """:func:`not_utf8_finding` in the one line ``deja index`` prints and the MCP server's next answer carries; ""
    when no name was passed over."""
    found = not_utf8_finding(paths)
    return f"{found[0]}: {found[1]}" if found else ""
