"""``python -m deja.core.indexer``: the full walk a read starts in the background (see ``freshness``).

Detached, with nobody to tell: it exits 1 on any failure and the next read that finds a walk due starts another.
"""

from __future__ import annotations

import sys

from .driver import refresh


def main() -> int:
    try:
        refresh()
    except Exception:  # noqa: BLE001 - a background walk has no one to report to; the next one retries
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
