"""The folders of a multi-root workspace: the ``folders`` a ``.code-workspace`` file lists.

A window opened on a ``.code-workspace`` file has no folder of its own: its ``workspace.json`` names the file,
and the file lists the folders the window shows, each ``{"path": …}`` (relative to the file, or absolute) or
``{"uri": …}``. The file is VS Code's JSON with comments: ``//`` and ``/* */`` comments and trailing commas are
allowed, so it is made plain JSON before it is parsed. The folder holding the file is often a parent of many
repositories, never where a chat's files are (trialM F1): a chat is filed under one of the listed folders.
"""

from __future__ import annotations

import posixpath
from typing import Any

from ..regular_files import read_regular

#: A workspace file is a few folders and settings; anything larger is not one deja reads.
CODE_WORKSPACE_BYTES = 1 << 20


def workspace_file_folders(workspace_file: str) -> list[str]:
    """The folders ``workspace_file`` lists, as absolute paths in its order; [] when it cannot be read or lists
    none (a file on another machine, deleted since, or damaged)."""
    import orjson

    try:
        data = orjson.loads(
            plain_json(read_regular(workspace_file, CODE_WORKSPACE_BYTES).decode("utf-8-sig", "replace"))
        )
    except (OSError, orjson.JSONDecodeError):
        return []
    entries = data.get("folders") if isinstance(data, dict) else None
    base = posixpath.dirname(workspace_file.replace("\\", "/"))
    folders = (
        [_folder(entry, base) for entry in entries if isinstance(entry, dict)] if isinstance(entries, list) else []
    )
    return list(dict.fromkeys(folder for folder in folders if folder))


def _folder(entry: dict[str, Any], base: str) -> str:
    from .projects import folder_dir  # (projects reads workspace.json files and imports this module at its top)

    if isinstance(uri := entry.get("uri"), str):
        return folder_dir(uri)
    path = entry.get("path")
    if not isinstance(path, str) or not path.strip():
        return ""
    path = path.strip().replace("\\", "/")
    absolute = path.startswith("/") or path[1:3] == ":/"
    return posixpath.normpath(path if absolute else posixpath.join(base, path))


def plain_json(text: str) -> str:
    """``text`` with its comments and trailing commas taken out (strings kept whole, escapes included)."""
    out: list[str] = []
    at, end = 0, len(text)
    while at < end:
        char = text[at]
        if char == '"':
            close = _string_end(text, at)
            out.append(text[at:close])
            at = close
        elif text.startswith("//", at):
            at = _index(text, "\n", at)
        elif text.startswith("/*", at):
            at = _index(text, "*/", at + 2) + 2
        elif char == "," and _next_token(text, at + 1) in ("]", "}"):
            at += 1
        else:
            out.append(char)
            at += 1
    return "".join(out)


def _string_end(text: str, start: int) -> int:
    """The index just past the string that opens at ``start``."""
    at = start + 1
    while at < len(text):
        if text[at] == "\\":
            at += 2
        elif text[at] == '"':
            return at + 1
        else:
            at += 1
    return len(text)


def _index(text: str, wanted: str, start: int) -> int:
    found = text.find(wanted, start)
    return len(text) if found < 0 else found


def _next_token(text: str, start: int) -> str:
    """The first character from ``start`` that is neither whitespace nor inside a comment ("" at the end)."""
    at = start
    while at < len(text):
        if text[at].isspace():
            at += 1
        elif text.startswith("//", at):
            at = _index(text, "\n", at)
        elif text.startswith("/*", at):
            at = _index(text, "*/", at + 2) + 2
        else:
            return text[at]
    return ""
