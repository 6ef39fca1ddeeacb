"""``deja doctor``'s wiring section: what is installed where, and what would stop it working.

Each finding names the file and says what to run (or edit) to fix it. A
finding is ``error`` when the harness will fail to load the file or run deja,
``warn`` when something runs twice, runs another deja, or lags behind what
``deja install`` writes now.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..core import folders, paths
from . import claude, cursor, guidance
from .entries import (
    SERVER_NAME,
    Carry,
    Strip,
    carried_hook,
    command_line,
    default_deja_path,
    deja_hook,
    hook_executable,
    is_deja_hook,
    is_deja_server,
    launcher_path,
    plan_hooks,
    plan_server,
    running_deja_script,
    same_file,
)
from .files import DuplicateKey, InstallError, json_type, parse_object, read_text

Level = Literal["ok", "warn", "error"]
#: How much of a script's ``#!`` line the system reads: Linux's 256-byte buffer, macOS's 512.
SHEBANG_LIMIT = 512 if sys.platform == "darwin" else 256
#: The shell Cursor and Claude Code run a hook's command with (``_unparsable_findings``).
SHELL = "/bin/sh"


@dataclass(frozen=True)
class WiringFinding:
    level: Level
    message: str
    fix: str = ""  # the command (or edit) that fixes it; empty when nothing needs doing


@dataclass(frozen=True)
class _HooksFile:
    harness: str
    path: Path
    wanted: dict[str, Any]
    strip: Strip
    carry: Carry
    commands: Callable[[list[Any]], list[Any]]  # every command string in one event's list
    install: str
    mcp: Path  # the harness's MCP file: with deja's server there and no hook, the agent still recalls when it asks
    preamble: dict[str, Any] | None = None
    check: Callable[[Path, dict[str, Any]], list[WiringFinding]] = lambda path, document: []  # harness-specific


def wiring_report(deja_path: str | None = None) -> list[WiringFinding]:
    deja = _as_wired(os.path.abspath(deja_path or default_deja_path()))
    cursor_hooks = _cursor_hooks_file(deja)
    install = _cursor_install(cursor_hooks)
    findings = [
        *_server_findings("Cursor", cursor.mcp_path(), cursor.server_entry(deja), deja, install, as_cursor_starts),
        *_guidance_findings(deja, install),
        *_hooks_findings(cursor_hooks, deja),
        *_project_hooks_findings(cursor_hooks),
    ]
    if _installed_for_claude():
        claude_hooks = _claude_hooks_file(deja)
        server = claude.server_entry(deja)
        findings += _server_findings(
            "Claude Code", claude.mcp_path(), server, deja, _as_run_by(deja, "deja install claude")
        )
        findings += _hooks_findings(claude_hooks, deja)
        findings += _double_run_findings(cursor_hooks, claude_hooks)
    return findings


def _as_wired(deja: str) -> str:
    """This deja spelt as Cursor's entries spell it, when they start it by another path (README's link, the venv's
    own): doctor compares what install writes with what is there, and a spelling is no difference (review50c M3)."""
    server = _deja_server(cursor.mcp_path())
    wired = [as_cursor_starts(server["command"])] if server is not None else []
    wired += sorted(e for c in _deja_commands(_cursor_hooks_file(deja)) if (e := hook_executable(c)))
    return next((e for e in wired if e != deja and _is_one_of(e, (deja,))), deja)


def double_run_findings(deja_path: str | None = None) -> list[WiringFinding]:
    """doctor's warning that Cursor runs deja twice on an event (``_double_run_findings``), which install gives too:
    it keeps the hand edits that make the two files differ (trial44b F7)."""
    if not _installed_for_claude():
        return []
    deja = os.path.abspath(deja_path or default_deja_path())
    return _double_run_findings(_cursor_hooks_file(deja), _claude_hooks_file(deja))


def cursor_hooks_there(deja_path: str | None = None) -> bool:
    """deja's hooks are in Cursor's hooks.json. ``deja install cursor`` leaves them there (it touches no hooks.json),
    so one run over ``cursor-auto`` kept recall automatic without a word (trial46 F4): it says so."""
    return bool(_deja_commands(_cursor_hooks_file(os.path.abspath(deja_path or default_deja_path()))))


def _cursor_hooks_file(deja: str) -> _HooksFile:
    return _HooksFile(
        "Cursor",
        cursor.hooks_path(),
        {hook.event: cursor.hook_entry(deja, hook) for hook in cursor.HOOKS},
        cursor.strip_entries,
        carried_hook,
        _entry_commands,
        _as_run_by(deja, "deja install cursor-auto"),
        cursor.mcp_path(),
        cursor.PREAMBLE,
        _cursor_loading_findings,
    )


def _claude_hooks_file(deja: str) -> _HooksFile:
    return _HooksFile(
        "Claude Code",
        claude.settings_path(),
        {hook.event: claude.hook_group(deja, hook) for hook in claude.HOOKS},
        claude.strip_groups,
        claude.carried_group,
        _group_commands,
        _as_run_by(deja, "deja install claude-auto"),
        claude.mcp_path(),
    )


def _cursor_install(hooks_file: _HooksFile) -> str:
    """The install that fixes Cursor's server and guidance: ``cursor-auto``, as the README's first steps and ``deja
    demo`` say, unless the user chose Cursor without hooks (deja's server or ``/deja`` is there and no deja hook is).

    Advising ``deja install cursor`` on a fresh machine gave a newcomer no automatic recall (trial14 F7).
    """
    if _deja_commands(hooks_file) or not (serves_deja(cursor.mcp_path()) or _is_deja_command()):
        return hooks_file.install
    return hooks_file.install.removesuffix("-auto")


def other_deja_wired(deja_path: str | None = None) -> str:
    """Which of Cursor's entries run another deja than this one, and the install that points them here, in words
    ("your Cursor hooks run /old/…/hook.py, not this deja: run `deja install cursor-auto`"), else "".

    Said where this deja rebuilt the index: an upgrade into a new venv left the hooks on the old deja, and the two
    rebuilt the index over each other in their formats, every hook silent, with only doctor saying why (trial50 F1).
    Another deja is any executable but this deja and its hook launcher, as ``_hooks_findings`` tells them apart.
    """
    deja = os.path.abspath(deja_path or default_deja_path())
    hooks_file = _cursor_hooks_file(deja)
    ours = (deja, launcher_path())
    hooks = sorted({e for c in _deja_commands(hooks_file) if (e := hook_executable(c)) and not _is_one_of(e, ours)})
    server = _deja_server(cursor.mcp_path())
    others = [f"your Cursor hooks run {', '.join(hooks)}"] if hooks else []
    command = as_cursor_starts(server["command"]) if server is not None else ""
    if server is not None and not _is_one_of(command, ours):
        others.append(f"Cursor's deja MCP server runs {command}")
    return f"{' and '.join(others)}, not this deja: run `{_cursor_install(hooks_file)}`" if others else ""


def _as_run_by(deja: str, install: str) -> str:
    """``install`` ("deja install cursor-auto") as this deja (``deja``) runs it: by its path when this deja is the
    console script running and the ``deja`` on PATH is another (an upgrade into a new venv, the old one's link still
    on PATH), whose install would wire Cursor to itself again; as given otherwise, or when it names no bare ``deja``."""
    on_path = shutil.which("deja")
    if not install.startswith("deja ") or not same_file(deja, running_deja_script() or "/"):
        return install
    if on_path and same_file(on_path, deja):
        return install
    return command_line(deja, install.removeprefix("deja "))


def serves_deja(path: Path) -> bool:
    """The MCP file ``path`` holds deja's server (doctor asks it of each Cursor folder deja may be wired in)."""
    return _deja_server(path) is not None


def _deja_server(path: Path) -> dict[str, Any] | None:
    """deja's server entry in the MCP file ``path``, if it holds one."""
    document = _load(path)
    servers = document.get("mcpServers") if isinstance(document, dict) else None
    entry = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    return entry if is_deja_server(entry) else None


@dataclass(frozen=True)
class ServerEnv:
    """What Cursor gives deja's MCP server and not the hooks (trial50 F5), which doctor compares with theirs."""

    #: The variables of its ``env``, over those of its ``envFile``, with their values as Cursor expands them.
    values: dict[str, str]
    #: The variables whose values hold ``${env:NAME}``: the names, filled from this shell's environment, which may
    #: not be the one Cursor was started in (review51a L5).
    from_shell: dict[str, list[str]]
    #: Its ``envFile`` when doctor read it ("": none, or unread), and the variables that came from there alone.
    file: str = ""
    from_file: frozenset[str] = frozenset()
    #: Its ``envFile`` when doctor cannot read it, and why, in words ("": none, or read).
    unread_file: str = ""
    #: The MCP file its entry is in.
    mcp: Path = Path()

    def shown(self, name: str, value: str | None = None) -> str:
        """``NAME=value`` (the name alone without ``value``) as doctor says it, with the ``${env:…}`` it filled from
        its own shell: Cursor fills them from the environment it was started in (review51a L5)."""
        said = name if value is None else f"{name}={unsecret(value)}"
        filled = ", ".join(f"${{env:{variable}}}" for variable in self.from_shell.get(name, ()))
        return f"{said} ({filled} as this shell has it; Cursor's may differ)" if filled else said

    def where(self, *names: str) -> str:
        """Where the server gets ``names`` from: its env in the MCP file, its envFile, or both."""
        filed = [name in self.from_file for name in names]
        if not any(filed):
            return f"its env in {self.mcp}"
        file = unsecret(self.file)
        return f"its envFile {file}" if all(filed) else f"its env in {self.mcp} and its envFile {file}"


def deja_server_env(path: Path) -> ServerEnv:
    """The env Cursor gives deja's server in the MCP file ``path``: its ``env``'s string values as Cursor expands them
    (``as_cursor_expands``), over the variables of the file its ``envFile`` names (a stdio server's; its lines read as
    VS Code reads them, ``_env_line``, their values taken as written); nothing when there is no server."""
    entry = _deja_server(path) or {}
    env, named = entry.get("env"), entry.get("envFile")
    env = env if isinstance(env, dict) else {}
    written = {name: value for name, value in env.items() if isinstance(value, str)}
    read, unread = _env_file(named)
    from_file = {name: value for name, value in read.items() if name not in env}  # (env's null unsets it: VS Code)
    from_shell = {name: names for name, value in written.items() if (names := _ENV_PLACEHOLDER.findall(value))}
    values = {**from_file, **{name: as_cursor_expands(value) for name, value in written.items()}}
    file = named if from_file and isinstance(named, str) else ""
    return ServerEnv(values, from_shell, file, frozenset(from_file), unread, path)


#: The most of a server's envFile doctor reads: a project's ``.env`` is a few KB; doctor read one of 256 MB whole
#: (567 MB of memory), and says a larger file is one it cannot read (review52a F6).
ENV_FILE_BYTES = 1 << 20


def _env_file(named: object) -> tuple[dict[str, str], str]:
    """The variables of a server's ``envFile`` (``named``), and "" or, when doctor cannot read it, the file and why:
    it is not an absolute path (Cursor's folder for a relative one is not known here), or it cannot be read."""
    if not isinstance(named, str) or not named.strip():
        return {}, ""
    if not os.path.isabs(named):
        return {}, f"{unsecret(named)} (not an absolute path)"
    try:
        text = read_text(Path(named), ENV_FILE_BYTES)
    except InstallError as error:
        return {}, f"{unsecret(named)} ({error.problem})"
    if text is None:
        return {}, f"{unsecret(named)} (there is no such file)"
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")  # (VS Code's line ends, not splitlines')
    return dict(pair for pair in map(_env_line, lines) if pair[0]), ""


def unsecret(value: str) -> str:
    """A value of the server's env or envFile (or a folder made of one) as doctor prints it: a secret in it redacted,
    whether redaction is on or not, as the config's refusals repeat a value (``refused``): an envFile is where a
    project's tokens live, and ``DEJA_HOME=/srv/deja OPENAI_API_KEY=sk-…`` on one line is one value (review52a F3)."""
    from ..core.redaction import as_indexed

    return as_indexed(value, whatever_the_setting=True)


def _env_line(line: str) -> tuple[str, str]:
    """A line of an env file as (name, value), read as VS Code's launcher reads a stdio server's ``envFile`` (its
    ``parseEnvFile``, like npm dotenv): an ``export`` taken off, the name ending at the first ``=`` or ``:`` outside
    quotes, the value at the first ``#`` outside quotes, and a value in matching ``"``, ``'`` or backtick quotes
    without them (``\\n`` and ``\\r`` in double quotes made the characters). ("", "") for a blank line, a ``#``
    comment or a line that sets nothing. Read with its comment, ``DEJA_NO_REDACT=1  # while I debug`` was a value
    deja does not know, and doctor said the server redacted when it did not (review52a F1)."""
    line = line.strip()
    if line.startswith("#"):
        return "", ""
    line = line.removeprefix("export ").strip()
    separator = _outside_quotes(line, "=:")
    if separator < 0:
        return "", ""
    value = line[separator + 1 :].strip()
    comment = _outside_quotes(value, "#")
    value = value[:comment].strip() if comment >= 0 else value
    quote = value[:1]
    if len(value) >= 2 and quote in "\"'`" and value.endswith(quote):
        value = value[1:-1]
        value = value.replace("\\n", "\n").replace("\\r", "\r") if quote == '"' else value
    name = line[:separator].strip()
    return (name, value) if name else ("", "")


def _outside_quotes(text: str, stops: str) -> int:
    """Where in ``text`` the first of the characters ``stops`` stands outside quotes (``"``, ``'`` or a backtick, up
    to the same quote not after a backslash), or -1."""
    quote = ""
    for where, character in enumerate(text):
        if quote:
            quote = "" if character == quote and text[where - 1 : where] != "\\" else quote
        elif character in "\"'`":
            quote = character
        elif character in stops:
            return where
    return -1


#: The placeholders Cursor replaces in an mcp.json server's ``command``, ``args``, ``env``, ``url`` and ``headers``
#: that are the same in every window, beside ``${env:NAME}``.
_PLACEHOLDERS = {"userHome": folders.home, "pathSeparator": lambda: os.sep, "/": lambda: os.sep}
_PLACEHOLDER = re.compile(r"\$\{([^}]*)\}")
#: ``${env:NAME}``, whose NAME doctor can only read from its own shell.
_ENV_PLACEHOLDER = re.compile(r"\$\{env:([^}]*)\}")


def as_cursor_expands(value: str) -> str:
    """``value`` with Cursor's placeholders replaced as Cursor replaces them as it starts the server: ``${env:NAME}``
    from this environment ("" when unset; Cursor's own may differ), ``${userHome}``, ``${/}``. One that names the
    window (``${workspaceFolder}``) and one Cursor does not know (``${HOME}``, which it leaves as written) stay as
    written. Taken as written, ``DEJA_HOME=${userHome}/x`` read as a relative folder, and doctor said the server
    refused every call (stop 50's leftover)."""
    if "${" not in value:
        return value

    def replaced(match: re.Match[str]) -> str:
        name = match.group(1)
        if name.startswith("env:"):
            return os.environ.get(name.removeprefix("env:"), "")
        return _PLACEHOLDERS[name]() if name in _PLACEHOLDERS else match.group(0)

    return _PLACEHOLDER.sub(replaced, value)


def as_cursor_starts(command: str) -> str:
    """A server's ``command`` as Cursor runs it: its placeholders replaced (``as_cursor_expands``), then a leading
    ``~`` (alone, or before a slash or backslash) made the home folder, as VS Code's launcher does to a stdio
    server's command (``untildify``): doctor took ``~/.local/bin/deja`` as written and said it was gone (review52a
    F5)."""
    expanded = as_cursor_expands(command)
    tilde = expanded == "~" or expanded.startswith(("~/", "~\\"))
    return folders.home() + expanded[1:] if tilde else expanded


#: The placeholders Cursor gives another value in each window.
_WINDOW_PLACEHOLDERS = ("${workspaceFolder}", "${workspaceFolderBasename}")


def names_the_window(expanded: str) -> bool:
    """Whether a value ``as_cursor_expands`` gave names the window (``${workspaceFolder}``): Cursor gives it another
    value in each one."""
    return any(placeholder in expanded for placeholder in _WINDOW_PLACEHOLDERS)


def _is_deja_command() -> bool:
    try:
        text = read_text(cursor.command_path())
    except InstallError:
        return False
    return text is not None and guidance.is_deja_text(text)


def _installed_for_claude() -> bool:
    """deja was installed for Claude Code: the install ledger names one of its files, or ``~/.claude.json`` serves deja.

    ``~/.claude.json`` appears as soon as Claude Code runs once; a person who uses deja with Cursor alone
    must not be told about Claude Code wiring they never asked for.
    """
    from .ledger import load

    if {str(claude.mcp_path()), str(claude.settings_path())} & set(load()):
        return True
    document = _load(claude.mcp_path()) if claude.mcp_path().exists() else {}
    servers = document.get("mcpServers") if isinstance(document, dict) else None
    return isinstance(servers, dict) and SERVER_NAME in servers


def _server_findings(
    harness: str, path: Path, server: dict[str, Any], deja: str, install: str, expands: Callable[[str], str] = str
) -> list[WiringFinding]:
    """What stops deja's server in ``harness``'s MCP file ``path`` starting this deja as install writes it
    (``server``); its command read as the harness runs it (``expands``: for Cursor, as_cursor_starts, its
    placeholders and a leading ``~``: ``${userHome}/.local/bin/deja`` was "gone", review51a L6)."""
    document = _load(path)
    if isinstance(document, WiringFinding):
        return [document]
    servers = document.get("mcpServers", {})
    if not isinstance(servers, dict):
        message = f'{path}: "mcpServers" is {json_type(servers)}; {harness} loads no server from it'
        return [WiringFinding("error", message, f"edit {path}")]
    entry = servers.get(SERVER_NAME)
    if entry is None:
        return [WiringFinding("warn", f"{harness}: no deja MCP server in {path}", install)]
    if not is_deja_server(entry):
        message = f"{path}: mcpServers.deja is not deja's server"
        return [WiringFinding("warn", message, f"rename it in {path}, then {install}")]
    command = expands(entry["command"])
    stale = _executable_finding(command, deja, f"{path}: deja's MCP server runs", install)
    if stale:
        return [stale]
    as_run = {**entry, "command": command}  # (what the harness runs: install's entry, however it is spelt)
    if as_run != {**as_run, **server} and plan_server(path, server).action != "unchanged":
        return [WiringFinding("warn", f"{path}: deja's MCP server differs from what `{install}` writes", install)]
    return [WiringFinding("ok", f"{harness}: deja's MCP server is in {path}")]


def _guidance_findings(deja: str, install: str) -> list[WiringFinding]:
    findings = []
    for path, text in ((guidance.skill_path(), guidance.skill_text(deja)),
                       (cursor.command_path(), guidance.command_text(deja))):  # fmt: skip
        try:
            current = read_text(path)
        except InstallError as error:
            findings.append(WiringFinding("error", f"{error.where}: {error.problem}", f"edit {path}"))
            continue
        if current is None:
            findings.append(WiringFinding("warn", f"Cursor: no {path.name} at {path}", install))
        elif not guidance.is_deja_text(current):
            findings.append(WiringFinding("warn", f"{path} is not deja's", f"move it aside, then {install}"))
        elif current != text:
            message = f"{path} differs from what `{install}` writes"
            findings.append(WiringFinding("warn", message, install))
        else:
            findings.append(WiringFinding("ok", f"Cursor: {path} is deja's current text"))
    return findings


def _cursor_loading_findings(path: Path, document: dict[str, Any]) -> list[WiringFinding]:
    """What in hooks.json, deja's or not, stops Cursor running the hooks it lists."""
    findings = [_unloadable_finding(path, found) for found in cursor.unloadable(document)]
    hooks = document.get("hooks")
    for event, entries in hooks.items() if isinstance(hooks, dict) else ():
        if event in cursor.KNOWN_EVENTS and isinstance(entries, list):
            for field in dict.fromkeys(filter(None, map(_missing_field, entries))):
                message = f"{path}: a {field} entry under {event!r} has no {field} string"
                findings.append(WiringFinding("warn", message, f"edit {path}"))
    return findings


def _missing_field(entry: Any) -> str:
    """The field ("command" or "prompt") whose string this Cursor hook entry lacks, so Cursor cannot run it, or "".

    A ``type: "prompt"`` entry has a model check its ``prompt`` text and no command (cursor-hooks.md): doctor told
    users to edit a correct file (trial50 F2)."""
    kind = "prompt" if isinstance(entry, dict) and entry.get("type") == "prompt" else "command"
    return "" if isinstance(entry, dict) and isinstance(entry.get(kind), str) else kind


def _unloadable_finding(path: Path, found: cursor.Unloadable) -> WiringFinding:
    """An unknown event is an error (Cursor is known to skip the whole file); another version, a warning."""
    if found.key == "version":
        return WiringFinding("warn", f"{path}: {found.problem}", f"edit {path}")
    return WiringFinding("error", f"{path}: {found.problem}", f"rename or remove {found.key!r} in {path}")


def _hooks_findings(hooks_file: _HooksFile, deja: str) -> list[WiringFinding]:
    path, harness, install = hooks_file.path, hooks_file.harness, hooks_file.install
    document = _load(path)
    if isinstance(document, WiringFinding):
        return [document]
    findings = hooks_file.check(path, document)
    hooks = document.get("hooks", {})
    if not isinstance(hooks, dict):
        message = f'{path}: "hooks" is {json_type(hooks)}; {harness} runs none of them'
        return [*findings, WiringFinding("error", message, f"edit {path}")]
    for event, entries in hooks.items():
        if not isinstance(entries, list):
            message = f"{path}: {event!r} is {json_type(entries)}, not a list; {harness} may ignore the file"
            findings.append(WiringFinding("error", message, f"edit {path}"))
    lists = _commands_by_event(hooks_file, hooks)
    for event, commands in lists.items():
        runs = Counter(command for command in commands if isinstance(command, str))
        ours = sum(count for command, count in runs.items() if is_deja_hook(command))
        if ours > 1:
            findings.append(WiringFinding("warn", f"{path}: deja runs {ours} times on {event}", install))
        for command, count in runs.items():
            if count > 1 and not is_deja_hook(command):
                message = f"{path}: {command!r} runs {count} times on {event}"
                findings.append(WiringFinding("warn", message, f"remove the repeated entry from {path}"))
    findings += _unparsable_findings(hooks_file, lists)
    executables = sorted({e for commands in lists.values() for c in commands if (e := hook_executable(c)) is not None})
    if not executables:  # (with no server either, nothing of deja's recalls: trial44b F5)
        if not serves_deja(hooks_file.mcp):
            return [*findings, WiringFinding("warn", f"{harness}: no deja hooks in {path}", install)]
        message = f"{harness}: no deja hooks in {path}; recall comes only when the agent asks"
        return [*findings, WiringFinding("ok", message, install)]
    # This deja's hooks start its launcher or deja itself (if not the shape install writes, the check below says so),
    # however this deja was started (its console script, or ``python -m deja.interfaces.entry``).
    others = [e for e in executables if not _is_one_of(e, (launcher_path(),))]
    findings += filter(None, (_executable_finding(e, deja, f"{path}: deja's hooks run", install) for e in others))
    if findings:
        return findings
    planned = plan_hooks(path, hooks_file.wanted, hooks_file.strip, hooks_file.carry, preamble=hooks_file.preamble)
    if planned.action != "unchanged":
        message = f"{path}: deja's hooks differ from what `{install}` writes{_missing_events(hooks_file, lists)}"
        return [WiringFinding("warn", message, install)]
    edited = "".join(f" ({sentence})" for sentence in planned.edited_hooks)  # (which install keeps: trial44 F3)
    return [WiringFinding("ok", f"{harness}: deja's hooks are in {path}{edited}")]


def _unparsable_findings(hooks_file: _HooksFile, lists: dict[str, list[Any]]) -> list[WiringFinding]:
    """deja's hooks whose command ``sh`` refuses to read (``sh -n``: read, never run), which the harness runs to exit
    2, blocking every prompt or tool call: an older deja's misplaced `` || true`` (review45c M1), which install
    takes out, or the user's own ending, which they fix. The harnesses run a command with ``/bin/sh`` (Node's
    ``shell: true``), whatever PATH holds; where there is none (Windows), nothing is said."""
    if not os.path.isfile(SHELL):
        return []
    findings = []
    for event, commands in lists.items():
        for command in filter(is_deja_hook, commands):
            if _sh_refuses(command):
                message = (
                    f"{hooks_file.path}: deja's {event} hook is not valid shell: {hooks_file.harness} cannot run it"
                )
                fix = (
                    hooks_file.install
                    if _install_repairs(hooks_file, event, command)
                    else f"edit it in {hooks_file.path}"
                )
                findings.append(WiringFinding("warn", message, fix))
    return findings


def _install_repairs(hooks_file: _HooksFile, event: str, command: str) -> bool:
    """Whether what install writes for deja's ``command`` on ``event``, the user's ending kept, is valid shell."""
    wanted = hooks_file.commands([hooks_file.wanted[event]]) if event in hooks_file.wanted else []
    if not wanted:
        return False
    entry, _ = carried_hook({"command": wanted[0]}, {"command": command})
    return not _sh_refuses(entry["command"])


def _sh_refuses(command: str) -> bool:
    """Whether ``sh -n`` (read the command, run nothing) finds a syntax error in ``command``."""
    try:
        done = subprocess.run([SHELL, "-n", "-c", command], capture_output=True, timeout=5, check=False)
    except (OSError, ValueError, subprocess.TimeoutExpired):  # (a NUL in the command: no shell reads it)
        return False
    return done.returncode != 0


def _missing_events(hooks_file: _HooksFile, lists: dict[str, list[Any]]) -> str:
    """`` (no deja hook on stop yet; …)`` for the events install writes that have no deja hook in the file, else "".

    An install by an earlier deja lacks the events added since (``stop``): everything it wired still works, and
    running install again adds them; the finding says so rather than leave "differ" to be read as broken.
    """
    missing = [event for event in hooks_file.wanted if not any(map(is_deja_hook, lists.get(event, [])))]
    if not missing:
        return ""
    return f" (no deja hook on {', '.join(missing)} yet; the others run as they are)"


def _project_hooks_findings(cursor_hooks: _HooksFile) -> list[WiringFinding]:
    """deja's hooks in the ``.cursor/hooks.json`` of the project doctor runs in (a teammate's commit, an older guide):
    Cursor runs a project's hooks beside the user's, so an event deja's user hooks also listen to starts deja twice
    (trial44 F5). Only the working folder's project is looked at: the others are not known from here. A file there
    that does not parse is the project's business, not deja's: nothing is said of it."""
    path = _project_hooks_path(cursor_hooks.path)
    document = _load(path) if path is not None else {}
    events = _deja_events(cursor_hooks, document) if isinstance(document, dict) else []
    if not events:
        return []
    user = _load(cursor_hooks.path)
    twice = [event for event in _deja_events(cursor_hooks, user) if event in events] if isinstance(user, dict) else []
    if twice:
        message = (
            f"{path}: this project's hooks run deja on {', '.join(twice)} too, beside {cursor_hooks.path}: "
            "Cursor runs both, so deja starts twice on each"
        )
        return [WiringFinding("warn", message, f"remove deja's entries from {path}")]
    return [WiringFinding("ok", f"Cursor: this project's {path} runs deja on {', '.join(events)}")]


def _deja_events(hooks_file: _HooksFile, document: dict[str, Any]) -> list[str]:
    """The events of ``document`` (a hooks file) with a deja hook."""
    hooks = document.get("hooks")
    lists = _commands_by_event(hooks_file, hooks if isinstance(hooks, dict) else {})
    return [event for event, commands in lists.items() if any(map(is_deja_hook, commands))]


def _project_hooks_path(user_file: Path) -> Path | None:
    """The ``.cursor/hooks.json`` of the working folder or the nearest folder above it with one, below the home
    folder (whose ``.cursor`` is the user's); None when there is none, or no working folder."""
    try:
        folder = Path(os.getcwd())
    except OSError:  # (the working folder was deleted)
        return None
    home = paths.home()
    for candidate in (folder, *folder.parents):
        if candidate == home or candidate in home.parents:
            return None
        path = candidate / ".cursor" / "hooks.json"
        if path != user_file and os.path.isfile(path):  # (never raises: a folder on the way may be unreadable)
            return path
    return None


def _double_run_findings(cursor_hooks: _HooksFile, claude_hooks: _HooksFile) -> list[WiringFinding]:
    """Cursor also runs Claude's hooks, skipping only those whose command string equals one of its own: each event
    whose deja hook in Claude's file is none of Cursor's runs deja twice, named as Cursor names it (trial44b F7)."""
    ours, theirs = _deja_commands(cursor_hooks), _deja_commands(claude_hooks)
    if not ours or not theirs or theirs <= ours:
        return []
    twice = [
        claude.CURSOR_EVENTS.get(event, event)
        for event, commands in _deja_commands_by_event(claude_hooks).items()
        if commands - ours
    ]
    message = (
        f"Cursor runs deja's hooks from both {cursor_hooks.path} and {claude_hooks.path}, "
        f"whose commands differ, so it runs deja twice on {', '.join(twice)}"
    )
    return [WiringFinding("warn", message, _double_run_fix(cursor_hooks, claude_hooks, ours, theirs))]


def _double_run_fix(cursor_hooks: _HooksFile, claude_hooks: _HooksFile, ours: set[str], theirs: set[str]) -> str:
    """Installing both again writes the same commands into both files, but for the user's edits, which install keeps
    (trial44 F3): the edits of the hooks whose commands differ, file by file, are what to delete first (review44d
    M3: the fix alone left the warning as it was)."""
    reinstall = f"{cursor_hooks.install} && {claude_hooks.install}"
    apart = {found.name for command in theirs - ours if (found := deja_hook(command))}
    edits = [
        f"{' and '.join(f'`{_as_in_json(piece)}`' for piece in found.edits)} after deja's {found.name} in {hooks_file.path}"
        for hooks_file, commands in ((cursor_hooks, ours), (claude_hooks, theirs))
        for command in sorted(commands)
        if (found := deja_hook(command)) and found.name in apart and found.edited
    ]
    return f"delete {'; '.join(edits)}, then {reinstall}" if edits else reinstall


def _as_in_json(piece: str) -> str:
    """``piece`` of a command as the JSON file holds it, on one line: ``"``, ``\\``, a tab and a line break escaped
    (review45c L2: ``2>"$HOME/log"`` was not found in the file, which holds ``2>\\"$HOME/log\\"``)."""
    return json.dumps(piece, ensure_ascii=False)[1:-1]


def _deja_commands(hooks_file: _HooksFile) -> set[str]:
    return {command for commands in _deja_commands_by_event(hooks_file).values() for command in commands}


def _deja_commands_by_event(hooks_file: _HooksFile) -> dict[str, set[str]]:
    """The commands of deja's hooks in the file, event by event (the events with one)."""
    document = _load(hooks_file.path)
    hooks = document.get("hooks") if isinstance(document, dict) else None
    lists = _commands_by_event(hooks_file, hooks if isinstance(hooks, dict) else {})
    found = {event: {command for command in commands if is_deja_hook(command)} for event, commands in lists.items()}
    return {event: commands for event, commands in found.items() if commands}


def _commands_by_event(hooks_file: _HooksFile, hooks: dict[str, Any]) -> dict[str, list[Any]]:
    return {event: hooks_file.commands(entries) for event, entries in hooks.items() if isinstance(entries, list)}


def _executable_finding(executable: str, deja: str, runs: str, install: str) -> WiringFinding | None:
    """Whether deja's entry still starts this deja, and can start at all: ``runs`` is the message up to the path (a
    hook launcher's, a script Python runs, is gone when the file is)."""
    refused = _cannot_start(executable)
    if refused is not None:
        why, fix = refused
        if fix is None:  # its #! line, which pip wrote: pip installing this deja again writes a launcher that starts
            fix = (
                f"install deja again with pip (README: Two commands), then {install}"
                if _is_one_of(executable, (deja,))
                else install
            )
        return WiringFinding("error", f"{runs} {executable}, which cannot start: {why}", fix)
    if _is_one_of(executable, (deja,)):
        return None
    if executable.endswith(".py") and not os.path.isfile(executable):
        # The launcher's path names a Python version (``…/lib/python3.11/site-packages``): gone after ``pipx
        # reinstall`` onto another Python, or an upgrade of the venv's; every hook does nothing (exit 0: ``FAIL_OPEN``
        # in ``entries``; an older deja's command exits 2, which blocks) until install rewrites it.
        message = f"{runs} {executable}, which is gone (deja now runs on another Python?): run `{install}` again"
        return WiringFinding("error", message, install)
    if shutil.which(executable) is None and not executable.endswith(".py"):
        return WiringFinding("error", f"{runs} {executable}, which is gone", install)
    return WiringFinding("warn", f"{runs} {executable}, not this deja ({deja})", install)


def _is_one_of(executable: str, ours: tuple[str, ...]) -> bool:
    """Whether ``executable`` is one of ``ours`` (this deja, its hook launcher) by whatever path it is reached:
    README's ``~/.local/bin/deja`` links to the venv's, which an activated venv or a script starts by its own path
    (review50c M3: the same deja, so spelt, was "another deja", and reinstalling only flipped the spelling)."""
    real = os.path.realpath(executable)
    return any(real == os.path.realpath(one) for one in ours)


def _cannot_start(executable: str) -> tuple[str, str | None] | None:
    """Why the system would refuse to run the file ``executable`` (not POSIX: None), and the fix when it is not
    to install again (None): not executable, or a ``#!`` line naming no program (a space in the interpreter's path
    ends its name there) or longer than the system reads, as pip wrote for a venv under such a path (trial17 F2)."""
    if os.name == "nt" or executable.endswith(".py"):  # (a hook launcher: its Python runs it)
        return None
    if not (os.path.isabs(executable) and os.path.isfile(executable)):  # (a name PATH finds; gone; a FIFO: not read)
        return None
    if not os.access(executable, os.X_OK):
        return "it is not executable", f"chmod +x {shlex.quote(executable)}"
    try:
        with open(executable, "rb") as file:
            head = file.read(SHEBANG_LIMIT + 1)
    except OSError:
        return None  # (unreadable: the system may still run it)
    if not head.startswith(b"#!"):
        return None
    if b"\n" not in head[:SHEBANG_LIMIT]:
        return f"its #! line is longer than the {SHEBANG_LIMIT} bytes the system reads", None
    words = head.split(b"\n", 1)[0][2:].split()
    interpreter = os.fsdecode(words[0]) if words else ""
    if not (os.path.isfile(interpreter) and os.access(interpreter, os.X_OK)):
        cut = " (the system ends its name at the space after it)" if len(words) > 1 else ""
        return f"its #! line asks for {interpreter!r}, which is no program{cut}", None
    return None


def _load(path: Path) -> dict[str, Any] | WiringFinding:
    if os.path.islink(path) and not os.path.exists(path):  # (never raises: a folder above may be unreadable)
        message = f"{path} is a symlink to {os.readlink(path)}, which does not exist; deja install refuses it"
        return WiringFinding("warn", message, f"point the link at an existing file, or remove it: {path}")
    try:
        return parse_object(path, read_text(path))
    except DuplicateKey as error:  # the harness reads it (keeping the last value); deja will not rewrite it
        return WiringFinding("warn", f"{error.where}: {error.problem}; deja install refuses it", f"edit {path}")
    except InstallError as error:
        return WiringFinding("error", f"{error.where}: {error.problem}; nothing in it loads", f"edit {path}")


def _entry_commands(entries: Iterable[Any]) -> list[Any]:
    """Cursor: ``[{"command": …}, …]``."""
    return [entry.get("command") for entry in entries if isinstance(entry, dict)]


def _group_commands(groups: Iterable[Any]) -> list[Any]:
    """Claude Code: ``[{"matcher": …, "hooks": [{"command": …}, …]}, …]``."""
    return [
        hook.get("command")
        for group in groups
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for hook in group["hooks"]
        if isinstance(hook, dict)
    ]
