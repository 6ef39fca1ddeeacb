"""The folders a hook or a ``deja search`` needs (the user's home, deja's home, Cursor's folders), as plain strings.

A hook works these out on every call, and ``pathlib`` would cost it about 5 ms
of imports (``re``, ``enum``, ``functools``, ``collections``, ``urllib.parse``,
``ipaddress``): more than its own work. So they are found here with
``os.path``, and ``paths.py`` builds its ``Path`` API on these same functions
for the rest of deja.

Every function reads the environment when called, so tests can point HOME and
the overrides at a temporary directory.

Cursor's roots (the editor's ``User`` folder, cursor-agent's roots) are named
where their links lead (:func:`real_folder`), here, once per root: every store
deja records (an editor database, a transcript, a chat folder) is named below a
root, so one spelling of the root is one spelling of each store for the
freshness record, the bookkeeping, the refresh plan and doctor, which compare
them as strings. A root named through a link one time and not another (a
dotfiles link, a hook's environment, macOS's ``/var`` and ``/private/var``)
made each store a new one: a refresh read all 40,000 chats of an editor
database again to find nothing changed. Resolving each store where it is
compared instead would cost a ``realpath`` per chat on a read's cheap check.
"""

from __future__ import annotations

import sys

from . import config, oscalls

#: What a hook imports from outside the standard library (``tests/test_layers.py`` checks it).
HOOK_DEPENDENCIES = ("Stemmer",)


def launcher_folder(package: str) -> str | None:
    """The folder to put on ``sys.path`` for the package ``deja`` at ``package`` and every module a hook needs, or
    None where only ``site`` finds them (an editable install; PyStemmer in another site-packages).

    The hook launcher (``interfaces/hook.py``, started with ``-I -S``) skips ``site`` where this is a folder, and
    the installers write that launcher only then: one answer for both, so no hook is written that cannot start.
    """
    if oscalls.basename(package) != "deja":
        return None
    folder = oscalls.dirname(package)
    # The import system's own finder (``importlib.machinery.PathFinder``, from the module the interpreter started
    # with: importing ``importlib`` would load ``warnings`` too). Its listing of the folder serves the imports after.
    from _frozen_importlib_external import PathFinder

    return folder if all(PathFinder.find_spec(name, [folder]) for name in HOOK_DEPENDENCIES) else None


def setting(key: str, environment: bool = True) -> str:
    """A folder setting (``DEJA_…`` variable, else the config file), or "" when unset.

    Without ``environment``, the file alone: what Cursor's hooks and MCP server get.
    """
    value = config.resolve(key, environment=environment).value
    return str(value) if value else ""


def home() -> str:
    """The user's home folder (as ``HOME`` names it, tidied: no trailing slash)."""
    return oscalls.normpath(oscalls.expanduser("~"))


def home_spellings() -> tuple[str, str]:
    """The home folder as ``HOME`` names it and where its links lead (``oscalls.realpath``): a folder below a home
    reached through a link (``/home/alice`` a link to ``/data/alice``) may be named either way, and the home folder
    is the project of no folder below it, whichever spelling names it (``Index.nearest_project``, ``--project``)."""
    folder = home()
    return folder, real_folder(folder)


#: Linux's PATH_MAX: a longer "folder" (a hook's payload can say anything) is no folder on disk, kept as it is.
_PATH_MAX = 4096


def real_folder(folder: str) -> str:
    """``folder`` with the links on its way followed (``oscalls.realpath``), as the disk has them now. One that
    ``realpath`` cannot take (a NUL byte a store or a setting kept, a loop) is kept as it is, so that none stops a
    build or a hook; so is one longer than any path (``realpath``'s time grows with the square of its parts)."""
    try:
        return oscalls.realpath(folder) if len(folder) <= _PATH_MAX else folder
    except (OSError, ValueError):
        return folder


def missing_home() -> str:
    """The home folder when it does not exist and deja's own would be made in it (``deja_home``); else "". An
    index set elsewhere (``DEJA_HOME``, ``XDG_CACHE_HOME``, the config's ``home``) is not asked about."""
    folder = home()
    if oscalls.isdir(folder):
        return ""
    home_folder = oscalls.abspath(folder)  # (a relative HOME is taken in the current folder, as a shell takes it)
    import os  # (a hook asks no missing home: it never imports os)

    return folder if os.path.commonpath([oscalls.abspath(deja_home()), home_folder]) == home_folder else ""


def cursor_config_dir() -> str:
    """``${CURSOR_CONFIG_DIR:-~/.cursor}``: where Cursor reads mcp.json, hooks.json and commands (installers write here).
    A relative value (``relative_cursor_config_dir``) is taken as unset: install and uninstall refuse it, and a hook,
    started in whatever folder Cursor chooses, cannot tell which folder it meant; to the hook ``~/.cursor`` stays
    Cursor's own folder, never a project (it took the value as a folder no path is in, so ``~/.cursor`` was one)."""
    return _absolute_cursor_config_dir() or oscalls.join(home(), ".cursor")


def missing_cursor_config_dir() -> str:
    """The folder an absolute ``CURSOR_CONFIG_DIR`` names when there is none there, else "": a typo, where
    cursor-agent keeps nothing and ``deja install`` would make it in silence (trial46 F3)."""
    folder = _absolute_cursor_config_dir()
    return folder if folder and not oscalls.isdir(folder) else ""


def _absolute_cursor_config_dir() -> str:
    return "" if relative_cursor_config_dir() else config.folder_variable("CURSOR_CONFIG_DIR")


def relative_cursor_config_dir() -> str:
    """``CURSOR_CONFIG_DIR`` as set when it names a relative folder, else "". It is another folder wherever a process
    starts: an install wired ``relcfg`` in one folder, an uninstall run in another found nothing of deja's there and
    dropped the install's record, so the right one then left deja's ``.bak`` files behind (trial46 F1). Install and
    uninstall refuse it, doctor names it. So is a ``~`` no shell expanded (``CURSOR_CONFIG_DIR='~/cfg'``: a shell
    leaves a quoted one as it is, and what reads the variable as a path, as Cursor may, gets a folder named ``~``
    in its own; deja wired ``$HOME/cfg``: review46f L3)."""
    raw = oscalls.getenv("CURSOR_CONFIG_DIR", "").strip()
    return raw if raw and (raw.startswith("~") or not oscalls.isabs(raw)) else ""


def relative_cursor_config_dir_problem(raw: str) -> str:
    """Why the ``relative_cursor_config_dir`` ``raw`` names no one folder, as install, uninstall and doctor say it."""
    what = (
        "a ~ no shell expanded (it was in quotes) makes a relative folder,"
        if raw.startswith("~")
        else "a relative folder is"
    )
    return f"{what} another one wherever deja or Cursor runs"


#: What to do about ``relative_cursor_config_dir``.
ABSOLUTE_CURSOR_CONFIG_DIR = "give CURSOR_CONFIG_DIR an absolute path, or unset it"


#: The variables that move cursor-agent's folders (below): a process Cursor starts sees them only if Cursor got them.
ROOT_VARIABLES = ("CURSOR_CONFIG_DIR", "CURSOR_DATA_DIR", "XDG_CONFIG_HOME")


def moving_root_variables() -> list[str]:
    """Those of ``ROOT_VARIABLES`` this environment sets to another folder than the one they stand for unset
    (``~/.cursor``; ``~/.config`` for ``XDG_CONFIG_HOME``): one set to its default moves nothing, and doctor told
    people to start Cursor with it (trial45 F3)."""
    default = {"XDG_CONFIG_HOME": oscalls.join(home(), ".config")}
    return [
        name
        for name in ROOT_VARIABLES
        if (value := config.folder_variable(name))
        and real_folder(value) != real_folder(default.get(name, oscalls.join(home(), ".cursor")))
    ]


def _root_folder_variable(name: str, environment: bool) -> str:
    return config.folder_variable(name) if environment else ""


def cursor_data_dir(environment: bool = True) -> str:
    """``${CURSOR_DATA_DIR:-~/.cursor}``: where cursor-agent writes ``projects/*/agent-transcripts``."""
    return _root_folder_variable("CURSOR_DATA_DIR", environment) or oscalls.join(home(), ".cursor")


def cursor_agent_chats_root(environment: bool = True) -> str:
    """Where cursor-agent keeps ``chats/`` and ``acp-sessions/``.

    ``$CURSOR_CONFIG_DIR``, else ``$XDG_CONFIG_HOME/cursor`` when ``XDG_CONFIG_HOME``
    is set, else ``~/.cursor`` (cursor-agent 2026.10.01 and later; README "What deja reads").
    """
    xdg = _root_folder_variable("XDG_CONFIG_HOME", environment)
    return _root_folder_variable("CURSOR_CONFIG_DIR", environment) or (
        oscalls.join(xdg, "cursor") if xdg else oscalls.join(home(), ".cursor")
    )


def cli_roots(environment: bool = True) -> list[str]:
    """The cursor-agent roots: every folder cursor-agent may have written transcripts or chats to, once each, where
    its links lead (two spellings of one folder are one root: the module's docstring says why).

    Since 2026.10.01 transcripts live under the data root and chats under the
    config root (``cursor_agent_chats_root``), and the config root is the first
    of ``$CURSOR_CONFIG_DIR``, ``$XDG_CONFIG_HOME/cursor`` and ``~/.cursor``: a
    chat written while another of them was in force (the variable set since, or
    unset) still sits in it, so each that is set is read, and ``~/.cursor``
    (README "What deja reads"). Every root is searched for both, so
    an older build's layout (everything under one root) reads the same; a chat
    id found under two roots is its copy written last (``newest_chat_dir``).
    ``~/.config/cursor``, XDG's own default, is read when it exists, with or
    without ``XDG_CONFIG_HOME``: a shell that set the variable to it kept its
    chats there, and Cursor's hooks and MCP server (started without it) or
    another shell must still find them. ``DEJA_CURSOR_CLI_ROOT`` replaces
    discovery with one root holding both. Without ``environment``: what a
    process started without this shell's variables (Cursor's hooks and MCP
    server) reads.
    """
    override = setting("cursor_cli_root", environment)
    if override:
        return [real_folder(override)]
    xdg = _root_folder_variable("XDG_CONFIG_HOME", environment)
    xdg_default = oscalls.join(home(), ".config", "cursor")
    found = [
        cursor_data_dir(environment),
        cursor_agent_chats_root(environment),
        oscalls.join(xdg, "cursor") if xdg else "",
        xdg_default if oscalls.isdir(xdg_default) else "",
        oscalls.join(home(), ".cursor"),
    ]
    return list(dict.fromkeys(real_folder(root) for root in found if root))


def deja_home(environment: bool = True) -> str:
    """``${DEJA_HOME:-${XDG_CACHE_HOME:-~/.cache}/deja}``: the index, hook state and logs."""
    return setting("home", environment) or oscalls.join(
        config.folder_variable("XDG_CACHE_HOME") or oscalls.join(home(), ".cache"), "deja"
    )


def ide_user_root(platform: str | None = None, environment: bool = True) -> str:
    """The Cursor IDE's ``User`` folder (``DEJA_CURSOR_ROOT`` overrides discovery), where its links lead (the
    module's docstring says why)."""
    return real_folder(ide_user_folder(platform, environment))


def ide_user_folder(platform: str | None = None, environment: bool = True) -> str:
    """The Cursor IDE's ``User`` folder as Cursor (or the setting) names it, its own link not followed: what lies
    beside it is found from this one (Cursor's ``logs``; the ``User`` folder above a setting that names a folder
    inside it). A ``User`` folder that is a link (synced from a dotfiles folder) leads away from Cursor's folder,
    whose ``logs`` doctor then looked for beside the dotfiles' copy; the stores below it are named from
    :func:`ide_user_root`."""
    override = setting("cursor_root", environment)
    if override:
        return user_folder(override)
    platform = platform or sys.platform
    if platform == "darwin":
        return oscalls.join(home(), "Library", "Application Support", "Cursor", "User")
    if platform.startswith("win"):
        appdata = config.folder_variable("APPDATA") or oscalls.join(home(), "AppData", "Roaming")
        return oscalls.join(appdata, "Cursor", "User")
    xdg = config.folder_variable("XDG_CONFIG_HOME")
    if xdg and oscalls.isdir(oscalls.join(xdg, "Cursor", "User")):
        return oscalls.join(xdg, "Cursor", "User")
    return oscalls.join(home(), ".config", "Cursor", "User")


#: The folder of the editor's global database, in its ``User`` folder: Cursor keeps no ``workspace.json`` there.
GLOBAL_STORAGE = "globalStorage"
#: The file beside a workspace's database naming the folder (or ``.code-workspace`` file) its chats were had in.
WORKSPACE_JSON = "workspace.json"
#: What Cursor keeps in its ``User`` folder that deja reads.
_STORAGE = (GLOBAL_STORAGE, "workspaceStorage")


def user_folder(root: str) -> str:
    """The ``User`` folder a ``cursor_root`` names: itself, or ``root/User`` when ``root`` is Cursor's own folder.

    Cursor's folder is named after the editor (``~/.config/Cursor``), so it is the one a person points at; it holds
    a ``User`` folder with Cursor's storage and no storage of its own, and that ``User`` folder is the only thing the
    setting can mean. Read as written, every chat of the editor went missing with no word (doctor: "nothing
    there"), Cursor's logs were looked for beside ``Cursor``, and every hook and MCP answer lacked them.
    """
    if any(oscalls.isdir(oscalls.join(root, name)) for name in _STORAGE):
        return root
    user = oscalls.join(root, "User")
    return user if any(oscalls.isdir(oscalls.join(user, name)) for name in _STORAGE) else root


#: The files and folders in Cursor's folders this process passed over because their names are not UTF-8 (a Latin-1
#: ``café`` from an old tarball, a stray file): no record deja writes (JSON, msgpack) can hold such a name, and one
#: name refused the whole index (trial49 F1). ``deja index`` and doctor name them (``not_utf8_shown``).
not_utf8: set[str] = set()


def utf8_named(path: str, name: str) -> bool:
    """Whether ``name`` (the last part of ``path``) is UTF-8; if not, ``path`` joins ``not_utf8`` and the caller
    passes it over. Python spells such a name's bytes as lone surrogates, which no encoder of deja's records takes."""
    if name.isascii():
        return True
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        not_utf8.add(path)
        return False
    return True


def ide_databases(root: str | None = None) -> list[str]:
    """``globalStorage/state.vscdb`` and every ``workspaceStorage/*/state.vscdb`` that is a file, the workspaces
    in the order of their folders' names."""
    root = root or ide_user_root()
    workspaces = oscalls.join(root, "workspaceStorage")
    try:
        names = sorted(name for name in oscalls.listdir(workspaces) if utf8_named(oscalls.join(workspaces, name), name))
    except OSError:
        names = []
    found = [oscalls.join(root, GLOBAL_STORAGE, "state.vscdb")]
    found += [oscalls.join(workspaces, name, "state.vscdb") for name in names]
    return [db for db in found if oscalls.isfile(db)]


def include_subagents() -> bool:
    return bool(config.get("include_subagents"))


#: What is wrong with ``not_utf8_root`` and what to do about it, as ``deja index``, ``deja search`` and doctor say it.
NOT_UTF8_ROOT = "its path is not UTF-8, which deja's index cannot record"
NOT_UTF8_ROOT_FIX = (
    "give the folder whose name shows \\xNN a UTF-8 name, or set DEJA_CURSOR_ROOT, DEJA_CURSOR_CLI_ROOT and "
    "DEJA_HOME to folders whose paths are UTF-8"
)


def not_utf8_root() -> str:
    """The first of the folders every record names a path under (Cursor's roots, deja's home) whose own path is not
    UTF-8 (a Latin-1 ``/home/jos\\xe9``), shown with such bytes as ``\\xNN``; "" when there is none. No record deja
    writes can hold it, and the walk can pass over no part of it (``utf8_named``)."""
    for root in (ide_user_root(), *cli_roots(), deja_home()):
        if not root.isascii():
            try:
                root.encode("utf-8")
            except UnicodeEncodeError:
                import os  # (only a name not in UTF-8 gets here)

                return os.fsencode(root).decode("utf-8", "backslashreplace")
    return ""


def not_utf8_root_problem() -> str:
    """:func:`not_utf8_root` in the one line every part of deja says it, "" when every root is UTF-8: the CLI exits 1
    with it, a hook logs it and stays silent, the MCP server answers it. Each starts no build in such a root: the
    build would fail where nobody reads why, and the hook or the MCP server wait on it for ever (review49c H1)."""
    root = not_utf8_root()
    return f"{root}: {NOT_UTF8_ROOT}: {NOT_UTF8_ROOT_FIX}" if root else ""


def missing_overrides() -> list[tuple[str, str]]:
    """The root overrides that name a folder that does not exist (a typo reads as an empty history)."""
    missing = []
    for key in ("cursor_root", "cursor_cli_root"):
        name = (
            config.SETTINGS[key].variable if config.resolve(key).source == "env" else f"{key} in {config.config_path()}"
        )
        path = setting(key)
        if path and not oscalls.isdir(path):
            missing.append((name, path))
    return missing
