"""``deja config``: each setting's effective value and where it came from."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..core import config, paths
from ..core.folders import real_folder


def shown_value(key: str, value: Any, environment: bool = True) -> str:
    """The value as a person reads it; an unset folder shows where deja looks without it.

    Without ``environment``, an unset folder is looked for as Cursor's processes look: by the
    config file and the defaults alone, never this shell's ``DEJA_*`` variables.
    """
    if isinstance(value, bool):
        return str(value).lower()
    if value is None and key == "home":
        return str(paths.deja_home(environment))
    if value is None and key == "cursor_root":
        return _looked_in([paths.ide_user_root(environment=environment)])
    if key == "cursor_root" and (user := str(paths.ide_user_root(environment=environment))) != real_folder(value):
        return f"{value} (reads {user}: Cursor's User folder inside it)"  # (a link to the User folder reads it)
    if value is None and key == "cursor_cli_root":
        return _looked_in(paths.cli_roots(environment))
    return str(value)


def _looked_in(folders: list[Path]) -> str:
    """Where deja looks for an unset folder, each marked ``(found)`` only when it is there: a script reading
    ``--json`` (and a person) must not be told a folder Cursor never made was found."""
    there = [str(folder) for folder in folders if folder.is_dir()]
    missing = [str(folder) for folder in folders if not folder.is_dir()]
    found = "(found) " + ", ".join(there) if there else ""
    absent = "(not found) " + ", ".join(missing) if missing else ""
    return "; ".join(part for part in (found, absent) if part)


def _in_force(key: str, value: Any, environment: bool = True) -> bool | str:
    """A setting in force as ``--json`` gives it, of the setting's own type: a switch's true or false (a script
    that tests ``"false"`` finds it true), else the text ``deja config`` prints (an unset folder: where deja looks,
    as Cursor's processes look without ``environment``)."""
    return value if isinstance(value, bool) else shown_value(key, value, environment)


def _text(in_force: bool | str) -> str:
    return str(in_force).lower() if isinstance(in_force, bool) else in_force


def settings_json() -> dict[str, Any]:
    """Each setting: ``value`` as set (null for a folder not set), ``effective`` here and ``in_cursor`` for Cursor's
    hooks and MCP server as ``_in_force`` gives them."""
    path = config.config_path()
    _, error = config.read_file()
    rows = {}
    for key, setting in config.SETTINGS.items():
        here, in_cursor = config.resolve(key), config.resolve(key, environment=False)
        rows[key] = {
            "value": here.value,
            "effective": _in_force(key, here.value),
            "source": here.source,
            "variable": setting.variable,
            "in_cursor": _in_force(key, in_cursor.value, environment=False),
            "problem": here.problem,
        }
    unknown = [problem for problem, _ in config.unknown_keys()]
    return {"file": path, "exists": os.path.isfile(path), "error": error, "unknown": unknown, "settings": rows}


def settings_text() -> str:
    """The file, then one line per key: value, source, and what Cursor's processes get when the shell differs."""
    data = settings_json()
    state = "" if data["exists"] else " (not there yet: `deja config set KEY VALUE` creates it)"
    lines = [f"config file: {data['file']}{state}"]
    if data["error"]:
        lines.append(f"  problem: {data['error']}")
    lines.extend(f"  problem: {unknown}" for unknown in data["unknown"])
    shown = {key: _text(row["effective"]) for key, row in data["settings"].items()}
    width = max(map(len, shown.values()))
    for key, row in data["settings"].items():
        source = f"env {row['variable']}" if row["source"] == "env" else row["source"]
        lines.append(f"  {key:<18} {shown[key]:<{width}}  {source}")
        if row["source"] == "env" and row["in_cursor"] != row["effective"]:
            lines.append(
                f"  {'':<18} Cursor's hooks and MCP server get {_text(row['in_cursor'])}: they never see this shell"
            )
        setting = config.SETTINGS[key]
        if relative := config.relative_variable(setting):  # (not ignored: every other command stops on it)
            lines.append(f"  {'':<18} refused: {relative}; {config.absolute_fix(setting)}")
        elif row["problem"]:
            lines.append(f"  {'':<18} ignored: {row['problem']}")
    return "\n".join(lines)
