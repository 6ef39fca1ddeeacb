"""The temporary files a killed install or uninstall left beside the files deja writes (trial60 F7).

deja writes a file (and its ``.bak``) whole beside it first, then renames it in: ``.<name>.deja-<pid>.<random>.tmp``
(``files._write_atomically``), ``.<name>.bak.<pid>.tmp`` (``core.private.replace_private``). A ``kill -9`` between
the two leaves that copy, 0600 and holding the user's file (tokens and all), where no later run looked. The next
install or uninstall removes each one whose pid no longer runs, and says it does; one an older deja named
``.<name>.<random>.tmp`` cannot be told from a write under way, so it is named and left.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..core.detached import may_run
from .files import Change

#: What follows ``.<name>.`` in a temporary file of deja's, with the pid of the process writing it: a ``.bak``'s
#: (``core.private.replace_private``'s ``bak.PID.tmp``, ``bak.1.PID.tmp``), or the file's own
#: (``files._write_atomically``'s ``deja-PID.<random>.tmp``). A ``.<name>.<digits>.tmp`` alone may be the user's or
#: another tool's (Go's ``os.CreateTemp``), and is never taken for deja's (review60d F2).
_WITH_PID = re.compile(r"(?:bak(?:\.\d+)?\.(?P<pid>\d+)|deja-(?P<own>\d+)\.[a-z0-9_]{8})\.tmp")
#: The file's own, as an older deja named it: ``tempfile``'s random part alone.
_WITHOUT_PID = re.compile(r"[a-z0-9_]{8}\.tmp")


def stopped_writes(changes: list[Change]) -> list[Change]:
    """The removals of the temporary files of a killed deja beside the files of ``changes``, and a change that
    leaves each one whose writer cannot be told (an older deja's), with the reason said."""
    found = []
    for folder, names in _names_by_folder(changes).items():
        try:
            entries = sorted(os.listdir(folder))
        except OSError:
            continue
        for entry in entries:
            for name in names:
                if entry.startswith(f".{name}.") and (change := _leftover(Path(folder, entry), name)):
                    found.append(change)
                    break
    return found


def _names_by_folder(changes: list[Change]) -> dict[str, set[str]]:
    """The names of the files deja writes for ``changes`` in each folder: beside the path as spelt (where a .bak
    goes) and where its links lead (where the file is written). A temporary file of another name is no copy of
    deja's, and stays whatever it is called."""
    folders: dict[str, set[str]] = {}
    for change in changes:
        if change.path.is_dir():  # (a folder deja made, which it removes: never written through a temporary file)
            continue
        for path in (change.path, Path(os.path.realpath(change.path))):
            folders.setdefault(str(path.parent), set()).add(path.name)
    return folders


def _leftover(path: Path, name: str) -> Change | None:
    """The change for ``path``, named ``.<name>.…``: removed when the name is of a temporary file of deja's whose
    writer's pid no longer runs, left with a sentence when it names no pid; None for a write under way or another
    file."""
    rest = path.name[len(name) + 2 :]
    if not path.is_file() or path.is_symlink():
        return None
    if (named := _WITH_PID.fullmatch(rest)) is not None:
        if may_run(int(named["pid"] or named["own"])):
            return None
        why = f"a temporary copy of {name} left by a deja stopped while writing it (it may hold your tokens)"
        return Change(path, "removed", "", reason=why)
    if _WITHOUT_PID.fullmatch(rest):
        why = f"stays: an older deja's temporary copy of {name}, left if it was stopped while writing it (it may hold your tokens); remove it once no deja runs"  # fmt: skip
        return Change(path, "unchanged", "", reason=why)
    return None
