"""Which past sessions a hook calls this project's: those that ran in its folder or a folder below it.

A monorepo is opened at its root, and its packages' sessions ran below it (cursor-agent started in
``packages/api``): asked for the exact folder, the failure hook showed another repository's fix before its own
packages' (trialI F4, review7b #5). A Shell call names the folder it runs in: past runs of ``npm test`` in ``web``
are not those in ``api``, but a session opened at the workspace's root ran its commands anywhere below it.
"""

from __future__ import annotations

from ..core import oscalls
from ..core.keys import call_folder, project_spelling, spelt_homes, within
from .call import HookCall

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:
    from ..core.index import Index, Segment


def command_folder(call: HookCall) -> tuple[str, int]:
    """The folder a Shell call runs in (``keys.call_folder``), and which of the workspace's folders
    (``call.project_dirs``) it runs in: the folder its input names (a relative one taken in the event's folder),
    else the event's ``cwd`` where it lies in one of the workspace's folders, else the first folder's; the
    workspace's folder is the first that holds it (review25 R25-1: a ``working_directory`` in the second).

    cursor-agent sends ``cwd: ""``, the editor a folder: in a multi-root workspace whose first folder is ``web``, a
    command run in ``shop`` (or ``shop/src``, where the sessions opened at ``shop`` count too) was counted in
    ``web`` ("never ran here before", trial14 F6, review23 R23-2). A ``cwd`` outside the workspace (``~/.cursor``,
    where user hooks run) is not the command's."""
    cwd, here, at, roots = call.text("cwd").strip(), call.project_dir, 0, call.project_dirs
    if cwd.startswith("/"):
        cwd = oscalls.normpath(cwd)  # (``shop/``, ``web/../shop``: one folder, spelt as the index shows it)
        held = next((n for n, root in enumerate(roots) if within(cwd, root)), None)
        here, at = (cwd, held) if held is not None else (here, at)
    folder = call_folder(call.tool_input(), here)
    if len(roots) > 1:  # the folder the command runs in picks its root (its input's, cursor-agent's too), else cwd's
        at = next((n for n, root in enumerate(roots) if within(folder, root)), at)
    return folder, at


def repository_root(folder: str) -> str:
    """The repository ``folder`` lies in, when it lies below that repository's root: the nearest folder above it
    holding ``.git`` (a folder, or a file in a worktree), never the home folder or above it (a dotfiles repository
    there is not the project's); "" otherwise, and when ``folder`` is a repository's root itself (one of several
    repositories in a folder kept under git is a project of its own).

    A new package of a monorepo has no sessions of its own yet: its sibling packages' are the same repository's,
    closer than another repository's (review8c #5).
    """
    home = oscalls.expanduser("~").rstrip("/")
    if not folder.startswith("/"):  # (a Windows folder: its parents are not this machine's)
        return ""
    folder = folder.rstrip("/") or "/"
    if oscalls.exists(oscalls.join(folder, ".git")):
        return ""
    above = oscalls.dirname(folder)
    while above not in (home, "/", folder):
        if oscalls.exists(oscalls.join(above, ".git")):
            return above
        folder, above = above, oscalls.dirname(above)
    return ""


class Scope:
    """The past sessions that count as run here: in ``folder`` or a folder below it and, when ``folder`` lies below
    the project's (a Shell call in ``packages/web``), in the project's folder itself, whose sessions ran commands
    anywhere in it; a sibling package's do not. ``folder``'s own sessions are known by their folder's hash too: the
    index keys no tree for a folder it cannot spell as one (``C:\\code\\api``)."""

    def __init__(self, index: Index, folder: str, project_dir: str) -> None:
        from ..core.index import name_hash

        # the home folder's tree is every project's: a command run at ``~`` counts the sessions opened there alone
        # (``ran 9 times in ~`` counted every project's runs: review16)
        self._tree = None if _at_home(folder) else index.tree(folder)
        self._own = {name_hash(folder), name_hash(project_dir) if within(folder, project_dir) else 0} - {0}

    def holds(self, segment: Segment, ordinal: int) -> bool:
        if segment.session_keys(ordinal).dir_hash in self._own:
            return True
        return self._tree is not None and self._tree.holds(segment, ordinal)


def _at_home(folder: str) -> bool:
    """Whether ``folder`` is the home folder, spelt as ``HOME`` names it or as its links lead."""
    return project_spelling(folder) in spelt_homes()
