"""What ``deja install`` found at each path, so that ``deja uninstall`` puts back exactly that.

Taking deja's entries out of a file does not give back the file the user had:
``{"version": 1}``, ``{"mcpServers": {}}`` or an empty file would end up deleted,
and a file's formatting rewritten. So install records, in
``<DEJA_HOME>/installed.json``, for every file it writes: whether it existed,
the SHA-256 of the bytes it found (kept whole in the ``.bak`` beside the file,
taken afresh whenever the file holds nothing of deja's), the SHA-256 of what it
wrote, and the folders it had to create.

Uninstall puts the ``.bak`` back byte for byte when the file is still exactly
what install wrote and the ``.bak`` is still what install found: both hashes say
so. A file the user edited since keeps those edits, with deja's entries taken
out; a file that existed before is never removed. A file install created goes
when nothing but deja's entries is left in it, and so do the folders install
created for it, once empty.

Why hashes and the ``.bak`` rather than a copy in the ledger: the user's
``mcp.json`` or ``~/.claude.json`` can hold tokens, which deja keeps out of its
own folder; the ``.bak`` sits beside the original, where those bytes already
are. Why a ledger at all rather than the ``.bak`` alone: a ``.bak`` left from
an earlier install cannot say whether the file existed this time, nor which
folders install made. Without a ledger entry (an install by an older deja, or
a ledger deleted with ``DEJA_HOME``), uninstall only takes deja's entries out.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..core.paths import deja_home
from ..core.private import INSTALL_LEDGER
from .files import Change, InstallError, backup_path, plan_text, read_text


@dataclass(frozen=True)
class Found:
    """What install found at one path, and what it wrote there."""

    existed: bool | None  # None: deja's entries were already in it, so what preceded them is unknown
    before: str | None  # SHA-256 of the bytes found, which the .bak holds
    after: str  # SHA-256 of the bytes install wrote last
    folders: list[str] = field(default_factory=list)  # the folders install created for it, deepest first


Ledger = dict[str, Found]


def ledger_path() -> Path:
    return deja_home() / INSTALL_LEDGER


def load() -> Ledger:
    """The ledger; empty when there is none, or it is not one deja wrote (uninstall then only strips entries)."""
    try:
        raw = json.loads(read_text(ledger_path()) or "{}")
        return {path: Found(**found) for path, found in raw.get("files", {}).items()}
    except (InstallError, ValueError, TypeError, AttributeError):
        return {}


def plan_save(old: Ledger, new: Ledger) -> Change:
    """The write (or removal, once empty) that turns the ledger ``old`` into ``new``."""
    path = ledger_path()
    if new == old:
        return Change(path, "unchanged", "")
    text = json.dumps({"files": {key: asdict(found) for key, found in sorted(new.items())}}, indent=2) + "\n"
    return plan_text(path, read_text(path), text if new else None)


def after_install(ledger: Ledger, changes: list[Change]) -> Ledger:
    """The ledger once ``changes`` are written."""
    updated = dict(ledger)
    for change in changes:
        if change.action == "unchanged" or change.text is None:
            continue
        key, after = str(change.path), _sha(change.text.encode("utf-8"))
        known = ledger.get(key)
        if change.action == "created":
            updated[key] = Found(existed=False, before=None, after=after, folders=_missing_folders(change.path))
        elif change.pristine:
            updated[key] = Found(existed=True, before=_sha(_real(change.path).read_bytes()), after=after)
        elif known is None:
            updated[key] = Found(existed=None, before=None, after=after)
        else:
            # Edited since deja last wrote it: the .bak no longer tells the whole story, so no exact restore.
            untouched = _sha(_real(change.path).read_bytes()) == known.after
            updated[key] = Found(known.existed, known.before if untouched else None, after, known.folders)
    return updated


def settle_uninstall(changes: list[Change], ledger: Ledger) -> list[Change]:
    """Uninstall's ``changes`` made exact: restores where install left a file untouched, then emptied folders."""
    settled = [_settle(change, ledger.get(str(change.path))) for change in changes]
    return settled + _folder_removals(settled, ledger)


def after_uninstall(ledger: Ledger, changes: list[Change]) -> Ledger:
    """The ledger without the paths uninstall dealt with: deja is no longer in any of them."""
    dealt = {str(change.path) for change in changes}
    return {key: found for key, found in ledger.items() if key not in dealt}


def _settle(change: Change, found: Found | None) -> Change:
    if change.action == "unchanged" or found is None or not found.existed:
        return change
    original = _untouched_original(change.path, found)
    if original is not None:
        return plan_text(change.path, change.before, original)
    if change.action == "removed" and change.remainder is not None:
        return plan_text(change.path, change.before, change.remainder)  # it existed: it stays
    return change


def _untouched_original(path: Path, found: Found) -> str | None:
    """The .bak's text, when the file is what install wrote and the .bak what install found; else None."""
    try:
        if _sha(_real(path).read_bytes()) != found.after:
            return None
        original = backup_path(path).read_bytes()
        return original.decode("utf-8") if _sha(original) == found.before else None
    except (OSError, UnicodeDecodeError):
        return None


def _folder_removals(changes: list[Change], ledger: Ledger) -> list[Change]:
    """The folders install created for these paths that uninstall leaves empty, deepest first."""
    gone = {os.path.realpath(change.path) for change in changes if change.action == "removed"}
    created = {folder for change in changes if (found := ledger.get(str(change.path))) for folder in found.folders}
    removals = []
    for folder in sorted(created - gone, key=lambda name: name.count(os.sep), reverse=True):
        try:
            entries = [os.path.join(folder, name) for name in os.listdir(folder)]
        except OSError:
            continue
        if all(entry in gone for entry in entries):
            gone.add(folder)
            removals.append(Change(Path(folder), "removed", ""))
    return removals


def _missing_folders(path: Path) -> list[str]:
    """The folders that writing ``path`` will create, deepest first."""
    missing = []
    folder = _real(path).parent
    while not folder.exists() and folder != folder.parent:
        missing.append(str(folder))
        folder = folder.parent
    return missing


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
