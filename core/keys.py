"""Exact lookup keys the hooks ask the index for: a project, a Shell command, a file, an error.

Keys start with a control character so no word of text can collide with them.
Their postings are ordered newest first rather than by relevance.
"""

from __future__ import annotations

import time

from . import oscalls
from .folders import home_spellings, real_folder
from .remembered import Remembered

TYPE_CHECKING = False  # typing's own, without importing typing (the hooks import this module)
if TYPE_CHECKING:
    from collections.abc import Iterable

PREFIX = "\x01"
SHELL_TOOLS = frozenset({"Shell", "run_terminal_cmd", "run_terminal_command_v2", "Bash", "bash", "shell"})
EDIT_TOOLS = frozenset(
    {
        "Write",
        "StrReplace",
        "Edit",
        "MultiEdit",
        "Delete",
        "ApplyPatch",
        "edit_file",
        "edit_file_v2",
        "search_replace",
        "write",
        "delete_file",
    }
)
#: The arguments of a tool call that name what it acted on: its command, file, folder, pattern or query (the
#: editor's ``target_file``/``target_directory``, cursor-agent's ``path``). What a message's searchable words add
#: (``fields.doc_text``), what pairs a transcript's call with its store's, and what a listing shows of a call.
TARGET_ARGS = (
    "command",
    "path",
    "file_path",
    "target_file",
    "target_directory",
    "pattern",
    "glob_pattern",
    "query",
    "url",
)
#: Wrappers that run the command after them and say nothing of what it does (``sudo make test`` is ``make test``;
#: ``uv run pytest`` is ``pytest``); a two-word one only so (``uv sync`` is ``uv sync``).
_WRAPPERS = frozenset(
    {
        *("sudo", "doas", "env", "time", "nice", "nohup", "timeout", "exec", "npx", "bunx", "uvx"),
        *("uv run", "poetry run", "pipenv run", "pdm run", "hatch run", "conda run", "bundle exec"),
        *("npm exec", "pnpm exec", "pnpm dlx", "yarn dlx"),
    }
)
#: The flags that take the next word as their value, before the subcommand or the wrapped command, of each
#: program and wrapper (by name, a version's digits off: ``python3.12`` is ``python``), as their ``--help`` lists
#: their global options: ``kubectl -n prod get pods`` is ``kubectl get``, not ``kubectl prod``. Flags given with
#: ``=`` (``terraform -chdir=infra plan``, terraform's only one) or joined (``make -Csub``) are one word, and need no
#: entry. Tuples: constants of the compiled module, built at no import.
_VALUE_FLAGS = {
    "git": ("-C", "-c", "--git-dir", "--work-tree", "--namespace"),
    "kubectl": ("-n", "--namespace", "--context", "--cluster", "--user", "--kubeconfig", "-s", "--server", "--token")
    + ("--as", "--as-group", "--request-timeout", "--cache-dir"),
    "docker": ("-H", "--host", "-c", "--context", "--config", "-l", "--log-level")
    # ``docker compose``'s and ``docker buildx``'s, before their own subcommand
    + ("-f", "--file", "-p", "--project-name", "--profile", "--env-file", "--project-directory", "--builder"),
    "helm": ("-n", "--namespace", "--kube-context", "--kubeconfig", "--registry-config"),
    "make": ("-C", "--directory", "-f", "--file", "--makefile", "-I", "--include-dir", "-o", "-W"),
    "npm": ("--prefix", "-w", "--workspace", "--loglevel"),
    "pnpm": ("-C", "--dir", "-F", "--filter", "--loglevel"),
    "yarn": ("--cwd",),
    "bun": ("--cwd", "-F", "--filter"),
    "cargo": ("-C", "--config", "-Z", "--color"),
    "go": ("-C",),
    "mvn": ("-pl", "--projects", "-f", "--file", "-s", "--settings", "-P", "--activate-profiles", "-rf", "-T")
    + ("--threads", "-gs", "--global-settings", "-t", "--toolchains", "-l", "--log-file"),
    "gradle": ("-p", "--project-dir", "-b", "--build-file", "-c", "--settings-file", "-x", "--exclude-task", "-g")
    + ("--gradle-user-home", "-I", "--init-script"),
    "ssh": ("-i", "-p", "-l", "-o", "-F", "-J", "-L", "-R", "-D", "-b", "-c", "-E", "-m", "-S", "-W", "-w"),
    "psql": ("-h", "--host", "-p", "--port", "-U", "--username", "-d", "--dbname", "-c", "--command", "-f")
    + ("--file", "-v", "--set", "-o", "--output"),
    "curl": ("-o", "--output", "-H", "--header", "-X", "--request", "-d", "--data", "-u", "--user", "-A")
    + ("--user-agent", "-e", "--referer", "-b", "--cookie", "-c", "--cookie-jar", "-F", "--form", "-T")
    + ("--upload-file", "-w", "--write-out", "-m", "--max-time", "-x", "--proxy", "--data-raw", "--data-binary"),
    "uv": ("--directory", "--project", "--cache-dir", "--config-file", "--color"),
    "poetry": ("-C", "--directory", "-P", "--project"),
    "gh": ("-R", "--repo"),
    "aws": ("--profile", "--region", "--output", "--endpoint-url", "--query", "--color"),
    "gcloud": ("--project", "--account", "--configuration", "--format", "--verbosity"),
    "az": ("--subscription", "-o", "--output", "--query"),
    "python": ("-W", "-X"),
    "node": ("-r", "--require", "--import", "--loader", "-C", "--eval", "--print"),
    "bash": ("-o", "-O", "--rcfile", "--init-file"),
    "sh": ("-o",),
    "zsh": ("-o",),
    "ruby": ("-r", "-I", "-C"),
    "perl": ("-I",),
    "sudo": ("-u", "--user", "-g", "--group", "-C", "-D", "--chdir", "-h", "--host", "-p", "--prompt"),
    "doas": ("-u", "-C"),
    "env": ("-u", "--unset", "-C", "--chdir"),
    "nice": ("-n", "--adjustment"),
    "timeout": ("-s", "--signal", "-k", "--kill-after"),
    "exec": ("-a",),
    "npx": ("-p", "--package"),
    "uvx": ("--from", "--with", "-p", "--python"),
    "uv run": ("--with", "-p", "--python", "--project", "--directory", "--package", "--extra", "--group")
    + ("--env-file", "--with-requirements", "--index", "--index-url"),
    "time": ("-f", "--format", "-o", "--output"),
    "poetry run": ("-C", "--directory", "-P", "--project"),
    "conda run": ("-n", "--name", "-p", "--prefix"),
}
_NO_FLAGS: tuple[str, ...] = ()
#: Programs' wrapper scripts, which take the program's flags: ``./mvnw -pl core test`` is ``mvn -pl core test``'s
#: (review41d M3).
_WRAPPED_BY = {"mvnw": "mvn", "gradlew": "gradle"}
#: Test runners, which take no subcommand but many flags with a value (``pytest -k login``, ``jest -t name``): the
#: word after a flag of theirs is no subcommand. Any other program's flag is taken for a switch (``mvn -q test``,
#: ``apt-get -y install``: review41b H2), but those ``_VALUE_FLAGS`` lists.
_TEST_RUNNERS: tuple[str, ...] = ("pytest", "py.test", "jest", "vitest", "mocha", "rspec", "phpunit", "ava", "ctest")
_TEST_RUNNERS += ("tox", "nox", "behave", "robot")
#: Programs whose subcommand is a group of subcommands, and take one word more: ``docker compose up`` and
#: ``docker compose logs`` are two commands, as ``kubectl rollout restart`` and ``kubectl rollout status`` are,
#: ``git stash pop`` and ``git stash``. A program named alone (``gh``, ``aws``, ``gcloud``, ``az``) groups every
#: subcommand: ``gh pr create``, ``aws s3 cp``; ``gcloud compute instances list`` is ``gcloud compute instances``.
_NESTED = frozenset(
    {
        *("gh", "aws", "gcloud", "az"),
        *("npm run", "pnpm run", "yarn run", "bun run", "uv pip", "go mod", "helm repo"),
        *("docker compose", "docker buildx", "docker image", "docker container", "docker volume", "docker network"),
        *("docker system", "kubectl rollout", "kubectl config", "terraform state", "terraform workspace"),
        *("git stash", "git remote", "git submodule", "git worktree"),
    }
)
#: Programs that run a script: the script is what they run (``python manage.py migrate``, not ``python``); each with
#: the letters of its flags that give code inline instead (``python -c``, ``bash -lc``, ``node -pe``, ``perl -ne``).
_INTERPRETERS = {"python": "c", "bash": "c", "sh": "c", "zsh": "c", "node": "ep", "ruby": "e", "perl": "eE", "tsx": "e"}
#: What makes ``shlex.split`` differ from ``str.split`` on ASCII: quotes, an escape, and the whitespace only
#: ``str.split`` splits on.
_SHLEX_SPECIAL = frozenset("\"'\\\x0b\x0c\x1c\x1d\x1e\x1f")
#: What a subcommand (``git push``'s ``push``) is made of, after its first letter.
_SUBCOMMAND = frozenset("abcdefghijklmnopqrstuvwxyz0123456789:_-")


#: A byte's low 6 bits as one of base64's digits: a hashed key's spelling (``_digest``), one ``bytes.translate``.
_SIX_BITS = bytes.maketrans(bytes(range(256)), b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/" * 4)


def _digest(text: str) -> str:
    """A hashed key's value: 14 bytes of blake2b, each byte's low 6 bits as a base64 digit (84 bits), where format 22
    spelt 10 bytes as 20 hex digits (80 bits): 6 bytes fewer of each of 51k keys at 10k sessions (format 23). One
    ``translate``: ``binascii``'s base64 cost each hook that hashes a key 0.7 M instructions to load, and regrouping
    the bits in Python cost a build 1.7% more instructions."""
    from .digests import blake2b  # (here: a search's page digests nothing, and loads no hash module)

    digest = blake2b(text.encode("utf-8", "surrogatepass"), digest_size=14).digest()
    return digest.translate(_SIX_BITS).decode("ascii")


def drive_path(path: str) -> bool:
    """Whether ``path`` starts with a Windows drive (``c:\\…``, ``c:/…``): absolute wherever deja runs, and written
    by a machine whose file names match in any case."""
    return len(path) > 2 and path[0].isalpha() and path[1] == ":" and path[2] in "/\\"


def project_spelling(project_dir_or_name: str) -> str:
    """A project name or folder as the index compares it: trimmed, ``~/`` expanded, a relative folder (``.``,
    ``..``, ``./web``, ``code/web``) made absolute, no trailing slash, any case.

    ``--project ~/code/api`` given where no shell expands it (quoted, or through MCP) is still that folder, and
    ``--project .`` typed inside a project is that project's folder; a bare name (``api``) stays a name. A folder
    is taken where its links lead (``resolved_folder``), so one opened through a link is one project whichever
    store named it.
    """
    text = project_dir_or_name.strip()
    if drive_path(text):  # (a Windows database's folder, opened here: absolute as written, review45b M2)
        import ntpath  # (``c:\\.``, ``c:/Users/..`` are the drive's root, as ``/.`` is ``/``: review46a L3)

        return ntpath.normpath(text).replace("\\", "/").rstrip("/").lower()
    if text == "~" or text.startswith(("~/", "~\\")):
        text = oscalls.expanduser(text)
    elif text in (".", "..") or text.startswith(_RELATIVE) or ("/" in text and not text.startswith("/")):
        text = oscalls.abspath(text)
    if text.startswith("/"):
        text = resolved_folder(text)
    return readable_path(text).rstrip("/").lower()


def is_root(given: str) -> bool:
    """Whether a folder as given is a root, no project's: ``/`` however it is spelled (spelt ""), or a Windows
    drive's (``c:\\``, ``C:/``, ``c:/Users/..``), which matched every session on that drive. ``c:`` with no separator
    is no drive's root but a name, as :func:`drive_path` takes it: a project's, or the folder ``./c:`` (review46a L1)."""
    spelt = project_spelling(given)
    return not spelt or (len(spelt) == 2 and drive_path(given.strip()))


def within(folder: str, project_dir: str) -> bool:
    """Whether ``folder`` is the project's folder or a folder below it (as the index spells them)."""
    if not (folder and project_dir):
        return False
    spelled, project = project_spelling(folder), project_spelling(project_dir)
    return spelled == project or spelled.startswith(project + "/")


#: Where a Shell call's input names the folder it runs in: Cursor's Shell ``working_directory``, or ``cwd``.
FOLDER_FIELDS = ("working_directory", "cwd")


def call_folder(args: dict, project_dir: str) -> str:
    """The folder a Shell call runs (or ran) in: the one its input names (a relative one taken in the project's
    folder), else the project's folder; "" when neither is known."""
    for field in FOLDER_FIELDS:
        given = args.get(field)
        folder = oscalls.expanduser(given.strip()) if isinstance(given, str) else ""
        if folder and not folder.startswith(("/", "\\")) and ":" not in folder[:3]:  # (C:\ on Windows)
            folder = oscalls.normpath(oscalls.join(project_dir, folder)) if project_dir else ""
        if folder:
            return folder.rstrip("/") or "/"
    return project_dir


def spelt_homes(homes: tuple[str, str] | None = None) -> set[str]:
    """The home folder as the index compares folders (``project_spelling``), as ``HOME`` names it and where its links
    lead (``folders.home_spellings``, or ``homes`` when the caller has them already: no second ``realpath``): the
    home folder is no project of the folders below it."""
    return {project_spelling(home) for home in homes or home_spellings()}


def holds_home(spelt: str, homes: set[str]) -> bool:
    """Whether the folder ``spelt`` (as ``project_spelling`` gives it) is the home folder or a folder above it
    (``homes``: ``spelt_homes()``): every project's sessions ran below it, so it is no project of theirs (``deja
    wip`` in ``~`` or ``/Users``; ``--project Users``)."""
    return any(home == spelt or home.startswith(spelt.rstrip("/") + "/") for home in homes)


def seen_from(folder: str, here: str) -> str:
    """Where ``folder`` is, told from ``here``: "" when it is ``here`` (or either is not known), the path from
    ``here`` when it lies below (``services/checkout``), else ``folder`` whole. At a monorepo's root a package's run
    shown bare read as the root's own, and its command pasted there failed (trial12 F2)."""
    if not (folder and here) or project_spelling(folder) == project_spelling(here):
        return ""
    if not within(folder, here):
        return folder
    import os  # (a hook shows no relative folder: it never imports os)

    path = os.path.relpath(oscalls.normpath(folder), oscalls.normpath(here))
    if not path.startswith(".."):
        return path
    # spelt otherwise than ``here`` (``~/Code/mono`` asked at ``~/code/mono``; a link below it, ``current`` ->
    # ``releases/v2``): as many of the folder's last names, where it leads, as lie below ``here`` as the index
    # compares folders (review16 R16-1)
    below = project_spelling(folder)[len(project_spelling(here)) + 1 :].count("/") + 1
    return "/".join(oscalls.realpath(folder).split("/")[-below:])


def readable_path(path: str) -> str:
    """``path`` as text that every output and the index can hold, one spelling for one folder.

    A folder named in another encoding (``caf\\xe9``) reaches Python with an unpaired surrogate for each byte
    that is not UTF-8, which no UTF-8 writer takes: each becomes U+FFFD, as Cursor writes such a folder in its
    hooks' payloads and workspace URIs. A name macOS keeps decomposed (``cafe`` and a combining accent) is
    composed (NFC), as a shell or an editor that typed it gives it, so both spell one project.
    """
    if path.isascii():
        return path
    if any("\ud800" <= c <= "\udfff" for c in path):
        path = "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in path)
    import unicodedata  # (here: an ASCII path, nearly every one, loads nothing)

    return unicodedata.normalize("NFC", path)


def disk_spelling(folder: str) -> str:
    """``folder`` spelt one way whichever store named it: one folder is one ``deja stats`` row and one
    ``project_dir``. Composed (``readable_path``), unless only its decomposed (NFD) spelling is on disk: Linux
    keeps a name as it was written (a folder made on macOS, or copied from it), and a folder shown is one a user
    can paste into ``cd``. The order is fixed, so a disk holding both (macOS) gives the composed one for every
    store."""
    spelled = readable_path(folder)
    if spelled.isascii():
        return spelled
    import unicodedata

    decomposed = unicodedata.normalize("NFD", spelled)
    return decomposed if decomposed != spelled and not oscalls.isdir(spelled) and oscalls.isdir(decomposed) else spelled


def disk_path(path: str) -> str:
    """``path`` as the disk spells it, where it is given as ``readable_path`` spells it (a name not in UTF-8 with
    U+FFFD, as Cursor and deja's own output give it): each such part is the name in its folder that reads so; ``path``
    itself when it is there, or no name reads so (review11 R4: ``deja blame caf\ufffd-app/app.py:3`` found no file)."""
    if "\ufffd" not in path or oscalls.exists(path):
        return path
    found = "/" if path.startswith("/") else ""
    for part in path.split("/"):
        if "\ufffd" in part and not oscalls.exists(oscalls.join(found, part)):
            try:
                names = oscalls.listdir(found or ".")
            except OSError:
                return path
            part = next((name for name in names if readable_path(name) == part), part)
        found = oscalls.join(found, part) if found else part
    return found


def resolved_folder(folder: str) -> str:
    """``folder`` with the links on its way followed (``oscalls.realpath``), as the disk has them now.

    The editor keeps a folder as it was opened (``~/code/app``, ``~/code`` a link to a data disk; macOS's ``/tmp``),
    cursor-agent as its resolved working folder, and ``--project .`` is resolved by the shell's ``getcwd``: a link
    taken the same way on every side makes them one key. A folder gone since keeps the links above it followed;
    one ``realpath`` cannot take (a NUL byte a store kept, a loop) is kept as it is, so no store stops a build.
    Kept for a minute: a build asks once per session and a history holds few folders, while a server that runs
    for days sees a link that changes since.
    """
    now = time.monotonic()
    if now - _RESOLVED_SINCE[0] > _RESOLVED_SECONDS or len(_RESOLVED) >= _RESOLVED_MOST:
        _RESOLVED.clear()
        _RESOLVED_SINCE[0] = now
    found = _RESOLVED.get(folder)
    if found is None:
        found = _RESOLVED[folder] = real_folder(folder)
    return found


_RESOLVED: dict[str, str] = {}
_RESOLVED_SINCE = [0.0]
_RESOLVED_MOST = 4096
_RESOLVED_SECONDS = 60.0


#: How a relative folder starts, as opposed to a project's name.
_RELATIVE = ("./", "../", ".\\", "..\\")


def project_key(project_dir_or_name: str) -> str:
    return f"{PREFIX}p:{_digest(project_spelling(project_dir_or_name))}"


def is_folder(project: str) -> bool:
    """Whether ``project`` (as ``--project`` takes it) names a folder rather than a project's name (``api``); a
    Windows drive's folder (``c:\\Users``), its root (``c:\\``) too, but not ``c:``, a name (:func:`is_root`)."""
    return project_spelling(project).startswith("/") or drive_path(project.strip())


def telling_tail(folder: str, others: list[str]) -> str:
    """As much of ``folder``'s end as none of ``others`` ends with, in any case (``legacy/api`` beside
    ``~/work/api``); ``folder`` whole when another ends with all of it. Two projects of one last name are named
    apart so (the hooks' labels, ``--project``'s choices)."""
    parts = folder.rstrip("/").split("/")
    their_parts = [[part.lower() for part in other.rstrip("/").split("/")] for other in others]
    for size in range(1, len(parts) + 1):
        tail = [part.lower() for part in parts[-size:]]
        if all(tail != theirs[-size:] for theirs in their_parts):
            return "/".join(parts[-size:])
    return folder


def labels_apart(folders: set[str], roots: Iterable[str] = ()) -> dict[str, str]:
    """A label for each of ``folders`` that shares its last name with another listed one or one of ``roots`` (a
    workspace's, the hook's project): as much of its path as tells them apart (``a/x/svc`` beside ``b/x/svc``: a
    multi-root workspace's roots, a monorepo's packages), so the agent does not read one folder's session as
    another's (trialI F6), nor a person a listing's ``api`` as the other ``api`` (trial48 F6). The one place a shown
    project's name is told apart from another's: hooks, listings and search hits alike.

    One folder spelt two ways is one project: the editor keeps a folder as it was opened (``~/code/shop``, ``~/code``
    a link to a data disk), cursor-agent where the link leads, and labelling them ``code/shop`` and ``data/shop``
    told the agent of two projects (trial13 F1). So twins are other projects (``project_spelling``), and a label is
    told from where the links lead, one for both spellings, unless the link leads to a folder of another name
    (``~/work/api`` to ``~/mnt/api-v2``): then from the folder as kept, whose name ``--project`` takes, where
    ``api-v2`` was refused (review48b M2). Where the links lead is asked only of folders whose last names meet."""

    def last(folder: str) -> str:
        return folder.rstrip("/").rpartition("/")[2].lower()

    def told(folder: str) -> str:  # (the spelling a label is told from)
        resolved = resolved_folder(folder)
        return resolved if last(resolved) == last(folder) else folder

    others = folders | {root.rstrip("/") for root in roots}
    labels = {}
    for folder in folders:
        if not (named := [other for other in others if other != folder and last(other) == last(folder)]):
            continue
        this = project_spelling(folder)
        twins = {spelt: other for other in named if (spelt := project_spelling(other)) != this}
        if twins:
            labels[folder] = telling_tail(told(folder), [told(twin) for twin in twins.values()])
    return labels


def tree_key(folder: str) -> str:
    """The key of the sessions that ran in ``folder`` or a folder below it: a monorepo opened at its root is the
    repository its packages' sessions ran in (``deja wip``, ``deja how``, ``--project DIR``)."""
    return _tree_key(project_spelling(folder))


def tree_keys(project_dir: str) -> list[str]:
    """The ``tree_key`` of ``project_dir`` and of each folder above it but the root (no project's: refused as one),
    spelled once: a folder above a resolved one is resolved too. A Windows drive's folder too, but for the drive."""
    spelled = project_spelling(project_dir) if project_dir.startswith("/") or drive_path(project_dir) else ""
    keys = []
    while spelled.count("/") and spelled != "/":
        keys.append(_tree_key(spelled))
        spelled = spelled.rpartition("/")[0]
    return keys


def _tree_key(spelled: str) -> str:
    return f"{PREFIX}t:{_digest(spelled)}"


ALL_SESSIONS_KEY = f"{PREFIX}all"


def sessions_key(project: str | None, below: bool = True) -> str:
    """The key of a project's sessions, newest first: a folder's with those of the folders below it (unless
    ``below`` is False), a name's, or every session's when no project is given."""
    if not project:
        return ALL_SESSIONS_KEY
    return tree_key(project) if below and is_folder(project) else project_key(project)


def typed_id(text: str) -> str:
    """A session id as a person gives it, without the spaces, backticks or quotes it was copied with from a hook's
    text or a listing (`` `deja show ID` ``: trial59 F5, "no session has the id 'ID`'")."""
    return text.strip().strip("`'\"").strip()


def session_key(session_id: str) -> str:
    """A session's id as a key: sorted with the other terms, so a prefix finds it by binary search."""
    return f"{PREFIX}i:{session_id}"


def normalise_command(command: str) -> str:
    return " ".join(command.split())


def command_words(command: str) -> list[str]:
    """A command's words as ``shlex.split`` gives them (its own words where it cannot: an unterminated quote).

    Read with ``str``'s methods: ``shlex`` loads ``re``, which no Shell hook may, and lexes a character at a time."""
    if command.isascii() and _SHLEX_SPECIAL.isdisjoint(command):
        return command.split()  # what shlex would say, without a loop in Python
    words = _posix_words(command)
    return command.split() if words is None else words


def _posix_words(command: str) -> list[str] | None:
    """``shlex.split(command)``'s words (POSIX rules, no comments), or None where it raises: a quote left open, or a
    backslash at the end. Blanks are the four ``shlex`` knows; a backslash outside quotes takes the next character
    as it is, inside double quotes only before ``"`` or another backslash; single quotes take everything."""
    words: list[str] = []
    word: list[str] = []
    begun = False  # a word has begun, even an empty quoted one ('')
    at, end = 0, len(command)
    while at < end:
        char = command[at]
        if char in " \t\r\n":
            if begun:
                words.append("".join(word))
                word, begun = [], False
            at += 1
            continue
        begun = True
        if char == "\\":
            if at + 1 == end:
                return None
            word.append(command[at + 1])
            at += 2
        elif char == "'":
            close = command.find("'", at + 1)
            if close < 0:
                return None
            word.append(command[at + 1 : close])
            at = close + 1
        elif char == '"':
            at = _double_quoted(command, at + 1, word)
            if at < 0:
                return None
        else:
            word.append(char)
            at += 1
    if begun:
        words.append("".join(word))
    return words


def _double_quoted(command: str, at: int, word: list[str]) -> int:
    """Read a double-quoted run that starts at ``at`` into ``word``; the index after its closing quote, or -1."""
    while True:
        close = command.find('"', at)
        slash = command.find("\\", at)
        if close < 0:
            return -1
        if slash < 0 or close < slash:
            word.append(command[at:close])
            return close + 1
        word.append(command[at:slash])
        following = command[slash + 1 : slash + 2]
        if following in ('"', "\\"):
            word.append(following)
        else:
            word.append("\\")  # a backslash before any other character stays (or before the end, where no quote closes)
            if not following:
                return -1
            word.append(following)
        at = slash + 2


def command_head(command: str) -> str:
    """The program and its subcommand: ``git push -f origin`` -> ``git push``, ``pytest -x a.py`` -> ``pytest``;
    what decides which earlier runs are runs of the same command (the Shell hooks, ``deja fix``'s reruns).

    A global flag's value is no subcommand (``kubectl -n prod get pods`` -> ``kubectl get``: ``_VALUE_FLAGS``); a
    program of ``_NESTED`` takes one word more (``docker compose up``); a script is its interpreter's head
    (``python manage.py migrate``, ``python -m pytest``); a wrapper is not the program (``uv run pytest`` ->
    ``pytest``). Read with ``str``'s methods, not ``re`` (a Shell hook loads none)."""
    words = command_proper(command_words(_first_of_chain(command.strip())))
    if not words:
        return ""
    program = words[0].rsplit("/", 1)[-1]
    name = program.rstrip("0123456789.")  # python3.12 is python, pip3 is pip
    flags = _VALUE_FLAGS.get(_WRAPPED_BY.get(name, name), _NO_FLAGS)
    if name in _INTERPRETERS:
        return _script_head(program, words[1:], flags, _INTERPRETERS[name])
    operands = _operands(words[1:], flags, name not in _TEST_RUNNERS)
    if not operands or not _subcommand(operands[0]):
        return program
    head = f"{program} {operands[0]}"
    nested = name in _NESTED or f"{name} {operands[0]}" in _NESTED
    return f"{head} {operands[1]}" if nested and len(operands) > 1 and _subcommand(operands[1]) else head


def _script_head(program: str, args: list[str], flags: tuple[str, ...], inline: str) -> str:
    """An interpreter's head: the script's file name and its subcommand (``python manage.py migrate``,
    ``node scripts/build.js``, ``bash deploy.sh``), or the module it runs (``python -m pytest``); the interpreter
    alone for code given inline (``python -c …``, ``bash -lc 'make test'``: the flag's letters ``inline``) or on its
    input (``python3 - <<EOF``)."""
    operands = _operands(args, flags, True)
    at = args.index(operands[0]) if operands else 0
    script = operands[0].rstrip("/").rsplit("/", 1)[-1] if operands else ""
    if not script or any(_gives_code(word, inline) for word in args[:at]):
        return program  # (nothing run, or code given inline)
    head = f"{program} -m {script}" if at and args[at - 1] == "-m" else f"{program} {script}"
    own = _operands(args[at + 1 :], _NO_FLAGS, False)  # (the script's own flags: which take a value is unknown)
    return f"{head} {own[0]}" if own and _subcommand(own[0]) else head


def _gives_code(word: str, letters: str) -> bool:
    """Whether ``word`` is a short flag, or a cluster of them, that ends in one of ``letters`` (``-c``, ``-lc``)."""
    return word.startswith("-") and word[1:2] not in ("-", "") and word[-1] in letters


def command_proper(words: list[str]) -> list[str]:
    """The words from the program a command runs: without the variables set before it (``FOO=1``) and the
    wrappers that run it (``sudo -u deploy``, ``uv run --with rich``, ``timeout 30``, ``env -i``), with their flags
    and values (a wrapper's duration or niceness, which starts with a digit). A wrapper that runs nothing is the
    command (``env``, ``uv run``)."""
    at, flags, wrapped_at = 0, _NO_FLAGS, len(words)
    while at < len(words):
        word, pair = words[at], " ".join(words[at : at + 2])
        wrapper = pair if pair in _WRAPPERS else word if word in _WRAPPERS else ""
        if wrapper:
            wrapped_at, at, flags = at, at + 1 + wrapper.count(" "), _VALUE_FLAGS.get(wrapper, _NO_FLAGS)
        elif word in flags:
            at += 2
        elif word.startswith("-") or _setting(word) or (at and word[:1].isdigit()):
            at += 1
        else:
            break
    return words[at:] or words[wrapped_at:]


def _operands(args: list[str], flags: tuple[str, ...], known: bool) -> list[str]:
    """A command's arguments that are no flag, no value of one (those of ``flags``: ``-n prod``; a number:
    ``make -j 4``), no toolchain (``cargo +nightly``), no setting (``make V=1``) and no redirection; none of a
    here-document's text (``python3 - <<EOF``, then the script: on one line, as the index keeps a command).

    ``known``: another flag than ``flags`` is taken for a switch. Otherwise (a test runner's, a script's own:
    ``pytest -k login``, ``train.py --device cuda``) a flag alone may take the next word, which is then no
    subcommand: the operands end there."""
    operands: list[str] = []
    skip = False
    for word in args:
        if word.startswith("<<") and not word.startswith("<<<"):
            break
        if not known and word[:1] == "-" and len(word) > 1 and "=" not in word and word not in flags:
            break
        if skip:
            skip = False
        elif word in flags or _bare_redirection(word):
            skip = True
        elif not (word.startswith(("-", "+", "<", ">")) or word[:1].isdigit() or _setting(word)):
            operands.append(word)
    return operands


def _setting(word: str) -> bool:
    """Whether ``word`` sets a variable (``FOO=1``, ``make V=1``) rather than naming a flag (``--x=1``)."""
    return "=" in word and not word.startswith("-")


def _bare_redirection(word: str) -> bool:
    """Whether ``word`` is a redirection whose file is the next word (``2> err.log``, ``< in.txt``)."""
    operator = word.lstrip("0123456789&")
    return operator[:1] in ("<", ">") and not operator.strip("<>-")


def _first_of_chain(command: str) -> str:
    """The first command of a chain (``a && b``, ``a || b``, ``a; b``, ``a | b``), without the whitespace before the
    operator: ``re.split(r"\\s*(?:&&|\\|\\||;|\\|)\\s*", command, maxsplit=1)[0]``."""
    ends = [at for at in (command.find("&&"), command.find("|"), command.find(";")) if at >= 0]
    return command[: min(ends)].rstrip() if ends else command


def last_of_chain(command: str) -> str:
    """The last command of a chain its others ran before (``pytest -q`` of ``pip install -e . && pytest -q`` or of
    ``make; pytest -q``): the one whose exit is the chain's. "" when the command is no such chain, or its last link
    is piped or follows ``||`` (``pytest | tail`` exits as ``tail`` does; ``a || pytest`` may never run ``pytest``)."""
    at, width = max((command.rfind("&&"), 2), (command.rfind(";"), 1))
    if at < 0:
        return ""
    last = command[at + width :].strip()
    return "" if "|" in last else last


#: Programs that only look around (the Shell pre-hook shows no history of them): run after a failure, they are how
#: it was looked into, not how it was fixed (``only_looks``).
INSPECTION = frozenset(
    [
        "ls",
        "cd",
        "cat",
        "pwd",
        "echo",
        "head",
        "tail",
        "grep",
        "rg",
        "find",
        "which",
        "wc",
        "less",
        "more",
        "tree",
        "file",
        "stat",
        "du",
        "df",
        "env",
        "printenv",
        "date",
        "whoami",
        "clear",
        "history",
        "man",
        "sed",
        "awk",
        "sort",
        "uniq",
    ]
)
#: Subcommands that only read: a repository's or a cluster's state, a pod's logs, a pull request or a CI run.
LOOKING_SUBCOMMANDS = frozenset(
    {
        "git status",
        "git log",
        "git diff",
        "git show",
        "git blame",
        "kubectl logs",
        "kubectl get",
        "kubectl describe",
        "kubectl top",
        "docker ps",
        "docker logs",
        "docker images",
        "docker inspect",
        "helm status",
        "helm list",
        "helm history",
        "docker compose ps",
        "docker compose logs",
        "kubectl rollout status",
        "kubectl rollout history",
        "git stash list",
        "git stash show",
        "gh pr view",
        "gh pr list",
        "gh pr checks",
        "gh pr diff",
        "gh run view",
        "gh run list",
    }
)
#: The flags with which a program of ``INSPECTION`` writes: ``find -delete``.
_WRITING_FLAGS = {"find": ("-delete", "-exec", "-ok", "-fprint", "-fls")}
#: Programs of ``INSPECTION`` that ``only_looks`` never takes for a look: they write in place with a flag that hides
#: in a cluster (``sed -ri``, ``sed -Ei.bak``, ``sort -uo f f``) or an argument (``awk -i inplace``), which their
#: words cannot be read for exactly.
_MAY_WRITE = frozenset({"sed", "awk", "sort"})


def only_looks(command: str) -> bool:
    """Whether every link of ``command`` only looks (``kubectl logs -n prod deploy/api 2>&1 | tail -3``,
    ``git status``, ``grep -E 'a|b' src``): a program of ``INSPECTION`` or a subcommand of ``LOOKING_SUBCOMMANDS``,
    writing nothing (no ``>`` but to the terminal or ``/dev/null``, no ``find -delete``; never ``sed``, ``awk`` or
    ``sort``). What is not sure to only look (a quote left open) is taken as a step that may change something."""
    if not _looks(command_head(command)):
        return False  # (most commands: the quotes of a long one are not read a character at a time)
    links = _links(command)
    if links is None:
        return False
    for link in filter(str.strip, links):
        head = command_head(link)
        if not _looks(head):
            return False
        flags = _WRITING_FLAGS.get(head.split(" ", 1)[0], ())
        if flags and any(word.startswith(flags) for word in command_words(link)):
            return False
    return True


def _looks(head: str) -> bool:
    program = head.split(" ", 1)[0]
    return head in LOOKING_SUBCOMMANDS or (program in INSPECTION and program not in _MAY_WRITE)


#: Redirections that write no file: ``only_looks`` reads a look that ends in one as the look.
_QUIET = ("&>/dev/null", "2>/dev/null", ">/dev/null", "2>&1")
#: What may follow a redirection of ``_QUIET``: the end of the command, a blank or an operator.
_ENDS = frozenset(("", " ", "\t", "\r", "\n", "|", ";", "&"))


def _links(command: str) -> list[str] | None:
    """The links of a chain or pipe, cut at ``|``, ``&&``, ``||``, ``;`` and ``&`` outside quotes, without the
    redirections of ``_QUIET``; None when a link writes (another ``>``) or a quote is left open."""
    links: list[str] = []
    link: list[str] = []
    start = at = 0
    end = len(command)
    while at < end:
        char = command[at]
        if char == "'":
            at = command.find("'", at + 1) + 1
            if not at:
                return None
            continue
        if char == '"':
            at = _double_quoted(command, at + 1, [])
            if at < 0:
                return None
            continue
        if char == "\\":
            at += 2
            continue
        if at == 0 or command[at - 1] in " \t\r\n":
            quiet = next(
                (q for q in _QUIET if command.startswith(q, at) and command[at + len(q) : at + len(q) + 1] in _ENDS), ""
            )
            if quiet:
                link.append(command[start:at])
                at = start = at + len(quiet)
                continue
        if char == ">":
            return None
        if char in "|;&":
            links.append("".join([*link, command[start:at]]))
            link = []
            at = start = at + 1
            continue
        at += 1
    return [*links, "".join([*link, command[start:]])]


def _subcommand(word: str) -> bool:
    """Whether ``word`` reads as a subcommand: ``re.fullmatch(r"[a-z][a-z0-9:_-]*", word)``."""
    return "a" <= word[:1] <= "z" and _SUBCOMMAND.issuperset(word)


def command_keys(command: str) -> tuple[str, ...]:
    """The exact command's key, then its head's key (``Remembered``: a build asks for the same commands again and
    again)."""
    return tuple(_COMMAND_KEYS(command))


def _command_keys(command: str) -> tuple[str, ...]:
    exact = normalise_command(command)
    if not exact:
        return ()
    head = command_head(exact)
    return (f"{PREFIX}c:{_digest(exact)}",) + ((f"{PREFIX}h:{_digest(head)}",) if head else ())


#: How many commands ``command_keys`` remembers before it starts again. The commands a history repeats are a few
#: (``npm test``, ``git status``); the rest come once. 4,096 of them keep nearly every hit 65,536 had (the first
#: 4,000 chats of a generated history: 7,268 against 7,279 of 20,786 calls), in about 1.4 MB where 65,536 filled
#: about 23 MB (350 bytes an entry) in a build's part at 100k sessions.
COMMANDS_REMEMBERED = 1 << 12
_COMMAND_KEYS = Remembered(_command_keys, COMMANDS_REMEMBERED)


def path_key(path: str) -> str:
    return f"{PREFIX}f:{_digest(path.strip())}"


def error_key(line: str, command: str = "") -> str:
    """The key of an error line (``errors.error_lines``) that ``command`` printed: its identity's
    (``errors.error_identity``: its message, whoever printed it; an HTTP status line's status and host); "" for a line
    of no identity (a status line naming no host)."""
    from .errors import error_identity  # (here: a hook that asks for no error's key loads none of it)

    identity = error_identity(line, command)
    return f"{PREFIX}e:{_digest(identity)}" if identity else ""


def error_keys(output: str, command: str = "") -> list[str]:
    """The keys of the error lines of ``output``, which ``command`` printed."""
    from .errors import error_lines

    return [key for line in error_lines(output) if (key := error_key(line, command))]
