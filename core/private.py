"""deja's own files are private to the user: folders 0700, files 0600, whatever the umask.

The index holds every session a user had, so no other account may read it.
Modes are set explicitly after creation (a umask can only take bits away, and
an odd one could take the owner's), and an install made before this rule is
tightened the first time deja finds its home readable by others.
"""

from __future__ import annotations

import errno
import sys

from . import oscalls

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import IO, Any

    from _typeshed import StrPath  # a str or an os.PathLike: these take either, and hooks pass strings (no pathlib)

DIR_MODE = 0o700
FILE_MODE = 0o600


class HomeMissing(FileNotFoundError):
    """The user's home folder does not exist (``HOME`` names a folder that is not there): deja makes no home
    folder, which would hold an empty index and answer as if there were no history (trial10 F11)."""

    def __init__(self, folder: str) -> None:
        super().__init__(errno.ENOENT, oscalls.strerror(errno.ENOENT), folder)

    def __str__(self) -> str:
        return (
            f"your home folder {self.filename} does not exist: set HOME to a folder that does, or DEJA_HOME to one "
            "deja may keep its index in"
        )


def private_dir(path: StrPath) -> None:
    """``path`` made with any missing parents, each created 0700; an existing one is left as it is. The user's home
    folder is never made (``HomeMissing``): nothing is, when it is missing."""
    missing = []
    step = oscalls.fspath(path)
    while not oscalls.isdir(step):
        missing.append(step)
        parent = oscalls.dirname(step)
        if parent == step or not parent:
            break
        step = parent
    if missing:
        from .folders import home  # (only when a folder is made: a hook's usual run makes none)

        if home() in missing:
            raise HomeMissing(home())
    for folder in reversed(missing):
        try:
            oscalls.mkdir(folder, DIR_MODE)
        except FileExistsError:
            continue
        oscalls.chmod(folder, DIR_MODE)


def open_private(path: StrPath, mode: str = "wb", **kwargs: Any) -> IO[Any]:
    """``open(path, mode)`` for writing ("w", "a" or "x", text or binary), the file created or kept 0600."""
    flags = oscalls.O_WRONLY | oscalls.O_CREAT
    if "a" in mode:
        flags |= oscalls.O_APPEND
    elif "x" in mode:
        flags |= oscalls.O_EXCL
    else:
        flags |= oscalls.O_TRUNC
    fd = oscalls.open(
        path, flags | getattr(oscalls, "O_NONBLOCK", 0), FILE_MODE
    )  # a FIFO in its place fails, never blocks
    try:
        if not oscalls.S_ISREG(oscalls.fstat(fd).st_mode):
            from .regular_files import NotRegularFile  # (here: a search, which only reads, never loads it)

            raise NotRegularFile(path)
        oscalls.fchmod(fd, FILE_MODE)
        return oscalls.fdopen(fd, mode, **kwargs)
    except BaseException:
        oscalls.close(fd)
        raise


def write_private(path: StrPath, data: bytes, *, sync: bool = False) -> None:
    """Write ``data`` to a 0600 file; ``sync`` makes it durable before a manifest names it."""
    with open_private(path, "wb") as f:
        f.write(data)
        if sync:
            f.flush()
            import os  # (a hook writes nothing it syncs: it never imports os)

            os.fsync(f.fileno())


def replace_private(path: StrPath, data: bytes, *, sync: bool = False, sync_along: Sequence[StrPath] = ()) -> None:
    """Swap ``data`` in as the 0600 file ``path`` in one step: a reader sees the old file or the new, never half.

    It is written beside ``path`` as ``.<name>.<pid>.tmp`` first (removed again if the write fails; a killed
    writer's leftover in the index folder is swept by ``index.writer.remove_stale_segments``). ``sync`` makes
    the new file durable before the rename, together with ``sync_along`` (files written unsynced that the new
    one names: one wait for all of them, where each sync in turn waits for a journal commit of its own), and
    the rename durable after it (the folder's entry is synced too).
    """
    folder, name = oscalls.split(oscalls.fspath(path))
    temporary = oscalls.join(folder, f".{name}.{oscalls.getpid()}.tmp")
    try:
        write_private(temporary, data, sync=sync and not sync_along)
        if sync and sync_along:
            sync_paths([*sync_along, temporary])
        import os  # (a hook replaces no file: it never imports os)

        os.replace(temporary, path)
    except BaseException:
        remove(temporary)
        raise
    if sync:
        sync_dir(folder or ".")


def remove(path: StrPath) -> None:
    """Remove the file ``path`` if it is there (``Path.unlink(missing_ok=True)``: hooks import no pathlib)."""
    try:
        oscalls.unlink(path)
    except FileNotFoundError:
        return


def sync_dir(folder: StrPath) -> None:
    """Make the entries of ``folder`` (a file renamed into it) durable.

    Where the system cannot (Windows opens no folder; some file systems refuse a folder's ``fsync``), the
    rename has still happened: it stands unsynced, as every rename did before deja synced folders.
    """
    if sys.platform == "win32":
        return
    import os  # (a hook syncs nothing: it never imports os)

    fd = oscalls.open(folder, oscalls.O_RDONLY | getattr(oscalls, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
    finally:
        oscalls.close(fd)


def sync_paths(paths: Iterable[StrPath]) -> None:
    """Make files already written (``write_private`` without ``sync``) durable, together (``sync_all``)."""
    fds: list[int] = []
    try:
        for path in paths:
            fds.append(oscalls.open(path, oscalls.O_RDONLY))
        sync_all(fds)
    finally:
        for fd in fds:
            oscalls.close(fd)


def sync_all(fds: Sequence[int]) -> None:
    """``os.fsync`` every descriptor, all at once, each in a thread of its own (``fsync`` lets go of the GIL).

    The file system commits syncs that wait together in one go (ext4 joins them in one journal commit), where
    one after another each waits for a commit of its own: a segment's seven files took about twice as long.
    """
    import os  # (a hook syncs nothing: it never imports os)

    if len(fds) < 2:
        for fd in fds:
            os.fsync(fd)
        return
    import threading  # only writers pay for it (under 1 ms)

    failed: list[OSError] = []

    def sync(fd: int) -> None:
        try:
            os.fsync(fd)
        except OSError as exc:
            failed.append(exc)

    threads = []
    for fd in fds:
        thread = threading.Thread(target=sync, args=(fd,))
        try:
            thread.start()
        except RuntimeError:  # no thread to be had (a limit on the address space): this one here, now
            sync(fd)
            continue
        threads.append(thread)
    for thread in threads:
        thread.join()
    if failed:
        raise failed[0]


#: Where ``deja install`` records what it found at each file it wrote (see installers/ledger.py).
INSTALL_LEDGER = "installed.json"
#: What deja keeps in its home (the index, the hooks' logs, seen-sets and build request, the install
#: ledger); nothing else there is deja's to change, in case DEJA_HOME names a folder that holds other things too.
OWN = ("index", "hooks", "hooks.log", "hooks.log.1", "index-build.requested", INSTALL_LEDGER)
#: Everything deja makes in its home: ``OWN``, the hook server's socket and lock (``hook_client.SOCKET_NAME``,
#: ``LOCK_NAME``) and the copies of the chat databases it reads (``readers.vscdb.COPIES``).
MADE_IN_HOME = frozenset({*OWN, "hook-server.sock", "hook-server.lock", "read-copies"})


#: What a folder that looks empty holds all the same, made by a file manager, a file system or a placeholder habit:
#: a folder of these alone is no folder of the user's files (review58d F5: ``.DS_Store`` alone was refused). Not
#: ``.gitkeep``: it says the folder is a git repository's, where ``git add -A`` would take the index in (review59a F6).
LOOKS_EMPTY = frozenset({".DS_Store", ".localized", "Thumbs.db", "desktop.ini", ".directory", "lost+found"})


def others_in_home(home: StrPath) -> bool:
    """Whether the folder ``home`` holds anything deja does not make in its home (``MADE_IN_HOME``, or the
    ``.NAME.PID.tmp`` a killed ``replace_private`` left of one) nor a folder that looks empty holds (``LOOKS_EMPTY``):
    then it is a folder of the user's, not a deja home. False for a folder that is not there, or that cannot be
    listed (no file of anyone's is known to be there)."""
    try:
        names = oscalls.listdir(home)
    except OSError:
        return False
    return any(name not in MADE_IN_HOME and name not in LOOKS_EMPTY and not _leftover(name) for name in names)


def _leftover(name: str) -> bool:
    """Whether ``name`` is ``replace_private``'s temporary ``.NAME.PID.tmp`` of a file deja makes in its home."""
    made, _, pid = name[1:-4].rpartition(".") if name.startswith(".") and name.endswith(".tmp") else ("", "", "")
    return made in MADE_IN_HOME and pid.isdigit()


def tighten(home: StrPath) -> None:
    """Make ``home`` and what deja keeps in it private, unless ``home`` already is (one stat when it is).

    A home that is 0700 keeps everything under it from other accounts, so it is
    the one thing checked on every run; a read-only or foreign home is left alone.
    ``DEJA_HOME`` naming a link (a home moved to another disk) is the folder the link
    names: that folder is the home, made 0700 (the link itself has no mode of its own).
    """
    try:
        if oscalls.S_IMODE(oscalls.stat(home).st_mode) & 0o077 == 0:
            return
        for name in OWN:
            top = oscalls.join(home, name)
            _chmod(top, DIR_MODE if oscalls.isdir(top) else FILE_MODE)
            import os  # (only a home found readable by others gets here)

            for root, folders, files in os.walk(top):
                for folder in folders:
                    _chmod(oscalls.join(root, folder), DIR_MODE)
                for file in files:
                    _chmod(oscalls.join(root, file), FILE_MODE)
        _chmod(oscalls.realpath(home), DIR_MODE)  # a home reached through a link: the folder it names
    except OSError:
        pass


def folders_written(home: StrPath) -> list[str]:
    """The folders a refresh writes in: the home and its index folder, or the folder the home would be made in."""
    from .index.format import INDEX

    home = oscalls.fspath(home)
    if oscalls.isdir(home):
        index = oscalls.join(home, INDEX)
        return [home, index] if oscalls.isdir(index) else [home]
    return [nearest_folder(oscalls.dirname(home))]


def nearest_folder(path: str) -> str:
    """``path``, or the nearest folder above it that exists: where a file is made when ``path``'s missing folders
    are."""
    while not oscalls.isdir(path) and oscalls.dirname(path) != path:
        path = oscalls.dirname(path)
    return path


def unwritable_home_folder(home: StrPath) -> tuple[str, str]:
    """The first folder a refresh writes in (``folders_written``) that no file can be made in, and why
    (``cannot_write``); ("", "") when each one takes files."""
    for folder in folders_written(home):
        if why := cannot_write(folder):
            return folder, why
    return "", ""


def write_fix(home: StrPath, folder: str, why: str) -> str:
    """What lets a refresh write in ``folder`` (``unwritable_home_folder``) again: space on its disk, or deja's home or
    index folder given back to this user. A home not made yet names the folder above it, which is not deja's: a
    recursive chmod or chown of it (``sudo chown -R "$USER" /var/lib``) would take over a whole tree (review42d H1),
    so the fix is the home made by a user who may."""
    if why == oscalls.strerror(errno.ENOSPC):
        return f"free space on the disk that holds {_quoted(folder)}"
    if not oscalls.isdir(home):
        if missing := _owner_bits_missing(folder):
            return f"chmod u+{missing} {_quoted(folder)}"
        return f"mkdir -p {_quoted(oscalls.fspath(home))} as a user who may, and make it yours"
    return access_fix(folder)


def _owner_bits_missing(folder: str) -> str:
    """What this user, owning ``folder``, lacks to make a file in it (``w``, ``wx``): a folder of theirs at 555
    (``XDG_CACHE_HOME``) was told to make deja's home "as a user who may", where ``chmod u+w`` was the fix (review43c
    L5); "" when another user owns it, the mode allows it (another cause, a read-only file system's), or deja runs as
    root, whom no mode stops."""
    try:
        st = oscalls.stat(folder)
    except OSError:
        return ""
    if oscalls.geteuid() == 0 or owned_by_another(st):
        return ""
    return "".join(letter for letter, bit in (("w", oscalls.S_IWUSR), ("x", oscalls.S_IXUSR)) if not st.st_mode & bit)


#: What stops a write for want of room (or of a file to write with), and what gives it that: a file-size limit (``ulimit -f``: EFBIG, since
#: Python ignores SIGXFSZ) was asked "is ~/.cache writable?" of a folder that was (trial48 F5), and so was a limit
#: on open files (``ulimit -n``: EMFILE, a segment's eight files opened at once; mend56: ``_open_files_fix``).
_ROOM_FIXES = {
    errno.ENOSPC: "free space on that disk",
    errno.EDQUOT: "free space under your disk quota, or have it raised",
    errno.EFBIG: "a file-size limit (ulimit -f) stopped the write: raise it (ulimit -f unlimited)",
    errno.ENFILE: "the system has too many files open: close some programs",
}


def room_fix(exc: BaseException | None) -> str:
    """What gives a write that ran out of room (a full disk, a used-up quota, a file-size limit) the room it needs,
    or out of files it may open (``ulimit -n``, the system's table); "" for any other failure. No folder's mode or owner is to blame, and the hint to mend one sent users astray."""
    code = getattr(exc, "errno", None) or 0
    return _open_files_fix() if code == errno.EMFILE else _ROOM_FIXES.get(code, "")


def _open_files_fix() -> str:
    """How to raise the limit on open files this process reached: to 4096 (or twice what it is) where the hard limit
    allows, else to the hard limit; where the limit already is the hard one, ``ulimit -n`` cannot raise it, and
    only an administrator can (mend56 said "ulimit -n 4096" under a hard limit of 1024, which the shell refuses)."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):  # (the limit still reached: no module can be opened; or Windows)
        if sys.platform == "win32":  # (no ulimit there: Python's own limit is its C library's)
            return "a limit on open files was reached: close some programs"
        return "a limit on open files (ulimit -n) was reached: raise it"
    wanted = max(4096, 2 * soft)
    to = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if to <= soft:
        return (
            f"a limit on open files (ulimit -n: {soft}) was reached, and it is the hard limit: "
            "have an administrator raise it"
        )
    return f"a limit on open files (ulimit -n) was reached: raise it (ulimit -n {to})"


def refusal(exc: BaseException | None) -> bool:
    """Whether a write failed for a refusal a folder's fix or another home mends (``refused_write``): a permission,
    or a read-only file system."""
    return isinstance(exc, PermissionError) or getattr(exc, "errno", None) == errno.EROFS


def refused_write(home: StrPath) -> str:
    """``FOLDER (why): fix``, as doctor gives them, for a refresh that a folder of ``home`` refused: the write named
    a temporary file or a segment never made, and asked "is ~/.cache writable?" of a ~/.cache that was (trial23
    F3); "" when each folder takes files now. A home not made yet is said to be so: the folder named is not deja's."""
    folder, why = unwritable_home_folder(home)
    if not folder:
        return ""
    missing = (
        "" if oscalls.isdir(home) else f"deja's home {oscalls.fspath(home)} does not exist and cannot be made there: "
    )
    return f"{folder} ({why}): {missing}{home_fix(home, folder, why)}"


#: The one way out of a home on a read-only file system: no chmod makes the mount take files (review42d M4), and
#: ``deja config set home`` writes its file under the same read-only ``HOME`` (trial49 F10).
READ_ONLY_FIX = "set DEJA_HOME to a folder on a writable disk"


def home_fix(home: StrPath, folder: str, why: str) -> str:
    """``write_fix``, or another home: where the file system is read-only, ``READ_ONLY_FIX`` alone."""
    if why == oscalls.strerror(errno.EROFS):
        return READ_ONLY_FIX
    return f"{write_fix(home, folder, why)}, or {another_home()}"


def another_home() -> str:
    """The other way out of a home deja cannot write in, where the home is named: ``deja config set home`` changes
    nothing while ``DEJA_HOME`` is set, and says nothing of it (review42d M5); nor can it store anything where
    deja's config folder cannot be written either (a whole ``HOME`` made read-only by its modes: trial52 F3)."""
    from .config import config_path, resolve

    if resolve("home").source == "env":
        return "set DEJA_HOME to a folder you can write"
    if cannot_write(nearest_folder(oscalls.dirname(config_path()))):
        return "give deja another home: set DEJA_HOME=DIR"
    return "give deja another home: deja config set home DIR"


def file_home_fix(blocker: str) -> str:
    """How to give deja a home folder where a file (``blocker``) is, or lies above, its home: as its home is set
    (``deja config set home`` changes nothing while ``DEJA_HOME`` is set: review14 R14-3), else the file moved
    aside. Said by doctor and by the CLI, which asked "is XDG_CACHE_HOME writable?" instead (review43c L4)."""
    from .config import resolve

    source = resolve("home").source
    if source == "env":
        return "point DEJA_HOME at a folder, or unset it"
    if source == "file":
        return "deja config set home DIR (a folder), or deja config unset home"
    return f"move {blocker} aside, or {another_home()}"


def cannot_write(folder: StrPath) -> str:
    """Why no file can be made in ``folder``, or "" when one can: a probe, made and removed at once, since the
    permission bits do not tell (root writes a 0555 folder but not a read-only mount, nor every pseudo-file system)."""
    probe = oscalls.join(
        folder, f".doctor-probe.{oscalls.getpid()}.tmp"
    )  # (named as the index's swept temporary files)
    try:
        oscalls.close(oscalls.open(probe, oscalls.O_WRONLY | oscalls.O_CREAT | oscalls.O_EXCL, 0o600))
    except OSError as exc:
        return exc.strerror or str(exc)
    remove(probe)
    return ""


def nowhere_fix(target: str) -> str:
    """What to do about a folder of deja's that is a link leading nowhere, to ``target`` (``leads_nowhere``; said by
    the CLI, the MCP server and doctor): no folder can be made where a link loops (review25 R25-4)."""
    return "remove the link" if oscalls.islink(target) else "remove the link, or make the folder it leads to"


def leads_nowhere(path: StrPath) -> str:
    """Where the link ``path`` leads when nothing is there, else "": a write through it fails with "No such file or
    directory" or "Not a directory", which sends the user to check a home that is fine (review20 R20-9), and a
    folder made for it would be made wherever the link points. A link that leads back to itself (``ln -s loop
    loop``, or two links to each other) leads nowhere too: it was stored as a home, and every command then failed
    with "Too many levels of symbolic links" (review23 R23-1)."""
    if not oscalls.islink(path):
        return ""
    try:
        oscalls.stat(path)
    except OSError as error:
        if not isinstance(error, (FileNotFoundError, NotADirectoryError)) and error.errno != errno.ELOOP:
            return ""  # (somewhere this user may not look: that is not nowhere)
        # (a relative link, from the link's folder; ``..`` taken out, as a user would write it)
        return oscalls.normpath(oscalls.join(oscalls.dirname(path), oscalls.readlink(path)))
    return ""


def access_fix(path: StrPath, tree: bool = True) -> str:
    """The command that gives this user back ``path``, a folder of deja's home: ``chown`` when another user owns it
    (``sudo deja index`` leaves root's, and its owner alone may ``chmod`` it), else ``chmod``. Without ``tree``, the
    folder alone, not what is in it: one above deja's home (``~/.cache`` at mode 000), whose files are not deja's
    (review42d H1)."""
    try:
        theirs = owned_by_another(oscalls.stat(path))
    except OSError:
        theirs = False
    where = _quoted(oscalls.fspath(path))
    if not tree:
        return f'sudo chown "$USER" {where}' if theirs else f"chmod u+rwx {where}"
    return f'sudo chown -R "$USER" {where}' if theirs else f"chmod -R u+rwX {where}"


def owned_by_another(st: oscalls.stat_result) -> bool:
    """Whether another user owns the file or folder ``st`` is the stat of: its owner alone (or root) may ``chmod``
    it, so what gives it to this user is a ``sudo chown``, not a ``chmod`` that would fail."""
    return st.st_uid != oscalls.getuid()


def _quoted(path: str) -> str:
    """``path`` as one word a shell reads back as it is (``text.shell_word``, loaded only for a message that gives a
    command to paste)."""
    from .text import shell_word

    return shell_word(path)


def _chmod(path: str, mode: int) -> None:
    """Take away what ``mode`` does not allow (never follows a link out of deja's home)."""
    try:
        st = oscalls.lstat(path)
        if not oscalls.S_ISLNK(st.st_mode) and oscalls.S_IMODE(st.st_mode) & ~mode:
            oscalls.chmod(path, oscalls.S_IMODE(st.st_mode) & mode)
    except OSError:
        pass
