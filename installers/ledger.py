"""What ``deja install`` found at each path, so that ``deja uninstall`` puts back exactly that.

Taking deja's entries out of a file does not give back the file the user had:
``{"version": 1}``, ``{"mcpServers": {}}`` or an empty file would end up deleted,
and a file's formatting rewritten. So install records, in ``installed.json`` in
deja's config folder (``${XDG_CONFIG_HOME:-~/.config}/deja``, beside
``config.toml``: not in ``DEJA_HOME``, which ``deja config set home`` moves, and
a record left in the old home would be a record lost), for every file it writes: whether it existed,
the SHA-256 of the bytes it found (kept whole in the ``.bak`` beside the file,
taken afresh whenever the file holds nothing of deja's), the SHA-256 of what it
wrote, and the folders it had to create.

Uninstall puts the ``.bak`` back byte for byte when the file is still exactly
what install wrote and the ``.bak`` is still what install found: both hashes say
so; the ``.bak`` then goes, its bytes being the file's again, if install made it (a ``<file>.bak`` of the user's
holding the same bytes, which install took as its copy, stays: ``Found.backup_made``). A file the user edited since keeps those edits, with deja's entries taken
out; a file that existed before is never removed. A file install created goes
when nothing but deja's entries is left in it, and so do the folders install
created for it, once empty.

Why hashes and the ``.bak`` rather than a copy in the ledger: the user's
``mcp.json`` or ``~/.claude.json`` can hold tokens, which deja keeps out of its
own folder; the ``.bak`` sits beside the original, where those bytes already
are (beside a symlink, in the folder Cursor reads it from, not where the link leads: ``files.backup_path``). Why a ledger at all rather than the ``.bak`` alone: a ``.bak`` left from
an earlier install cannot say whether the file existed this time, nor which
folders install made. Without a ledger entry (the ledger was deleted, or the
entries were already there at install), uninstall only takes deja's entries
out and never removes the file: it cannot tell whether the file was the user's. Either way, an event list the
``.bak`` holds stays in the file, emptied (``earlier_document``). Without a record, a ``<file>.bak`` holding the
very settings uninstall leaves goes back byte for byte, and the folders above deja's own skill and command that
nothing else is in go (trial17 F7: ``XDG_CONFIG_HOME`` set at install and not at uninstall).
A ledger an older deja kept in ``DEJA_HOME`` is read too, and goes once the one
in the config folder is written. Records an older deja keyed by a relative ``CURSOR_CONFIG_DIR``'s spelling
(``relcfg/mcp.json``) count for the uninstall run with the absolute folder where their records place them, or
their keys lead from the folder uninstall runs in (``placed``); else they take no file (``with_unplaced_records``).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from ..core.config import file_in_path
from ..core.paths import deja_config_dir, deja_home, home
from ..core.private import INSTALL_LEDGER
from ..core.regular_files import forbidden
from .files import Change, InstallError, backup_path, parse_object, plan_text, read_text


@dataclass(frozen=True)
class Found:
    """What install found at one path, and what it wrote there."""

    existed: bool | None  # None: deja's entries were already in it, so what preceded them is unknown
    before: str | None  # SHA-256 of the bytes found, which the .bak holds
    after: str  # SHA-256 of the bytes install wrote last
    folders: list[str] = field(default_factory=list)  # the folders install created for it, deepest first
    # Where the .bak is (``files.free_backup_path``: not ``<file>.bak`` when the user had one; beside a symlink, not
    # its target); None: ``<file>.bak`` beside the file a symlink points to (a ledger an older deja wrote, which only
    # ever took that name, there).
    backup: str | None = None
    # Whether install made that .bak: one already there with the same bytes (``free_backup_path`` takes it) is the
    # user's own copy, which uninstall never deletes (review44d M1); False too in a ledger an older deja wrote.
    backup_made: bool = False


Ledger = dict[str, Found]


def ledger_path() -> Path:
    return deja_config_dir() / INSTALL_LEDGER


def _legacy_path() -> Path:
    """Where an older deja kept the ledger: in ``DEJA_HOME``, which moves with ``deja config set home``."""
    return deja_home() / INSTALL_LEDGER


def load() -> Ledger:
    """The ledger (a legacy one's entries under the current one's); empty when there is none or it is not deja's. A
    ``DEJA_HOME`` that is a file (or lies in one) holds no legacy ledger: reading one there stopped ``deja doctor``'s
    wiring check and every install with "cannot read it (Not a directory)" (review14 R14-3). A home this user may
    not reach (``home_out_of_reach``) is not read either: doctor names it under Index, and install and uninstall
    refuse with its fix."""
    legacy = _legacy_path()
    unread = file_in_path(str(legacy.parent)) or home_out_of_reach()
    older = {} if unread else _read(legacy).get("files", {})
    return {**older, **_read(ledger_path()).get("files", {})}


def home_out_of_reach() -> str:
    """The folder that keeps this user out of deja's home, where a legacy ledger may be (the home, or a folder above
    it, that may not be searched: ``XDG_CACHE_HOME`` at mode 000), or "". Its ledger read as "…/installed.json:
    cannot read it (Permission denied)", naming a file that was not the matter and no command (review43c L3)."""
    legacy = _legacy_path()
    blocker = forbidden(legacy)
    return blocker if blocker != str(legacy) else ""


def _read(path: Path) -> dict[str, Any]:
    """A ledger file as ``{"files": {path: Found}, "folders": [...]}``; empty when absent or not one deja wrote.

    One that cannot be read stops install and uninstall (``InstallError``): going on as if there were none would
    leave behind the files install created and record a ledger that forgot them.
    """
    text = read_text(path)
    try:
        raw = json.loads(text or "{}")
        files = {key: Found(**found) for key, found in raw.get("files", {}).items()}
        folders = [str(folder) for folder in raw.get("folders", [])]
    except (ValueError, TypeError, AttributeError):
        return {}
    return {"files": files, "folders": folders}


def plan_save(old: Ledger, new: Ledger) -> list[Change]:
    """The writes and removals that turn the ledger ``old`` into ``new``: the ledger file (removed once empty, with
    the folders its first write created, if nothing else is in them), and a legacy one, whose entries it took."""
    path, legacy = ledger_path(), _legacy_path()
    moving = legacy != path and legacy.exists()
    if new == old and not moving:
        return [Change(path, "unchanged", "")]
    current = read_text(path)
    folders = _read(path).get("folders", []) if current is not None else _missing_folders(path)
    text = json.dumps({"files": {key: asdict(found) for key, found in sorted(new.items())}, "folders": folders},
                      indent=2) + "\n"  # fmt: skip
    changes = [plan_text(path, current, text if new else None)]
    if moving:
        changes.append(plan_text(legacy, read_text(legacy), None))
    if not new:
        changes += _emptied_folders(folders, {str(path)})
    return changes


def _emptied_folders(folders: list[str], gone: set[str]) -> list[Change]:
    """The removals of ``folders`` (deepest first) that hold nothing but what is ``gone`` (and folders removed)."""
    removals = []
    for folder in folders:
        try:
            entries = [os.path.join(folder, name) for name in os.listdir(folder)]
        except OSError:
            continue
        if all(entry in gone for entry in entries):
            gone.add(folder)
            removals.append(Change(Path(folder), "removed", ""))
    return removals


def after_install(ledger: Ledger, changes: list[Change]) -> Ledger:
    """The ledger once ``changes`` are written."""
    updated = dict(ledger)
    for change in changes:
        if change.action == "unchanged" or change.text is None:
            continue
        key, after = str(change.path), _sha(change.text.encode("utf-8"))
        known = ledger.get(key)
        if change.action == "created":
            folders = _missing_folders(change.path)
            if known is not None and known.existed is False:  # (an uninstall killed before it removed them: trial60 F7)
                folders += [folder for folder in known.folders if folder not in folders]
            updated[key] = Found(existed=False, before=None, after=after, folders=folders)
        elif change.backup is not None:
            found = _sha(_real(change.path).read_bytes())
            made = not os.path.lexists(change.backup) or _made_before(known, change.backup)  # (asked before writing)
            updated[key] = Found(True, found, after, backup=str(change.backup), backup_made=made)
        elif known is None:
            updated[key] = Found(existed=None, before=None, after=after)
        else:
            # Edited since deja last wrote it: the .bak no longer tells the whole story, so no exact restore.
            untouched = _sha(_real(change.path).read_bytes()) == known.after
            before = known.before if untouched else None
            updated[key] = Found(known.existed, before, after, known.folders, known.backup, known.backup_made)
    return updated


def _made_before(known: Found | None, backup: Path) -> bool:
    """Whether the copy already at ``backup`` is the one an earlier install made, as its record says, its bytes the
    record's: a copy an uninstall killed before it removed it left (trial60 F7), which an install took for the
    user's own, and no uninstall removed after."""
    if known is None or not (known.backup and known.backup_made) or known.before is None:
        return False
    try:
        return _same_file(Path(known.backup), backup) and _sha(backup.read_bytes()) == known.before
    except OSError:
        return False


def superseded_backups(ledger: Ledger, changes: list[Change]) -> list[Change]:
    """The removals of the .bak copies an earlier install made that ``changes`` take anew (the file held nothing of
    deja's again: its entries taken out by hand): the record then names the new copy only, and the old one, a
    copy of the user's tokens, was in no record, left for good where an older deja put it, beside a link's target
    in a dotfiles repository (review58d F7). A copy install did not make is the user's, and stays."""
    removals = []
    for change in changes:
        known = ledger.get(str(change.path))
        if change.backup is None or known is None or not (known.backup and known.backup_made):
            continue
        old = Path(known.backup)
        try:
            # (the same bytes again: ``free_backup_path``; a record spelt through a link)
            if _same_file(old, change.backup):
                continue
            data = old.read_bytes()
            if known.before is None or _sha(data) != known.before:  # (a copy the user put there since: review59b F2)
                continue
            why = f"the copy an earlier install of deja made; uninstall puts back {change.backup} now"
            removals.append(replace(plan_text(old, data.decode("utf-8"), None), reason=why))
        except (OSError, UnicodeDecodeError):  # (gone, or no text of deja's: left as it is)
            continue
    return removals


def _same_file(one: Path, other: Path) -> bool:
    """Whether two paths name one file, however spelt (a record an older deja wrote through ``realpath``, a folder
    that is a link: GNU stow's, review59b F5); False where ``other`` is not there yet."""
    try:
        return os.path.samefile(one, other)
    except OSError:
        return os.path.abspath(one) == os.path.abspath(other)


def keep_backups_private(ledger: Ledger) -> None:
    """Make each .bak deja made readable by its user alone: an earlier deja's copy kept the file's own mode (an
    ``mcp.json.bak`` at 0644 holding a server's token: review48a M4), so an install over it mends it. A .bak the
    user made is theirs, left as it is."""
    for found in ledger.values():
        if not (found.backup and found.backup_made):
            continue
        try:
            st = os.lstat(found.backup)
            if stat.S_ISREG(st.st_mode) and st.st_mode & 0o077:
                os.chmod(found.backup, stat.S_IMODE(st.st_mode) & 0o700)
        except OSError:
            continue  # (gone, or not ours to change: uninstall says what it finds)


def settle_uninstall(changes: list[Change], ledger: Ledger) -> list[Change]:
    """Uninstall's ``changes`` made exact: restores where install left a file untouched, then emptied folders."""
    # (a change rebuilt from the .bak keeps saying which of deja's hooks the user edited it takes out: review44d M4)
    settled = [replace(_settle(change, ledger.get(str(change.path))), edited_hooks=change.edited_hooks)
               for change in changes]  # fmt: skip
    spent = _spent_backups(settled, ledger) + _stranded_backups(settled, ledger)
    return (
        _kept_backups(settled, spent, ledger)
        + spent
        + _folder_removals(settled, ledger)
        + _unrecorded_folders(settled, ledger)
        + (_empty_config_folder() if any(change.action != "unchanged" for change in settled) else [])
    )


def after_uninstall(ledger: Ledger, changes: list[Change]) -> Ledger:
    """The ledger without the paths uninstall dealt with: deja is no longer in any of them. A file another install
    still uses (``Change.used_by``) keeps its record, for the uninstall that removes it, and the folders made for it."""
    dealt = {str(change.path) for change in changes if not change.used_by}
    return {key: found for key, found in ledger.items() if key not in dealt}


def placed(ledger: Ledger, changes: list[Change], files: tuple[str, ...]) -> Ledger:
    """``ledger`` with each record an older deja keyed by a relative ``CURSOR_CONFIG_DIR`` (``relcfg/mcp.json``: it
    took the value as given) under the path of ``changes`` it is of (``_is_of``), where uninstall finds deja's
    entries. Such an install can only be undone with the absolute folder now (review46f M2): matched by the
    key alone, its records were never found, so the files it created stayed (emptied) and so did its records. A
    path recorded since keeps its own record, unless that one knows less (an install over it with the absolute
    folder found deja's entries there): then the older one's, with what was written last. ``files``: those deja
    writes in Cursor's config folder, by their path in it (``cursor.IN_CONFIG_FOLDER``)."""
    older = _older_places(ledger, files)
    updated = dict(ledger)
    for change in changes if older else ():
        if change.action == "unchanged":
            continue
        for key, (spelling, place) in older.items():
            own = updated.get(str(change.path))
            knows = own is not None and own.existed is not None  # (the older record may be another folder's then)
            if key in updated and not knows and _is_of(key, spelling, place, change.path):
                found = updated.pop(key)
                updated[str(change.path)] = found if own is None else replace(found, before=None, after=own.after)
    return updated


def with_unplaced_records(changes: list[Change], ledger: Ledger, files: tuple[str, ...]) -> list[Change]:
    """``changes`` with a sentence on each file that stays though an older deja's relative record left in ``ledger``
    (once ``placed``) may be of it: one that places its file nowhere, its key's last parts this path's. Uninstall
    cannot tell whether that install created the file, so it keeps it, emptied of deja's entries (review47b M1: by
    its name alone, ``mcp.json``, an install made with ``CURSOR_CONFIG_DIR=.`` took ``~/.cursor``'s and removed it)."""
    unplaced = {key: spelling for key, (spelling, place) in _older_places(ledger, files).items() if not place}
    noted = []
    for change in changes:
        own = ledger.get(str(change.path))
        if change.action == "updated" and (own is None or own.existed is None):  # (deja's own command goes anyway)
            for key, spelling in unplaced.items():
                if _ends_with(change.path, key):
                    change = replace(change, unplaced_record=_unplaced_sentence(change.path, spelling))
        noted.append(change)
    return noted


def _unplaced_sentence(path: Path, spelling: str) -> str:
    return (
        f"{path} stays: deja's record of an install made with CURSOR_CONFIG_DIR={spelling} may be of it, but does not "
        "say which folder that was, so whether that install created it is unknown"
    )


def _ends_with(path: Path, key: str) -> bool:
    """Whether ``path`` (or where its links lead) ends with the relative ``key``'s parts, bar its leading ``..``."""
    parts = Path(key).parts
    named = parts[next((i for i, part in enumerate(parts) if part != ".."), len(parts)) :]
    return any(Path(spelt).parts[-len(named) :] == named for spelt in (str(path), os.path.realpath(path)))


def recorded_files(ledger: Ledger, files: tuple[str, ...]) -> list[Path]:
    """The file each record is of: its key, or where the records of an older deja's relative key place it
    (``_older_places``; the key alone is another file wherever deja runs). One placed nowhere is left out."""
    older = _older_places(ledger, files)
    places = (older[key][1] if key in older else key for key in ledger if key in older or os.path.isabs(key))
    return [Path(place) for place in places if place]


def relative_install_folder(ledger: Ledger, spelling: str, files: tuple[str, ...]) -> str | None:
    """The absolute folder an older deja's install with the relative ``CURSOR_CONFIG_DIR`` ``spelling`` wrote in, as
    its records tell (``_install_folders``); "" when they record no such folder; None when there is no such record:
    one of another spelling (``relcfg/mcp.json`` for ``.``) is another install's (review47b L1)."""
    spelt = str(Path(spelling))
    if not any(_spelt(key, files)[0] == spelt for key in ledger):
        return None
    return _install_folders(ledger, files).get(spelt, "")


def _spelt(key: str, files: tuple[str, ...]) -> tuple[str, str]:
    """The relative ``CURSOR_CONFIG_DIR`` an older deja keyed the record ``key`` by, as it spelt the path (``Path``
    drops a ``./``, keeps a ``..``), and which of ``files`` in it the record is of: ``relcfg`` and
    ``commands/deja.md`` for ``relcfg/commands/deja.md``, ``.`` and ``mcp.json`` for ``mcp.json``; two "" for a key
    that is no such file below a relative folder (an absolute one, as every deja since keys)."""
    parts = Path(key).parts
    for file in files if not os.path.isabs(key) else ():
        tail = Path(file).parts
        if parts[-len(tail) :] == tail:
            return str(Path(*parts[: -len(tail)])), file
    return "", ""


def _older_places(ledger: Ledger, files: tuple[str, ...]) -> dict[str, tuple[str, str]]:
    """Each older deja's relative key's spelling (``_spelt``) and the file it is of as the records tell: its
    own (``_recorded_place``), else its install's folder (``_install_folders``: a file found there, in a folder
    found there, is placed by the records of its siblings), else ""."""
    folders = _install_folders(ledger, files)
    older = {}
    for key, found in ledger.items():
        spelling, file = _spelt(key, files)
        if spelling:
            folder = folders.get(spelling)
            older[key] = (spelling, _recorded_place(key, found) or (os.path.join(folder, file) if folder else ""))
    return older


def _install_folders(ledger: Ledger, files: tuple[str, ...]) -> dict[str, str]:
    """The absolute folder each relative spelling named at install, where its records place one of its files (the
    folders install made, or a .bak: absolute, links followed); "" for a spelling whose records place its files in
    two folders (installs run in two folders: neither can be told from the other)."""
    folders: dict[str, str] = {}
    for key, found in ledger.items():
        spelling, file = _spelt(key, files)
        if spelling and (place := _recorded_place(key, found)):
            folder = place[: -len(file) - 1] if place.endswith(os.sep + file) else ""
            folders[spelling] = folder if folders.get(spelling, folder) == folder else ""
    return folders


def _is_of(key: str, spelling: str, place: str, path: Path) -> bool:
    """Whether the older relative ``key`` is of the file at ``path``: where its records place it (``_older_places``),
    else where it leads from the folder uninstall runs in, which the refusal of that spelling names (the install ran
    there). A bare file name (``CURSOR_CONFIG_DIR=.``) so led is no evidence: it is any folder's file."""
    real = os.path.realpath(path)
    if place:
        return place == real
    return spelling != "." and os.path.realpath(key) == real


def _recorded_place(key: str, found: Found) -> str:
    """Where the file a ledger key names was, as its record tells (its links followed): in the folder install made
    for it, or beside the .bak install took of it (both absolute whatever the key's spelling); else ""."""
    folder = found.folders[0] if found.folders else os.path.dirname(found.backup) if found.backup else ""
    return os.path.join(folder, os.path.basename(key)) if folder else ""


def _settle(change: Change, found: Found | None) -> Change:
    """A file install found goes back as it was, else keeps what is not deja's; only a file install created goes."""
    if change.action == "unchanged":
        return change
    original = _untouched_original(change.path, found) if found is not None and found.existed else None
    if original is not None:
        return plan_text(change.path, change.before, original)
    created = found is not None and found.existed is False
    if change.action == "removed" and change.remainder is not None and not created:
        change = plan_text(change.path, change.before, change.remainder)  # it existed, or may have: it stays
    if not created and change.action == "updated" and change.text is not None:
        return _same_as_backup(change, found) or change
    return change


def _spent_backups(changes: list[Change], ledger: Ledger) -> list[Change]:
    """The removals of the .bak copies install took of files uninstall puts back from them byte for byte: the file
    then holds those very bytes, and a backup the user never asked for, left in ``~/.cursor``, was clutter (trial43
    F11). A .bak uninstall could not restore from (the file was edited since, beyond deja's own entries) stays: it
    alone holds the file as it was; so does a .bak install did not make (``Found.backup_made``: the user's own copy,
    of the same bytes) and a ``<file>.bak`` deja has no record of, which may be the user's own."""
    removals = []
    for change in changes:
        found = ledger.get(str(change.path))
        if change.action != "updated" or found is None or not found.existed or not found.backup_made:
            continue
        if change.text is not None and change.text == _backup_text(change.path, found):
            removals.append(plan_text(_backup_of(change.path, found), change.text, None))
    return removals


def _stranded_backups(changes: list[Change], ledger: Ledger) -> list[Change]:
    """The removals of the .bak copies install made of files that hold nothing of deja's and are those very bytes
    again: an uninstall killed after it put the file back and before it removed the copy left it (the user's
    tokens), and every uninstall after it found nothing to do in the file and forgot the record (trial60 F7). A copy
    whose bytes are not the record's is the user's now, and stays."""
    removals = []
    for change in changes:
        found = ledger.get(str(change.path))
        if change.action != "unchanged" or found is None or not found.existed or not found.backup_made:
            continue
        backup = _backup_of(change.path, found)
        try:
            if _same_file(change.path, backup):  # (the file a link to its own .bak: the user's only copy, review60d F1)
                continue
            data = backup.read_bytes()
            if found.before is None or _sha(data) != found.before or _real(change.path).read_bytes() != data:
                continue
            why = "the copy install made, left by an uninstall that was stopped after it put the file back"
            removals.append(replace(plan_text(backup, data.decode("utf-8"), None), reason=why))
        except (OSError, UnicodeDecodeError):  # (gone, or no text of deja's: left as it is)
            continue
    return removals


def _kept_backups(changes: list[Change], removals: list[Change], ledger: Ledger) -> list[Change]:
    """``changes`` with a sentence on each recorded .bak uninstall leaves, and why: one left unsaid looked like
    clutter deja forgot (trial44b F2)."""
    removed = {change.path for change in removals}
    kept = []
    for change in changes:
        found = ledger.get(str(change.path))
        if change.action != "unchanged" and found is not None and found.existed:
            backup = _backup_of(change.path, found)
            if backup not in removed and backup.exists():
                change = replace(change, kept_backup=f"{backup} stays: {_why_kept(change, found)}")
        kept.append(change)
    return kept


def _why_kept(change: Change, found: Found) -> str:
    original = _backup_text(change.path, found)
    if original is None:
        return "it changed since install, so uninstall did not put it back"
    if change.text == original:
        return "it was there before install (your own copy)"
    return f"it holds {change.path} as it was before install, which differs from what uninstall leaves in more than deja's entries"


def _backup_of(path: Path, found: Found) -> Path:
    """Where install kept the file it found at ``path``."""
    return Path(found.backup) if found.backup else backup_path(_real(path))


def _same_as_backup(change: Change, found: Found | None) -> Change | None:
    """The .bak put back when it holds the very settings deja's entries leave (the user's formatting and spelling
    with them), though the file was edited since install (deja's own hook: trial44b F2) or there is no record of it
    (trial17 F7: then ``<file>.bak``); else None."""
    original = _backup_text(change.path, found)
    try:
        same = original is not None and json.loads(original) == json.loads(change.text or "")
    except ValueError:
        return None
    return plan_text(change.path, change.before, original) if same and original is not None else None


def earlier_document(ledger: Ledger, path: Path) -> dict[str, Any]:
    """The JSON object install found at ``path``, from its .bak, for an uninstall that cannot put the file back whole
    to keep what the user had in it (an event's empty list: trial17 F6). Without a record, ``<file>.bak``, which
    deja writes: at worst, a user's own copy there keeps an emptied list of theirs. Empty: install created the
    file, or the .bak is gone, unreadable, or no longer what install found."""
    found = ledger.get(str(path))
    if found is not None and found.existed is False:
        return {}
    original = _backup_text(path, found)
    try:
        return parse_object(path, original) if original is not None else {}
    except InstallError:
        return {}


def _untouched_original(path: Path, found: Found) -> str | None:
    """The .bak's text, when the file is what install wrote and the .bak what install found; else None."""
    try:
        if found.before is None or _sha(_real(path).read_bytes()) != found.after:
            return None
    except OSError:
        return None
    return _backup_text(path, found)


def _backup_text(path: Path, found: Found | None) -> str | None:
    """The text of the .bak install took of ``path`` (without a record, ``<file>.bak``), when it is still what
    install found (as far as the record tells); else None."""
    backup = _unrecorded_backup(path) if found is None else _backup_of(path, found)
    try:
        data = backup.read_bytes()
        if found is not None and found.before is not None and _sha(data) != found.before:
            return None
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _unrecorded_backup(path: Path) -> Path:
    """Where install kept ``path`` with no record to say: ``<file>.bak`` beside it, or, for a symlink with none
    there, beside the file it points to, where a deja before stop 58 kept it (review58d F8: a record-less uninstall
    put the file back at its own layout, the user's lost)."""
    beside = backup_path(path)
    if os.path.lexists(beside) or not path.is_symlink():
        return beside
    return backup_path(_real(path))


def _folder_removals(changes: list[Change], ledger: Ledger) -> list[Change]:
    """The folders install created for these paths that uninstall leaves empty, deepest first."""
    gone = {os.path.realpath(change.path) for change in changes if change.action == "removed"}
    created = {folder for change in changes if (found := ledger.get(str(change.path))) for folder in found.folders}
    return _emptied_folders(sorted(created - gone, key=lambda name: name.count(os.sep), reverse=True), gone)


def _unrecorded_folders(changes: list[Change], ledger: Ledger) -> list[Change]:
    """Without a record of a file deja removes (its own skill or command: trial17 F7), the folders above it, up to
    the home folder, that hold nothing else once it is gone: install made them for it, as far as can be told."""
    gone = {os.path.realpath(change.path) for change in changes if change.action == "removed"}
    top = os.path.realpath(home())
    removals = []
    for change in changes:
        if change.action != "removed" or change.before is None or str(change.path) in ledger:
            continue  # (``before`` None: a folder, which its file's entry speaks for)
        folder = os.path.dirname(os.path.realpath(change.path))
        while folder.startswith(top + os.sep):
            if folder not in gone:
                try:
                    entries = {os.path.join(folder, name) for name in os.listdir(folder)}
                except OSError:
                    break
                if not entries <= gone:
                    break
                gone.add(folder)
                removals.append(Change(Path(folder), "removed", ""))
            folder = os.path.dirname(folder)
    return removals


def _empty_config_folder() -> list[Change]:
    """deja's config folder when it holds nothing: its ledger deleted, uninstall left it behind, empty (trial44 F8).
    Only deja writes in it (the ledger, ``config.toml``), so an empty one an install wrote its ledger in is what deja
    made; ``settle_uninstall`` asks only when uninstall found deja's entries to take out: with nothing of deja's
    anywhere, an empty folder is the user's own ``mkdir`` (review44d L2). (A link to a folder is the user's too.)"""
    folder = deja_config_dir()
    try:
        if os.path.islink(folder) or os.listdir(folder):
            return []
    except OSError:  # (none, or not to be read: nothing to say of it)
        return []
    return [Change(folder, "removed", "")]


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
