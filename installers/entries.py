"""deja's own entries in Cursor's and Claude Code's JSON files, and how to tell them apart.

An entry is deja's by the shape of its command, never by an exact path. A hook
starts either ``<deja> hook-…`` (the executable's last path component is ``deja``
or ``deja.exe``, followed by exactly one of deja's hook names, ``HOOK_NAMES``) or, what ``install``
writes for the deja that runs it, ``<python> -I -S <…/interfaces/hook.py>
hook-… || true`` (the launcher that starts a hook without ``site``:
``interfaces/hook.py``; older deja wrote it without `` || true``, and either
shape may end so); the server is ``deja`` with ``args: ["mcp"]``. That is
how an install after the executable moved finds the old entries of either shape
and rewrites them, while a user's wrapper that merely mentions deja stays put.
What follows the ``hook-…`` word other than `` || true`` (a ``2>/dev/null`` the user
appended) is the user's edit of deja's hook: still deja's, which Cursor runs
(trial44 F3), and kept as written when install rewrites the entry.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

from ..core.folders import launcher_folder
from ..core.redact import scrub
from .command_end import command_end
from .files import Change, json_type, parse_object, plan_json, read_text, shape_error

EXECUTABLE_NAMES = ("deja", "deja.exe")
SERVER_NAME = "deja"
#: The hook launcher, as the last two components of its path (in the package: ``deja/interfaces/hook.py``).
LAUNCHER = ("interfaces", "hook.py")
#: How the launcher is started: no ``site``, no user site, no ``PYTHON*`` variables (why: ``preload.ready_without_site``).
LAUNCHER_FLAGS = ("-I", "-S")
#: What follows the launcher's command: Python exits 2 when the launcher file is gone and the interpreter is not (a
#: package removed without ``deja uninstall``, ``pipx reinstall`` onto another Python, the moment ``pip install``
#: replaces the package), and Cursor and Claude Code read a hook's 2 as "block the prompt or the tool call". The shell
#: that runs a hook's command (the launcher form is POSIX-only) then answers 0 instead: no recall, nothing blocked.
FAIL_OPEN = ("||", "true")


@dataclass(frozen=True)
class Hook:
    """One event deja listens to in a harness's hooks file."""

    event: str
    subcommand: str
    matcher: str | None
    timeout: int  # seconds, in Cursor and in Claude Code


class Stripped(NamedTuple):
    """One event's list without deja's hooks."""

    kept: list[Any]  # the entries that are not deja's
    slot: int | None  # where deja's entry goes: where the one whose changes install keeps stood
    first: Any  # deja's entry whose user's changes install keeps (``Carry``, ``stripped``); None when it has none
    edited: list[str]  # the commands of deja's hooks the user edited (``DejaHook.edited``), the kept one first


class Ours(NamedTuple):
    """One of deja's entries on an event, as a harness's ``Strip`` found it."""

    entry: Any
    hook: DejaHook  # the hook it runs
    at: int  # where it stood among the entries that are not deja's
    shared: bool = False  # a copy in an entry of the user's (Claude Code's matcher group holding their own hooks)


def stripped(kept: list[Any], ours: list[Ours]) -> Stripped:
    """The one rule for both harnesses: of deja's entries on an event, install keeps the changes of the first the
    user edited, else of the first in an entry of deja's own (not ``shared``), else of the first. Beside an edited
    one, an older install's duplicate of deja's own, before or after it, is no reason to lose the edit (review44d
    H1); an unedited copy in a group of the user's is no change of theirs to deja's matcher (review44f M1)."""
    edited = [one for one in ours if one.hook.edited]
    if not ours:
        return Stripped(kept, None, None, [])
    chosen = (edited or [one for one in ours if not one.shared] or ours)[0]
    return Stripped(kept, chosen.at, chosen.entry, [one.hook.command for one in edited])


# Removes deja's hooks from one event's list.
Strip = Callable[[list[Any]], Stripped]
# deja's entry for an event with the user's changes to its first old one (``Stripped.first``) kept, and those
# changes in words (``carried_hook``).
Carry = Callable[[Any, Any], tuple[Any, list[str]]]
# Raises InstallError for a hooks file the harness would not load: (path, its text, its document).
Refuse = Callable[[Path, str | None, dict[str, Any]], None]
# The document install found at a path (``ledger.earlier_document``), empty when unknown.
Earlier = Callable[[Path], dict[str, Any]]


def same_file(path: str, other: str) -> bool:
    """Whether ``path`` and ``other`` lead to the same file once every link is followed (README's ``~/.local/bin/deja``
    link and the venv's script it leads to are one deja)."""
    return os.path.realpath(path) == os.path.realpath(other)


def default_deja_path() -> str:
    """The ``deja`` script that runs, spelt as the ``deja`` on PATH when that is the same file (README's
    ``~/.local/bin/deja`` link to the venv's: an upgrade in place keeps it), else by its own path; when no ``deja``
    script runs (``python -m``), the one on PATH. Always absolute.

    The ``deja`` on PATH came first even when another deja ran: after an upgrade into a new venv, the old venv's
    link still on PATH, the new deja's ``install`` wired Cursor to the old one again (stop 50's leftover)."""
    here = running_deja_script()
    on_path = shutil.which("deja")
    if here and not (on_path and same_file(on_path, here)):
        return here
    return os.path.abspath(on_path or (sys.argv[0] if sys.argv else ""))


def another_deja_on_path() -> str:
    """The ``deja`` on PATH when it is another file than the one ``default_deja_path`` wires, else ""."""
    on_path = shutil.which("deja")
    if on_path and not same_file(on_path, default_deja_path()):
        return os.path.abspath(on_path)
    return ""


def running_deja_script() -> str:
    """The ``deja`` console script that runs (absolute), "" when none does (``python -m``). On Windows pip's
    ``deja.exe`` launcher gives Python its path without ``.exe``, which is the file hooks must start. Started
    through a link of another name (``~/bin/deja-new``, review51d F1), the script it leads to: an entry naming the
    link would not be known as deja's (``is_deja_executable``)."""
    here = sys.argv[0] if sys.argv else ""
    for script in (here, f"{here}.exe") if os.name == "nt" else (here,):
        if not os.path.isfile(script):
            continue
        if is_deja_executable(script):
            return os.path.abspath(script)
        if is_deja_executable(real := os.path.realpath(script)):
            return real
    return ""


def command_line(deja: str, subcommand: str) -> str:
    """``<deja> <subcommand>``, the path quoted for the shell where it needs it."""
    quoted = subprocess.list2cmdline([deja]) if os.name == "nt" else shlex.quote(deja)
    return f"{quoted} {subcommand}"


def _package() -> str:
    """This deja package's folder (``…/site-packages/deja`` once installed)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def launcher_path() -> str:
    """This deja's hook launcher (``interfaces/hook.py`` beside this package's ``installers``)."""
    return os.path.join(_package(), *LAUNCHER)


def launches_here(deja: str) -> bool:
    """Whether ``deja`` is the program running now, so that this Python and this package's launcher run the very
    code it runs (``deja install`` from a console script: it is the ``deja`` on PATH, or the one that runs), and
    that launcher finds deja and PyStemmer in its own folder (``launcher_folder``: not an editable
    install, nor a user install whose PyStemmer is the system's). Not on Windows, whose hooks keep ``deja.exe``."""
    here = sys.argv[0] if sys.argv else ""
    return (
        os.name != "nt"
        and bool(sys.executable and here)
        and same_file(deja, here)
        and os.path.isfile(launcher_path())
        and launcher_folder(_package()) is not None
    )


def hook_command(deja: str, subcommand: str) -> str:
    """What a hook entry runs: ``<python> -I -S <launcher> hook-… || true`` for the deja running now (a hook then
    starts without ``site`` or pip's launcher: ``interfaces/hook.py``; ``FAIL_OPEN`` says why the tail), else
    ``<deja> hook-…`` (gone with its package, it exits 127, which fails open); paths quoted for the shell."""
    if not launches_here(deja):
        return command_line(deja, subcommand)
    return f"{shlex.join([sys.executable, *LAUNCHER_FLAGS, launcher_path(), subcommand])} {' '.join(FAIL_OPEN)}"


def is_deja_executable(command: object) -> bool:
    return isinstance(command, str) and _components(command)[-1].lower() in EXECUTABLE_NAMES


def _components(path: str) -> list[str]:
    return re.split(r"[\\/]", path)


@dataclass(frozen=True)
class DejaHook:
    """A hook command that runs deja: what it starts, and what follows its ``hook-…`` word as written."""

    command: str  # the whole command, as written
    name: str  # the hook it runs (``hook-prompt``: ``HOOK_NAMES``)
    executable: str  # the ``deja`` of ``<deja> hook-…``, or the launcher ``<python> <flags…> <launcher> hook-…`` runs
    tail: str  # `` || true`` (``FAIL_OPEN``), "" (an older deja's), or the user's edit (`` 2>/dev/null || true``)

    @property
    def edited(self) -> bool:
        """Whether the user changed what follows deja's command from what any install wrote."""
        return self.tail.split() not in ([], list(FAIL_OPEN))

    @property
    def edits(self) -> tuple[str, ...]:
        """What the user wrote after deja's command, as the pieces of text it stands in: before and after deja's
        own `` || true``, taken off as words where install puts it (``_ending``: where deja's simple command ends),
        else at the tail's end. doctor names them to delete, so each is text found in the command (review45a L3:
        ``2>/dev/null; exit`` was not, in ``2>/dev/null || true; exit``); a second `` || true`` or a ``truex`` is
        the user's (review44g L2)."""
        end = command_end(self.tail)
        if end.follows == "||" and (own := _FAIL_OPEN_NEXT.match(self.tail, end.at)):
            pieces = [self.tail[: end.at], self.tail[own.end() :]]
        elif not end.follows and (own := _FAIL_OPEN_LAST.search(self.tail)):
            pieces = [self.tail[: own.start()]]
        else:
            pieces = [self.tail]
        return tuple(piece.strip() for piece in pieces if piece.strip())


#: deja's fail-open as the words that start where deja's simple command ends, and as the words a tail ends with.
_FAIL_OPEN_NEXT = re.compile(r"\|\|[ \t]+true(?=$|\s|[;&|<>()])")
_FAIL_OPEN_LAST = re.compile(r"(?:^|[ \t]+)\|\|[ \t]+true[ \t]*$")
#: An older deja's fail-open where no shell takes it (``_without_stray_fail_open``): after an operator, and on a line
#: of its own at the end (``true#`` is how install45 wrote it before a comment).
_STRAY_AFTER_OPERATOR = re.compile(r"[ \t\n]*?([ \t]*\|\|[ \t]+true)(?=\Z|[\s;&|<>()#])")
_STRAY_LAST_LINE = re.compile(r"(?<=\n)[ \t]*\|\|[ \t]+true[ \t]*\Z")


#: The hooks deja has (``hooks/run.HANDLERS``, which a hook loads without this package's installers): a script at
#: deja's launcher path run with another ``hook-…`` word (``hook-lint --fix``) is the user's own (review44d M6).
HOOK_NAMES = frozenset({"hook-context", "hook-prompt", "hook-tool", "hook-tool-after", "hook-session-end"})
#: One of deja's ``hook-…`` words standing alone, as deja's command ends (then anything the user appended: ``>``,
#: ``;``, spaces).
_HOOK_WORD = re.compile(rf"(?<!\S)(?:{'|'.join(sorted(HOOK_NAMES, reverse=True))})(?![\w-])")


def deja_hook(command: object) -> DejaHook | None:
    """The deja hook ``command`` runs: one that starts with ``<deja> hook-…`` or ``<python> <flags…>
    <…/interfaces/hook.py> hook-…``, whatever follows; None for any other command (a wrapper that only names deja)."""
    if not isinstance(command, str):
        return None
    for found in _HOOK_WORD.finditer(command):
        executable = _executable(command[: found.end()])
        if executable is not None:
            return DejaHook(command, found.group(), executable, command[found.end() :])
    return None


def _executable(command: str) -> str | None:
    """What ``command``, ending in its ``hook-…`` word, starts, if it is one of deja's shapes."""
    try:
        words = [word.strip('"') for word in shlex.split(command, posix=os.name != "nt")]  # (non-POSIX keeps quotes)
    except ValueError:
        return None
    if len(words) < 2:
        return None
    if len(words) == 2:
        return words[0] if is_deja_executable(words[0]) else None
    launcher, options = words[-2], words[1:-2]
    if tuple(_components(launcher)[-2:]) == LAUNCHER and all(option.startswith("-") for option in options):
        return launcher
    return None


def hook_executable(command: object) -> str | None:
    """What a deja hook command starts (``deja_hook``); None for any other command."""
    found = deja_hook(command)
    return found.executable if found else None


def is_deja_hook(command: object) -> bool:
    return deja_hook(command) is not None


def carried_hook(wanted: dict[str, Any], old: object) -> tuple[dict[str, Any], list[str]]:
    """deja's hook ``wanted`` (a dict with its ``command``) with the user's changes to the one it replaces (``old``)
    kept, and those changes in words: what they appended to the command, a timeout or matcher of their own, a key
    they added. A reinstall put deja's back silently (trial44 F3, F6): install keeps what the user wrote."""
    if not isinstance(old, dict):
        return wanted, []
    entry, kept = carried_keys(wanted, old, skip="command")
    found = deja_hook(old.get("command"))
    if found is not None and found.edited:
        own = deja_hook(wanted["command"])
        base = wanted["command"][: len(wanted["command"]) - len(own.tail)] if own else wanted["command"]
        ending = _ending(found.tail, own.tail if own else "")
        entry["command"] = base + ending
        kept.insert(0, f"its command ending `{ending.strip()}`")
    return (old if entry == old else entry), kept


def _ending(users: str, own: str) -> str:
    """What follows deja's ``hook-…`` word once install rewrote it: the user's ending with deja's own fail-open
    (``FAIL_OPEN``), when deja's command has one, where deja's simple command ends (``command_end``). An edit of an
    older ``deja hook-…``, which exits 127 once gone, would otherwise exit 2 once the launcher is gone, which blocks
    the prompt (review44d M2). Before the ``;``, ``&&``, ``&``, line break or comment ending deja's command, it runs
    before the user's ``; exit`` (review44g M2) and breaks none of it (review44f H1). Nothing goes before a ``||``,
    the user's own failure handling or deja's fail-open already there, nor into a pipeline, whose status is its last
    command's and whose input it would change (``a || true | jq`` is ``a || (true | jq)``). Where deja's command
    ends at the text's end, or the text cannot be read, it goes at the end, unless it stands there already. An older
    deja's misplaced one goes first (``_without_stray_fail_open``)."""
    users = _without_stray_fail_open(users)
    if own.split() != list(FAIL_OPEN):
        return users
    end = command_end(users)
    if end.follows in ("|", "|&", "||") or (not end.follows and _FAIL_OPEN_LAST.search(users)):
        return users
    cut = len(users[: end.at].rstrip(" \t"))
    cut = end.at if users[:cut].endswith("\\") else cut  # (an escaped space is a word's)
    space = "" if cut == len(users) or users[cut].isspace() else " "  # (never ``true#``, one word)
    return f"{users[:cut]} {' '.join(FAIL_OPEN)}{space}{users[cut:]}"


def _without_stray_fail_open(users: str) -> str:
    """``users`` without the `` || true`` an older deja put where no shell takes it, which kept every prompt blocked
    (review45c M1): right after the operator ending deja's command, blanks and line breaks between (install45's,
    after a ``|`` or ``&&`` a comment follows), or on a line of its own at the end (466c7c8's, after an ending that
    ended in a line break). A ``||`` there is a syntax error, so it is no user's."""
    end = command_end(users)
    if end.follows not in ("", "#") and (stray := _STRAY_AFTER_OPERATOR.match(users, end.at + len(end.follows))):
        users = users[: stray.start(1)] + users[stray.end(1) :]
    if stray := _STRAY_LAST_LINE.search(users):
        users = users[: stray.start()]
    return users


def carried_keys(wanted: dict[str, Any], old: dict[str, Any], skip: str) -> tuple[dict[str, Any], list[str]]:
    """``wanted`` with every key of ``old`` but ``skip`` as ``old`` has it, and what differs from ``wanted``."""
    entry = {**wanted, **{key: value for key, value in old.items() if key != skip}}
    kept = [
        f"{key} {json.dumps(value)}" + (f" (deja writes {json.dumps(wanted[key])})" if key in wanted else "")
        for key, value in old.items()
        if key != skip and (key not in wanted or wanted[key] != value)
    ]
    return entry, kept


def is_deja_server(entry: object) -> bool:
    return isinstance(entry, dict) and is_deja_executable(entry.get("command")) and entry.get("args") == ["mcp"]


def plan_server(path: Path, server: dict[str, Any] | None) -> Change:
    """Write ``server`` as ``mcpServers.deja`` in ``path``, or remove deja's (None).

    Rewriting deja's entry keeps its place and any key the user added to it
    (``env``, ``disabled``). A ``deja`` server that is not deja's refuses an
    install and survives an uninstall.
    """
    text = read_text(path)
    document = parse_object(path, text)
    servers = document.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise shape_error(path, text, "mcpServers", f'"mcpServers" is {json_type(servers)}, expected an object')
    current = servers.get(SERVER_NAME)
    ours = is_deja_server(current)
    if server is None:
        if not ours:
            return Change(path, "unchanged", "")
        # The emptied "mcpServers" stays with the file: whether the user had it cannot be told from here.
        updated = {**document, "mcpServers": {name: e for name, e in servers.items() if name != SERVER_NAME}}
        return plan_json(path, text, document, updated, removable=updated == {"mcpServers": {}})
    if current is not None and not ours:
        raise shape_error(path, text, SERVER_NAME, f"mcpServers.deja {_what_server(current)}, not deja's server")
    entry = {**current, **server} if ours and isinstance(current, dict) else server
    updated = {**document, "mcpServers": {**servers, SERVER_NAME: entry}}
    return plan_json(path, text, document, updated, removable=False, pristine=not ours)


def _what_server(entry: object) -> str:
    """What another ``deja`` server is, in words: ``runs 'x'``, ``is the server at 'https://…'``, ``is a list``."""
    if not isinstance(entry, dict):
        return f"is {json_type(entry)}"
    if isinstance(entry.get("command"), str):
        return f"runs {entry['command']!r}"
    if isinstance(entry.get("url"), str):
        return f"is the server at {entry['url']!r}"
    return "names no command"


def plan_hooks(
    path: Path,
    wanted: dict[str, Any],
    strip: Strip,
    carry: Carry,
    *,
    preamble: dict[str, Any] | None = None,
    refuse: Refuse | None = None,
    earlier: dict[str, Any] | None = None,
) -> Change:
    """Replace deja's hooks in the ``hooks`` object of ``path`` by ``wanted`` (empty: uninstall), each with the
    user's changes to the one it replaces kept (``carry``). The change's ``edited_hooks`` says, event by event, what
    of the user's install keeps, and which of deja's hooks the user edited it takes out (uninstall's).

    ``earlier`` is the file as install found it, when known (``ledger.earlier_document``): an event it has keeps
    its list, emptied, when deja's entries leave it empty (the user's ``"stop": []``: trial17 F6).

    ``preamble`` holds the keys a new file starts with (Cursor's ``version``);
    a file left with nothing more (and an empty ``hooks``) is removed, unless
    the install ledger says the file was there before. The ``hooks`` object
    stays, emptied, in a file that stays: whether the user had it (``"hooks":
    {}``) cannot be told from the file. ``refuse`` raises InstallError for a
    file the harness would not load (only an install asks).
    """
    text = read_text(path)
    document = parse_object(path, text)
    if refuse is not None and wanted:
        refuse(path, text, document)
    preamble = preamble or {}
    hooks = document.get("hooks", {})
    if not isinstance(hooks, dict):
        raise shape_error(path, text, "hooks", f'"hooks" is {json_type(hooks)}, expected an object')
    for event in wanted:
        if not isinstance(hooks.get(event, []), list):
            raise shape_error(path, text, event, f'"{event}" is {json_type(hooks[event])}, expected a list')
    had = (earlier or {}).get("hooks")
    merged, kept, removed = _merge_hooks(hooks, wanted, strip, carry, set(had) if isinstance(had, dict) else set())
    updated = {**(preamble if wanted and not document else {}), **document}
    if merged or "hooks" in document:
        updated["hooks"] = merged
    pristine = _merge_hooks(hooks, {}, strip, carry)[0] == hooks
    removable = set(updated) - ({"hooks"} if not merged else set()) <= set(preamble)
    change = plan_json(path, text, document, updated, removable=removable, pristine=pristine)
    edited = [f"deja's hooks keep your changes: {'; '.join(kept)}"] if kept else []
    if removed:  # (install: a second edited copy on an event: review44d L1, review44f M1)
        going = "go too" if not wanted else "go, as install keeps one deja hook per event, the first you edited"
        edited.append(f"deja's hooks you edited {going}: {'; '.join(removed)}")
    return replace(change, edited_hooks=tuple(one_line(scrub(sentence)) for sentence in edited))  # (a token too)


def one_line(sentence: str) -> str:
    """``sentence`` with a line break of a command it quotes written ``\\n``: the command as written, on the one line
    install and doctor give it (review44f L2), as the JSON file holds it."""
    return sentence.replace("\r", "\\r").replace("\n", "\\n")


def _merge_hooks(
    hooks: dict[str, Any], wanted: dict[str, Any], strip: Strip, carry: Carry, users: set[str] | None = None
) -> tuple[dict[str, Any], list[str], list[str]]:
    """``hooks`` with deja's entries replaced by ``wanted`` (one entry per event), and the user's edits of deja's
    entries, event by event: those kept (install), and those taken out (uninstall's, and install's beyond the one
    it keeps on an event).

    deja's entry takes the place of the old one whose changes install keeps in that event (``stripped``: the first
    the user edited, else the first of deja's own), with those changes (``carry``), or goes last; every other entry keeps its
    order. An event left empty by removing deja's entries is dropped unless it is
    one of the ``users`` events (the file had it before install), a list the user
    left empty is not. With nothing wanted, this is the uninstall.
    """
    merged: dict[str, Any] = {}
    kept_edits: list[str] = []
    removed_edits: list[str] = []
    for event, entries in hooks.items():
        if not isinstance(entries, list):
            merged[event] = entries
            continue
        kept, slot, first, edited = strip(entries)
        if event in wanted:
            entry, changes = carry(wanted[event], first) if first is not None else (wanted[event], [])
            kept.insert(len(kept) if slot is None else slot, entry)
            kept_edits += [f"{event}: {', '.join(changes)}"] if changes else []
            edited = edited[1:]  # (the first is the one kept: ``stripped``)
        removed_edits += [f"{event}: `{command}`" for command in edited]
        if kept or not entries or event in (users or ()):
            merged[event] = kept
    for event, entry in wanted.items():
        merged.setdefault(event, [entry])
    return merged, kept_edits, removed_edits
