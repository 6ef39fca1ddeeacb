"""Wiring deja into Cursor and Claude Code, and undoing it.

``install(target)`` and ``uninstall(target)`` plan every file first (reading,
parsing, diffing, writing nothing) and then apply the plan, so a file deja
refuses leaves every file as it was. Both return the changes; with
``dry_run=True`` they are only returned. ``wiring_report()`` is doctor's view.

What each target touches (``$CURSOR`` is ``${CURSOR_CONFIG_DIR:-~/.cursor}``):

- ``cursor``: ``$CURSOR/mcp.json``, ``~/.agents/skills/deja-history/SKILL.md``,
  ``$CURSOR/commands/deja.md``
- ``cursor-auto``: those, and ``$CURSOR/hooks.json``
- ``claude``: ``~/.claude.json``
- ``claude-auto``: that, and ``~/.claude/settings.json``

Uninstalling ``cursor`` or ``cursor-auto`` removes everything deja wrote for
Cursor in ``$CURSOR`` (the skill, which the installs in every ``$CURSOR`` share,
with the last of them: ``guidance``); ``claude`` or ``claude-auto``, everything
it wrote for Claude Code.
A file install found is put back as it was (see ``ledger``), and the folders
install created go once empty.
"""

from __future__ import annotations

import os
import shlex
from functools import partial
from types import ModuleType

from . import claude, cursor, ledger
from .entries import another_deja_on_path, default_deja_path
from .files import Change, InstallError, apply, preflight, refuse_root_in_anothers_home
from .leftovers import stopped_writes
from .wiring import WiringFinding, cursor_hooks_there, double_run_findings, wiring_report

TARGETS = ("cursor", "cursor-auto", "claude", "claude-auto")

__all__ = [
    "TARGETS",
    "Change",
    "InstallError",
    "WiringFinding",
    "double_run_findings",
    "install",
    "install_notes",
    "uninstall",
    "wiring_report",
]


def install(target: str, *, dry_run: bool = False, deja_path: str | None = None) -> list[Change]:
    refuse_root_in_anothers_home()
    _refuse_a_relative_cursor_folder(target)
    _refuse_a_home_in_a_file()
    _refuse_a_home_out_of_reach()
    deja = os.path.abspath(deja_path or default_deja_path())
    changes = _harness(target).plan_install(deja, hooks=target.endswith("-auto"))
    found = ledger.load()
    changes += ledger.superseded_backups(found, changes)
    changes += stopped_writes(changes)
    _check_and_apply(changes, ledger.plan_save(found, ledger.after_install(found, changes)), dry_run)
    if not dry_run:
        ledger.keep_backups_private(found)
    return changes


def install_notes(target: str, *, dry_run: bool = False) -> list[str]:
    """What ``install(target)`` does that its changes do not show, asked before it runs: the folder
    ``CURSOR_CONFIG_DIR`` names made where none was (a typo made one in silence: trial46 F3), deja's hooks
    ``cursor`` leaves in place over ``cursor-auto`` (F4), and a ``deja`` on PATH that is not the deja it wires
    (review51a L4: after an upgrade into a new venv, Cursor runs the new one and the terminal the old)."""
    from ..core.folders import missing_cursor_config_dir

    notes = []
    if other := another_deja_on_path():
        deja = default_deja_path()
        notes.append(f"{'would wire' if dry_run else 'wired'} {deja}, the deja running this; the `deja` on your PATH is another one ({other}): {_pointed_here(deja, other)}, or run deja by that path")  # fmt: skip
    if not target.startswith("cursor"):
        return notes
    if folder := missing_cursor_config_dir():
        notes.append(f"CURSOR_CONFIG_DIR names {folder}, which does not exist: {'would create' if dry_run else 'created'} it")  # fmt: skip
    if target == "cursor" and cursor_hooks_there():
        hooks = cursor.hooks_path()
        notes.append(f"{'would keep' if dry_run else 'kept'} deja's hooks in {hooks}: deja uninstall cursor && deja install cursor drops them")  # fmt: skip
    return notes


def _pointed_here(deja: str, other: str) -> str:
    """How to make the ``deja`` on PATH (``other``) this one (``deja``): the link README's install made pointed here
    (putting the venv's folder first on PATH would put its ``python3`` and ``pip`` first too: review51d F2)."""
    if os.path.islink(other):
        return f"point that link here (ln -sf {shlex.quote(deja)} {shlex.quote(other)})"
    return f"put {os.path.dirname(deja)} first on your PATH"


def uninstall(target: str, *, dry_run: bool = False) -> list[Change]:
    refuse_root_in_anothers_home()
    _refuse_a_relative_cursor_folder(target, uninstalling=True)
    _refuse_a_home_out_of_reach()
    found = ledger.load()
    harness = _harness(target)
    planned = harness.plan_uninstall(partial(ledger.earlier_document, found))
    placed = ledger.placed(found, planned, cursor.IN_CONFIG_FOLDER)
    if placed != found:  # (an older deja's install with a relative CURSOR_CONFIG_DIR: what its records tell counts)
        planned = harness.plan_uninstall(partial(ledger.earlier_document, placed))
    settled = ledger.settle_uninstall(planned, placed)
    changes = ledger.with_unplaced_records(settled, placed, cursor.IN_CONFIG_FOLDER)
    changes += stopped_writes(changes)
    _check_and_apply(changes, ledger.plan_save(found, ledger.after_uninstall(placed, changes)), dry_run)
    return changes


def _refuse_a_relative_cursor_folder(target: str, *, uninstalling: bool = False) -> None:
    """InstallError for a Cursor target when ``CURSOR_CONFIG_DIR`` names a relative folder
    (``folders.relative_cursor_config_dir``): no step can place it for the next one. An uninstall is told what to run
    (``_uninstall_instead``)."""
    from ..core import folders

    if not target.startswith("cursor") or not (raw := folders.relative_cursor_config_dir()):
        return
    fix = _uninstall_instead(target, raw) if uninstalling else folders.ABSOLUTE_CURSOR_CONFIG_DIR
    problem = folders.relative_cursor_config_dir_problem(raw)
    raise InstallError(f"CURSOR_CONFIG_DIR={raw}", problem, f"{fix} (deja changed nothing)")


def _uninstall_instead(target: str, raw: str) -> str:
    """The uninstall to run for the refused ``CURSOR_CONFIG_DIR`` ``raw``: with the absolute folder an older deja's
    install with it wrote in, as its records tell (review46f M2); without one, from the folder that install ran in,
    where the records' keys lead (``ledger.placed``); with the folder the previous deja took a quoted ``~`` for, or
    the one ``raw`` names here, when no record is of it (another spelling's is another install's: review47b L1, L3)."""
    from ..core.config import expand_folder

    folder = ledger.relative_install_folder(ledger.load(), raw, cursor.IN_CONFIG_FOLDER)
    undoes = f"it undoes the install made with {raw}"
    if folder:
        return f"run CURSOR_CONFIG_DIR={shlex.quote(folder)} deja uninstall {target}: {undoes}"
    if folder is None:
        named = os.path.abspath(expand_folder(raw))  # (as the previous deja took a quoted ~: review47b L3)
        said = "an earlier deja took it for" if raw.startswith("~") else "here it names"
        return f"{said} {named}: run CURSOR_CONFIG_DIR={shlex.quote(named)} deja uninstall {target}"
    if os.path.normpath(raw) != ".":
        return f"in the folder the install with {raw} ran in, run CURSOR_CONFIG_DIR=\"$PWD\"/{shlex.quote(raw)} deja uninstall {target}: {undoes}"  # fmt: skip
    return (
        f"run CURSOR_CONFIG_DIR=<that folder's absolute path> deja uninstall {target}: the records of the install made "
        f"with {raw} do not say which folder it was, so it takes deja's entries out and keeps those files"
    )


def _refuse_a_home_in_a_file() -> None:
    """InstallError when deja's home is, or lies in, a file: no index can ever be made there, so the hooks and the
    MCP server it wires in would answer nothing, and install said it was done (review14 R14-3's follow-up)."""
    from ..core.config import file_in_path
    from ..core.paths import deja_home

    home = str(deja_home())
    part = file_in_path(home)
    if part:
        problem = "deja's home is a file, not a folder" if part == home else f"deja's home lies in the file {part}"
        raise InstallError(home, problem, "point DEJA_HOME (or `deja config set home`) at a folder")


def _refuse_a_home_out_of_reach() -> None:
    """InstallError when this user may not reach deja's home (``ledger.home_out_of_reach``): install would wire in
    hooks and a server that could keep no index, and uninstall would forget what a legacy ledger there records."""
    from ..core.paths import deja_home
    from ..core.private import access_fix

    if blocker := ledger.home_out_of_reach():
        home = str(deja_home())
        problem = f"deja's home {home} cannot be reached (permission denied)"
        raise InstallError(blocker, problem, f"{access_fix(blocker, tree=blocker == home)}, then run the command again")


def _check_and_apply(changes: list[Change], record: list[Change], dry_run: bool) -> None:
    """Refuse before writing anything (a dry run says so too); the ledger is written last."""
    preflight([*changes, *record])
    if not dry_run:
        apply([*changes, *record])


def _harness(target: str) -> ModuleType:
    if target not in TARGETS:
        raise InstallError(repr(target), "not a target deja installs into", f"choose one of {', '.join(TARGETS)}")
    return claude if target.startswith("claude") else cursor
