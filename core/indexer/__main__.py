"""``python -m deja.core.indexer``: the full walk a read starts in the background (see ``freshness``); with
``catch-up``, what a read does before it answers but the walk, which a hook hands on (``hooks.call.request_catch_up``).

Detached, with nobody to tell: it exits 1 on any failure (another deja writing the index among them) and the next
read or hook that finds one due starts another.
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    try:
        if argv == ["catch-up"]:
            _catch_up()
        else:
            from .driver import refresh

            refresh()
    except Exception:  # noqa: BLE001 - a background refresh has no one to report to; the next one retries
        return 1
    return 0


def _catch_up() -> None:
    """A hook's catch-up: the cheap check, and the indexer loaded only where it found something changed (about 60 ms
    of CPU of imports, for each of the catch-ups that find nothing, review41b)."""
    from ..folders import deja_home
    from .glance import check_home

    found = check_home(deja_home(), walk=False)
    if not found.unchanged:
        from .driver import catch_up

        catch_up(walk=False, found=found)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
