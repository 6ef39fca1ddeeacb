"""The project (folder) each chat belongs to, from every signal a Cursor install keeps.

Cursor 3.x writes ``workspaceIdentifier`` on almost no composer any more
(README "How deja finds a chat's project"), so an editor chat's folder is pieced together from
the other stores. The signals, best first:

1. ``workspaceProjectDir`` on a bubble (older builds and fixtures);
2. the composer's own ``workspaceIdentifier``;
3. ``composerHeaders`` (the global table, or the older ItemTable index): its
   URI, or its ``workspaceStorage/<id>`` folder's ``workspace.json``. A numeric
   window id or ``empty-window`` says the chat ran in a window with no folder:
   it has no project, whatever weaker signals say;
4. the workspace database that stores the chat (``workspace database``), or whose
   legacy ``allComposers`` or ``selectedComposerIds`` list it (``allComposers``);
5. the transcript folder of the same id, ``projects/<slug>/agent-transcripts/<id>``;
6. ``glass.localAgentProjects.v1`` with ``glass.localAgentProjectMembership.v1``;
7. ``trackedGitRepos[0].repoPath``, then a bubble's ``workspaceUris[0]``;
8. the files its tool calls, code blocks and file selections touched, matched
   against the folders the ``workspace.json`` files name (``files touched``; the
   longest folder wins, and files under no known folder give no project).

A remote window's folder (``vscode-remote://ssh-remote+devbox/…``) is no folder of this machine: a chat placed in
it gets a project named after the folder and where it is, and no folder (``remote``, ``Found.apply``).

A cursor-agent chat's folder is its ``meta.json`` ``cwd``, else its transcript
folder. A transcript folder's slug is decoded on disk first, then against the
folders the other stores name (workspace.json, glass projects, meta.json), so a
folder that no longer exists is still one project whichever store named it. A
chat read from its store alone whose ``meta.json`` has no ``cwd`` takes its preamble's ``Workspace Path:`` line
when the chat is filed under that folder's md5 (``chatstore.preamble_folder``), else the
known folder whose md5 names its ``chats/<md5>/`` folder (``chat folder``): one another store names, else one
a transcript folder decodes to.

Each part of the catalog is read the first time a chat needs it, then kept: a
refresh that re-reads one chat with a ``meta.json`` reads nothing more.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from .. import paths
from ..digests import folder_md5
from ..keys import disk_spelling, readable_path
from ..model import Session
from ..patterns import Lazy
from ..record import Record
from ..regular_files import read_regular, subfolders
from . import jsonvalue, vscdb
from .code_workspace import workspace_file_folders
from .remote import remote_folder, remote_place
from .transcripts import outermost, project_slug_of, scan_transcripts, slug_folders

#: The file in the index folder where a refresh keeps the chats' ``meta.json`` cwds (``chat_cwds``).
CWD_CACHE = "chat-cwds"

#: Where a session's project came from, best first: what ``Session.project_from`` holds and doctor counts.
SIGNALS = (
    "workspaceProjectDir",
    "workspaceIdentifier",
    "composerHeaders",
    "workspace database",
    "allComposers",
    "transcript folder",
    "glass project",
    "trackedGitRepos",
    "workspaceUris",
    "files touched",
    "meta.json cwd",
    "Workspace Path",
    "chat folder",
)

GLASS_PROJECTS_KEY = "glass.localAgentProjects.v1"
GLASS_MEMBERSHIP_KEY = "glass.localAgentProjectMembership.v1"
_WORKSPACE_COMPOSERS_KEY = "composer.composerData"
_NO_FOLDER_WINDOW = Lazy(globals(), "_NO_FOLDER_WINDOW", r"\d+|empty-window")
_URI_SCHEME = Lazy(globals(), "_URI_SCHEME", r"^[A-Za-z][A-Za-z0-9+.-]*://")
_DRIVE_PATH = Lazy(globals(), "_DRIVE_PATH", r"^/[A-Za-z](:|%3[Aa])")
_DRIVE = Lazy(globals(), "_DRIVE", r"^([A-Za-z]):")
_PATH_KEY = Lazy(globals(), "_PATH_KEY", r"(?i)path|file|dir|uri")


class Found(Record, frozen=True):
    """A folder and the signal that gave it; both empty when no signal did."""

    folder: str = ""
    signal: str = ""

    def apply(self, session: Session) -> Session:
        """Give ``session`` the folder, spelt as every store's spelling of it is (``keys.disk_spelling``); a remote
        window's folder (``remote``) gives it a project named after the folder and where it is, and no folder here
        (a window opened at the root folder: ``root folder (devbox)``, where ``/ (devbox)`` read as a path to
        ``--project``, review58a F5)."""
        if place := remote_place(self.folder):
            where, path = place
            session.project_dir, session.project_from = "", self.signal
            session.project = f"{basename(path.rstrip('/')) or 'root folder'} ({where})"
            return session
        folder = disk_spelling(self.folder) if self.folder else ""
        session.project_dir, session.project_from = folder, self.signal
        session.project = basename(folder) if folder else session.project
        return session


def _nothing() -> Iterable[str]:
    return ()


class EditorChat(Record, frozen=True):
    """What an editor chat's own records say about its folder, as the IDE reader finds them."""

    chat_id: str
    #: The folder of the database that stores the chat (``workspaceStorage/<id>`` or ``globalStorage``).
    stored_in: Path
    bubble_dir: str = ""
    identifier_dir: str = ""
    header_id: str = ""
    header_dir: str = ""
    git_repo: str = ""
    workspace_uri: str = ""
    #: The paths of the files it touched: read only when every other signal fails.
    touched: Callable[[], Iterable[str]] = _nothing


def cli_folder(
    cwd: str,
    slug: str,
    decoded: dict[str, list[Path]] | None = None,
    touched: Iterable[str] = (),
    said: Iterable[str] = (),
) -> Found:
    """A cursor-agent chat's folder: its ``meta.json`` ``cwd``, else the folder its files say where its transcript
    folder's slug cannot (``unnamed_folder``), else the folder on disk that slug encodes, the one its files and
    messages (``touched``, ``said``) point into when several do (``slug_folder``).

    ``decoded`` keeps the slugs decoded so far by a caller that reads many chats at once (a build: a project's
    chats share its slug, and each decode lists folders from ``/`` down). :meth:`Projects.settle` later tries
    the folders other stores name for a slug the disk cannot decode.
    """
    if cwd:
        return Found(cwd, "meta.json cwd")
    if not slug:
        return Found()
    touched = list(touched)
    found = unnamed_folder(slug, touched) or spelled_folder(slug, touched)
    if found:
        return Found(found, "files touched")
    if decoded is None:
        folders = slug_folders(slug)
    elif slug in decoded:
        folders = decoded[slug]
    else:
        folders = decoded[slug] = slug_folders(slug)
    found = slug_folder([readable_path(str(folder)) for folder in folders], touched, said)
    return Found(found, "transcript folder") if found else Found()


def slug_folder(folders: list[str], touched: Iterable[str], said: Iterable[str] = ()) -> str:
    """Of the existing ``folders`` one transcript folder's slug encodes, the one its chat ran in: the only one; of a
    folder and folders below it whose names encode to nothing (``文档``), the only git repository's root among them,
    else the folder above (``transcripts.outermost``); of several side by side (``my-app``, ``my_app``), the one holding
    most of the absolute paths the chat's tools touched (``touched``) and its messages name (``said``), each counted
    for the innermost folder holding it, else the only git repository's root, else "" (nothing tells them apart:
    left unknown rather than guessed, trial17 F5).

    ``touched`` and ``said`` are read only for folders side by side."""
    if len(folders) < 2:
        return folders[0] if folders else ""
    repositories = [folder for folder in folders if os.path.exists(os.path.join(folder, ".git"))]
    if top := outermost(folders):
        return repositories[0] if len(repositories) == 1 else top
    keys = {key: folder for folder in folders if (key := _folder_key(folder))}
    votes = _votes(keys, touched)
    named = re.compile("|".join(re.escape(key) for key in sorted(keys, key=len, reverse=True)) + r"(?=[/\s\"'`)]|$)")
    for text in said:
        votes.update(keys[match] for match in named.findall(text))
    (first, most), *rest = votes.most_common(2) or [("", 0)]
    if most and not (rest and rest[0][1] == most):
        return first
    return repositories[0] if len(repositories) == 1 else ""


def unnamed_folder(slug: str, touched: Iterable[str]) -> str:
    """The outermost folder whose name has no ASCII letter or digit (``code/支付服务``, whose slug is ``code``'s) that
    ``slug`` names and that holds every absolute path in ``touched``; "" when the paths say none, or two.

    The slug of a chat that ran there cannot tell that folder from its parent: the files its tools touched can."""
    wanted = slug_of(slug)
    found: set[str] = set()
    for path in touched:
        parts = path.split("/") if path.startswith("/") else []
        folder = next(
            (
                "/".join(parts[:end])
                for end in range(2, len(parts))
                if not slug_of(parts[end - 1]) and slug_of("/".join(parts[:end])) == wanted
            ),
            "",
        )
        if parts and not folder:
            return ""
        found.add(folder)
    found.discard("")
    return found.pop() if len(found) == 1 else ""


def spelled_folder(slug: str, touched: Iterable[str]) -> str:
    """The one folder holding files in ``touched`` whose slug is ``slug``; "" when the paths name none, or two.

    A slug is lossy (``my.app-v2`` and ``my-app/v2`` share one), and decoding it on disk takes whichever exists
    first: the files the chat's own tools touched say which it was (trialM F8). Paths elsewhere (a library read
    from ``site-packages``) say nothing."""
    wanted = slug_of(slug)
    found: set[str] = set()
    for path in dict.fromkeys(_parent(path) for path in touched if path.startswith("/")):
        if not slug_of(path + "/x").startswith(wanted + "-"):  # (one slug per folder: most paths stop here)
            continue
        parts = path.split("/")
        found.update(folder for end in range(2, len(parts) + 1) if slug_of(folder := "/".join(parts[:end])) == wanted)
    return found.pop() if len(found) == 1 else ""


class Projects:
    """What one Cursor install says about where its chats belong, each part read when first needed.

    Databases that cannot be opened are skipped silently here: the chat reader
    counts them once, by path. Malformed ``workspace.json`` files and glass
    values are counted in ``problems``.
    """

    def __init__(
        self,
        user_root: Path,
        cli_roots: Iterable[Path],
        problems: Counter[str] | None = None,
        cwd_cache: Path | None = None,
    ) -> None:
        self.user_root = user_root
        self.cli_roots = list(cli_roots)
        #: Where a refresh keeps the chats' ``meta.json`` cwds between runs (``chat_cwds``); None: read them all.
        self.cwd_cache = cwd_cache
        self.problems: Counter[str] = problems if problems is not None else Counter()
        self._workspace_json: dict[Path, list[str]] = {}
        self._slugs: dict[str, list[str]] = {}

    @classmethod
    def of_this_machine(cls, problems: Counter[str] | None = None, cwd_cache: Path | None = None) -> Projects:
        return cls(paths.ide_user_root(), paths.cli_roots(), problems, cwd_cache)

    @classmethod
    def around(cls, database: Path, problems: Counter[str] | None = None) -> Projects:
        """For a database read on its own: the Cursor ``User`` folder it sits in, and this machine's cursor-agent roots."""
        folder = database.parent
        user_root = folder.parent.parent if folder.parent.name == "workspaceStorage" else folder.parent
        return cls(user_root, paths.cli_roots(), problems)

    # --- the signals, best first ------------------------------------------

    def editor_project(self, chat: EditorChat) -> Found:
        """The editor chat's folder and the signal that gave it (see the module docstring for the order)."""
        steps: tuple[tuple[str, Callable[[], str | None]], ...] = (
            ("workspaceProjectDir", lambda: chat.bubble_dir),
            ("workspaceIdentifier", lambda: chat.identifier_dir),
            ("composerHeaders", lambda: self._header_folder(chat.header_id, chat.header_dir, chat.touched)),
            ("workspace database", lambda: self._chat_folder(self._database_folders(chat.stored_in), chat.touched)),
            ("allComposers", lambda: self._listed.get(chat.chat_id, "")),
            (
                "transcript folder",
                lambda: self.folder_for_slug(self._transcript_slugs.get(chat.chat_id, ""), chat.touched),
            ),
            ("glass project", lambda: self._glass_members.get(chat.chat_id, "")),
            ("trackedGitRepos", lambda: chat.git_repo),
            ("workspaceUris", lambda: chat.workspace_uri),
            ("files touched", lambda: self.touched_folder(chat.touched())),
        )
        for signal, find in steps:
            folder = find()
            if folder is None:
                break
            if folder:
                return Found(folder, signal)
        return Found()

    def settle(self, session: Session) -> Session:
        """Give a cursor-agent session with no folder yet the one another store names.

        A transcript's slug is matched against the known folders; a chat read from
        its ``chats/<md5 of its folder>/<id>/store.db`` alone, against their md5s.
        """
        if session.project_dir or session.source != "cursor-cli" or not session.origin:
            return session
        origin = Path(session.origin)
        if origin.name == "store.db":
            md5 = origin.parent.parent.name
            found = Found(self._known_by_md5.get(md5) or self._transcript_folders_by_md5.get(md5, ""), "chat folder")
        else:  # (a slug several folders on disk encode stays unknown: ``slug_folder``)
            slug = project_slug_of(origin)
            found = Found(
                self.known_folder_for_slug(slug) if slug and not self.disk_folders(slug) else "", "transcript folder"
            )
        return found.apply(session) if found.folder else session

    def shared_folders(self, session: Session) -> list[str]:
        """The folders on disk that the slug of ``session``'s transcript folder encodes, when several side by side do
        (``transcripts.outermost``); else []."""
        if session.source == "cursor-cli":
            slug = project_slug_of(Path(session.origin)) if session.origin else ""
        else:
            slug = self._transcript_slugs.get(session.id, "")
        folders = self.disk_folders(slug) if slug else []
        return folders if len(folders) > 1 and not outermost(folders) else []

    def _header_folder(self, workspace_id: str, header_dir: str, touched: Callable[[], Iterable[str]]) -> str | None:
        """The header's URI, else its workspace's folder; None for a window that had no folder."""
        if header_dir:
            return header_dir
        if _NO_FOLDER_WINDOW.fullmatch(workspace_id):
            return None
        return self._chat_folder(self.workspace_folders_of(workspace_id), touched)

    def _chat_folder(self, folders: list[str], touched: Callable[[], Iterable[str]]) -> str:
        """Of a workspace's folders, the one holding most of the files the chat touched, else its first: a
        multi-root workspace's chat belongs to the repository it worked in (its files are read only then)."""
        if len(folders) < 2:
            return folders[0] if folders else ""
        keys = {key: folder for folder in folders if (key := _folder_key(folder))}
        return _innermost_votes(keys, touched()) or folders[0]

    # --- workspaces ---------------------------------------------------------

    def workspace_folders(self, workspace_dir: Path) -> list[str]:
        """The folders ``workspace_dir/workspace.json`` names (a multi-root workspace's several), or []."""
        if workspace_dir not in self._workspace_json:
            self._workspace_json[workspace_dir] = read_workspace_json(
                workspace_dir / paths.WORKSPACE_JSON, self.problems
            )
        return self._workspace_json[workspace_dir]

    def _database_folders(self, stored_in: Path) -> list[str]:
        """The folders of the workspace whose database stores a chat, or [] for the global database: Cursor keeps
        no ``workspace.json`` beside it, and a refresh does not look for one (``glance.database_sigs``)."""
        return [] if stored_in.name == paths.GLOBAL_STORAGE else self.workspace_folders(stored_in)

    def workspace_folder(self, workspace_dir: Path) -> str:
        """The (first) folder ``workspace_dir/workspace.json`` names, or ""."""
        return next(iter(self.workspace_folders(workspace_dir)), "")

    def workspace_folders_of(self, workspace_id: str) -> list[str]:
        """The folders of ``workspaceStorage/<workspace_id>``, or [] (also for an id that is not a plain name)."""
        if not workspace_id or workspace_id in (".", "..") or "/" in workspace_id or "\\" in workspace_id:
            return []
        return self.workspace_folders(self.user_root / "workspaceStorage" / workspace_id)

    def workspace_folder_of(self, workspace_id: str) -> str:
        """The (first) folder of ``workspaceStorage/<workspace_id>``, or ""."""
        return next(iter(self.workspace_folders_of(workspace_id)), "")

    @cached_property
    def _workspace_dirs(self) -> list[Path]:
        return [Path(entry.path) for entry in subfolders(self.user_root / "workspaceStorage")]

    @cached_property
    def _workspace_folders(self) -> list[str]:
        return [folder for d in self._workspace_dirs for folder in self.workspace_folders(d)]

    @cached_property
    def _listed(self) -> dict[str, str]:
        """Composer id -> the folder of the one workspace whose database lists it (``allComposers``, ``selectedComposerIds``)."""
        places: dict[str, set[str]] = {}
        for workspace in self._workspace_dirs:
            (lists,) = _item_values(workspace / "state.vscdb", _WORKSPACE_COMPOSERS_KEY)
            ids = _listed_ids(lists)
            folder = self.workspace_folder(workspace) if ids else ""
            for composer_id in ids if folder else ():
                places.setdefault(composer_id, set()).add(folder)
        return {composer_id: found.pop() for composer_id, found in places.items() if len(found) == 1}

    # --- glass projects -----------------------------------------------------

    @cached_property
    def _glass(self) -> tuple[dict[str, str], dict[str, str]]:
        """(project id -> folder, composer id -> project id) from the global database's ItemTable."""
        projects, membership = _item_values(
            self.user_root / "globalStorage" / "state.vscdb", GLASS_PROJECTS_KEY, GLASS_MEMBERSHIP_KEY
        )
        if projects is not None and not isinstance(projects, list):
            self.problems["ide: malformed glass projects"] += 1
        if membership is not None and not isinstance(membership, dict):
            self.problems["ide: malformed glass projects"] += 1
        folders: dict[str, str] = {}
        for project in projects if isinstance(projects, list) else ():
            workspace = project.get("workspace") if isinstance(project, dict) else None
            if isinstance(workspace, dict) and isinstance(project_id := project.get("id"), str):
                workspace_id = workspace.get("id")
                folder = folder_dir(workspace.get("uri")) or self.workspace_folder_of(
                    workspace_id if isinstance(workspace_id, str) else ""
                )
                if folder:
                    folders[project_id] = folder
        members = membership if isinstance(membership, dict) else {}
        return folders, {cid: pid for cid, pid in members.items() if isinstance(pid, str)}

    @cached_property
    def _glass_members(self) -> dict[str, str]:
        folders, members = self._glass
        return {cid: folders[pid] for cid, pid in members.items() if pid in folders}

    # --- transcript folders -------------------------------------------------

    @cached_property
    def _transcript_slugs(self) -> dict[str, str]:
        """Chat id -> the ``projects/<slug>`` folder holding its transcript, over every cursor-agent root."""
        slugs: dict[str, str] = {}
        for root in self.cli_roots:
            for found in scan_transcripts(root, include_subagents=False):
                slugs.setdefault(found.chat_id, project_slug_of(Path(found.path)))
        return slugs

    def folder_for_slug(self, slug: str, touched: Callable[[], Iterable[str]] = _nothing) -> str:
        """The folder a transcript folder's slug encodes: an existing one on disk (of several, the one ``touched``
        says: ``slug_folder``), else one another store names."""
        if not slug:
            return ""
        folders = self.disk_folders(slug)
        return (
            slug_folder(folders, touched() if len(folders) > 1 else ()) if folders else self.known_folder_for_slug(slug)
        )

    def disk_folders(self, slug: str) -> list[str]:
        """The existing folders ``slug`` encodes (``transcripts.slug_folders``), each slug decoded once."""
        if slug not in self._slugs:
            self._slugs[slug] = [readable_path(str(folder)) for folder in slug_folders(slug)]
        return self._slugs[slug]

    def known_folder_for_slug(self, slug: str) -> str:
        """The one folder named by another store that encodes as ``slug`` (case-insensitively if none does exactly)."""
        key = slug_of(slug)
        exact = self._known_by_slug.get(key, [])
        if not exact:
            exact = [f for k, folders in self._known_by_slug.items() if k.lower() == key.lower() for f in folders]
        return exact[0] if len(exact) == 1 else ""

    @cached_property
    def _known_by_slug(self) -> dict[str, list[str]]:
        """Every folder a store names, by its slug: workspace.json files, glass projects, meta.json cwds."""
        folders = [*self._workspace_folders, *self._glass[0].values(), *self._chat_cwds]
        one_spelling: dict[str, str] = {}
        for folder in dict.fromkeys(folders):  # each spelling once: 100k chats' cwds name about 1,000 folders
            one_spelling.setdefault(_folder_key(folder), folder)
        by_slug: dict[str, list[str]] = {}
        for folder in one_spelling.values():
            by_slug.setdefault(slug_of(folder), []).append(folder)
        return by_slug

    @cached_property
    def _known_by_md5(self) -> dict[str, str]:
        """Every known folder by the md5 cursor-agent names its ``chats/`` folder after."""
        folders = [f for same in self._known_by_slug.values() for f in same]
        return {folder_md5(f): f for f in folders}

    @cached_property
    def _transcript_folders_by_md5(self) -> dict[str, str]:
        """The folders the transcript folders name (``projects/<slug>`` under every root, decoded as a transcript's
        own folder is: ``folder_for_slug``), by md5: a folder only another chat's transcript knows still places a
        chat kept in its store alone. Looked at only when no other store's folder has the md5."""
        slugs = dict.fromkeys(entry.name for root in self.cli_roots for entry in subfolders(root / "projects"))
        return {folder_md5(folder): folder for slug in slugs if (folder := self.folder_for_slug(slug))}

    @cached_property
    def _chat_cwds(self) -> list[str]:
        """The trusted ``cwd`` of every cursor-agent chat's ``meta.json`` (``chats/`` and ``acp-sessions/``), each
        ``(cwd, verified)`` once (``chat_cwds``).

        Trusted as ``ChatMeta.project_dir`` trusts it (``chatstore.trusted_cwd``). A refresh reads
        only the ``meta.json`` files its cache cannot vouch for (``chat_cwds``).
        """
        from .chat_cwds import chat_cwds  # (only a chat the disk cannot place needs it)
        from .chatstore import trusted_cwd

        return [
            trusted
            for cwd, verified in chat_cwds(self.cli_roots, self.cwd_cache)
            if (trusted := trusted_cwd(cwd, verified))
        ]

    # --- files touched ------------------------------------------------------

    def touched_folder(self, touched: Iterable[str]) -> str:
        """The workspace folder holding most of ``touched``, the innermost where folders nest; "" when none holds any."""
        return _innermost_votes(self._folders_by_key, touched)

    @cached_property
    def _folders_by_key(self) -> dict[str, str]:
        """Every workspace folder by its spelling key ("/" would hold everything, so it holds nothing)."""
        return {key: f for f in self._workspace_folders if (key := _folder_key(f))}


def _innermost_votes(folders_by_key: dict[str, str], touched: Iterable[str]) -> str:
    """Of ``folders_by_key`` (folders by their spelling key), the one holding most of ``touched``, the innermost where
    folders nest; "" when none holds any."""
    votes = _votes(folders_by_key, touched)
    return max(votes, key=lambda f: (votes[f], len(f), f)) if votes else ""


def _votes(folders_by_key: dict[str, str], touched: Iterable[str]) -> Counter[str]:
    """How many of the paths ``touched`` each of ``folders_by_key`` holds, each path counted for the innermost."""
    votes: Counter[str] = Counter()
    for path in touched:
        key = _folder_key(path)
        while key and key not in folders_by_key:  # up one folder at a time: the innermost is met first
            key = key.rpartition("/")[0]
        if key:
            votes[folders_by_key[key]] += 1
    return votes


# --- slugs and folder spellings ---------------------------------------------


def slug_of(folder: str) -> str:
    """``folder`` as Cursor names its ``projects/`` folder: runs of non-alphanumerics become one ``-``, trimmed.

    A Windows drive letter is lowercased (``D:\\work`` gives ``d-work``).
    """
    folder = _DRIVE.sub(lambda m: m[1].lower() + ":", folder)
    return re.sub(r"[^A-Za-z0-9]+", "-", folder).strip("-")


def _folder_key(folder: str) -> str:
    """One spelling per folder: forward slashes, no trailing slash; Windows paths compared without case."""
    key = folder.replace("\\", "/").rstrip("/")
    return key.lower() if _DRIVE.match(key) or key.startswith("//") else key


# --- databases --------------------------------------------------------------


def _item_values(database: Path, *keys: str) -> list[Any]:
    """The JSON values of ``keys`` in a database's ItemTable: None for each absent or malformed one, or all when unreadable."""
    nothing: list[Any] = [None] * len(keys)
    if not os.path.isfile(database):  # (``Path.is_file`` raises where a folder above cannot be searched)
        return nothing

    def read(conn: sqlite3.Connection) -> list[bytes | None] | None:
        if "ItemTable" not in vscdb.table_names(conn):
            return None
        return [vscdb.item_value(conn, key) for key in keys]

    try:
        raw = vscdb.read_whole(database, read)
    except sqlite3.Error:
        return nothing
    return nothing if raw is None else [_json(value) for value in raw]


def _json(raw: bytes | None) -> Any:
    try:
        return jsonvalue.strict_loads(raw) if raw is not None else None
    except jsonvalue.NotJson:
        return None


def _listed_ids(lists: Any) -> list[str]:
    """The composer ids a workspace's ``composer.composerData`` lists (``allComposers``, ``selectedComposerIds``)."""
    if not isinstance(lists, dict):
        return []
    composers = lists.get("allComposers")
    ids = [c.get("composerId") for c in composers if isinstance(c, dict)] if isinstance(composers, list) else []
    selected = lists.get("selectedComposerIds")
    ids += selected if isinstance(selected, list) else []
    return [i for i in ids if isinstance(i, str) and i]


# --- paths and URIs ---------------------------------------------------------


#: A workspace.json names one folder; one larger than this is not Cursor's.
WORKSPACE_JSON_BYTES = 1 << 20


def read_workspace_json(path: Path, problems: Counter[str]) -> list[str]:
    """The folders a workspace.json names: its ``folder``, or the ``folders`` its ``.code-workspace`` file lists
    (``code_workspace``), else (a file deja cannot read) the directory holding that file."""
    import orjson

    try:
        data = orjson.loads(read_regular(path, WORKSPACE_JSON_BYTES))
    except (FileNotFoundError, PermissionError):  # (one this user may not read is named by the refresh's plan)
        return []
    except (OSError, orjson.JSONDecodeError):
        data = None
    if not isinstance(data, dict):
        problems["ide: malformed workspace.json"] += 1
        return []
    if folder := folder_dir(data.get("folder")):
        return [folder]
    if workspace_file := folder_dir(data.get("workspace")):
        remote = remote_place(workspace_file) is not None  # (a file on another machine: its folder is what is known)
        return (not remote and workspace_file_folders(workspace_file)) or [_parent(workspace_file)]
    return []


def folder_dir(uri: Any) -> str:
    """The folder a project signal names (``uri_dir``); a remote window's as ``remote.remote_folder`` spells it."""
    return remote_folder(uri) or uri_dir(uri)


def uri_dir(uri: Any) -> str:
    """A local path from a plain path, a URI string or a VS Code URI object (``fsPath``, ``external``, ``path``).

    ``vscode-remote://host/path`` keeps its path (a project signal asks ``folder_dir``, which keeps where it is);
    ``/c:/…`` and ``/c%3A/…`` become ``c:/…``. A URI object without ``fsPath`` gives the one VS Code would
    (``c:\\Users\\…`` for a drive's file), so a file is one path whether or not Cursor stored it: a Windows
    database's code blocks named one file two ways (review43c M1).
    """
    if isinstance(uri, dict):
        fs_path = uri.get("fsPath")
        if isinstance(fs_path, str) and fs_path:
            return fs_path
        path = uri_dir(uri.get("external")) or uri_dir(uri.get("path"))
        return path[0].lower() + path[1:].replace("/", "\\") if _DRIVE_PATH.match("/" + path) else path
    if not isinstance(uri, str) or not uri:
        return ""
    if _URI_SCHEME.match(uri):
        parts = urlsplit(uri)
        path = unquote(parts.path)
        if parts.scheme == "file" and parts.netloc not in ("", "localhost"):
            path = f"//{parts.netloc}{path}"  # a UNC share
    else:
        path = unquote(uri) if _DRIVE_PATH.match(uri) else uri
    return path[1:] if _DRIVE_PATH.match(path) else path  # /c:/Users/… → c:/Users/…


def basename(path: str) -> str:
    """The last part of a POSIX or Windows path (``c:\\Users\\me\\app`` gives ``app``)."""
    return re.split(r"[\\/]", path.rstrip("\\/"))[-1]


def _parent(path: str) -> str:
    return re.sub(r"[\\/][^\\/]*$", "", path.rstrip("\\/")) or path


def path_values(args: Any) -> Iterator[str]:
    """The paths in a tool call's arguments: string, URI or list values of keys that name a path, file, dir or URI."""
    if not isinstance(args, dict):
        return
    for key, value in args.items():
        if isinstance(key, str) and _PATH_KEY.search(key):
            for item in value if isinstance(value, list) else [value]:
                if (path := uri_dir(item)) and "\n" not in path:
                    yield path
