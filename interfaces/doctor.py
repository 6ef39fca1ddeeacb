"""``deja doctor``: on one screen, whether deja can see this person's Cursor history and serve it.

It looks and reports; it repairs nothing and never builds the index. What it
reads is cheap: the stores are listed and stat'ed, each ``state.vscdb`` is asked
for its chat ids (the same SQL the index refresh runs when a database changed),
and the index is opened the way a reader opens it. What the stores held that
could not be read comes from the index's own bookkeeping, counted when it was built.

Every problem names what to run. A problem is an ``error`` when deja cannot
serve what is there (no index, a damaged one, a database it cannot open, wiring
Cursor fails to load) and ``warn`` when it serves, with less than it could;
errors alone make the exit status 1.
"""

from __future__ import annotations

import errno
import os
import re
import shlex
import shutil
import textwrap
import time
from collections import Counter
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..core import config, folders, paths
from ..core.bookkeeping import Bookkeeping, State, read_record, unreferenced
from ..core.escapes import surrogates_escaped
from ..core.index import (
    MANIFEST,
    Index,
    IndexForbidden,
    IndexOtherFormat,
    IndexUnreadable,
    check_readable,
    forbidden_fix,
    index_dir,
    segments_and_temporaries,
)
from ..core.indexer.carry import kept_indexes
from ..core.indexer.plan import RETRIED, out_of_sight_sources, sessions_in_roots_away
from ..core.lean_msgspec import msgspec
from ..core.moved_away import dropped_with
from ..core.private import (
    cannot_write,
    file_home_fix,
    folders_written,
    home_fix,
    leads_nowhere,
    nowhere_fix,
    unwritable_home_folder,
    write_fix,
)
from ..core.readers import (
    FORBIDDEN_STORE,
    SIGNALS,
    STORE_DB,
    ChatCensus,
    ChatSurvey,
    chat_census,
    find_all_chat_dirs,
    outermost,
    scan_transcripts,
    slug_folders,
    survey_chats,
)
from ..core.readers.chatstore import UNREADABLE_STORE, read_store
from ..core.readers.unreadable import (
    CURSOR_MENDS,
    MID_WRITE,
    after_made_readable,
    move_away,
    unlisted_folders,
    why_unreadable,
)
from ..core.regular_files import forbidden, not_utf8_finding, readable_command
from .about import upgrade_command, version
from .delivery import Decision, Delivery, cursor_delivery, hook_decisions, log_unwritable
from .hook_server import state as hook_server_state
from .views import when

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..core.index import SessionMeta

#: Settings that change how fast the hooks answer, never what they answer: one this shell sets and Cursor's hooks
#: never see is nothing to fix (``hook_server``: the tests turn the server off in their shell).
HOW_FAST_ONLY = frozenset({"hook_server"})
#: How many of deja's own newest hook decisions the JSON report carries.
DECISIONS = 20
#: How many damaged chat stores doctor names, each with its ``mv``; the rest are counted on one line after them.
DAMAGED_SHOWN = 3

Level = Literal["ok", "warn", "error"]
Area = Literal["history", "index", "wiring", "settings", "delivery"]
StoreKind = Literal["cursor-ide", "cli-transcripts", "cli-chat-stores"]


class Finding(msgspec.Struct):
    level: Level
    #: The section it belongs to: the stores, the index, or how Cursor is wired to deja.
    area: Area
    message: str
    #: The command (or edit) that fixes it; empty when nothing needs doing.
    fix: str = ""


class Store(msgspec.Struct):
    """One place history is kept: an IDE database, or a cursor-agent root's transcripts or chat stores."""

    kind: StoreKind
    path: str
    #: Chats in a database, transcripts, or chat folders with a ``store.db``.
    count: int
    bytes: int
    #: When its newest file was last written (Cursor writes its editor databases often: not the newest chat's time).
    newest: datetime | None = None
    #: Why deja cannot read it; empty when it can.
    unreadable: str = ""


class IndexStatus(msgspec.Struct):
    path: str
    #: ``older``/``newer``: written by a deja of another index format (not damaged): any refresh rebuilds an older
    #: one, none touches a newer one.
    state: Literal["ok", "missing", "damaged", "older", "newer", "unreadable"]
    #: What the index its manifest names holds (``dropped_bytes`` apart).
    bytes: int = 0
    #: Segments a refresh replaced, kept for readers that opened the manifest before (``SEGMENT_GRACE_SECONDS``),
    #: and the bookkeeping a search's refresh replaced, removed by the first refresh nobody waits on after (a hook's
    #: catch-up, a walk, ``deja index``): counted in ``bytes``, they said 1.6 MB of a 250 KB index (trial23 F7.11).
    dropped_bytes: int = 0
    sessions: int = 0
    messages: int = 0
    built_at: datetime | None = None
    age_seconds: float | None = None
    #: A store was written after the index was built.
    stale: bool = False
    #: Indexed sessions per signal that gave their project, best signal first (``deja.core.readers.projects.SIGNALS``).
    project_signals: dict[str, int] = {}
    #: Indexed sessions that no signal gave a project folder.
    without_project: int = 0
    #: The transcript folders (``projects/<slug>``) of unplaced sessions whose slug several existing folders encode,
    #: with those folders: the chats did not say which of them they ran in (trial17 F5).
    shared_slugs: dict[str, list[str]] = {}
    #: Editor chats indexed by name, project and dates alone: Cursor keeps their messages where deja does not read
    #: (``agentKv:blob:`` rows; README "What deja reads").
    editor_chats_unread: int = 0
    #: A folder of deja's home (or the one it would be made in) this user cannot write, and why: no refresh can run.
    unwritable: str = ""


class Report(msgspec.Struct):
    healthy: bool
    #: This deja's version, and the command that upgrades it the way it was installed.
    version: str
    upgrade: str
    ide_root: str
    cli_roots: list[str]
    stores: list[Store]
    #: The editor's chats, once each however many databases hold one (a store's ``count`` is its own).
    editor_chats: int
    #: Editor composers that are no chat: empty drafts, and subagents' threads unless ``include_subagents``.
    editor_not_chats: int
    #: Chats with a ``store.db`` and no transcript under any root, read from the store alone.
    chats_without_transcript: int
    #: cursor-agent chats deja cannot read, by why ("no store.db and no transcript", "unreadable store.db", …).
    unreadable_chats: dict[str, int]
    #: Records the index skipped as unreadable, by reason, as counted when it was built.
    skipped: dict[str, int]
    index: IndexStatus
    wiring: list[Finding]
    #: Every finding that is not ``ok``, wiring included.
    problems: list[Finding]
    #: What Cursor's own hook logs say about deja's hooks, per event.
    delivery: Delivery | None = None
    #: deja's newest hook decisions from hooks.log (what each gave, or why it stayed silent).
    hook_decisions: list[Decision] = []
    #: cursor-agent files, or folders above them, that this user may not read (permission denied).
    unreadable_files: list[str] = []
    #: Whether a resident hook server answers the hooks (``hook_server.state``).
    hook_server: str = ""


def _wiring() -> list[Finding]:
    """How Cursor (and Claude Code) are wired to deja; a file the check cannot read is a finding of its own, where it
    stopped the whole report (a ``DEJA_HOME`` that is a file: its install ledger cannot be read, trial12 F5)."""
    from ..installers import wiring_report
    from ..installers.files import InstallError

    try:
        return [Finding(f.level, "wiring", f.message, f.fix) for f in wiring_report()]
    except InstallError as exc:
        return [Finding("error", "wiring", str(exc))]


def diagnose(home: Path | None = None) -> Report:
    """Look at the stores, the index under ``home`` and the wiring; build nothing."""
    home = home or paths.deja_home()
    ide_root, cli_roots = paths.ide_user_root(), paths.cli_roots()
    ide_stores, editor = _ide_stores()
    stores = ide_stores + [store for root in cli_roots for store in _cli_stores(root)]
    transcripts = [found for root in cli_roots for found in scan_transcripts(root, include_subagents=False)]
    transcribed = {found.chat_id for found in transcripts if found.session_id == found.chat_id}
    chats = survey_chats(cli_roots, transcribed)
    index, state, damage = _index_status(home, newest=max((s.newest for s in stores if s.newest), default=None))
    skipped = dict(state.problems) if state else {}
    damaged = _damaged_chat_stores(state.unread if state else {}, cli_roots)
    dropped = partial(dropped_with, home=home, cli_roots=[str(root) for root in cli_roots])
    unlisted = unlisted_folders(str(ide_root), [str(root) for root in cli_roots])
    forbidden_files = _forbidden_files([found.path for found in transcripts], cli_roots, home, state, unlisted)
    book = Bookkeeping(index_dir(home), state) if state else None
    outside = out_of_sight_sources(book, cli_roots) if book else []
    wiring = _wiring()
    delivery = cursor_delivery()
    unwritable = _unwritable_home(home, index)  # (first: a missing index is no news where none can be written)
    problems = [
        *_missing_roots(),
        *_root_too_deep(paths.ide_user_folder()),
        *_out_of_sight(outside),
        *_roots_away(sessions_in_roots_away(book) if book else {}),
        *_history_problems(
            stores,
            [ide_root, *cli_roots],
            *_not_damaged(skipped, chats, damaged, transcribed),
            forbidden_files,
            bool(outside),
            dropped,
        ),
        *_damaged_chat_store_problems(damaged, dropped),
        *_forbidden_problems(forbidden_files, unlisted, [store.path for store in stores if store.unreadable]),
        *_not_utf8_problems(),
        *_index_problems(index, damage),
        *_kept_index_problems(home),
        *unwritable,
        *_low_space(home, index),
        *_file_size_limit(index),
        *(finding for finding in wiring if finding.level != "ok"),
        *_settings_problems(),
        *_delivery_problems(delivery),
        *_log_problems(home),
    ]
    return Report(
        healthy=not any(p.level == "error" for p in problems),
        version=version(),
        upgrade=upgrade_command(),
        ide_root=str(ide_root),
        cli_roots=[str(root) for root in cli_roots],
        stores=stores,
        editor_chats=len(editor.chats),
        editor_not_chats=editor.others,
        chats_without_transcript=chats.store_only,
        unreadable_chats=chats.unreadable,
        skipped=skipped,
        index=index,
        wiring=wiring,
        problems=problems,
        delivery=delivery,
        hook_decisions=hook_decisions(home, limit=DECISIONS),
        unreadable_files=forbidden_files,
        hook_server=hook_server_state(),
    )


def _settings_problems() -> list[Finding]:
    """Settings this shell's environment makes that Cursor's hooks and MCP server, started without it, never see."""
    problems = []
    _, error = config.read_file()
    if error:
        problems.append(Finding("error", "settings", error, f"fix or remove {config.config_path()}"))
    problems += [Finding("warn", "settings", problem, fix) for problem, fix in config.unknown_keys()]
    problems += (
        _ignored_values() + config_file_elsewhere() + _cursor_config_dir_problems() + _cursor_folders_elsewhere()
    )
    problems += _server_env_problems()
    for setting, here, there in config.shell_only():
        if setting.key in HOW_FAST_ONLY:
            continue
        shown = str(here).lower() if isinstance(here, bool) else str(here)
        if _in_a_demo(shown):  # `deja demo --keep`'s exports: no setting to keep (trial12 F1)
            problems.append(Finding(
                "warn",
                "settings",
                f"{setting.variable} points at a `deja demo --keep` sample ({shown}): this shell reads it, not your own history",
                f"unset {setting.variable} (or open a new shell) to use your own",
            ))  # fmt: skip
            continue
        theirs = "the default" if there.source == "default" else f"{there.value!r} from {config.config_path()}"
        offered = not (_refused(setting.key, shown) or _holds_a_secret(shown))
        problems.append(Finding(
            "warn",
            "settings",
            f"{setting.variable} is set in this shell, but Cursor's hooks and MCP server never see it: "
            f"they use {theirs} for {setting.key}",
            f"deja config set {setting.key} {shlex.quote(shown)}" if offered else "",
        ))  # fmt: skip
    return problems


def _server_env_problems() -> list[Finding]:
    """What the ``env`` of deja's server in Cursor's mcp.json changes for that server alone: Cursor starts the hooks
    without it. With DEJA_HOME there the server built and served an index of its own, while doctor said the hooks and
    the server saw the same settings (trial50 F5)."""
    from ..installers.cursor import mcp_path
    from ..installers.wiring import deja_server_env, names_the_window, unsecret
    from .settings import shown_value

    path = mcp_path()
    server = deja_server_env(path)
    given = {name: value for name, value in server.values.items() if value.strip()}
    read = {setting.variable for setting in config.SETTINGS.values()} | {
        *folders.ROOT_VARIABLES,
        "XDG_CACHE_HOME",
        HOME_VARIABLE,
    }
    per_window = sorted(name for name, value in given.items() if name in read and names_the_window(value))
    env = {name: value for name, value in given.items() if name not in per_window}
    found = [
        Finding(
            "warn",
            "settings",
            f"deja's MCP server gets {server.shown(name, given[name])} from {server.where(name)}: Cursor gives it "
            "another value in each window, which doctor cannot check; the hooks do not get it",
            f"give {name} an absolute path in that env, or remove it",
        )
        for name in per_window
    ]
    if server.unread_file:
        found.append(Finding(
            "warn",
            "settings",
            f"deja's MCP server gets the variables of its envFile {server.unread_file} in {path}, which doctor "
            "cannot read, nor check what they change for it",
            f"give envFile an absolute path to a readable file in {path}, or remove it",
        ))  # fmt: skip
    found += [
        Finding(
            "error",
            "settings",
            f"deja's MCP server gets {server.shown(setting.variable, env[setting.variable])} from "
            f"{server.where(setting.variable)}: a relative folder, so it answers every tool call that it refuses it",
            f"give {setting.variable} an absolute path in that env, or remove it",
        )
        for setting in config.SETTINGS.values()
        if config.relative_variable(setting, env)
    ]
    user_home = _env_folder(env, HOME_VARIABLE) or folders.home()
    server_home = config.resolve("home", env).value or os.path.join(
        _env_folder(env, "XDG_CACHE_HOME") or os.path.join(user_home, ".cache"), "deja"
    )
    hooks_home = folders.deja_home(environment=False)
    if folders.real_folder(server_home) != folders.real_folder(hooks_home):
        moving = [name for name in ("DEJA_HOME", "XDG_CACHE_HOME", HOME_VARIABLE) if name in env]
        names, shown = " and ".join(moving), unsecret(server_home)
        both = f", or deja config set home {shlex.quote(server_home)} for the hooks and commands too"
        found.append(Finding(
            "warn",
            "settings",
            f"deja's MCP server gets {' and '.join(map(server.shown, moving))} from {server.where(*moving)}: it "
            f"builds and serves the index under {index_dir(Path(shown))}, while the hooks use "
            f"{index_dir(Path(hooks_home))}",
            f"remove {names} from that env{both if shown == server_home else ''}",
        ))  # fmt: skip
    for key, setting in config.SETTINGS.items():
        there, hooks = config.resolve(key, env), config.resolve(key, environment=False)
        if key != "home" and setting.variable in env and there.value != hooks.value:
            found.append(Finding(
                "warn",
                "settings",
                f"deja's MCP server gets {server.shown(setting.variable, env[setting.variable])} from "
                f"{server.where(setting.variable)}: it uses {unsecret(shown_value(key, there.value, False))} for "
                f"{key}, the hooks {unsecret(shown_value(key, hooks.value, False))}",
                f"remove {setting.variable} from that env, or deja config set {key} VALUE for both",
            ))  # fmt: skip
    if folders.real_folder(user_home) != folders.real_folder(folders.home()):
        found.append(Finding(
            "warn",
            "settings",
            f"deja's MCP server gets {server.shown(HOME_VARIABLE, env[HOME_VARIABLE])} from "
            f"{server.where(HOME_VARIABLE)}: it looks for deja's settings file and Cursor's folders in that home, the "
            f"hooks in {folders.home()}",
            f"remove {HOME_VARIABLE} from that env",
        ))  # fmt: skip
    defaults = {"XDG_CONFIG_HOME": os.path.join(folders.home(), ".config")}
    for name in folders.ROOT_VARIABLES:
        moved = _env_folder(env, name)
        if moved and folders.real_folder(moved) != folders.real_folder(
            defaults.get(name, os.path.join(folders.home(), ".cursor"))
        ):
            what = "deja's settings file and cursor-agent's folder" if name in defaults else "cursor-agent's folder"
            found.append(Finding(
                "warn",
                "settings",
                f"deja's MCP server gets {server.shown(name, env[name])} from {server.where(name)}: it reads {what} "
                "there, the hooks do not",
                f"remove {name} from that env",
            ))  # fmt: skip
    return found


#: The variable that names the home folder (``folders.home``), under which a process Cursor starts looks for deja's
#: index, its settings and Cursor's folders: in the server's env, it moved them all (review52a F4).
HOME_VARIABLE = "USERPROFILE" if os.name == "nt" else "HOME"


def _env_folder(env: dict[str, str], name: str) -> str:
    """The absolute folder ``env`` gives the variable ``name`` (``~`` expanded), or "" (a relative one: ignored)."""
    folder = config.expand_folder(env.get(name, "")) if env.get(name, "").strip() else ""
    return folder if os.path.isabs(folder) else ""


def _refused(key: str, value: str) -> bool:
    """Whether ``deja config set`` refuses ``value`` for ``key``: doctor offers no fix that deja refuses (review14
    R14-3: ``deja config set home <a file>``); another finding names what is wrong with the value."""
    try:
        config.checked(key, value)
    except config.ConfigError:
        return True
    return False


def _holds_a_secret(value: str) -> bool:
    """Whether doctor prints ``value`` redacted: a fix naming it would then name another value (``deja config set
    home '[redacted:…]'``), so none is offered."""
    from ..installers.wiring import unsecret

    return unsecret(value) != value


def _in_a_demo(value: str) -> bool:
    """Whether a setting's folder lies in a folder ``deja demo --keep`` made (``deja-demo-…`` in the temporary
    folder): its ``export`` lines point a shell at the sample, which no config file should keep."""
    import tempfile

    folder = Path(tempfile.gettempdir())
    try:
        inside = Path(value).relative_to(folder)
    except ValueError:
        return False
    return bool(inside.parts) and inside.parts[0].startswith("deja-demo-")


def config_file_elsewhere() -> list[Finding]:
    """A config file this shell finds through ``XDG_CONFIG_HOME`` whose settings differ from those of the one a
    process started without the variable reads (Cursor's hooks and MCP server, unless Cursor gets it too). Compared
    as read, not as text: the file `deja config unset` leaves holding no key is no file at all to a hook (trial53).
    Two copies of one file are the same too, though it is not valid TOML: the error each read gives names its own
    path, and the warning told the user to copy the file onto its copy (review53c F3)."""
    here = Path(config.config_path())
    there = Path.home() / ".config" / "deja" / "config.toml"
    if here == there or _same_bytes(here, there) or config.read_file(str(here)) == config.read_file(str(there)):
        return []
    said = (
        f"XDG_CONFIG_HOME is set in this shell, so deja's settings come from {here}; Cursor's hooks and MCP server "
        f"read {there} instead unless Cursor is started with the same variable"
    )
    fix = f"unset XDG_CONFIG_HOME before `deja config set`, or copy {here} to {there}"
    _, unread = config.read_file(str(there))
    if unread.startswith("cannot read"):  # (a folder there: `cp` would put the file inside it, review53f F3)
        said = f"{said}, and deja {unread}"
        fix = f"move {there} away, then copy {here} to {there}" if there.is_dir() else fix
    return [Finding("warn", "settings", said, fix)]


def _same_bytes(one: Path, other: Path) -> bool:
    """Whether both files can be read and hold the same bytes."""
    try:
        return one.read_bytes() == other.read_bytes()
    except OSError:
        return False


def _cursor_folders_elsewhere() -> list[Finding]:
    """The cursor-agent folder each of this shell's CURSOR_CONFIG_DIR, CURSOR_DATA_DIR and XDG_CONFIG_HOME moves,
    when a process started without them (Cursor's hooks and MCP server, unless Cursor has them too) does not read it.
    Naming every folder this shell reads as moved named those the variable leaves (trial46 F3). A CURSOR_CONFIG_DIR
    folder deja is wired in beside ``~/.cursor`` (README "Install into Cursor") is read: cursor-agent starts deja's
    hooks and server from there with the variable (``_config_folder_wired_beside_home``)."""
    from ..core import folders

    unseen = _unseen_roots()
    moved = {name: folder for name, folder in _moved_folders().items() if folder in unseen}
    # (a relative or missing folder: ``_cursor_config_dir_problems`` says what is wrong with it instead)
    named_already = folders.relative_cursor_config_dir() or folders.missing_cursor_config_dir()
    if named_already or _config_folder_wired_beside_home():
        moved.pop("CURSOR_CONFIG_DIR", None)
    if not moved:
        return []
    one = len(moved) == 1
    names = " and ".join(moved)
    message = (
        f"{names} {'is set in this shell and moves' if one else 'are set in this shell and move'} cursor-agent's "
        f"{'folder' if one else 'folders'} to {', '.join(moved.values())}; Cursor's hooks and MCP server do not read "
        f"{'it' if one else 'them'} unless Cursor is started with the same variable{'' if one else 's'}"
    )
    fix = f"start Cursor from a shell that sets {names}"
    if "CURSOR_CONFIG_DIR" in moved:  # (README's setup for the variable in cursor-agent's shell alone)
        fix += "; or, for cursor-agent alone, deja install cursor-auto here and env -u CURSOR_CONFIG_DIR deja install cursor-auto"  # fmt: skip
    return [Finding("warn", "settings", message, fix)]


def _unseen_roots() -> set[str]:
    """The cursor-agent folders this shell reads and a process started without its variables does not."""
    from ..core import folders

    return set(folders.cli_roots()) - set(folders.cli_roots(environment=False))


def _config_folder_wired_beside_home() -> str:
    """The folder CURSOR_CONFIG_DIR moves cursor-agent's to, when Cursor's processes started without the variable do
    not read it and deja's server is in its mcp.json and in ``~/.cursor``'s (README "Install into Cursor"); else "".
    A relative value names no one folder deja can be wired in (``folders.relative_cursor_config_dir``): "" too (its
    folder where doctor runs was said to be wired, deja's server in it or not: review47b L4)."""
    from ..core.folders import home, relative_cursor_config_dir
    from ..installers.wiring import serves_deja

    folder = _moved_folders().get("CURSOR_CONFIG_DIR", "")
    if relative_cursor_config_dir() or folder not in _unseen_roots():
        return ""
    wired = all(serves_deja(Path(place) / "mcp.json") for place in (folder, os.path.join(home(), ".cursor")))
    return folder if wired else ""


def _settings_ok_line() -> str:
    """Settings' line when nothing is wrong with them: the hooks and MCP server see what this shell sees, but in
    the two-folder setup, where those started from ``~/.cursor`` do not read CURSOR_CONFIG_DIR's folder (fix46f)."""
    if folder := _config_folder_wired_beside_home():
        return (
            f"  ok     deja is wired in {folder} (CURSOR_CONFIG_DIR's, for cursor-agent run with it) and in ~/.cursor: "
            f"the hooks and MCP server started from ~/.cursor see this shell's settings, but do not read {folder}"
        )
    return "  ok     the hooks and the MCP server see the same settings and Cursor folders as this shell"


def _moved_folders() -> dict[str, str]:
    """The folder each variable that moves one (``folders.moving_root_variables``) moves, where its links lead:
    CURSOR_DATA_DIR the transcripts', CURSOR_CONFIG_DIR the chats', XDG_CONFIG_HOME the chats' unless
    CURSOR_CONFIG_DIR is set too (``folders.cursor_agent_chats_root``)."""
    from ..core import folders

    moving = folders.moving_root_variables()
    named = {name: config.folder_variable(name) for name in moving}
    if "XDG_CONFIG_HOME" in named:
        named["XDG_CONFIG_HOME"] = os.path.join(named["XDG_CONFIG_HOME"], "cursor")
        if config.folder_variable("CURSOR_CONFIG_DIR"):
            del named["XDG_CONFIG_HOME"]
    return {name: folders.real_folder(folder) for name, folder in named.items()}


def _cursor_config_dir_problems() -> list[Finding]:
    """A CURSOR_CONFIG_DIR that install and uninstall refuse (``folders.relative_cursor_config_dir``), or that names
    no folder: a typo, where cursor-agent keeps nothing and ``deja install`` would create it (trial46 F3)."""
    from ..core import folders

    if raw := folders.relative_cursor_config_dir():
        what = f"CURSOR_CONFIG_DIR={raw}: {folders.relative_cursor_config_dir_problem(raw)}, so deja install and uninstall refuse it"  # fmt: skip
        return [Finding("error", "settings", what, folders.ABSOLUTE_CURSOR_CONFIG_DIR)]
    if folder := folders.missing_cursor_config_dir():
        what = f"CURSOR_CONFIG_DIR names {folder}, which does not exist: cursor-agent keeps nothing there yet"
        return [Finding("warn", "settings", what, "check the folder CURSOR_CONFIG_DIR names, or unset it")]
    return []


def _ignored_values() -> list[Finding]:
    """Values in this shell that deja ignores, and in the config file that silence the hooks (a typo falls back to the
    default silently everywhere else); a relative ``DEJA_HOME`` or Cursor folder, on which every other command stops."""
    found = []
    for key, setting in config.SETTINGS.items():
        problem = config.resolve(key).problem
        if relative := config.relative_variable(setting):  # (every other command stops on it)
            what = f"{relative}, so deja's commands, hooks and MCP server refuse it"
            found.append(Finding("error", "settings", what, config.absolute_fix(setting)))
        elif problem.startswith(f"{setting.variable}: "):
            found.append(
                Finding("warn", "settings", f"ignored: {problem}", f"unset {setting.variable}, or fix its value")
            )
        elif problem:  # (the hooks stay silent on it: ``config.bad_file_value``)
            what = f"{problem}; the hooks stay silent until it is fixed"
            found.append(Finding("warn", "settings", what, f"deja config set {key} VALUE"))
    return found


def _delivery_problems(delivery: Delivery) -> list[Finding]:
    """Per event, a line for the runs Cursor logged as failed, one for those it stopped, one for those that wrote to
    stderr, each with what to do: a run killed at its timeout, or one whose launcher could not start (which ``|| true``
    turns into exit 0), leaves no line in deja's hooks.log (trial18 F9)."""
    found = []
    for event in delivery.events:
        if event.failures:
            found.append(
                Finding(
                    "warn",
                    "delivery",
                    f"Cursor logged {_count(event.failures, 'failed run')} of deja's {event.event} hook (last exit "
                    f"code {event.last_exit})",
                    "deja hooks log  (deja's own record of each call; a hook that cannot start leaves nothing there)",
                )
            )
        if event.timeouts:
            found.append(
                Finding(
                    "warn",
                    "delivery",
                    f"Cursor stopped deja's {event.event} hook {_count(event.timeouts, 'time')}: it timed out after "
                    f"{event.timeout_ms / 1000:g} s (last {when(event.last_timeout)})",
                    "deja config set trace true, then deja hooks log shows each call's time (a call Cursor stopped "
                    "leaves no line; the ones around it show how slow the hooks are: the index on a slow or busy disk, "
                    "a machine under load)",
                )
            )
        if event.stderr_runs:
            found.append(
                Finding(
                    "warn",
                    "delivery",
                    f"deja's {event.event} hook wrote to stderr {_count(event.stderr_runs, 'time')} (last "
                    f"{when(event.last_stderr_at)}): {event.last_stderr}",
                    # (deja's own line, "deja: cannot write …hooks.log", is its only one there: the hook answered)
                    "what that line says: the hook answered, but could not write its hooks.log"
                    if event.last_stderr.startswith("deja: ")
                    else "deja install cursor-auto  (deja's hooks write nothing else there: it is Python's, as the "
                    "hook could not start, so it gave nothing; if deja itself is gone, reinstall it by the README's "
                    "first steps)",
                )
            )
    return found


def _log_problems(home: Path) -> list[Finding]:
    """hooks.log the hooks cannot write (``delivery.log_unwritable``): their decisions are dropped."""
    said = log_unwritable(home)
    return [Finding("warn", "delivery", *said)] if said else []


def no_history(looked_in: list[Path]) -> Finding:
    """Where deja looked for Cursor's chats and found none, and what to do (doctor's and ``deja index``'s words)."""
    return Finding(
        "warn",
        "history",
        f"no Cursor chats found in {' or '.join(map(str, looked_in))}",
        "chat once in Cursor or cursor-agent; if your history is elsewhere, `deja config set cursor_root PATH` "
        "(or cursor_cli_root) points deja at it (`deja demo` shows deja on a sample history)",
    )


def _out_of_sight(files: list[str]) -> list[Finding]:
    """Stores the index read under Cursor folders this shell does not read (another environment's
    ``CURSOR_CONFIG_DIR``, ``CURSOR_DATA_DIR`` or ``XDG_CONFIG_HOME``), in ``deja index --full``'s words: the index
    serves their sessions, where "no Cursor chats found" said there were none (trial14 F8)."""
    if not files:
        return []
    from .fastpath import stores_out_of_sight

    what, fix = stores_out_of_sight(files)
    said = f"{what}; the index serves their sessions, but this shell's deja reads nothing new from there"
    return [Finding("warn", "history", said, f"{fix}, in this shell (`deja index --full` refuses until then)")]


def _roots_away(kept: dict[str, int]) -> list[Finding]:
    """Cursor folders not there this time whose sessions the index keeps, in ``deja index``'s words (trial49 F8),
    and both ways out: one removed on purpose is dropped by a rebuild, or doctor warns of it forever (review49d L1)."""
    from .fastpath import root_away, root_unlistable

    fix = "mount the disk it is on, or put the folder back; if you removed it on purpose, `deja index --full`"
    return [
        Finding("warn", "history", root_away(root, count), fix)
        for root, count in kept.items()
        if not root_unlistable(root)  # (one there that may not be listed is among the folders it may not list)
    ]


def _root_too_deep(ide_root: Path) -> list[Finding]:
    """The editor root set to a folder that holds a ``state.vscdb`` itself: one of the folders inside ``User``,
    named as set (``paths.ide_user_folder``), so that the ``User`` folder above it is the one the setting named."""
    if not os.path.isfile(ide_root / "state.vscdb"):  # (``Path.is_file`` raises where ide_root is unreadable)
        return []
    user = ide_root.parent.parent if ide_root.parent.name == "workspaceStorage" else ide_root.parent
    return [
        Finding(
            "warn",
            "history",
            f"{ide_root} holds a state.vscdb itself: deja wants Cursor's User folder, above it",
            f"deja config set cursor_root {user}  (or DEJA_CURSOR_ROOT={user})",
        )
    ]


def _missing_roots() -> list[Finding]:
    """A root override naming no folder: every command that reads history refuses to run until it is fixed."""
    return [
        Finding("error", "history", f"{name}={path}: no such folder; searches fail until it is fixed",
                "point it at an existing folder or unset it")
        for name, path in paths.missing_overrides()
    ]  # fmt: skip


def _unreadable_store(store: Store, dropped: Callable[[str], str]) -> Finding:
    """A store deja could not read just now: held by a writer (a warning: Cursor is at work, the index keeps what
    it read), or damaged (an error, and how to go on without it, as ``deja index`` says it, with what ``dropped``
    says the index is then without)."""
    why = store.unreadable.replace("ide: ", "")
    if why == "database locked":
        return Finding(
            "warn",
            "history",
            f"{store.path} was locked by another program when deja looked (Cursor writing it)",
            "nothing to do while Cursor is at work: the index keeps what it read; if it stays locked, close Cursor "
            "and run `deja index`",
        )
    if why == MID_WRITE:  # (Cursor rolls the journal back when it next opens it: never moved away, review49d M1)
        return Finding("warn", "history", f"{store.path} cannot be read: {MID_WRITE}", CURSOR_MENDS)
    # (``deja index``'s way out, which no read mends)
    return Finding(
        "error", "history", f"deja cannot read {store.path} ({why})", _move_away(store.path, dropped(store.path))
    )


def _damaged_chat_stores(unread: dict[str, str], cli_roots: list[Path]) -> list[str]:
    """The chats' stores the index could not read (``State.unread``) that read as damaged now: no later read mends
    them, so each gets the way out ``deja index`` gives, not the wait for a lock it does not hold (trial47 F4).

    Each is read as a refresh reads it (``read_store``), whose failed read ``why_unreadable`` trusts: a count of its
    tables reads a unique key's index, not the table's pages, so a store damaged only there was named by ``deja
    index`` and not here (fixd49)."""
    ids = [sid for sid, why in unread.items() if why == UNREADABLE_STORE]
    if not ids:
        return []
    chat_dirs = find_all_chat_dirs(cli_roots)
    stores = [chat_dirs[sid] / STORE_DB for sid in ids if sid in chat_dirs]
    for store in stores:
        read_store(store)
    return sorted(str(store) for store in stores if why_unreadable(str(store)) == "damaged")


def _damaged_chat_store_problems(damaged: list[str], dropped: Callable[[str], str]) -> list[Finding]:
    """The first ``DAMAGED_SHOWN`` damaged chat stores by name, with the ``mv`` that moves each away and what the
    index drops then, as ``deja index`` says it (``dropped``: ``moved_away.dropped_with``): nothing, of a store it
    never read (review47f M2); then how many more, on one line, as doctor's other long lists end: a finding each
    filled the report with as many as there were (fix47h)."""
    named = [_damaged_chat_store(store, dropped(store)) for store in damaged[:DAMAGED_SHOWN]]
    if len(damaged) <= DAMAGED_SHOWN:
        return named
    more = _count(len(damaged) - DAMAGED_SHOWN, "more chat store")
    fix = "move each away as above; `deja index` names the next one it cannot read"
    return [*named, Finding("warn", "history", f"and {more} damaged likewise", fix)]


def _damaged_chat_store(store: str, lost: str) -> Finding:
    kept = "the index keeps what it read from it before" if lost else "nothing was read from it before"
    return Finding("warn", "history", f"{store} is damaged: no read mends it, and {kept}", _move_away(store, lost))


def _move_away(path: str, lost: str) -> str:
    """The ``mv`` that moves the damaged ``path`` out of deja's way, and what the index is then without, ``lost``
    (``moved_away.dropped_with``): nothing, of a store it never read, where "its chats go with it" was said of an
    editor database nothing was read from (review47k L2)."""
    goes = f", and without {lost}" if lost else ""
    return f"{move_away(path)}  (a damaged file stays so; `deja index` then reads on without it{goes})"


def _not_damaged(
    skipped: dict[str, int], chats: ChatSurvey, damaged: list[str], transcribed: set[str]
) -> tuple[dict[str, int], ChatSurvey]:
    """The counts of what could not be read less the ``damaged`` chat stores, which are named apart with their own
    fix: the lines that count the rest say "quit Cursor", which does not mend them (trial47 F4)."""
    alone = sum(Path(store).parent.name not in transcribed for store in damaged)
    return _less_stores(skipped, len(damaged)), msgspec.structs.replace(
        chats, unreadable=_less_stores(chats.unreadable, alone)
    )


def _less_stores(counts: dict[str, int], stores: int) -> dict[str, int]:
    left = {**counts, UNREADABLE_STORE: counts.get(UNREADABLE_STORE, 0) - stores}
    return {reason: n for reason, n in left.items() if n > 0}


def _history_problems(
    stores: list[Store],
    looked_in: list[Path],
    skipped: dict[str, int],
    chats: ChatSurvey,
    forbidden_files: list[str],
    indexed_elsewhere: bool,
    dropped: Callable[[str], str],
) -> list[Finding]:
    problems = []
    if not any(store.count for store in stores) and not indexed_elsewhere:  # (``_out_of_sight`` says why instead)
        problems.append(no_history(looked_in))
    # (a database this user may not read is named with the files and folders it may not read, with their chmod)
    problems.extend(
        _unreadable_store(store, dropped) for store in stores if store.unreadable and not forbidden(store.path)
    )
    # A database that cannot be opened is reported above, by path, as it is now.
    unread = {
        reason: n
        for reason, n in skipped.items()
        if reason in RETRIED and not any(reason in s.unreadable for s in stores)
    }
    if unread:
        what = ", ".join(f"{n} × {reason}" for reason, n in sorted(unread.items(), key=lambda kv: -kv[1]))
        problems.append(Finding(
            "warn",
            "history",
            f"the index skipped what it could not read: {what}",
            # (``--full`` refuses while a file it read sessions from cannot be read: it would lose them)
            "make the files named below readable, then `deja index`" if forbidden_files else
            # (neither the count nor the index keeps why: a lock, or a mode given back since, trial52 F4)
            "run `deja index` again: what was locked or not readable then may read now (quit Cursor or cursor-agent "
            "first if one is at work); what still fails to read then is damaged in Cursor's own files",
        ))  # fmt: skip
    damaged = {reason: n for reason, n in chats.unreadable.items() if reason != FORBIDDEN_STORE}  # (named below)
    if damaged:
        what = ", ".join(f"{n} × {reason}" for reason, n in sorted(damaged.items(), key=lambda kv: -kv[1]))
        problems.append(Finding(
            "warn",
            "history",
            f"{_count(sum(damaged.values()), 'cursor-agent chat')} without a transcript that deja cannot read: "
            f"{what}",
            "close cursor-agent and run `deja index`; what stays unreadable is damaged or empty in cursor-agent's own "
            "chat folders (`deja doctor --json` counts them under unreadable_chats)",
        ))  # fmt: skip
    return problems


def _index_problems(index: IndexStatus, damage: str) -> list[Finding]:
    if index.state == "missing":  # (unless deja cannot write it there: that is the finding, ``_unwritable_home``;
        missing = f"no index at {index.path}: deja has nothing to serve yet"  # or a relative DEJA_HOME, refused)
        refused = index.unwritable or config.relative_folder()  # (every command refuses it: review19 R19-3)
        return [] if refused else [Finding("error", "index", missing, "deja index")]
    if index.state == "damaged":
        return [Finding("error", "index", damage, "deja index")]
    if index.state == "older":
        what = f"{index.path} was built by an older deja ({damage})"
        fix = "deja index  (rebuilds it from your Cursor history; nothing Cursor still holds is lost)"
        return [Finding("warn", "index", f"{what}; this deja rebuilds it on first use, or now", fix)]
    if index.state == "newer":  # (left as it is: rebuilt here, the newer deja would rebuild it back, trial49 F9)
        what = f"{index.path} was built by a newer deja; this one leaves it as it is and serves nothing from it"
        fix = "upgrade deja, or set DEJA_HOME to another folder for this one"
        return [Finding("error", "index", what, fix)]
    if index.state == "unreadable":
        folder, fix = forbidden_fix(index.path)
        what = f"cannot read {folder}: permission denied (a rebuild could not write it either)"
        return [Finding("error", "index", what, fix)]
    return [
        Finding(
            "warn",
            "index",
            f"transcript folder {slug} names {len(folders)} folders ({', '.join(folders)}): its chats that do not "
            "say which one they ran in (by the paths their tools touched or their messages name) have no project folder",
        )
        for slug, folders in index.shared_slugs.items()
    ]


def _kept_index_problems(home: Path) -> list[Finding]:
    """An index a rebuild kept aside because it could not read every Cursor store then: the sessions only it holds
    are missing from the index until those stores read again, and no deja command reads it."""
    findings = []
    for kept in kept_indexes(index_dir(home)):
        size, _ = _stat([p for p in kept.rglob("*") if p.is_file()])
        what = (
            f"{kept} ({_size(size)}) holds the index a rebuild replaced while some Cursor stores could not be read: "
            "their sessions are missing from the index until they read again"
        )
        fix = f"make those stores readable (a locked one: quit Cursor), run `deja index --full`; then rm -r {kept}"
        findings.append(Finding("warn", "index", what, fix))
    return findings


def _unwritable_home(home: Path, index: IndexStatus) -> list[Finding]:
    """deja's home or its index folder, when this user cannot write it: ``deja index`` and every refresh would fail
    (a search would answer from an index that never catches up), so it is an error with its fix; why is kept on
    ``index`` too, so the screen does not promise that a search catches up."""
    if index.state == "unreadable":  # (said already, with its own fix)
        return []
    if target := leads_nowhere(index_dir(home)):  # (a write through it says "No such file": review20 R20-9)
        index.unwritable = f"{index_dir(home)}: a link to {target}, which leads nowhere"
        what = f"deja's index folder {index_dir(home)} is a link to {target}, which leads nowhere: no index is kept"
        return [Finding("error", "index", what, nowhere_fix(target))]
    if blocker := config.file_in_path(str(index_dir(home))):  # (its parent may be writable: the probe finds nothing)
        index.unwritable = f"{blocker}: not a folder"
        if blocker == str(index_dir(home)):  # (the home is fine: the file is the one thing in the way)
            what = f"deja's index folder {blocker} is a file, not a folder: the index cannot be kept in it"
            return [Finding("error", "index", what, f"move {blocker} aside (deja makes its index there)")]
        made = "is a file, not a folder" if blocker == str(home) else f"cannot be made: {blocker} is a file"
        what = f"deja's home {home} {made}: the index cannot be kept in it"
        return [Finding("error", "index", what, file_home_fix(blocker))]
    folder, why = unwritable_home_folder(home)
    if not folder:
        return []
    if folder == str(home) and index_dir(home).is_dir() and not cannot_write(index_dir(home)):
        return [_hooks_stopped(home, why)]  # (the index's own folder takes files: every refresh still writes it)
    index.unwritable = f"{folder}: {why}"
    what = f"cannot write {folder} ({why}): `deja index` and every refresh write the index there"
    if not home.is_dir():  # (the folder above the home is not deja's: review42d H1)
        what = f"deja's home {home} does not exist and cannot be made in {folder} ({why}): no index can be kept"
    return [Finding("error", "index", what, home_fix(home, folder, why))]


def _hooks_stopped(home: Path, why: str) -> Finding:
    """deja's home, when this user cannot write it but can write its index folder: refreshes still write the index,
    but the hooks can start no server (its socket is made in the home: each hook then answers in its own process)
    and make no hooks.log, nor a new one once it passes 1 MiB (then they log nothing). It was said as "`deja index`
    and every refresh write the index there", of an index that updated, and the hook server's line promised that the
    next hook "starts one" (trial58 T7)."""
    log = (
        "start a new hooks.log once this one passes 1 MiB (then they log nothing)"
        if (home / "hooks.log").is_file()
        else "make hooks.log (they log nothing)"
    )
    what = (
        f"cannot write {home} ({why}): the hooks can neither start their server (every hook runs in its own "
        f"process) nor {log}; refreshes still write the index in {index_dir(home)}"
    )
    return Finding("error", "delivery", what, home_fix(home, str(home), why))


#: The free space below which a refresh may not fit: it writes its new segments beside the index, merges small ones
#: into one, and writes its bookkeeping again, before the old ones go (tens of MB in a big history's refresh).
LOW_SPACE_BYTES = 64 * 1000 * 1000


def _low_space(home: Path, index: IndexStatus) -> list[Finding]:
    """A warning when the disk that holds the index has too little room for a refresh (trialL: a full disk made
    every ``deja index`` fail, while doctor said a search would catch up). Not when a folder cannot be written at
    all (said already, with its fix)."""
    if index.unwritable:
        return []
    folder = folders_written(home)[-1]
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return []
    if free >= LOW_SPACE_BYTES:
        return []
    return [
        Finding(
            "warn",
            "index",
            f"only {_size(free)} free on the disk that holds {folder}: `deja index` and searches may fail to "
            "refresh the index (what it holds stays as it is)",
            f"{write_fix(home, folder, os.strerror(errno.ENOSPC))}, then run deja index",
        )
    ]


def _file_size_limit(index: IndexStatus) -> list[Finding]:
    """A warning when this process's file-size limit (``ulimit -f``, which the shell's commands inherit) is below
    what a refresh may write (64 MB, or the largest file a merge of the index writes when larger,
    ``_largest_write``): doctor said "fix: deja index" to a user whose every ``deja index`` the limit stopped (trial48
    F5). The limit is a file's: compared with the whole index's size, it warned of files no refresh writes (review48a
    L2)."""
    import resource

    limit, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
    if limit == resource.RLIM_INFINITY or limit >= LOW_SPACE_BYTES and limit >= _largest_write(Path(index.path)):
        return []
    return [
        Finding(
            "warn",
            "index",
            f"a file-size limit of {_size(limit)} is set (ulimit -f): `deja index` and searches fail to write an "
            "index file larger than that (what the index holds stays as it is)",
            "ulimit -f unlimited, then run deja index",
        )
    ]


def _largest_write(directory: Path) -> int:
    """The bytes of the largest file a refresh may write in the index folder ``directory``: a merge of every segment
    writes each of a segment's files once for them all (their bytes summed by the file's name); any other file is
    rewritten as it is (the freshness record). Segments a refresh replaced count until they are removed."""
    sizes: Counter[str] = Counter()
    try:
        for path in directory.rglob("*"):
            if path.is_file():
                sizes[path.name if path.parent.name.startswith("seg-") else str(path)] += _stat([path])[0]
    except OSError:  # (a folder it cannot read: what it could is counted)
        pass
    return max(sizes.values(), default=0)


def _stat(files: list[Path]) -> tuple[int, datetime | None]:
    """Total size and newest modification time of the files that exist."""
    size, newest = 0, 0.0
    for path in files:
        try:
            st = path.stat()
        except OSError:
            continue
        size += st.st_size
        newest = max(newest, st.st_mtime)
    return size, _local(newest) if newest else None


def _local(epoch: float) -> datetime:
    return datetime.fromtimestamp(int(epoch)).astimezone()


def _ide_stores() -> tuple[list[Store], ChatCensus]:
    """Each editor database, its chats counted as a person counts them (``chat_census``), and the chats of all of
    them once each (a workspace database repeats a chat the global one holds) with the composers that are none."""
    stores, chats, others = [], set(), 0
    for db in paths.ide_databases():
        problems: Counter[str] = Counter()
        census = chat_census(db, paths.include_subagents(), problems=problems)
        chats |= census.chats
        others += census.others
        size, newest = _stat([db, db.with_name(db.name + "-wal")])
        unreadable = ", ".join(sorted(problems))
        stores.append(Store("cursor-ide", str(db), len(census.chats), size, newest, unreadable))
    return stores, ChatCensus(chats, others)


def _cli_stores(root: Path) -> list[Store]:
    """The root's transcripts and its chat stores (``store.db`` with its WAL), when the root exists, each when it
    holds any: a config root of split roots holds chat stores alone (cursor-drift-2026 §9), and "0 transcripts,
    0 B, last written unknown time" above its stores read as something missing.

    (``os.path``'s probes, not ``Path``'s: ``Path.is_file`` raises where a folder above cannot be searched.)
    """
    if not os.path.isdir(root):
        return []
    transcripts = [Path(found.path) for found in scan_transcripts(root, paths.include_subagents())]
    chat_dbs = [d / STORE_DB for d in find_all_chat_dirs([root]).values() if os.path.isfile(d / STORE_DB)]
    stores = []
    if transcripts or not chat_dbs:  # (a root holding neither: 0 transcripts, which the screen says as "no chats yet")
        stores.append(Store("cli-transcripts", str(root / "projects"), len(transcripts), *_stat(transcripts)))
    if chat_dbs:
        wal = [db.with_name("store.db-wal") for db in chat_dbs]
        stores.append(Store("cli-chat-stores", str(root / "chats"), len(chat_dbs), *_stat(chat_dbs + wal)))
    return stores


def _forbidden_files(
    transcripts: list[str], cli_roots: list[Path], home: Path, state: State | None, unlisted: list[str]
) -> list[str]:
    """The Cursor files this user may not read, or the folders above them that hide them
    (``regular_files.forbidden``): every transcript, store and editor database the roots show (and the
    ``workspace.json`` beside each workspace's, which names its chats' folder), every file the index
    read a session from (a folder at mode 000 hides its files from a walk, not from the index's record), and the
    ``unlisted`` folders, which hide every chat below them from a walk."""
    candidates = transcripts + [str(d / STORE_DB) for d in find_all_chat_dirs(cli_roots).values()]
    databases = paths.ide_databases()
    candidates += [str(db) for db in databases]
    candidates += [str(db.parent / paths.WORKSPACE_JSON) for db in databases if db.parent.name != paths.GLOBAL_STORAGE]
    if state is not None:
        candidates += list(state.ide)
        for _, chat in Bookkeeping(index_dir(home), state).items():
            if chat.cli is not None:
                candidates += [chat.cli.transcript, os.path.join(chat.cli.chat_dir or "", STORE_DB)]
    return sorted({blocker for path in candidates if path and (blocker := forbidden(path))} | set(unlisted))


def _forbidden_problems(files: list[str], unlisted: list[str], unread_databases: list[str]) -> list[Finding]:
    """The files and folders this user may not read, by name, and the command that makes them readable: an error
    when a folder no walk can list is among them (nothing of the chats below it may be in the index), or an editor
    database (``unread_databases``: an error whatever keeps it from being read), else a warning (the index keeps
    what it read from them)."""
    if not files:
        return []
    error = bool(unlisted) or any(forbidden(db) for db in unread_databases)
    shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    return [
        Finding(
            "error" if error else "warn",
            "history",
            f"deja may not read {shown}: permission denied, so nothing new is read from there (the index keeps "
            "what it read before)",
            f"{readable_command(files)}, then `{after_made_readable(files)}`",
        )
    ]


def _not_utf8_problems() -> list[Finding]:
    """A root whose own path is not UTF-8 (an error: no index can be written), and the files and folders the walks
    above passed over for a name that is not UTF-8 (a warning: the rest is read)."""
    root = folders.not_utf8_root()
    found = not_utf8_finding()
    return [
        *([Finding("error", "history", f"{root}: {folders.NOT_UTF8_ROOT}", folders.NOT_UTF8_ROOT_FIX)] if root else []),
        *([Finding("warn", "history", *found)] if found else []),
    ]


def _dropped_bytes(directory: Path, index: Index, state: State) -> int:
    """The bytes of what lies in the index folder that its manifest does not name: segments a refresh replaced (and
    a killed build's temporary files), which the first refresh nobody waits on after their grace period removes, and
    the bookkeeping a search's refresh replaced (``bookkeeping.unreferenced``), which it removes too."""
    live = {os.path.basename(segment.path) for segment in index.segments}
    dropped = [directory / name for name in segments_and_temporaries(directory) - live]
    dropped += [Path(path) for path in unreferenced(directory, state, index.manifest.state)]
    size, _ = _stat([f for path in dropped for f in (path.rglob("*") if path.is_dir() else [path]) if f.is_file()])
    return size


def _index_status(home: Path, newest: datetime | None) -> tuple[IndexStatus, State | None, str]:
    """The index as a reader finds it, its writer's bookkeeping, and what is wrong with it (if anything)."""
    directory = index_dir(home)
    try:
        check_readable(directory)
    except IndexForbidden as exc:
        return IndexStatus(str(directory), "unreadable"), None, str(exc)
    size, _ = _stat([p for p in directory.rglob("*") if p.is_file()])
    if not (directory / MANIFEST).exists():
        return IndexStatus(str(directory), "missing", bytes=size), None, ""
    try:
        index = Index.open(home)
        index.verify()
        state = read_record(directory / index.manifest.state, State)
        Bookkeeping(directory, state).verify()
    except IndexOtherFormat as exc:
        return IndexStatus(str(directory), "older" if exc.older else "newer", bytes=size), None, str(exc)
    except IndexUnreadable as exc:
        return IndexStatus(str(directory), "damaged", bytes=size), None, str(exc)
    built = index.manifest.built_at
    dropped = _dropped_bytes(directory, index, state)
    signals: Counter[str] = Counter()
    unplaced: Counter[str] = Counter()
    unread = 0
    for _, _, meta in index.sessions():
        signals[_placed_by(meta)] += 1
        unplaced[meta.project] += meta.source == "cursor-cli" and not meta.project_dir and bool(meta.project)
        unread += meta.source == "cursor-ide" and not meta.messages
    shared = {
        slug: sorted(folders)
        for slug in +unplaced
        if len(folders := [str(f) for f in slug_folders(slug)]) > 1 and not outermost(folders)
    }
    if shared:  # (their folders exist, several of them: not "no such folder")
        signals[NAME_SHARED] = sum(unplaced[slug] for slug in shared)
        signals[NAME_ALONE] -= signals[NAME_SHARED]
    status = IndexStatus(
        path=str(directory),
        state="ok",
        bytes=size - dropped,
        dropped_bytes=dropped,
        sessions=index.session_count,
        messages=index.message_count,
        built_at=_local(built),
        age_seconds=round(time.time() - built, 1),
        stale=newest is not None and newest.timestamp() > int(built),
        project_signals={s: signals[s] for s in sorted((+signals).keys() - {""}, key=_signal_rank)},
        without_project=signals[""],
        shared_slugs=shared,
        editor_chats_unread=unread,
    )
    return status, state, ""


#: What placed a session in a project known by its name alone: its transcript folder's, no folder on disk.
NAME_ALONE = "a transcript folder's name alone (no such folder)"
#: The same, when several existing folders encode to that name and the chats did not say which they ran in.
NAME_SHARED = "a transcript folder's name several folders share"
#: What placed a session in a remote window's folder (SSH, a container, WSL), which is no folder of this machine.
REMOTE = "a remote window's folder (not on this machine)"


def _placed_by(meta: SessionMeta) -> str:
    """What placed ``meta``'s session in its project, as doctor counts it; "" when it has none."""
    if meta.project_dir:
        return meta.project_from
    if meta.project_from:  # (a remote window's chat: a signal, and no folder here: ``readers.remote``)
        return REMOTE
    # (a transcript folder's name decoded to no folder on disk names its chats' project as it is, folder unknown)
    return NAME_ALONE if meta.project else ""


def _signal_rank(signal: str) -> tuple[int, str]:
    return (SIGNALS.index(signal) if signal in SIGNALS else len(SIGNALS), signal)


# --------------------------------------------------------------------------- the screen


def report_json(report: Report) -> dict:
    """The report as JSON-ready data; times stay datetimes, which ``emit_json`` writes as ISO 8601 with an offset."""
    return _as_printed(msgspec.to_builtins(report, builtin_types=(datetime,)))


def _as_printed(value: Any) -> Any:
    """``value`` as doctor prints it: each secret redacted, whatever the setting (``wiring.unsecret``), and each
    path's byte that is not UTF-8 shown as ``\\xNN`` (``surrogates_escaped``), as ``deja index`` names such a root:
    doctor wrote the byte itself, which no UTF-8 reader of its output takes (names49). The shell's own DEJA_HOME
    (or a Cursor folder) named after a key was printed whole in every line naming the index (fixd52)."""
    from ..installers.wiring import unsecret

    if isinstance(value, str):
        value = unsecret(value)
        return value if value.isascii() else surrogates_escaped(value)
    if isinstance(value, dict):
        return {key: _as_printed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_printed(item) for item in value]
    return value


def report_text(report: Report, width: int | None = None) -> str:
    """One screen: each section's state, each problem under it with its fix, and a verdict.

    Problems and fixes wrap at word boundaries within ``width`` (the terminal's), under their own indent.
    """
    lines = [f"deja {report.version}", "", "Cursor history"]
    ide = [s for s in report.stores if s.kind == "cursor-ide"]
    if ide:
        chats, databases = _count(report.editor_chats, "chat"), _count(len(ide), "database")
        size, newest = _size(sum(s.bytes for s in ide)), max((s.newest for s in ide if s.newest), default=None)
        not_chats, plural = report.editor_not_chats, "s" if report.editor_not_chats != 1 else ""
        others = f" (and {not_chats} empty draft{plural} or subagent thread{plural})" if not_chats else ""
        lines.append(f"  editor        {report.ide_root}")
        lines.append(f"                {chats}{others} in {databases}, {size}, last written {when(newest)}")
    else:
        lines.append(f"  editor        {report.ide_root}: nothing there")
    if report.index.editor_chats_unread:
        unread = _count(report.index.editor_chats_unread, "editor chat")
        alone = "listed by name, project and dates alone: Cursor keeps their messages where deja cannot read them"
        lines.append(f"                {unread} {alone}")
    for root in report.cli_roots:
        found = {s.kind: s for s in report.stores if Path(s.path).parent == Path(root)}
        lines.append(f"  cursor-agent  {root}" + ("" if found else ": nothing there"))
        for kind, noun in (("cli-transcripts", "transcript"), ("cli-chat-stores", "chat store")):
            if kind in found:
                s = found[kind]
                held = f"{_count(s.count, noun)}, {_size(s.bytes)}, last written {when(s.newest)}"
                # (a root holding neither: "0 transcripts … unknown time" of a config root read as one missing them)
                lines.append(f"                {held if s.count else 'no chats yet'}")
    if report.chats_without_transcript:  # (a count of none said nothing, on a history with no chat too: trial47 F5)
        store_only = report.chats_without_transcript
        lines.append(f"  cursor-agent chats read from their store alone (no transcript): {store_only}")
    if passed_over := {reason: n for reason, n in report.skipped.items() if reason not in RETRIED}:
        what = ", ".join(f"{n} × {reason}" for reason, n in sorted(passed_over.items(), key=lambda kv: -kv[1]))
        lines.append(f"  passed over, empty or damaged in Cursor's own files (Cursor passes them over too): {what}")
    lines += _problem_lines(report, "history")

    index = report.index
    state = {"older": "built by an older deja", "newer": "built by a newer deja"}.get(index.state, index.state)
    lines += ["", "Index"]
    if not (index.state == "missing" and index.unwritable):  # (it follows from the error below, which says why)
        lines.append(f"  {index.path}" + ("" if index.state == "ok" else f": {state}"))
    if index.state == "ok":
        fresh = "stale: Cursor wrote since (`deja index` or any search catches up)" if index.stale else "up to date"
        if index.unwritable:  # nothing catches up until deja can write its index again (the error below)
            fresh = "stale: Cursor wrote since, and deja cannot write the index" if index.stale else "up to date so far"
        lines.append(
            f"  {_count(index.sessions, 'session')}, {_count(index.messages, 'message')}, {_size(index.bytes)}"
            f"{_dropped_note(index.dropped_bytes)}, built {when(index.built_at)} ({_age(index.age_seconds or 0)} ago), {fresh}"
        )
        lines.append(f"  projects: {_projects_line(index)}")
    lines += _problem_lines(report, "index")

    lines += ["", "Wiring"]
    lines += [f"  ok     {f.message}" for f in report.wiring if f.level == "ok"]
    lines += _problem_lines(report, "wiring")
    lines += ["", "Settings", *(_problem_lines(report, "settings") or [_settings_ok_line()])]
    lines += ["", "Delivery (Cursor's hook logs)", *_delivery_lines(report.delivery, report.hook_decisions)]
    lines.append(f"  hook server: {report.hook_server}")
    lines += _problem_lines(report, "delivery")

    lines += ["", _verdict(report)]
    return "\n".join(line for text in lines for line in _wrap(_as_printed(text), width))  # (a secret, then a wrap)


def _verdict(report: Report) -> str:
    """The last line: what needs doing, or what deja can do; never "can serve your history" when there is none."""
    errors = sum(p.level == "error" for p in report.problems)
    warnings = len(report.problems) - errors
    if errors:
        return f"deja needs you: {_count(errors, 'error')}, {_count(warnings, 'warning')}; each fix is above."
    above = f"; {_count(warnings, 'warning')} above" if warnings else ""
    if not report.index.sessions and not any(store.count for store in report.stores):
        return f"deja works, but has no Cursor history to serve yet{above}."
    return f"deja can see and serve your history{above}."


def _projects_line(index: IndexStatus) -> str:
    """Which signal gave the sessions their project (best first), and how many have none."""
    found = ", ".join(f"{n} from {signal}" for signal, n in index.project_signals.items())
    return f"{found or 'none found'}; {_count(index.without_project, 'session')} without a project"


def _delivery_lines(delivery: Delivery | None, decisions: list[Decision]) -> list[str]:
    """Per event, when Cursor last ran deja's hook and when it last returned context; where no log of Cursor's
    says, what deja's own hooks.log does (on a cursor-agent-only machine, the only proof there is: trial18 F5)."""
    if delivery is None or not delivery.log_files:
        where = delivery.logs_dir if delivery else "Cursor's logs folder"
        if decisions:
            return [f"  no Cursor hook log under {where} (cursor-agent writes none)", _decisions_line(decisions)]
        return [f"  no Cursor hook log under {where}: nothing proves the hooks ran (cursor-agent writes none)"]
    if not delivery.events:
        none = f"  {_count(delivery.log_files, 'hook log')} in {delivery.logs_dir}, none with a run of deja's hooks"
        return [none, *([_decisions_line(decisions)] if decisions else [])]
    lines = []
    for event in delivery.events:
        context = f"context last {when(event.last_context)}" if event.last_context else "never returned context"
        lines.append(f"  {event.event:<20} ran {_count(event.runs, 'time')}, last {when(event.last_run)}; {context}")
    return lines


def _decisions_line(decisions: list[Decision]) -> str:
    """What the newest lines of deja's hooks.log prove: how many calls since when, the last one, and how many gave
    context. Only the newest ``DECISIONS`` are read: where there are as many, more may have run in the minute the
    first of them gives, so they are named as the newest (trial55: "ran 20 times since 19:27" where some 50 had)."""
    last = decisions[-1]
    outcome = f"gave {last.gave_bytes} bytes" if last.gave_bytes else "silent"
    gave = sum(d.gave_bytes > 0 for d in decisions)
    ran = (
        f"its newest {len(decisions)} calls ran"
        if len(decisions) >= DECISIONS
        else f"the hooks ran {_count(len(decisions), 'time')}"
    )
    return (
        f"  deja's hooks.log: {ran} since {_logged(decisions[0])}, "
        f"last {_logged(last)} ({last.event}, {outcome}); {gave} of them gave context"
    )


def _logged(decision: Decision) -> str:
    """A hooks.log time as ``when`` shows times; as written when it cannot be read."""
    try:
        return when(datetime.fromisoformat(decision.when))
    except ValueError:
        return decision.when


def _problem_lines(report: Report, area: Area) -> list[str]:
    lines = []
    for problem in report.problems:
        if problem.area == area:
            label = "ERROR" if problem.level == "error" else problem.level
            lines += [f"  {label:<5}  {problem.message}", *([f"         fix: {problem.fix}"] if problem.fix else [])]
    return lines


# A line's head: its indent and a label in its own column ("editor", "ERROR", "fix:"), which continuations align under.
_HEAD = re.compile(r"\s*(?:fix: |\S+\s{2,})?")


def _wrap(line: str, width: int | None) -> list[str]:
    """``line`` wrapped between words within ``width``, continuations under its text; a path longer than a line stays whole."""
    head = _HEAD.match(line)
    if width is None or len(line) <= width or head is None:
        return [line]
    indent = " " * head.end()
    return textwrap.wrap(
        line[head.end() :],
        width=max(width, head.end() + 20),
        initial_indent=line[: head.end()],
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"


def _dropped_note(dropped: int) -> str:
    """`` (1.4 MB more in what a refresh replaced, …)`` beside the index's size when some waits to be removed (retired
    segments, whose grace is a minute, and bookkeeping no manifest names), else ""."""
    if not dropped:
        return ""
    return f" ({_size(dropped)} more in what a refresh replaced, removed by the next background refresh or deja index, a segment once a minute old)"


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB"):
        if n < 1000:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"


def _age(seconds: float) -> str:
    for limit, step, unit in ((60, 1, "s"), (3600, 60, "min"), (86400, 3600, "h")):
        if seconds < limit:
            return f"{seconds // step:.0f} {unit}"
    return f"{seconds // 86400:.0f} days"
