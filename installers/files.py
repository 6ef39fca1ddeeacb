"""Reading, planning and writing the files deja shares with Cursor and Claude Code.

Every install or uninstall is planned in full first (each file read, parsed and
diffed, nothing written) and applied only when no file refused. A write goes
to a temp file beside the target and is renamed over it, so a crash leaves the
old file or the new one, never half of each.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Action = Literal["created", "updated", "removed", "unchanged"]

NEW_FILE_MODE = 0o600


class InstallError(Exception):
    """Something deja will not do. Its text is the one line for the user: where, what is wrong, what to do."""

    def __init__(
        self,
        where: str,
        problem: str,
        todo: str = "deja changed nothing; fix or move the file aside, then run the command again",
    ) -> None:
        super().__init__(f"{where}: {problem}; {todo}")
        self.where = where
        self.problem = problem


@dataclass(frozen=True)
class Change:
    """What install or uninstall does (or, on a dry run, would do) to one path."""

    path: Path
    action: Action
    diff: str
    text: str | None = field(default=None, repr=False)  # the new content; None when removed
    backup: bool = field(default=False, repr=False)  # keep a .bak of the file deja shares with the user


def read_text(path: Path) -> str | None:
    """The file's text (through a symlink), or None when there is no file."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise InstallError(str(path), f"cannot read it ({error.strerror})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InstallError(f"{path}:{line}", "not UTF-8 text") from None


def parse_object(path: Path, text: str | None) -> dict[str, Any]:
    """A JSON file's top-level object; a missing or blank file is an empty one."""
    if text is None or not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise InstallError(f"{path}:{error.lineno}", f"{error.msg} (column {error.colno})") from None
    if not isinstance(value, dict):
        raise InstallError(f"{path}:1", f"expected a JSON object at the top, found {json_type(value)}")
    return value


def shape_error(path: Path, text: str | None, key: str, problem: str) -> InstallError:
    """An InstallError pointing at the first line where ``"key":`` appears."""
    match = re.search(re.escape(json.dumps(key)) + r"\s*:", text or "")
    line = text.count("\n", 0, match.start()) + 1 if text and match else 1
    return InstallError(f"{path}:{line}", problem)


def json_type(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def dump_json(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def plan_json(path: Path, text: str | None, old: dict[str, Any], new: dict[str, Any], *, removable: bool) -> Change:
    """The change that turns ``old`` (parsed from ``text``) into ``new``.

    ``removable`` means ``new`` holds nothing worth a file: the file is removed,
    unless it is a symlink, which keeps pointing at the emptied document.
    An unchanged document is never rewritten, so its formatting survives.
    """
    if dump_json(new) == dump_json(old):
        return Change(path, "unchanged", "")
    if removable and not path.is_symlink():
        return plan_text(path, text, None, backup=True)
    return plan_text(path, text, dump_json(new), backup=True)


def plan_text(path: Path, old: str | None, new: str | None, *, backup: bool = False) -> Change:
    """The change from ``old`` to ``new`` (None: no file), with its unified diff."""
    if old == new:
        return Change(path, "unchanged", "")
    action: Action = "created" if old is None else "removed" if new is None else "updated"
    diff = "".join(
        difflib.unified_diff(
            (old or "").splitlines(keepends=True),
            (new or "").splitlines(keepends=True),
            fromfile="/dev/null" if old is None else str(path),
            tofile="/dev/null" if new is None else str(path),
        )
    )
    return Change(path, action, diff, new, backup)


def plan_directory_removal(path: Path, leaving: str) -> Change:
    """Remove a folder deja made once ``leaving``, its only file, is gone."""
    try:
        entries = [entry.name for entry in path.iterdir()]
    except OSError:
        return Change(path, "unchanged", "")
    return Change(path, "removed" if entries == [leaving] else "unchanged", "")


def apply(changes: list[Change]) -> None:
    for change in changes:
        try:
            _apply_one(change)
        except OSError as error:
            verb = "remove" if change.action == "removed" else "write"
            problem = f"cannot {verb} it ({error.strerror})"
            raise InstallError(str(change.path), problem, "check its permissions, then run the command again") from None


def _apply_one(change: Change) -> None:
    if change.action == "removed":
        if change.path.is_dir() and not change.path.is_symlink():
            change.path.rmdir()
        else:
            change.path.unlink(missing_ok=True)
    elif change.text is not None:
        _write_atomically(Path(os.path.realpath(change.path)), change.text, backup=change.backup)


def _write_atomically(target: Path, text: str, *, backup: bool) -> None:
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = None
    if mode is not None and backup:
        bak = target.with_name(target.name + ".bak")
        if not bak.exists():
            shutil.copy2(target, bak)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, NEW_FILE_MODE if mode is None else mode)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
