"""deja's settings, in one place for every entrypoint: the environment, else the config file, else the default.

Cursor starts the hooks and the MCP server without the user's shell, so a
variable exported there never reaches them. The config file,
``${XDG_CONFIG_HOME:-~/.config}/deja/config.toml``, does: every entrypoint reads
it, and the variables still win where they are set. Hooks run on every prompt,
so the file is only stat'ed when nothing changed since the last read, and
``tomllib`` is imported only when the file exists. Paths here are strings
(``os.path``): ``pathlib`` would cost every hook about 5 ms of imports.
"""

from __future__ import annotations

import time

from . import oscalls
from .record import Record

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:  # (a NamedTuple or a Literal built at import would cost every hook a few ms)
    from collections.abc import Mapping
    from typing import Any, Literal

    Kind = Literal["path", "bool", "choice"]
    Source = Literal["env", "file", "default"]
RECALL_MODES = ("off", "safe", "aggressive")
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


class Setting(Record, frozen=True):
    """One key of the config file and the variable that overrides it."""

    key: str
    variable: str
    kind: Kind
    default: Any
    help: str
    #: For ``DEJA_NO_REDACT``: the variable says the opposite of the key (``1`` means ``redact = false``).
    inverted: bool = False


SETTINGS = {
    s.key: s
    for s in (
        Setting("home", "DEJA_HOME", "path", None, "where deja keeps its index, hook state and logs"),
        Setting("recall", "DEJA_RECALL", "choice", "safe", "how eagerly hooks recall: off, safe or aggressive"),
        Setting("include_subagents", "DEJA_INCLUDE_SUBAGENTS", "bool", False, "index subagent transcripts too"),
        Setting("redact", "DEJA_NO_REDACT", "bool", True, "replace secrets before indexing and printing", True),
        Setting("cursor_root", "DEJA_CURSOR_ROOT", "path", None, "the Cursor editor's User folder"),
        Setting("cursor_cli_root", "DEJA_CURSOR_CLI_ROOT", "path", None, "cursor-agent's folder (projects/, chats/)"),
        Setting("trace", "DEJA_TRACE", "bool", False, "log each hook's time in hooks.log"),
        Setting(
            "hook_server",
            "DEJA_HOOK_SERVER",
            "bool",
            True,
            "answer hooks and searches from a resident process with deja loaded",
        ),
    )
}


class Resolved(Record, frozen=True):
    value: Any
    source: Source
    #: Why a value in the file or the environment was not taken; empty when it was.
    problem: str = ""


class ConfigError(ValueError):
    """A key or value ``deja config set`` refuses; the message says what is accepted."""


def config_path() -> str:
    """``${XDG_CONFIG_HOME:-~/.config}/deja/config.toml``."""
    given = (oscalls.getenv("XDG_CONFIG_HOME", "").strip(), oscalls.expanduser("~"))
    path = _CONFIG_PATHS.get(given)
    if path is None:  # (built once per XDG_CONFIG_HOME and home folder: indexing asks for a setting per message text)
        base = folder_variable("XDG_CONFIG_HOME") or oscalls.join(given[1], ".config")
        path = _CONFIG_PATHS[given] = oscalls.join(base, "deja", "config.toml")
    return path


_CONFIG_PATHS: dict[tuple[str, str], str] = {}


def expand_folder(text: str) -> str:
    """A folder as a person writes it in a setting or a variable: ``~`` expanded, tidied (``a//b/./`` is ``a/b``)."""
    return oscalls.normpath(oscalls.expanduser(text.strip()))


def folder_variable(name: str) -> str:
    """The folder the environment variable ``name`` names (:func:`expand_folder`), or "" when it is unset; or when
    an ``XDG_*`` variable names a relative one, which the XDG Base Directory spec says to ignore (it would be
    another folder wherever deja runs)."""
    value = oscalls.getenv(name, "").strip()
    folder = expand_folder(value) if value else ""
    return "" if name.startswith("XDG_") and not oscalls.isabs(folder) else folder


#: How long a file read stays good without another stat (indexing asks once per message text).
RECHECK_SECONDS = 1.0


class _Read(Record, frozen=True):
    path: str
    #: (mtime_ns, size) of the file read, or None when there was none.
    stamp: tuple[int, int] | None
    checked: float
    table: dict[str, Any]
    error: str


_last: _Read | None = None


def read_file(path: str | None = None) -> tuple[dict[str, Any], str]:
    """The file's table and, when it cannot be read, why (then the table is empty). No file: ``({}, "")``."""
    global _last
    path = path or config_path()
    now = time.monotonic()
    if _last is not None and _last.path == path and now - _last.checked < RECHECK_SECONDS:
        return _last.table, _last.error
    try:
        st = oscalls.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        _last = _Read(path, None, now, {}, "")
        return {}, ""
    except OSError as exc:  # a folder on the way deja may not search: the user's settings are there, unread
        _last = _Read(path, None, now, {}, _unreadable(path, exc))
        return {}, _last.error
    stamp = (st.st_mtime_ns, st.st_size)
    if _last is not None and _last.path == path and _last.stamp == stamp:
        _last = _last.replace(checked=now)
        return _last.table, _last.error
    try:
        with open(path, encoding="utf-8") as f:
            table, error = _parse(f.read().removeprefix("\ufeff")), ""  # (a BOM: what Windows editors write)
    except OSError as exc:
        table, error = {}, _unreadable(path, exc)
    except (UnicodeDecodeError, ValueError) as exc:  # tomllib.TOMLDecodeError is a ValueError
        table, error = {}, f"{path} is not valid TOML ({exc})"
    _last = _Read(path, stamp, now, table, error)
    return table, error


def _unreadable(path: str, exc: OSError) -> str:
    """Why ``path`` cannot be read, without the exception's class (``Permission denied``, not ``[Errno 13]``); for
    want of permission, the chmod that lets this user read it (on the file, or the folder above it that hides it):
    moving a file aside cannot be done in a folder this user may not open. The file's folder is deja's own (named
    here: the settings that name the others are in the file being read)."""
    if isinstance(exc, PermissionError):
        from .regular_files import readable_command

        fix = readable_command([path], own=[oscalls.dirname(path)])
        return f"cannot read {path} (Permission denied): `{fix}` makes it readable"
    return f"cannot read {path} ({exc.strerror or exc})"


#: What every entrypoint but the two that repair the file says after :func:`file_problem`'s reason.
REPAIR = "fix it or move it aside (`deja config` and `deja doctor` still run)"


def file_problem() -> str:
    """Why the config file cannot be read (naming the file and the line), or "" when it can or there is none.

    The CLI stops on it (but ``deja config`` and ``deja doctor``, which exist to repair it), a hook stays silent
    and logs it, the MCP server answers every tool call with it: going on with the defaults would quietly read
    another ``home``'s index, or recall with recall turned off.
    """
    return read_file()[1]


def bad_file_value() -> str:
    """The first value of the config file its key does not take (``recall = "of"``), naming the file; "" when none.

    The hooks stay silent on it as on a file they cannot read (:func:`file_problem`): a misspelt ``off`` would
    otherwise recall with the default. A variable set in the environment wins over the file's value, as ever."""
    table, _ = read_file()
    for key, setting in SETTINGS.items():
        if key in table and not oscalls.getenv(setting.variable, "").strip():
            try:
                parse(setting, table[key])
            except ConfigError as exc:
                return f"{config_path()}: {exc}"
    return ""


def unknown_keys() -> list[tuple[str, str]]:
    """Each key of the config file deja has no setting for (``Recall``, a ``[deja]`` table, ``redcat``), as a line
    saying it is ignored and the fix: the setting the person meant keeps its default while they believe it set
    (trialN F2)."""
    table, _ = read_file()
    path, keys = config_path(), ", ".join(SETTINGS)
    found = []
    for key in (key for key in table if key not in SETTINGS):
        if isinstance(table[key], dict):
            what, fix = f"a table [{key}]", f"move its keys above the [{key}] line"
        else:
            what, fix = f"unknown key {key!r}", f"rename or remove {key!r}"
        found.append((f"{path}: {what} is ignored; deja's settings are the top-level keys {keys}", f"{fix} in {path}"))
    return found


def _parse(text: str) -> dict[str, Any]:
    """The file's table: read here when it has the shape ``deja config set`` writes, else by ``tomllib``.

    Importing tomllib costs a hook more than its own work does, and every hook reads this file.
    """
    table = simple_table(text)
    if table is not None:
        return table
    import tomllib

    return tomllib.loads(text)


def simple_table(text: str) -> dict[str, Any] | None:
    """The TOML ``_write`` writes (``key = "string"``, ``key = true``/``false`` lines and comments) as its table;
    None for anything else, which is left to tomllib: numbers, escapes, tables, repeated keys, inline comments."""
    table: dict[str, Any] = {}
    for line in text.split("\n"):  # TOML's newlines only (str.splitlines splits at more)
        line = line.strip(" \t\r")
        if not line or line.startswith("#"):
            continue
        key, equals, value = (part.strip(" \t") for part in line.partition("="))
        if not equals or not key or key in table or not all(c.isascii() and (c.isalnum() or c in "_-") for c in key):
            return None
        if value in ("true", "false"):
            table[key] = value == "true"
            continue
        inner = value[1:-1]
        if len(value) < 2 or value[0] != '"' or value[-1] != '"' or "\\" in inner or '"' in inner:
            return None
        if any(c < " " for c in inner):  # (as JSON reads it: TOML allows a tab, which tomllib then reads)
            return None
        table[key] = inner  # no escape, no quote, no control character: the string is what stands between the quotes
    return table


def forget_file() -> None:
    """Read the file afresh next time (after writing it, or in a test that just did)."""
    global _last
    _last = None


def parse(setting: Setting, raw: Any) -> Any:
    """``raw`` (a file value or a string) as the setting's type; ConfigError naming what is accepted."""
    if setting.kind == "bool":
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in _TRUE or text in _FALSE:
            return text in _TRUE
        from .redaction import refused

        raise ConfigError(f"{setting.key} takes true or false, not {refused(raw)}")
    if not isinstance(raw, str) or not raw.strip():
        from .redaction import refused

        raise ConfigError(
            f"{setting.key} takes a {'folder path' if setting.kind == 'path' else 'word'}, not {refused(raw)}"
        )
    if setting.kind == "choice":
        value = raw.strip().lower()
        if value not in RECALL_MODES:
            from .redaction import refused

            raise ConfigError(f"{setting.key} takes one of {', '.join(RECALL_MODES)}, not {refused(raw)}")
        return value
    return expand_folder(raw)


def _from_env(setting: Setting, raw: str) -> Any:
    """The variable's value in the key's terms: a switch's ``1`` (or ``true``, ``yes``, ``on``) is on, ``0`` (or
    ``false``, ``no``, ``off``) off, and anything else a problem, not off in silence (``DEJA_INCLUDE_SUBAGENTS=2``);
    a folder must be absolute (a relative one names another folder wherever deja runs)."""
    if setting.kind == "bool":
        text = raw.strip().lower()
        if text not in _TRUE and text not in _FALSE:
            from .redaction import refused

            raise ConfigError(f"takes 1 or 0, not {refused(raw)}")
        return (text in _FALSE) if setting.inverted else (text in _TRUE)
    return _absolute(setting, parse(setting, raw), raw)


def variable_value(setting: Setting, value: str) -> str:
    """What ``setting``'s variable is set to for the key to take ``value``: ``_from_env`` undone, so a switch is
    ``1`` or ``0``, the other way round for an inverted one (``redact true`` is ``DEJA_NO_REDACT=0``: review49d H2,
    where ``DEJA_NO_REDACT=true`` was offered and turned redaction off)."""
    if setting.kind != "bool" or (text := value.strip().lower()) not in _TRUE + _FALSE:
        return value
    return "1" if (text in _TRUE) != setting.inverted else "0"


def _absolute(setting: Setting, value: Any, raw: Any) -> Any:
    """``value``, unless it is a relative folder: one that names another folder wherever deja runs (a hook runs in
    ``~/.cursor``), so each would keep an index of its own. ``deja config set`` makes one absolute as it writes it."""
    if setting.kind == "path" and not oscalls.isabs(value):
        from .redaction import PATH_CHARS, refused

        raise ConfigError(
            f"{setting.key} takes an absolute folder, not {refused(raw, PATH_CHARS)}: a relative one is another folder "
            "wherever deja runs"
        )
    return value


def resolve(key: str, environment: bool | Mapping[str, str] = True) -> Resolved:
    """The effective value of ``key`` and where it came from (without ``environment``: what Cursor's processes get;
    with a mapping, what a process gets with those variables alone, such as deja's MCP server given an ``env`` in
    mcp.json)."""
    setting = SETTINGS[key]
    raw = oscalls.getenv(setting.variable) if environment is True else (environment or {}).get(setting.variable, "")
    problem = ""
    if raw.strip():
        try:
            return Resolved(_from_env(setting, raw), "env")
        except ConfigError as exc:
            problem = f"{setting.variable}: {exc}"
    table, _ = read_file()
    if key in table:
        try:
            return Resolved(_absolute(setting, parse(setting, table[key]), table[key]), "file", problem)
        except ConfigError as exc:
            problem = problem or f"{config_path()}: {exc}"
    return Resolved(setting.default, "default", problem)


def relative_variable(setting: Setting, environment: Mapping[str, str] | None = None) -> str:
    """``DEJA_HOME=<value> is relative …`` when ``setting`` is a folder (``DEJA_HOME``, ``DEJA_CURSOR_ROOT``,
    ``DEJA_CURSOR_CLI_ROOT``) and its variable names a relative one in ``environment`` (this process's by default;
    doctor asks of the ``env`` mcp.json gives deja's server), else "". Read in every folder deja runs in (a
    hook runs in Cursor's, one per project), it would be another folder each time, so no entrypoint takes it
    (``relative_folder``). Ignoring it (as ``resolve`` does) put the index in the default home in silence
    (review17), or read the default Cursor folders where the variable named others. ``deja config set home`` is
    asked in one folder, once: it makes a relative folder absolute."""
    if setting.kind != "path":
        raw = ""
    elif environment is None:
        raw = oscalls.getenv(setting.variable).strip()
    else:
        raw = environment.get(setting.variable, "").strip()
    if not raw or oscalls.isabs(expand_folder(raw)):
        return ""
    return f"{setting.variable}={raw} is relative: it would be another folder wherever deja runs"


def absolute_fix(setting: Setting) -> str:
    """What to do about ``relative_variable``'s reason."""
    return f"give {setting.variable} an absolute path, or unset it"


def relative_folder() -> str:
    """The first of deja's folder variables that names a relative folder, with what to do (``relative_variable``),
    else "": the CLI stops on it (but ``deja config`` and ``deja doctor``), a hook stays silent and logs it, the MCP
    server answers each tool call with it."""
    for setting in SETTINGS.values():
        if reason := relative_variable(setting):
            return f"{reason}; {absolute_fix(setting)}"
    return ""


def get(key: str) -> Any:
    return resolve(key).value


def shell_only() -> list[tuple[Setting, Any, Resolved]]:
    """Settings this shell's environment changes that the file does not hold: (setting, value here, value in Cursor).

    Cursor starts the hooks and the MCP server without this shell's variables, so they get the second value.
    """
    differ = []
    for key, setting in SETTINGS.items():
        here = resolve(key)
        if here.source == "env":
            there = resolve(key, environment=False)
            if there.value != here.value:
                differ.append((setting, here.value, there))
    return differ


def set_value(key: str, raw: str, path: str | None = None) -> Any:
    """Validate ``raw`` for ``key`` (``checked``) and write it into the config file (atomically, 0600); returns the
    stored value."""
    value = checked(key, raw)
    path = path or config_path()
    table = {**_writable_table(path), key: value}
    _write(path, table, key)
    forget_file()
    return value


def checked(key: str, raw: str) -> Any:
    """``raw`` as ``deja config set`` stores it for ``key``; ConfigError saying what is accepted. ``deja doctor``
    asks it too, so it never offers a ``deja config set`` line that deja would refuse (review14 R14-3)."""
    from .private import leads_nowhere
    from .redaction import PATH_CHARS, echoed

    setting = _setting(key)
    value = parse(setting, raw)
    if setting.kind == "path":  # hooks run in ~/.cursor: a relative folder would mean something else there
        value = oscalls.abspath(value)
        if key != "home" and not oscalls.isdir(value):  # deja's home is made when needed; Cursor's folders are not
            raise ConfigError(f"{key}: {echoed(value, PATH_CHARS)} is not a folder; give Cursor's existing folder")
        if part := file_in_path(value):
            raise ConfigError(f"{key}: {echoed(part, PATH_CHARS)} is a file, not a folder; give a folder path")
        if target := leads_nowhere(value):  # (no folder can be made there: review21 R21-2)
            shown = echoed(value, PATH_CHARS)
            raise ConfigError(
                f"{key}: {shown} is a link to {echoed(target, PATH_CHARS)}, which leads nowhere; give a folder"
            )
        if key == "home":
            _check_writable_home(value)
            _check_folder_of_its_own(value)
    return value


def _check_writable_home(home: str) -> None:
    """ConfigError when deja could not keep its index in ``home`` (a folder this user may not write, a read-only
    disk): stored, it stopped every command, silenced the hooks and the MCP server (trial13 F7)."""
    from .private import unwritable_home_folder
    from .redaction import PATH_CHARS, echoed

    folder, why = unwritable_home_folder(home)
    if folder:
        raise ConfigError(
            f"home: deja cannot write in {echoed(folder, PATH_CHARS)} ({why}); give a folder it may write in"
        )


def _check_folder_of_its_own(home: str) -> None:
    """ConfigError when ``home`` is a folder that holds files deja did not make (``private.others_in_home``): deja
    makes its home private (0700) and writes its index, log and socket in it, so ``~/Documents`` set as home stopped
    being readable by others and filled with deja's files, and ``config unset home`` left it so (trial58 T6). An
    empty folder, one not made yet and a deja home are fine."""
    from .private import others_in_home
    from .redaction import PATH_CHARS, echoed

    if others_in_home(home):
        inside = oscalls.join(home, "deja")
        if any(oscalls.lexists(oscalls.join(home, name)) for name in (".git", ".gitkeep")):  # (review59b F8)
            such_as = " (an empty one outside this repository: `git add -A` would take in the index)"
        elif not oscalls.lexists(inside) or oscalls.isdir(inside) and not others_in_home(inside):
            such_as = f", such as {echoed(inside, PATH_CHARS)}"
        else:
            such_as = " (an empty one)"
        raise ConfigError(
            f"home: {echoed(home, PATH_CHARS)} holds files that are not deja's, and deja makes its home private (0700)"
            f" and writes its index there; give a folder of deja's own{such_as}"
        )


def file_in_path(folder: str) -> str:
    """``folder``, or the nearest folder above it that exists, when that is a file: no folder can ever be made at
    ``folder`` then; "" when none is."""
    part = folder
    while not oscalls.exists(part) and oscalls.dirname(part) != part:
        part = oscalls.dirname(part)
    return part if oscalls.exists(part) and not oscalls.isdir(part) else ""


def unset_value(key: str, path: str | None = None) -> bool:
    """Remove ``key`` from the config file, keeping the others (atomically, 0600); False when it was not there."""
    _setting(key)
    path = path or config_path()
    table = _writable_table(path)
    if key not in table:
        return False
    _write(path, {k: v for k, v in table.items() if k != key}, key)
    forget_file()
    return True


def _setting(key: str) -> Setting:
    setting = SETTINGS.get(key)
    if setting is None:
        from .redaction import refused

        raise ConfigError(f"unknown key {refused(key)}; the keys are {', '.join(SETTINGS)}")
    return setting


def _writable_table(path: str) -> dict[str, Any]:
    """The file's table, when deja may rewrite it: readable, and holding only the flat keys deja writes."""
    table, error = read_file(path)
    if error:
        raise ConfigError(f"{error}; fix or remove it first")
    if any(isinstance(v, dict | list) for v in table.values()):
        raise ConfigError(f"{path} holds tables or lists deja did not write; edit it by hand")
    return table


HEADER = "# deja settings: `deja config` shows them, `deja config set KEY VALUE` / `unset KEY` change them."


def _write(path: str, table: dict[str, Any], key: str) -> None:
    """The file with ``key`` set to its value in ``table`` (or removed when ``table`` lacks it), every other line
    (the user's comments among them) kept; replaced in one step so a reader never sees half of it. Where a line
    edit would not give ``table`` (a value written over several lines), the file is written afresh."""
    from .private import private_dir, replace_private

    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        text = ""
    edited = _edited(text, key, _rendered(table[key]) if key in table else None)
    try:
        kept = _parse(edited) == table
    except ValueError:  # tomllib.TOMLDecodeError
        kept = False
    if not kept:
        edited = "\n".join([HEADER, *(f"{k} = {_rendered(v)}" for k, v in table.items())]) + "\n"
    private_dir(oscalls.dirname(path))  # deja's own folder: 0700 whatever the umask
    replace_private(path, edited.encode("utf-8"), sync=True)


def _edited(text: str, key: str, rendered: str | None) -> str:
    """``text`` with the line that sets ``key`` replaced by ``key = rendered`` (dropped when None), or that line
    added at the end."""
    lines = text.splitlines()
    at = [i for i, line in enumerate(lines) if line.split("=", 1)[0].strip().strip('"') == key and "=" in line]
    new = [] if rendered is None else [f"{key} = {rendered}"]
    if at:
        lines[at[0] : at[0] + 1] = new
    else:
        lines += ([] if lines else [HEADER]) + new
    return "\n".join(lines) + "\n"


def _rendered(value: Any) -> str:
    """A value as TOML: a boolean, a number, or a string."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    import json

    return json.dumps(str(value), ensure_ascii=False)  # a JSON string is a TOML basic string
