"""The ``deja`` console script.

Hook commands run on every prompt and Shell call, and ``deja mcp`` is started by
an agent waiting for its tool list, so they are dispatched here before typer (or
anything else heavy) is imported; so are ``deja search`` and ``deja index`` in
every form typer would read the same way (``fastpath``).
"""

from __future__ import annotations

import sys

from ..core import oscalls

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import NoReturn

HOOK_HELP = (
    "deja {command}: a hook; Cursor or Claude Code runs it with the event as JSON on stdin "
    "and it prints what the agent is given (`deja install cursor-auto` wires it)"
)


def use_utf8() -> None:
    """stdin, stdout and stderr in UTF-8 whatever the platform's default: on Windows Cursor gives a Python hook
    cp1252 pipes, where any non-ASCII answer would raise and the hook's output would be lost."""
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and (getattr(stream, "encoding", "") or "").lower().replace("-", "") != "utf8":
            try:  # (not contextlib.suppress: every hook would import contextlib for it)
                reconfigure(encoding="utf-8", errors="surrogateescape" if stream is not sys.stderr else "replace")
            except (OSError, ValueError):
                continue


def main() -> None:
    argv = sys.argv[1:]
    if argv == ["serve-hooks"]:  # (the resident hook server the launcher starts: its streams as Python made them)
        from .hook_server import serve

        serve()
        return
    if argv[:1] == ["search"]:
        _ask_the_hook_server(argv[0])
    use_utf8()
    if argv and argv[0].startswith("hook-"):
        import gc

        gc.disable()  # as the hook launcher does (``interfaces/hook.py``)
        from ..hooks.run import HANDLERS
        from ..hooks.run import main as run_hook

        if {"-h", "--help"} & set(argv[1:]):
            _stop_on_a_closed_output()
            sys.exit(_hook_help(argv[0], HANDLERS))
        # (the launcher's preload where it ran; a ``deja hook-…`` imports none: it would preload nothing)
        preload = sys.modules.get(f"{__package__}.preload")
        client = sys.modules.get(f"{__package__}.hook_client")
        not_served = client.why_not if client is not None else ""
        exit_code = run_hook(argv[0], argv[1:], getattr(preload, "preload_as_launched", None), not_served)
        if client is not None and client.start_wanted:  # (the launcher found no hook server: one for the next call)
            from .hook_server import start_beside

            start_beside(preload._folder if preload else "")
        exit_at_once(exit_code)
    if argv == ["mcp"]:  # what mcp.json runs: the first answer must not wait for typer
        from ..core.config import file_problem, relative_folder
        from .mcp_refresh import Refresher

        # (its start and first check run beside the SDK's import, not a call's; none where every tool call refuses
        # to answer: it refreshed the index of the home deja falls back to, which no one asked for, review18 R18-6;
        # nor where stdin is closed and the server refuses to start, review39a L4)
        refuses = sys.stdin is None or file_problem() or relative_folder()
        refresher = None if refuses else Refresher.beside_start()
        from .mcp_server import main as serve_mcp

        serve_mcp(refresher)
        return
    _stop_on_a_closed_output()
    from .fastpath import hide_typed

    hide_typed(argv)
    if argv and argv[0] not in REPAIRS and not ASKING_FOR_HELP.intersection(argv):
        _stop_on_a_broken_config()
    if argv and not ASKING_FOR_HELP.intersection(argv):
        _stop_on_a_missing_home(argv)
    if argv and argv[0] in ("search", "index"):  # their usual forms need no typer (``fastpath``)
        import gc

        gc.disable()  # what a search allocates lives until it exits; a refresh collects (``fastpath.collect_from_now``)
        from .fastpath import run as run_fast

        code = run_fast(argv)
        if code is not None:
            exit_at_once(code)  # each wrote only its answer, closed and synced what it wrote; a walk runs detached
        gc.enable()
    from .cli import run

    run()


def _ask_the_hook_server(command: str) -> None:
    """Have a running hook server answer ``command`` (``hook_client.PERSONS``), and end with its exit code: its
    child has loaded what the command loads (after a turn, the indexer), where this process would spend most of its
    time loading it. Returns where none answered (none runs, another deja's, an install not laid out as pip lays
    it out), and the command runs here; it starts none (the hooks do: a person's command leaves no process behind)."""
    folder, package, _, _ = (__file__.rsplit("/", 3) + ["", "", ""])[:4]
    if package == "deja":
        from . import hook_client

        hook_client.answer(folder, command)


#: What runs with a config file deja cannot read: the commands that repair it (as the command, not as a word
#: searched for: ``deja search doctor``), and asking for help anywhere.
REPAIRS = frozenset({"config", "doctor"})
ASKING_FOR_HELP = frozenset({"--help", "-h", "--version"})


def _stop_on_a_closed_output() -> None:
    """One line, exit 1, when there is no standard output to answer on (``deja sessions >&-``): it said
    "AttributeError: 'NoneType' object …" (trial13 F6). Not for a hook's own run: Cursor reads nothing then."""
    if sys.stdout is None:
        if sys.stderr is not None:
            sys.stderr.write("deja: standard output is closed: give the command somewhere to write its answer\n")
        sys.exit(1)


def _stop_on_a_broken_config() -> None:
    """One line naming the file, its line and what to do, exit 1: the defaults instead of the user's settings
    would quietly read another index, or show what they turned off; the same for a relative ``DEJA_HOME``
    (``config.relative_folder``), or a Cursor folder named relative."""
    from ..core.config import REPAIR, file_problem, relative_folder

    problem = file_problem()
    if problem:
        sys.stderr.write(f"deja: {problem}; {REPAIR}\n")
        sys.exit(1)
    if problem := relative_folder():
        sys.stderr.write(f"deja: {problem}\n")
        sys.exit(1)


def _stop_on_a_missing_home(argv: list[str]) -> None:
    """One line, exit 1, when deja's home would be made in a home folder that is not there (``folders.missing_home``):
    every command would build an empty index there and answer as if there were no history. Hooks say nothing and
    make nothing (``private.private_dir``). The commands that write under the home folder whatever ``DEJA_HOME``
    says (``install``, ``uninstall``, ``config set``/``unset``) say so too, where they said "check its permissions"
    of a folder that is not there (review12 R4)."""
    from ..core.folders import home, missing_home
    from ..core.private import HomeMissing

    folder = missing_home()
    if folder:
        sys.stderr.write(f"deja: {HomeMissing(folder)}\n")
        sys.exit(1)
    writes = argv[0] in ("install", "uninstall") or argv[:2] in (["config", "set"], ["config", "unset"])
    if writes and not oscalls.isdir(home()):
        sys.stderr.write(f"deja: your home folder {home()} does not exist: set HOME to a folder that does\n")
        sys.exit(1)


def exit_at_once(code: int) -> NoReturn:
    """End a hook's (or a ``deja search``'s) process as soon as its output is flushed.

    The hook closed every file it wrote and started no thread; tearing down the interpreter (every module it
    loaded, a last garbage collection) would cost it a few ms of CPU more, on every prompt and tool call.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):  # (a closed one is None: a hook still exits 0, review19 R19-4)
            continue
    oscalls._exit(code)


def _hook_help(command: str, handlers: Iterable[str]) -> int:
    """One line on what a hook command is (a person typed ``--help``; Cursor never passes arguments), printed as
    every answer is: a full standard output ended in a traceback (review19 R19-4)."""
    if command not in handlers:
        sys.stderr.write(f"deja: {command} is not a hook: deja's hooks are {', '.join(handlers)}\n")
        return 2
    from .fastpath import echo, guarded

    return guarded(lambda: echo(HOOK_HELP.format(command=command)))


if __name__ == "__main__":
    main()
