"""The ``deja`` console script.

Hook commands run on every prompt and Shell call, so they are dispatched here
before typer (or anything else heavy) is imported.
"""

from __future__ import annotations

import contextlib
import sys


def use_utf8() -> None:
    """stdin, stdout and stderr in UTF-8 whatever the platform's default: on Windows Cursor gives a Python hook
    cp1252 pipes, where any non-ASCII answer would raise and the hook's output would be lost."""
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and (getattr(stream, "encoding", "") or "").lower().replace("-", "") != "utf8":
            with contextlib.suppress(OSError, ValueError):
                reconfigure(encoding="utf-8", errors="surrogateescape" if stream is not sys.stderr else "replace")


def main() -> None:
    use_utf8()
    argv = sys.argv[1:]
    if argv and argv[0].startswith("hook-"):
        from ..hooks.run import main as run_hook

        sys.exit(run_hook(argv[0], argv[1:]))
    from .cli import run

    run()


if __name__ == "__main__":
    main()
