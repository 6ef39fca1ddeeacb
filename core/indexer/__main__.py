"""``python -m deja.core.indexer``: the full walk a read starts in the background (see ``freshness``); with
``catch-up``, what a read does before it answers but the walk, which a hook hands on (``hooks.call.request_catch_up``).

Detached, with nobody to tell: it exits 1 on any failure (another deja writing the index among them) and the next
read or hook that finds one due starts another.
"""

from __future__ import annotations

import sys

from .driver import catch_up, refresh


def main(argv: list[str]) -> int:
    try:
        if argv == ["catch-up"]:
            catch_up(walk=False)
        else:
            refresh()
    except Exception:  # noqa: BLE001 - a background refresh has no one to report to; the next one retries
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
