"""The ``deja`` console script.

Hook commands run on every prompt and Shell call, so they are dispatched here
before typer (or anything else heavy) is imported.
"""

from __future__ import annotations

import sys


def main() -> None:
    argv = sys.argv[1:]
    if argv and argv[0].startswith("hook-"):
        from ..hooks.run import main as run_hook

        sys.exit(run_hook(argv[0], argv[1:]))
    from .cli import run

    run()


if __name__ == "__main__":
    main()
