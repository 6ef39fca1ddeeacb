"""Reading, planning and writing the files deja shares with Cursor and Claude Code.

Every install or uninstall is planned in full first (each file read, parsed and
diffed, nothing written), checked (``preflight``), and applied only when no file
refused. A write goes to a temp file beside the target and is renamed over it,
so a crash leaves the old file or the new one, never half of each.

deja refuses, writing nothing: a file that is not UTF-8 or not a JSON object,
a JSON object with a key twice (rewriting it would keep only one of the two),
one it cannot write back as it reads it (a lone surrogate escape, a number past
a double's range), a path whose symlink points nowhere (writing would create
the link's target folders wherever it points), a file the user made read-only and a folder deja
cannot write in (a refusal half way through would leave some files written).
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
import shlex
import stat
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from ..core.cjson import lone_surrogates
from ..core.private import private_dir, replace_private
from ..core.redact import scrub
from ..core.regular_files import open_regular, read_regular

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
    before: str | None = field(default=None, repr=False)  # the text found; None when there was no file
    # For a removal because nothing worth a file is left: the text that stays if the file must stay.
    remainder: str | None = field(default=None, repr=False)
    # Where the file is copied before it is written (``free_backup_path``), when it holds nothing of deja's yet: that
    # copy is what uninstall puts back. Only such a change takes one, so a .bak holds the user's file as it was
    # before deja touched it, never deja's entries. None: no copy is taken.
    backup: Path | None = field(default=None, repr=False)
    # What became of the user's edits of deja's hooks (``entries.plan_hooks``): a sentence for those install keeps
    # (``deja's hooks keep your changes: sessionStart: its command ending `2>/dev/null || true```), one for the
    # edited hooks uninstall takes out.
    edited_hooks: tuple[str, ...] = ()
    # For uninstall: which .bak of the file stays, and why (``ledger._kept_backups``); "" when none does.
    kept_backup: str = ""
    # For uninstall: the other install of deja that still uses this file of deja's, which therefore stays, its record
    # with it (the shared skill: ``guidance.plan_uninstall``); "" when none does.
    used_by: str = ""
    # For uninstall: why the file stays though an older deja's record may say its install created it (one keyed by a
    # relative CURSOR_CONFIG_DIR that does not say in which folder: ``ledger.with_unplaced_records``); "" else.
    unplaced_record: str = ""
    # Why a path that holds none of deja's entries is removed, or (unchanged) left: an earlier install's .bak, which
    # this install's new copy takes the place of in the record (``ledger.superseded_backups``), a .bak or a temporary
    # file a killed run left (``ledger._stranded_backups``, ``leftovers.stopped_writes``); "" else.
    reason: str = ""


class DuplicateKey(InstallError):
    """A JSON object names one key twice: a rewrite would keep only one of the values."""


def read_text(path: Path, limit: int | None = None) -> str | None:
    """The file's text (through a symlink), or None when there is no file. Opened as deja opens Cursor's stores
    (``open_regular``): a FIFO in the place of ``~/.cursor/mcp.json`` hung the rebuild line and doctor forever
    (review50c L3). With ``limit``, a file of more bytes is not read (``read_regular``): doctor read a server's
    envFile of 256 MB whole, and a larger one could take all the memory (review52a F6)."""
    try:
        if limit is None:
            with open_regular(path) as handle:
                data = handle.read()
        else:
            data = read_regular(path, limit)
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
    """A JSON file's top-level object; a missing or blank file is an empty one.

    A key twice in one object is refused: ``json`` keeps the last value, so a
    rewrite would silently drop the first.
    """
    if text is None or not text.strip():
        return {}
    try:
        value = json.loads(text, object_pairs_hook=_unique_keys, parse_int=_integer)
    except json.JSONDecodeError as error:
        if text.startswith(("//", "/*"), error.pos):
            problem = f"holds a comment ({text[error.pos : error.pos + 2]} at column {error.colno}), which JSON does not allow"
            raise InstallError(
                f"{path}:{error.lineno}",
                problem,
                "deja changed nothing; remove the comments, then run the command again",
            ) from None
        if (found := _trailing_comma(text, error.pos)) is not None:
            comma, closing = found
            line, column = text.count("\n", 0, comma) + 1, comma - text.rfind("\n", 0, comma)
            problem = f"has a trailing comma (column {column}) before {text[closing]!r}, which JSON does not allow"
            todo = "deja changed nothing; remove that comma, then run the command again"
            raise InstallError(f"{path}:{line}", problem, todo) from None
        # (json's own message ends "at" before the place it gives: "Invalid control character at", trial60 F10)
        raise InstallError(
            f"{path}:{error.lineno}", f"{error.msg.removesuffix(' at')} (column {error.colno})"
        ) from None
    except _Repeated as repeated:
        problem = f"the key {repeated.key!r} appears twice in one object, and rewriting the file would drop one"
        where = shape_error(path, text, repeated.key, problem).where
        raise DuplicateKey(
            where, problem, "deja changed nothing; remove or rename one of them, then run the command again"
        ) from None
    if not isinstance(value, dict):
        raise InstallError(f"{path}:1", f"expected a JSON object at the top, found {json_type(value)}")
    return value


def refuse_lone_surrogate(path: Path, text: str | None) -> None:
    """InstallError naming the first lone surrogate escape of ``text`` (``cjson.lone_surrogates``), if it has one:
    valid JSON, which Cursor reads, but a rewrite cannot encode what json read from it, and failed with a bare
    UnicodeEncodeError that named no file (trial50 F3). Only a rewrite refuses it: doctor reads such a file as Cursor
    does."""
    if text is None or (at := next(lone_surrogates(text), None)) is None:
        return
    line, column = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
    problem = (
        f"holds a lone UTF-16 surrogate ({text[at : at + 6]} at column {column}: half of an emoji's pair), "
        "which deja cannot write back to a UTF-8 file"
    )
    todo = "deja changed nothing; remove that escape or complete its pair, then run the command again"
    raise InstallError(f"{path}:{line}", problem, todo)


def _trailing_comma(text: str, pos: int) -> tuple[int, int] | None:
    """Where the comma is and the closing ``}`` or ``]`` after it (blanks between), when the parser stopped at either:
    the other habit, with comments, of JSON edited by hand as editors allow (JSONC). json before Python 3.13 names
    the closing bracket, often a line below the comma; 3.13's names the comma ("Illegal trailing comma before end
    of object")."""
    if text.startswith(",", pos):
        after = len(text) - len(text[pos + 1 :].lstrip())
        return (pos, after) if text.startswith(("}", "]"), after) else None
    if not text.startswith(("}", "]"), pos):
        return None
    before = len(text[:pos].rstrip())
    return (before - 1, pos) if before and text[before - 1] == "," else None


def _integer(literal: str) -> int | float:
    """A JSON integer as ``json`` reads it, or where Python will not convert that many digits (over 4,300: a bare
    ValueError, which named no file) the float a JavaScript reader makes of it (Infinity past 309 digits), for
    ``refuse_unwritable_number`` to name."""
    try:
        return int(literal)
    except ValueError:
        return float(literal)


#: A JSON string, or a number or a constant outside strings as ``json`` reads them (it reads NaN and Infinity too).
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|-?(?:Infinity|\d[\d.eE+-]*)|NaN', re.DOTALL)


def refuse_unwritable_number(path: Path, text: str | None) -> None:
    """InstallError naming the first number of ``text`` (parsed JSON) that deja cannot write back as JSON: one past a
    double's range (``1e400``, valid JSON that Cursor reads as Infinity) was written back as ``Infinity``, no JSON, and
    Cursor's ``JSON.parse`` refused the whole file, every MCP server in it (review50b); ``NaN`` or ``Infinity``, which
    ``json`` reads but no JSON allows. Only a rewrite refuses it, as a lone surrogate."""
    if text is None:
        return
    for token in _TOKEN.finditer(text):
        literal = token.group()
        if literal.startswith('"') or math.isfinite(float(literal)):
            continue
        line, column = text.count("\n", 0, token.start()) + 1, token.start() - text.rfind("\n", 0, token.start())
        if literal.lstrip("-")[0].isdigit():
            shown = literal if len(literal) <= 24 else f"{literal[:12]}… ({len(literal)} characters)"
            problem = (
                f"holds the number {shown} (column {column}), past the largest a JSON reader keeps (Cursor reads it "
                "as Infinity), which deja cannot write back as JSON"
            )
            todo = "deja changed nothing; write it as a number of at most 1.7e308, then run the command again"
        else:
            problem = f"holds {literal} (column {column}), which is no JSON: Cursor cannot read this file"
            todo = "deja changed nothing; write a number or null there, then run the command again"
        raise InstallError(f"{path}:{line}", problem, todo)


class _Repeated(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _Repeated(key)
        found[key] = value
    return found


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


def plan_json(
    path: Path, text: str | None, old: dict[str, Any], new: dict[str, Any], *, removable: bool, pristine: bool = False
) -> Change:
    """The change that turns ``old`` (parsed from ``text``) into ``new``.

    ``removable`` means ``new`` holds nothing worth a file: the file is removed,
    unless it is a symlink, which keeps pointing at the emptied document.
    ``pristine`` means ``old`` holds nothing of deja's (see :class:`Change`).
    An unchanged document is never rewritten, so its formatting survives.
    """
    if dump_json(new) == dump_json(old):
        return Change(path, "unchanged", "")
    refuse_lone_surrogate(path, text)
    refuse_unwritable_number(path, text)
    if removable and not path.is_symlink():
        return replace(plan_text(path, text, None), remainder=dump_json(new))
    if not (pristine and text is not None):
        return plan_text(path, text, dump_json(new))
    return replace(plan_text(path, text, dump_json(new)), backup=free_backup_path(path))


def plan_text(path: Path, old: str | None, new: str | None) -> Change:
    """The change from ``old`` to ``new`` (None: no file), with its unified diff.

    The diff is only ever shown (``--dry-run``), and the files deja shares hold the user's own values (another MCP
    server's token in its ``env`` or ``headers``): it is redacted as every text deja shows is, whatever the
    redaction setting, which is about what the index stores. What is written is ``new``, as it is."""
    if old == new:
        return Change(path, "unchanged", "")
    action: Action = "created" if old is None else "removed" if new is None else "updated"
    return Change(path, action, scrub(_shown_diff(path, old, new)), new, before=old)


#: What follows a diff of two JSON documents shown at one layout, when the file's own layout changes too.
RELAID = (
    "(both sides shown as JSON at indent 2: only the lines above change in meaning; the file's layout changes too)\n"
)
#: The diff of two JSON documents that differ in layout alone.
RELAID_ONLY = "(only the file's layout changes: its JSON means the same)\n"


def _shown_diff(path: Path, old: str | None, new: str | None) -> str:
    """The unified diff from ``old`` to ``new``; for two JSON objects, of both at ``dump_json``'s layout, then
    ``RELAID`` if their own layouts differ: the line-by-line diff of a compact mcp.json that uninstall puts back from
    the .bak listed every server of the user's as removed and added again (trial50 F9), as install's did when it
    expanded one."""
    diff = _unified(path, old, new)
    before, after = _json_object(old), _json_object(new)
    if before is None or after is None:
        return diff
    same_layout = _unified(path, dump_json(before), dump_json(after))
    if same_layout == diff:
        return diff
    return same_layout + RELAID if same_layout else RELAID_ONLY


def _unified(path: Path, old: str | None, new: str | None) -> str:
    return "".join(
        difflib.unified_diff(
            (old or "").splitlines(keepends=True),
            (new or "").splitlines(keepends=True),
            fromfile="/dev/null" if old is None else str(path),
            tofile="/dev/null" if new is None else str(path),
        )
    )


def _json_object(text: str | None) -> dict[str, Any] | None:
    """``text`` read as a JSON object as ``parse_object`` reads it, else None (no file or a blank one, a Markdown file
    of deja's, or JSON it refuses)."""
    if text is None or not text.strip():
        return None
    try:
        return parse_object(Path(), text)
    except InstallError:
        return None


def plan_directory_removal(path: Path, leaving: str) -> Change:
    """Remove a folder deja made once ``leaving``, its only file, is gone."""
    try:
        entries = [entry.name for entry in path.iterdir()]
    except OSError:
        return Change(path, "unchanged", "")
    return Change(path, "removed" if entries == [leaving] else "unchanged", "")


def preflight(changes: list[Change]) -> None:
    """Refuse, before anything is written, a change deja should not or could not make whole."""
    for change in changes:
        if change.action == "unchanged":
            continue
        _refuse_dangling_links(change.path)
        if change.action != "created" and not change.path.is_dir():
            _refuse_read_only(change.path, change.action)
        _refuse_unwritable_folder(Path(os.path.realpath(change.path)).parent)
        if change.backup is not None:  # (beside a symlink: another folder than the file's)
            _refuse_unwritable_folder(Path(os.path.realpath(change.backup)).parent)


def _refuse_dangling_links(path: Path) -> None:
    """A symlink on the way that points nowhere: following it would create folders wherever it points."""
    for link in (path, *path.parents):
        if link.is_symlink() and not link.exists():
            problem = f"is a symlink to {os.readlink(link)}, which does not exist"
            todo = "deja changed nothing; point the link at an existing file or folder, or remove it, then run the command again"
            raise InstallError(str(link), problem, todo)


def _refuse_read_only(path: Path, action: Action) -> None:
    """The user made the file read-only, or it is another user's: deja does not override that. A rename would,
    silently: a root-owned hooks.json (a ``sudo`` run's, an admin's) that this user could not write became theirs,
    the original owner gone for good, ``deja uninstall``'s copy back included (trial13 F5)."""
    try:
        found = path.stat()
    except OSError:
        return
    mode = stat.S_IMODE(found.st_mode)
    verb = "remove deja's entries" if action == "removed" else "change"
    if (owner := _other_owner(found.st_uid)) is not None:
        if os.geteuid() == 0:  # (``sudo deja install`` with the user's HOME: a chown to $USER would give it to root)
            todo = f"deja changed nothing; a write would make it root's: run the command as {owner}, without sudo"
        elif (target := os.path.realpath(path)) != os.path.abspath(path):  # (a link on the way: home-manager's into
            # the Nix store, of the file or of ``~/.cursor``: a chown there is no fix; trial58b B5, review59b F7)
            problem = f"is a link to {target}, which belongs to {owner}, not to this user"
            todo = f"deja changed nothing; {verb} the file the link is made from (your dotfiles' source), or replace the link with a file of your own, then run the command again"  # fmt: skip
            raise InstallError(str(path), problem, todo)
        else:
            todo = f'deja changed nothing; a write would make it yours: take it (sudo chown "$USER" {path}) or {verb} it as {owner}, then run the command again'  # fmt: skip
        raise InstallError(str(path), f"belongs to {owner}, not to this user", todo)
    if not mode & stat.S_IWUSR:
        todo = f"deja changed nothing; make it writable (chmod u+w {path}) or {verb} it yourself, then run the command again"
        raise InstallError(str(path), f"is read-only (mode {mode:o})", todo)


def refuse_root_in_anothers_home() -> None:
    """InstallError when deja runs as root (``sudo deja install`` keeping the user's HOME) in a home folder another
    user owns: the files and folders it would make there (``~/.cursor/mcp.json``, ``~/.config/deja``) would be
    root's, private, and every deja command the user ran next failed to read its own config (review20 R20-8)."""
    home = os.path.expanduser("~")
    try:
        owner = _other_owner(os.stat(home).st_uid) if os.geteuid() == 0 else None
    except (OSError, AttributeError):  # (no such folder: nothing of another user's; no user ids: not POSIX)
        return
    if owner is not None:  # (and the way out for a home an earlier ``sudo`` run left root's files in: review21 R21-4)
        made = " ".join(shlex.quote(os.path.join(home, folder)) for folder in (".cursor", ".config/deja"))
        todo = f"deja changed nothing; run the command as {owner}, without sudo (files a sudo run made there are root's: sudo chown -R {owner} {made})"  # fmt: skip
        raise InstallError(home, f"belongs to {owner}, and deja runs as root here: what it made there would be root's", todo)  # fmt: skip


def _other_owner(uid: int) -> str | None:
    """The name (else the number) of the user owning a file, when that is not the user deja runs as; None when it
    is (or the system has no user ids)."""
    geteuid = getattr(os, "geteuid", None)
    if geteuid is None or uid == geteuid():
        return None
    try:
        import pwd

        return pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        return f"user {uid}"


def _refuse_unwritable_folder(folder: Path) -> None:
    """A write is a rename inside the folder (and a removal, an unlink): the nearest existing one must allow it."""
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if _read_only_mount(folder):  # (no chmod makes it take files: trial49 F10)
        todo = (
            "deja changed nothing; Cursor reads its settings from there, so no other folder will do: mount that "
            "disk read-write, then run the command again"
        )
        raise InstallError(str(folder), "is on a read-only file system", todo)
    if not os.access(folder, os.W_OK | os.X_OK):
        todo = f"deja changed nothing; make it writable (chmod u+w {folder}), then run the command again"
        raise InstallError(str(folder), "is a folder deja cannot write in", todo)


def _read_only_mount(folder: Path) -> bool:
    """Whether ``folder`` lies on a file system mounted read-only (never on a system without ``statvfs``)."""
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        return False


def backup_path(path: Path, number: int = 0) -> Path:
    """``<file>.bak`` (``number`` 1, 2 …: ``<file>.bak.1`` …) beside ``path``: beside a symlink, in Cursor's folder,
    not beside the file it points to. That is often in a dotfiles repository that ignores ``mcp.json`` by name for
    its tokens, and not the ``.bak`` beside it, which ``git add -A`` took, tokens and all (trial58 T2)."""
    return path.with_name(f"{path.name}.bak{f'.{number}' if number else ''}")


def backup_through_a_link(path: Path, backup: Path) -> str:
    """A sentence on where ``backup``, the copy of ``path``, is when a folder on its way below the home folder is a
    link (``~/.cursor`` linked into a dotfiles repository, as stow and chezmoi do): the copy of the user's file,
    tokens and all, is in the folder the link leads to, where an ignore rule for the file's name does not cover it
    (trial60 F6; a linked file's copy goes beside the link: ``backup_path``); else "". Only folders below the home
    folder count: a home that is itself a link (``/home`` -> ``/var/home``) is no dotfiles repository."""
    from ..core.paths import home

    top = os.path.abspath(home())
    for folder in Path(os.path.abspath(backup)).parents:
        if not str(folder).startswith(top + os.sep):
            break
        if folder.is_symlink():
            lands = os.path.join(os.path.realpath(folder), os.path.relpath(backup, folder))
            return f"{folder} is a link: that copy, your file as it was (tokens and all), goes to {lands}, where an ignore rule for {path.name} does not cover it"  # fmt: skip
    return ""


def free_backup_path(path: Path) -> Path:
    """Where install keeps the user's file before its first change: ``<file>.bak``, unless that already holds
    something else, then the first of ``<file>.bak.1``, ``.bak.2`` … that is free or already holds the same bytes.

    ``mcp.json.bak`` is the name people give their own backups: deja never overwrites what it did not copy there
    itself (a refusal instead would stop every reinstall over a ``.bak`` deja left), and install, ``--dry-run``
    included, says where the copy goes. The same bytes may be overwritten: nothing is lost (a reinstall after an
    uninstall that put the file back reuses its ``.bak``)."""
    try:
        found = Path(os.path.realpath(path)).read_bytes()
    except OSError:
        found = None
    number = 0
    while True:
        candidate = backup_path(path, number)
        try:
            if candidate.read_bytes() == found:
                return candidate
        except FileNotFoundError:
            if not candidate.is_symlink():
                return candidate
        except OSError:
            pass  # a folder, or unreadable: not deja's to overwrite
        number += 1


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
        _write_atomically(change, change.text)


def _holds(path: Path, data: bytes) -> bool:
    try:
        return path.read_bytes() == data
    except OSError:
        return False


def _write_atomically(change: Change, text: str) -> None:
    """Write through a symlink, keeping the file's mode; back the user's file up first when it holds nothing of
    deja's yet (``backup``): an uninstall, or an install that updates deja's entries, takes no .bak."""
    target = Path(os.path.realpath(change.path))
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = None
    if mode is not None and change.backup is not None:
        # 0600 whatever the file's own mode: an mcp.json may hold a server's token, and a copy others can read would
        # open a second, wider door to it (trial48 F7). Written whole, then renamed in, as the file itself is.
        found = target.read_bytes()
        if not _holds(change.backup, found):  # (a copy already there with these bytes, the user's own too, stays)
            replace_private(change.backup, found, sync=True)
    private_dir(target.parent)  # each folder made 0700 whatever the umask (``mkdir(parents=True)`` made parents 0777)
    # (named with this process's pid, as ``replace_private`` names its own: a later run tells a killed one's: trial60 F7)
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.deja-{os.getpid()}.", suffix=".tmp")
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
