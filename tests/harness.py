"""What every test module shares: deja run as a user runs it, and the sample history pointed at.

New tests build on these instead of writing their own copies; histories are written with the
project's own writers (``deja.core.writers``), never mocked.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec
import pytest

from deja.core.index import MANIFEST, Index, index_dir
from deja.core.indexer import refresh
from deja.core.sample import SampleHistory, build_sample_history
from deja.core.writers.cursor_agent import (
    assistant_turn,
    shell_result_text,
    store_assistant_message,
    tool_call_part,
    tool_result_message,
    transcript_path,
    user_turn,
    write_transcript,
)

#: The checkout these tests are in.
CHECKOUT = Path(__file__).resolve().parents[1]
#: The console script's module: run through this interpreter, so a test never depends on PATH.
ENTRY = (sys.executable, "-m", "deja.interfaces.entry")


@contextmanager
def locked(db: Path, journal: str = "DELETE") -> Iterator[None]:
    """Hold an exclusive lock on ``db`` from another connection, in ``journal`` mode, until the block ends (in a
    rollback journal's mode a writer shuts readers out; a WAL database stays readable)."""
    setup = sqlite3.connect(db)
    setup.execute(f"PRAGMA journal_mode={journal}")
    setup.close()
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        yield
    finally:
        holder.execute("ROLLBACK")
        holder.close()


@contextmanager
def at_mode_000(path: Path) -> Iterator[None]:
    """``path`` at mode 000 for the block, as a person's ``chmod 000`` leaves it (then back, so pytest can remove
    it)."""
    mode = path.stat().st_mode
    path.chmod(0)
    try:
        yield
    finally:
        path.chmod(mode)


def run_deja(
    *args: str,
    env: dict[str, str] | None = None,
    input: str | bytes | None = None,
    timeout: float = 60,
    script: Path | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """``deja ARGS`` as a separate process with this interpreter (text mode unless ``input`` is bytes).

    ``script`` runs a ``deja`` console script (``console_script``) instead of the module.
    """
    text = not isinstance(input, bytes)
    served = None if script else through_a_hook_server(args, env if env is not None else dict(os.environ))
    return subprocess.run(
        served or [*([str(script)] if script else ENTRY), *args],
        env=env if env is not None else dict(os.environ),
        cwd=cwd,
        input=input,
        capture_output=True,
        text=text,
        timeout=timeout,
    )


#: The launcher of this checkout in a site-packages of its own (``launcher_in_a_site_packages``), made once.
_LAUNCHER: list[Path] = []


def launcher_in_a_site_packages() -> Path:
    """This checkout's hook launcher where pip puts it (``…/site-packages/deja/interfaces/hook.py``, PyStemmer
    beside it): started with ``-I -S``, it asks the hook server (an editable install's runs ``site`` instead)."""
    if not _LAUNCHER:
        import Stemmer

        folder = Path(tempfile.mkdtemp(prefix="deja-launcher-")) / "site-packages"
        folder.mkdir()
        (folder / "deja").symlink_to(CHECKOUT)
        (folder / Path(Stemmer.__file__).name).symlink_to(Stemmer.__file__)
        _LAUNCHER.append(folder / "deja" / "interfaces" / "hook.py")
    return _LAUNCHER[0]


def through_a_hook_server(args: Iterable[str], env: Mapping[str, str]) -> list[str] | None:
    """In a run with ``DEJA_TEST_HOOK_SERVER=1``, a hook command as Cursor runs it (the launcher), with a hook server
    listening for ``env`` where deja's home exists (else the hook starts one itself); None otherwise."""
    args = list(args)
    if not os.environ.get("DEJA_TEST_HOOK_SERVER") or not args or not args[0].startswith("hook-"):
        return None
    from deja.interfaces import hook_client

    launcher = [sys.executable, "-I", "-S", str(launcher_in_a_site_packages())]
    path = hook_client.socket_path({os.fsencode(k): os.fsencode(v) for k, v in env.items()})
    if path and Path(path).parent.is_dir() and not Path(path).exists():
        server = subprocess.Popen(
            [*launcher, "serve-hooks"],
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 20
        while not Path(path).exists() and server.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
    return [*launcher, *args]


def stop_hook_servers(folder: Path) -> None:
    """Kill every hook server whose lock lies under ``folder`` (a test's ``tmp_path``)."""
    from deja.interfaces import hook_client

    for lock in folder.rglob(hook_client.LOCK_NAME):
        pid = lock.read_text().strip()
        cmdline = Path(f"/proc/{pid}/cmdline")
        if pid.isdigit() and cmdline.exists() and b"serve-hooks" in cmdline.read_bytes():
            os.kill(int(pid), signal.SIGKILL)


def snapshot(root: Path) -> dict[str, tuple[bytes | None, int]]:
    """Every path under ``root``: its bytes (None for a folder or a link's own entry) and mode, to compare a home
    before and after (an uninstall leaves it byte for byte as it was before the install)."""
    found = {}
    for path in sorted(root.rglob("*")):
        data = path.read_bytes() if path.is_file() and not path.is_symlink() else None
        found[str(path.relative_to(root))] = (data, path.lstat().st_mode)
    return found


def console_script(folder: Path) -> Path:
    """A ``deja`` console script for this interpreter in ``folder``, as pip writes one.

    Installers record the ``deja`` that runs them; a test that installs runs this script with
    ``PATH`` set to its folder, so what is recorded never depends on the developer's PATH.
    """
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "deja"
    script.write_text(f"#!{sys.executable}\nfrom deja.interfaces.entry import main\n\nmain()\n")
    script.chmod(0o755)
    return script


def path_with(script: Path) -> str:
    """A PATH holding ``script``'s folder and the system's own, and nothing of the developer's."""
    return os.pathsep.join([str(script.parent), os.defpath])


def clean_copy(destination: Path) -> Path:
    """The checkout's files copied to ``destination`` as a clone would have them (git's view when there is one, edits
    not yet committed included), nothing built or installed."""
    listed = subprocess.run(
        ["git", "-C", str(CHECKOUT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
    )
    if listed.returncode != 0:
        ignore = shutil.ignore_patterns(".git", ".venv", "*.egg-info", "__pycache__", ".pytest_cache", "build")
        return Path(shutil.copytree(CHECKOUT, destination, symlinks=True, ignore=ignore))
    for name in filter(None, listed.stdout.decode().split("\0")):
        source, target = CHECKOUT / name, destination / name
        if not source.exists() and not source.is_symlink():
            continue  # deleted in the work tree, not yet committed
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, target)
    return destination


class Sample(msgspec.Struct):
    """The shipped sample history, deja's environment pointed at it, and deja's home for its files."""

    history: SampleHistory
    home: Path

    @property
    def env(self) -> dict[str, str]:
        """The whole process environment with deja pointed at the sample."""
        return {**os.environ, **self.history.environment(self.home)}


def user_prefix() -> list[str]:
    """What runs a command as a user that permissions stop: nothing, or for root a user namespace as uid 1000."""
    if os.geteuid() != 0:
        return []
    unshare = shutil.which("unshare")  # (found here: the command's own PATH may not hold it)
    if unshare is None:
        pytest.skip("needs unshare to run as a user that permissions stop")
    return [unshare, "--user", "--map-user=1000"]


def as_user(env: Mapping[str, str], *args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
    """``deja ARGS`` as a user that permissions stop (for root, in a user namespace, as uid 1000)."""
    prefix = user_prefix()
    result = subprocess.run(
        [*prefix, *ENTRY, *args], env=dict(env), input=input, capture_output=True, text=True, timeout=60
    )
    if prefix and result.returncode != 0 and "unshare" in result.stderr:
        pytest.skip(f"cannot make a user namespace here: {result.stderr.strip()}")
    return result


#: How a test runs deja: ``run_deja``, or ``user`` where file modes must stop it.
Run = Callable[..., subprocess.CompletedProcess[str]]


def user(*args: str) -> subprocess.CompletedProcess[str]:
    """``deja ARGS`` in this process's environment, as a user that file modes stop (root too: ``as_user``)."""
    return as_user(os.environ, *args)


def unwritable_folder(tmp_path: Path) -> Path:
    """A folder this user cannot create files in: a new one at mode 0555 under ``tmp_path`` for a user; for root, who
    writes such a folder, /sys (a pseudo-file system that refuses new files to root too), or a skip where it takes
    them."""
    if os.geteuid() != 0:
        folder = tmp_path / "read-only"
        folder.mkdir(mode=0o555)
        return folder
    try:
        os.close(os.open("/sys/.deja-probe", os.O_WRONLY | os.O_CREAT | os.O_EXCL))
    except PermissionError:
        return Path("/sys")
    os.unlink("/sys/.deja-probe")
    pytest.skip("/sys is writable here")


def point_at_sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Sample:
    """Write the sample history under ``tmp_path`` and point this process's environment at it."""
    history = build_sample_history(tmp_path / "sample")
    home = tmp_path / "deja"
    for name, value in history.environment(home).items():
        monkeypatch.setenv(name, value)
    return Sample(history=history, home=home)


def as_format_wrote_it(home: Path, version: int) -> None:
    """The manifest of the index in ``home`` as a deja of index format ``version`` wrote it: the same records, that
    version number (an older deja's, or a newer one's)."""
    manifest = index_dir(home) / MANIFEST
    fields = msgspec.msgpack.decode(manifest.read_bytes())
    manifest.write_bytes(msgspec.msgpack.encode({**fields, "version": version}))


def index_chats(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chats: Mapping[str, list[str]]) -> Index:
    """Index cursor-agent chats (a question, then the answers) written under ``tmp_path / "cli"`` beside any
    chat a test wrote there itself, with no editor history, and point this process's environment at them."""
    cli = tmp_path / "cli"
    cli.mkdir(exist_ok=True)
    for chat_id, (first, *rest) in chats.items():
        records = [user_turn(first), *(assistant_turn(text) for text in rest)]
        write_transcript(transcript_path(cli, "/work/shop", chat_id), records)
    (tmp_path / "no-ide").mkdir()
    home = tmp_path / "deja"
    monkeypatch.setenv("DEJA_CURSOR_CLI_ROOT", str(cli))
    monkeypatch.setenv("DEJA_CURSOR_ROOT", str(tmp_path / "no-ide"))
    monkeypatch.setenv("DEJA_HOME", str(home))
    refresh(home)
    return Index.open(home)


def index_chat(home: Path, project: Path, chat: str, records: Iterable[dict[str, Any]]) -> None:
    """``records`` written as the cursor-agent chat ``chat`` in ``project`` under ``home``'s ``.cursor``, and indexed by
    ``deja index`` as a user's chats are (``HOME`` pointed at ``home``: the ``fake_home`` fixture)."""
    write_transcript(transcript_path(home / ".cursor", str(project), chat), records)
    ran = run_deja("index")
    assert ran.returncode == 0, ran.stderr


def index_cli_root(tmp_path: Path, cli_root: Path) -> dict[str, str]:
    """deja's environment pointed at ``cli_root``'s cursor-agent chats (and no editor), indexed by ``deja index``."""
    (tmp_path / "no-ide").mkdir()
    env = {
        **os.environ,
        "DEJA_CURSOR_CLI_ROOT": str(cli_root),
        "DEJA_CURSOR_ROOT": str(tmp_path / "no-ide"),
        "DEJA_HOME": str(tmp_path / "deja"),
    }
    assert run_deja("index", env=env).returncode == 0
    return env


#: Chats of a shop's everyday work, in ``index_asked_chats``'s form, among which a test's own chats are to be found.
ROUTINE_CHATS = [
    (f"c-routine-{i}", asked, answered)
    for i, (asked, answered) in enumerate(
        [
            ("Add a wishlist endpoint.", "Added GET and POST /wishlist; postgres holds the items."),
            ("The docker build is slow.", "A multi-stage build and a .dockerignore cut it to forty seconds."),
            ("Bump next to the latest minor.", "Bumped it and fixed two type errors in the account page."),
            ("Add a grafana panel for queue depth.", "The panel reads the worker's prometheus gauge."),
            ("Translate the checkout into german.", "The strings are in de.json; dates use the user's locale."),
        ]
    )
]


def index_asked_chats(tmp_path: Path, project: str, chats: Iterable[tuple[str, str, str]]) -> dict[str, str]:
    """``chats`` (id, question, answer) written as cursor-agent transcripts of one exchange each in ``project``, a day
    apart from 2 March 2026 in their order, and indexed: deja's environment pointed at them (``index_cli_root``)."""
    cli_root = tmp_path / "cursor-agent"
    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    for day, (chat, asked, answered) in enumerate(chats):
        records = [user_turn(asked, start + timedelta(days=day)), assistant_turn(answered)]
        write_transcript(transcript_path(cli_root, project, chat), records)
    return index_cli_root(tmp_path, cli_root)


def imported_modules(stderr: str) -> set[str]:
    """The modules ``python -X importtime`` reported on ``stderr`` (its header row among them)."""
    return {
        line.rsplit("|", 1)[1].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }


def deja_imports(env: dict[str, str], *args: str) -> tuple[str, set[str]]:
    """What ``deja ARGS`` printed, and the modules it imported (``-X importtime``)."""
    done = subprocess.run(
        [ENTRY[0], "-X", "importtime", *ENTRY[1:], *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout, imported_modules(done.stderr)


def hook_prompt(env: dict[str, str], prompt: str, project: str, conversation: str = "c-new") -> str:
    """What ``deja hook-prompt`` gives the model for ``prompt`` in ``project``, sent as cursor-agent sends it."""
    payload = {
        "conversation_id": conversation,
        "hook_event_name": "beforeSubmitPrompt",
        "cursor_version": "2.4.21",
        "workspace_roots": [project],
        "prompt": prompt,
    }
    done = run_deja("hook-prompt", env=env, input=json.dumps(payload))
    assert done.returncode == 0 and not done.stderr
    return json.loads(done.stdout)["additional_context"] if done.stdout.strip() else ""


def session_start_block(project: Path, conversation: str = "c-start") -> str:
    """The "Recent sessions" block the session-start hook gives a new conversation in ``project``."""
    payload = {
        "conversation_id": conversation,
        "hook_event_name": "sessionStart",
        "cursor_version": "2.4.21",
        "workspace_roots": [str(project)],
    }
    done = run_deja("hook-context", input=json.dumps(payload))
    assert done.returncode == 0 and not done.stderr, done.stderr
    return str(json.loads(done.stdout)["additional_context"])


def last_hook_decision(env: dict[str, str], command: str = "") -> dict[str, object]:
    """The last decision ``deja hooks log`` recorded (of ``command``, ``hook-prompt`` say, when given: an ingest a
    session-end hook started in the background logs when it is done, which may be after a later hook)."""
    done = run_deja("hooks", "log", "--json", env=env)
    assert done.returncode == 0, done.stderr
    decisions = json.loads(done.stdout)["decisions"]
    decision: dict[str, object] = [d for d in decisions if not command or d["command"] == command][-1]
    return decision


def store_shell(call_id: str, command: str, output: str, code: int, text: str | None = None) -> list[dict]:
    """A chat store's Shell call that printed ``output`` and exited ``code`` (after ``text``, when given), and its result."""
    return [
        store_assistant_message(text, tool_call_part(call_id, "Shell", {"command": command})),
        tool_result_message(call_id, "Shell", shell_result_text(output, exit_code=code)),
    ]


def failure_hook(project: Path, command: str, output: str, conversation: str = "conv-now") -> str:
    """What the failure hook (postToolUse, as Cursor sends it) injects after ``command`` failed in ``project``, in
    ``conversation`` (a block is shown once a conversation)."""
    payload = {
        "conversation_id": conversation,
        "hook_event_name": "postToolUse",
        "cursor_version": "3.20.17",
        "workspace_roots": [str(project)],
        "tool_name": "Shell",
        "tool_input": {"command": command},
        "tool_output": json.dumps({"exitCode": 1, "output": output}),
    }
    ran = run_deja("hook-tool-after", input=json.dumps(payload))
    assert ran.returncode == 0 and not ran.stderr, ran.stderr
    return json.loads(ran.stdout)["additional_context"]
