"""Which indexed project a name or folder given to ``--project`` means (the CLI's, the MCP tools' ``project``), the
folders a name's sessions ran in, and the projects an unknown name most likely means.

Apart from ``search``, whose module a hook's recall loads: a recall filters by no project, and loading this code
cost every recalling prompt about 0.3 M instructions for nothing (``valgrind``, 1k sessions).
"""

from __future__ import annotations

from .index import name_hash
from .keys import (
    holds_home,
    is_folder,
    project_spelling,
    readable_path,
    resolved_folder,
    sessions_key,
    spelt_homes,
    telling_tail,
    tree_key,
)
from .text import composed, fold

TYPE_CHECKING = False  # typing's own, without importing typing; type checkers know it
if TYPE_CHECKING:
    from collections.abc import Iterable

    from .index import Index, Segment


def project_indexed(index: Index, project: str) -> bool:
    """Whether a session of ``project`` (a name, or a folder with the folders below it) is indexed: a search that
    names an unknown project says so rather than that its filter turned the matches away."""
    return bool(index.newest(sessions_key(project), limit=1))


def meant_project(index: Index, project: str | None) -> tuple[str | None, list[str]]:
    """What ``--project`` means: the project to filter by, and the folders it could mean when it names more than one
    (then the project is None, and the caller asks which). A name no session's project has is the one that it
    spells without its accents, as search reads words (``naive cafe`` for ``naïve café``, trial17), when one does.
    """
    meant, folders = _meant_project(index, project)
    if folders or not meant or is_folder(meant) or project_indexed(index, meant):
        return meant, folders
    spelt = _accented(index, meant)
    return _meant_project(index, spelt) if spelt else (meant, folders)


#: How alike a name must be to a project's to be offered for it (``difflib``'s ratio): ``shpo`` is ``shop``'s
#: (0.75), ``web`` is ``web-app``'s (0.6), ``xylophone`` is not ``x``'s (0.2) nor ``application`` ``app``'s (0.43).
CLOSE_RATIO = 0.6


def close_projects(index: Index, name: str) -> list[str]:
    """The projects ``name`` most likely means when none is called so (``web`` for ``web-app``, ``shpo`` for
    ``shop``, ``packages/ap`` for ``packages/api``), as ``--project`` takes them (``telling_labels``: ``legacy/api``
    where two folders end so): each that is as alike as the most alike, so two folders called ``api`` are both
    offered for ``apj``; [] when none is alike enough (``CLOSE_RATIO``), ``name`` is a letter, or a folder's path
    (``./web``, ``~/code/web``). An unknown ``--project`` says it rather than leaving the user to look it up
    (trial23); a name that began with a shorter project's (``xylophone``, ``x``) was offered it (review43a L1)."""
    from difflib import SequenceMatcher

    wanted = fold(composed(name.strip())).lower().strip("/")
    if len(wanted) < 2 or name.strip().startswith(("/", "~", ".")):
        return []
    folders = sorted(_session_folders(index))
    depth = wanted.count("/") + 1  # (a label's parts: ``packages/ap`` is read against each folder's last two)
    tails = [fold(composed("/".join(folder.rstrip("/").split("/")[-depth:]))).lower() for folder in folders]
    ratios = [SequenceMatcher(None, wanted, tail).ratio() for tail in tails]
    best = max(ratios, default=0.0)
    if best < CLOSE_RATIO:
        return []
    labels = telling_labels(folders)
    return [label for label, ratio in zip(labels, ratios, strict=True) if ratio == best]


def _accented(index: Index, name: str) -> str:
    """The name of the folders sessions ran in that ``name`` spells without its accents, in any case; "" when none
    is, or several spelt apart."""
    wanted = fold(composed(name.strip())).lower()
    names = {folder.rpartition("/")[2] for folder in _session_folders(index)}
    found = {project_spelling(named): named for named in names if fold(composed(named)).lower() == wanted}
    return next(iter(found.values())) if len(found) == 1 else ""


def _meant_project(index: Index, project: str | None) -> tuple[str | None, list[str]]:
    """``meant_project``'s answer for ``project`` as spelt.

    A name of one folder is that folder, with the folders below it: ``--project shop`` at a monorepo's root holds
    its packages' sessions as ``--project ~/code/shop`` does (the MCP tools' ``project``, which a model gives by
    name, missed them all: trial9 F7). A name two folders share (``api`` for ``~/work/api`` and ``~/legacy/api``)
    names both: one answer of the two read as one project's. The trailing path the hooks tell them apart by
    (``legacy/api``), read as a folder below this one where no session ran, is the one folder of that name it ends,
    as kept or where its links lead (``keys.labels_apart`` tells a linked folder from where they lead: review48b M2).
    """
    if not project or not project.strip():
        return project, []
    if not is_folder(project):
        by_folder = _sessions_by_folder(index, project)
        above = _folders_above(index, project)
        if not by_folder:  # no session ran in a folder of that name: a monorepo's root its packages ran below?
            return _one_or_which(above, project)
        if above and len(every := _one_each([*_folders_of(by_folder, 1), *above])) > 1:
            return None, every  # a monorepo's root beside another folder of its name (review15 F5)
        folders = _folders_of(by_folder, 2)
        return (None, folders) if folders else (_folder_with_more(index, by_folder) or project, [])
    label = project.strip().strip("/")
    if project.strip().startswith(("/", "~", ".")) or project_indexed(index, project):
        return project, []
    name, ending = label.rpartition("/")[2], "/" + _tail_spelling(label)
    named = _one_each([*project_folders(index, name, 1), *_folders_above(index, name)])
    ended = [f for f in named if any(_tail_spelling(s).endswith(ending) for s in (f, resolved_folder(f)))]
    return _one_or_which(ended, project)


def _one_or_which(folders: list[str], project: str) -> tuple[str | None, list[str]]:
    """``meant_project``'s answer from the folders ``project`` may mean: the one, the choice, or ``project`` as
    given when it means none."""
    if len(folders) == 1:
        return folders[0], []
    return (None, folders) if folders else (project, [])


def _one_each(folders: list[str]) -> list[str]:
    """``folders`` sorted, each once however it is spelt."""
    return sorted({project_spelling(folder): folder for folder in folders}.values())


def _tail_spelling(path: str) -> str:
    """A path, or the end of one, as the index spells a folder but left relative: composed, in any case (``Café``
    spelt decomposed on disk ends ``work/Café`` typed composed: review15 F5b)."""
    return readable_path(path).rstrip("/").lower()


def namesakes(index: Index, names: Iterable[str]) -> list[str]:
    """The folders the sessions of each project named in ``names`` ran in, where two or more share a name
    (``project_folders``): what a listing tells its projects apart from (``keys.labels_apart``'s ``roots``), so the
    label one hit shows is the one ``--project`` takes, not ``api`` that it refuses as naming two (review48b M3)."""
    return [folder for name in {name.lower() for name in names if name} for folder in project_folders(index, name)]


def project_folders(index: Index, name: str, most_alike: int = 2) -> list[str]:
    """The folders the sessions of the project named ``name`` ran in, sorted; none unless there are at least
    ``most_alike``."""
    return _folders_of(_sessions_by_folder(index, name), most_alike)


def _sessions_by_folder(index: Index, name: str) -> dict[int, list[tuple[Segment, int]]]:
    """The live sessions of the project named ``name`` by the hash of the folder each ran in (0: none), found from
    each segment's packed name hashes (``Segment.sessions_named``) without decoding a session."""
    wanted = name_hash(name)
    by_folder: dict[int, list[tuple[Segment, int]]] = {}
    for segment in index.segments:
        named = segment.sessions_named(wanted, segment.ref.sessions) or set()
        project_hashes, dir_hashes = segment.session_columns()[:2]
        for ordinal in named - segment.deleted:
            if project_hashes[ordinal] == wanted:
                by_folder.setdefault(dir_hashes[ordinal], []).append((segment, ordinal))
    return by_folder


def _folders_above(index: Index, name: str) -> list[str]:
    """The folders named ``name`` that sessions ran below, sorted: a monorepo's root, where no chat was opened but
    each package had its own (``--project mono`` found nothing while its path found both packages: trial11 F10)."""
    if index.names_above is None:
        index.names_above = _names_above(index)
    return sorted(index.names_above.get(project_spelling(name), {}).values())


def _names_above(index: Index) -> dict[str, dict[str, str]]:
    """Each folder that sessions ran below, by its name as ``--project`` compares names, then by its own spelling.
    Found from the folders sessions ran in (``_session_folders``), each folder above them looked at once; never the
    root, nor the home folder or a folder above it, which would be every session's (``--project Users`` on a Mac
    with a chat opened at the home folder: review15 F4)."""
    homes = spelt_homes()
    found: dict[str, dict[str, str]] = {}
    seen: set[str] = set()
    for folder in _session_folders(index):
        parts = folder.split("/")
        for end in range(len(parts) - 1, 1, -1):  # the folders above it, nearest first, the root left out
            above = "/".join(parts[:end])
            if above in seen:  # (and the folders above it with it)
                break
            seen.add(above)
            spelt = project_spelling(above)
            if holds_home(spelt, homes):
                break
            found.setdefault(project_spelling(parts[end - 1]), {}).setdefault(spelt, above)
    return found


def _session_folders(index: Index) -> set[str]:
    """Every folder a live session ran in, one session decoded per folder in the whole index (its directory hash,
    the same in every segment, tells them apart)."""
    folders: set[str] = set()
    decoded = {0}  # (the hash of no folder)
    for segment in index.segments:
        hashes = segment.session_columns()[1].tolist()
        deleted = segment.deleted
        one_each = dict(zip(hashes, range(len(hashes)), strict=True))  # (a folder's last session: ordinals at C speed)
        if deleted:
            one_each = {folder: ordinal for ordinal, folder in enumerate(hashes) if ordinal not in deleted}
        folders.update(segment.session(one_each[h]).project_dir.rstrip("/") for h in one_each.keys() - decoded)
        decoded.update(one_each)
    return folders


def _folders_of(by_folder: dict[int, list[tuple[Segment, int]]], most_alike: int) -> list[str]:
    """The folders of ``by_folder`` (``_sessions_by_folder``), sorted, one session decoded per folder; none unless
    there are at least ``most_alike``."""
    found = [sessions[0] for folder_hash, sessions in by_folder.items() if folder_hash]
    if len(found) < most_alike:
        return []
    folders: dict[str, str] = {}
    for segment, ordinal in found:
        folder = segment.session(ordinal).project_dir.rstrip("/")
        folders.setdefault(project_spelling(folder), folder)
    return sorted(folders.values()) if len(folders) >= most_alike else []


def _folder_with_more(index: Index, by_folder: dict[int, list[tuple[Segment, int]]]) -> str | None:
    """The one folder every session of ``by_folder`` ran in, when sessions ran below it too; None when none did
    (the name then finds the same sessions, and faster: ``_named``), some of the name's ran in no folder (the
    folder would leave them out), or there is no session. The home folder is no project of the folders below it
    (as for ``Index.nearest_project``): ``--project alice``, a session opened at ``~``, was every project's
    (review12 R2)."""
    if 0 in by_folder:
        return None
    folders = _folders_of(by_folder, 1)
    if len(folders) != 1 or project_spelling(folders[0]) in spelt_homes():
        return None
    return folders[0] if _holds_more(index, tree_key(folders[0]), by_folder) else None


def _holds_more(index: Index, key: str, by_folder: dict[int, list[tuple[Segment, int]]]) -> bool:
    """Whether a folder's tree ``key`` files a live session ``by_folder`` does not hold: in a segment, more postings
    than its sessions there once its deleted sessions the key files are taken off (``Segment.files_session``), no
    postings list read whole (a project's thousands, on every call of an agent's that names it)."""
    held: dict[int, int] = {}
    for sessions in by_folder.values():
        for segment, _ in sessions:
            held[id(segment)] = held.get(id(segment), 0) + 1
    for segment in index.segments:
        p_off, count, _ = segment.lookup(key)
        more = count - held.get(id(segment), 0)
        for ordinal in segment.deleted if more > 0 else ():
            more -= segment.files_session(p_off, count, ordinal)
            if more <= 0:
                break
        if more > 0:
            return True
    return False


def telling_labels(folders: list[str]) -> list[str]:
    """Each folder by as much of its end as no other ends with (``legacy/api``, ``work/api``), as the hooks label
    them: what ``--project`` takes to choose one."""
    return [telling_tail(folder, [other for other in folders if other != folder]) for folder in folders]
