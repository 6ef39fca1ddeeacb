"""The MCP server's refresher: a child process that brings the index up to date whenever the server asks.

``python -m deja.interfaces.mcp_refresh HOME`` loads what a check needs, then
reads one line on stdin per request (sent once the call that asked has
answered, so that the two do not compete for the machine), runs the cheap
freshness check (``core.indexer.glance``) and, only when it finds something
changed, loads the indexer and reads what changed, never waiting for another
writer; then it writes ``done`` on stdout, whereupon the server opens the new
index if there is one. It stops at the end of its stdin, that is when the
server exits.

It is a process of its own rather than a thread of the server's so that the
check's stats and the reading of a changed chat never hold the server's
interpreter lock while a tool call runs (at 100k sessions a check costs 3 to
15 ms of CPU, reading a grown chat several times that). The server starts it
at a lower priority (``Refresher``) once its engine is warm, before any call
asks, so that neither its start (the interpreter and the check's modules,
about 60 ms of CPU, where the indexer's would be 200) nor a check takes a core
from a call. A full walk that is due starts detached from here, as from any read.
It imports no MCP SDK.
"""

from __future__ import annotations

import logging
import os
import sys
from contextlib import suppress

from ..core.index.format import INDEX, IndexUnreadable, read_manifest
from ..core.index.light import LIGHT
from ..core.indexer.glance import check as glance
from ..core.indexer.glance import start_walk
from ..core.private import tighten
from ..core.redaction import withheld

DONE = b"done\n"


def check(home: str) -> None:
    """One check and what it finds changed, unless there is no readable index to bring up to date, or one the
    server is having rebuilt with the redaction now asked for. Nothing changed: what ``catch_up`` then does (a
    walk that is due starts detached), without loading the indexer."""
    directory = os.path.join(home, INDEX)
    try:
        manifest = read_manifest(directory, LIGHT)
    except IndexUnreadable:
        return  # a refresh would build it inline, which may take minutes: the server has it built aside
    if withheld(manifest.redaction):
        return  # the server shows nothing from it and has it rebuilt aside (a second build would wait on the first)
    tighten(home)  # what every catch-up does first
    found = glance(directory)
    if found.unchanged:
        if found.walk_due:
            start_walk(directory)
        return
    from pathlib import Path

    from ..core.indexer import catch_up

    with suppress(TimeoutError):  # another deja is writing: the server reads its index once that one is swapped in
        catch_up(Path(home), lock_timeout=0, found=found)


def main() -> int:
    home = sys.argv[1]
    for _ in iter(sys.stdin.buffer.readline, b""):
        try:
            check(home)
        except Exception:  # noqa: BLE001 - a stale answer beats none: the server asks again later
            logging.getLogger("deja.mcp").warning("refreshing the index failed; it stays as it stands", exc_info=True)
        try:
            os.write(1, DONE)
        except OSError:
            return 0  # the server has gone (killed): nobody to refresh for
    return 0


if __name__ == "__main__":
    sys.exit(main())
