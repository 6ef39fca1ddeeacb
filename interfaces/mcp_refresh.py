"""The MCP server's refresher: a child process that brings the index up to date as the server starts and whenever
it asks.

``deja mcp`` starts it (``Refresher``) before it imports the MCP SDK, so that
its start (an interpreter and the check's modules, about 60 ms of CPU) and its
first check run beside that import, which takes the server a second or more,
and never beside a tool call. ``python -m deja.interfaces.mcp_refresh HOME``
then reads one line on stdin per request (sent once the call that asked has
answered, so that the two do not compete for the machine). Each time it runs
the cheap freshness check (``core.indexer.glance``) and, only when that finds
something changed, loads the indexer and reads what changed, never waiting for
another writer; then it writes ``done`` on stdout, whereupon the server opens
the new index if there is one. A check that passed over a name not UTF-8 not
said before adds the line ``deja index`` prints of them (``done <line>``),
which the server's next answer carries, once. It stops at the end of its
stdin, that is when the server exits.

It is a process of its own rather than a thread of the server's so that the
check's stats and the reading of a changed chat never hold the server's
interpreter lock while a tool call runs (at 100k sessions a check costs 3 to
15 ms of CPU, reading a grown chat several times that), and it runs
``detached.NICE`` steps below the server, so that a call that arrives while it
checks gets the core first. A full walk that is due starts detached from here,
as from any read. Neither side of it imports the MCP SDK.
"""

from __future__ import annotations

import os
import sys
import threading

from ..core import detached, paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from subprocess import Popen

DONE = b"done"


class Refresher:
    """The refresher as the server holds it: the child process, started at a lower priority, which runs its first
    check at once; ``listen`` hears each check finish."""

    def __init__(self, home: str):
        import subprocess

        #: A check runs (the first one, as it starts) or is asked for; the server asks for no other meanwhile.
        self.busy = True
        self._process: Popen[bytes] = subprocess.Popen(
            detached.python_module("deja.interfaces.mcp_refresh", home),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None,  # its warnings go where the server's do
            close_fds=True,
        )
        detached.lower_priority(self._process.pid, own_session=False)

    @classmethod
    def beside_start(cls) -> Refresher | None:
        """The refresher of deja's home, started as the server starts; None when there is no process to spare
        (the server starts one when it first asks)."""
        try:
            return cls(str(paths.deja_home()))
        except OSError:
            return None

    def listen(self, done: Callable[[str], None]) -> None:
        """Run ``done`` on a thread of the server's after each check, from now on, with the line of the names not
        UTF-8 it passed over that no check said before ("" when none)."""
        threading.Thread(target=self._listen, args=(done,), name="deja-refresh-done", daemon=True).start()

    @property
    def alive(self) -> bool:
        return self._process.poll() is None

    def ask(self) -> None:
        """Ask for one refresh (the caller holds the server's lock, and ``busy`` is false)."""
        assert self._process.stdin is not None
        self.busy = True
        try:
            self._process.stdin.write(b"refresh\n")
            self._process.stdin.flush()
        except OSError:
            self.busy = False  # it has ended: the next ask starts another

    def _listen(self, done: Callable[[str], None]) -> None:
        assert self._process.stdout is not None
        for line in iter(self._process.stdout.readline, b""):
            self.busy = False
            done(line[len(DONE) :].strip().decode("utf-8", "replace"))
        self.busy = False


def check(home: str) -> None:
    """One check and what it finds changed, unless there is no readable index to bring up to date, or one the
    server is having rebuilt with the redaction now asked for. Nothing changed: what ``catch_up`` then does (a
    walk that is due starts detached), without loading the indexer."""
    from ..core.index.format import INDEX, IndexUnreadable, read_manifest
    from ..core.index.light import LIGHT
    from ..core.indexer.glance import check_home
    from ..core.redaction import withheld

    try:
        manifest = read_manifest(os.path.join(home, INDEX), LIGHT)
    except IndexUnreadable:
        return  # a refresh would build it inline, which may take minutes: the server has it built aside
    if withheld(manifest.redaction):
        return  # the server shows nothing from it and has it rebuilt aside (a second build would wait on the first)
    found = check_home(home)
    if found.unchanged:
        return
    from pathlib import Path

    from ..core.indexer import catch_up

    try:
        catch_up(Path(home), lock_timeout=0, found=found)
    except TimeoutError:  # another deja is writing: the server reads its index once that one is swapped in
        return


def _say_failed(home: str, exc: Exception) -> None:
    """One line in Cursor's MCP log for a refresh that failed, as the CLI words it (a traceback with DEJA_DEBUG=1)."""
    import logging

    from ..core import folders

    if isinstance(exc, UnicodeEncodeError) and (problem := folders.not_utf8_root_problem()):
        why = problem  # (the record that could not hold the root's path, named by the root)
    elif isinstance(exc, OSError):
        from pathlib import Path

        from ..core.library import not_updated

        why = not_updated(Path(home), exc)
    else:
        why = f"refreshing the index failed ({type(exc).__name__}: {exc})"
    debug = os.environ.get("DEJA_DEBUG") == "1"
    logging.getLogger("deja.mcp").warning(f"{why}; answering from the index as it stands", exc_info=debug)


def passed_over(said: set[str]) -> bytes:
    """What follows ``done``: the line of the names not UTF-8 the checks passed over (``folders.not_utf8``, which
    only grows) that were not in ``said`` (which takes them), else nothing: a name renamed since stays in the set,
    and the line names the new one, as ``deja index`` would (review50d M2). One line: a newline in a name is sent
    as ``\\n``."""
    from ..core.folders import not_utf8

    new = not_utf8 - said
    if not new:
        return b""
    said |= new
    from ..core.regular_files import not_utf8_said

    return b" " + not_utf8_said(new).encode().replace(b"\n", b"\\n")


def main() -> int:
    """Check at once, then once per line on stdin, writing ``done`` after each."""
    home = sys.argv[1]
    said: set[str] = set()
    while True:
        try:
            check(home)
        except Exception as exc:  # noqa: BLE001 - a stale answer beats none: the server asks again later
            _say_failed(home, exc)
        line = passed_over(said)
        try:
            os.write(1, DONE + line + b"\n")
        except OSError:
            return 0  # the server has gone (killed): nobody to refresh for
        if not sys.stdin.buffer.readline():
            return 0


if __name__ == "__main__":
    sys.exit(main())
