"""The resident hook server (``interfaces/hook_server.py``) and the launcher's client of it (``hook_client.py``).

Real processes and sockets: deja laid out in a site-packages as pip installs it, its launcher started as Cursor
starts it, a server started as the launcher starts one. Each test stops the servers it started.
"""

from __future__ import annotations

import compileall
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from harness import CHECKOUT, Sample, run_deja

from deja.hooks.run import HANDLERS
from deja.installers import claude, cursor
from deja.interfaces import hook_client, hook_server

SWITCH = {hook_client.SWITCH: "1"}
NO_MATCH = "write a haiku about autumn leaves in Lisbon"
MODULE_ERROR = "E   ModuleNotFoundError: No module named 'api.cache'"


@pytest.fixture(scope="module")
def site_packages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout's deja copied into a site-packages beside PyStemmer, compiled: the launcher there starts
    without ``site`` and asks the server (a test may replace the copy's launcher, as a reinstall does)."""
    import Stemmer

    folder = tmp_path_factory.mktemp("installed") / "site-packages"
    for layer in ("core", "hooks", "installers", "interfaces"):
        shutil.copytree(CHECKOUT / layer, folder / "deja" / layer, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / Path(Stemmer.__file__).name).symlink_to(Stemmer.__file__)
    assert compileall.compile_dir(folder / "deja", quiet=1)
    return folder


def launcher(site: Path) -> Path:
    return site / "deja" / "interfaces" / "hook.py"


def launch(
    site: Path, command: str, payload: Any, env: dict[str, str], cwd: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    """``command`` as Cursor runs it: the launcher, the event on stdin."""
    return subprocess.run(
        [sys.executable, "-I", "-S", str(launcher(site)), command],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=env,
        cwd=cwd,
        timeout=60,
    )


def socket_of(env: dict[str, str]) -> Path:
    return Path(env["DEJA_HOME"]) / hook_client.SOCKET_NAME


def started_hook(site: Path, command: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """``command`` as Cursor starts it, its event not sent yet (stdin left open: a served call's child waits on it)."""
    return subprocess.Popen(
        [sys.executable, "-I", "-S", str(launcher(site)), command],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )


def wait_for(what: str, check: Any, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"{what} did not happen within {seconds} s"
        time.sleep(0.05)


def running(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not; one reaped between the two looks is gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:  # (reaped since the kill's look; or no ``/proc`` here, where the kill's look says)
        return not Path("/proc/self").exists()
    return state.split(") ")[-1][:1] != "Z"


def children_of(pid: int) -> list[int]:
    """The processes ``pid`` started that still run (Linux's ``/proc``)."""
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(each) for each in path.read_text().split()] if path.exists() else []


def _streams(process: int) -> tuple[str, ...] | None:
    """What process ``process``'s standard streams are (None where it is gone)."""
    try:
        return tuple(os.readlink(f"/proc/{process}/fd/{fd}") for fd in range(3))
    except OSError:
        return None


def answering(pid: int) -> list[int]:
    """The children of server ``pid`` that took a call: their standard streams are their caller's, where the spare's,
    forked ahead of the next call (``hook_server.Server._fork_spare``), are still the server's."""
    own = _streams(pid)
    return [child for child in children_of(pid) if (held := _streams(child)) is not None and held != own]


def spares(pid: int) -> list[int]:
    """The children of server ``pid`` waiting for a call: their standard streams are still the server's."""
    own = _streams(pid)
    return [child for child in children_of(pid) if _streams(child) == own]


def idle(pid: int, looks: int = 4) -> bool:
    """Whether process ``pid`` sleeps and its CPU time stays the same over ``looks`` looks 0.1 s apart: a spare done
    with its rehearsal, waiting for its call (under load a rehearsal took longer than the test waited, and the call
    went, rightly, to a child forked for it: flake64)."""
    seen = set()
    for look in range(looks):
        fields = Path(f"/proc/{pid}/stat").read_text().split(") ")[-1].split()
        if fields[0] != "S":
            return False
        seen.add((fields[11], fields[12]))  # (utime, stime)
        if look < looks - 1:
            time.sleep(0.1)
    return len(seen) == 1


def catches(pid: int, signal_number: int) -> bool:
    """Whether process ``pid`` has a handler of its own for the signal (``SigCgt`` in Linux's ``/proc``): a served
    search sets its SIGTSTP one once it has read its child's pid, a child takes SIGINT back from the server's SIG_IGN.
    Before then a Ctrl-C or Ctrl-Z does something else; a fixed sleep for it lost the race under load (flake61)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (signal_number - 1) & 1)
    return False


def accepting(path: Path) -> bool:
    """Whether a server listens at ``path`` (a killed one's socket is left behind, refusing connections)."""
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


def stop_servers(home: Path) -> None:
    """Kill the server whose pid the lock in ``home`` holds, if it is one."""
    lock = home / hook_client.LOCK_NAME
    text = lock.read_text().strip() if lock.exists() else ""
    if text.isdigit() and running(int(text)):
        cmdline = Path(f"/proc/{text}/cmdline")
        if not cmdline.exists() or b"serve-hooks" in cmdline.read_bytes():
            os.kill(int(text), signal.SIGKILL)


class Served:
    """A server started as the launcher starts one, for the environment ``env`` (``utf8``: in Python's UTF-8 mode
    or not, whatever the locale says: as a Cursor started with another locale than a shell's starts it)."""

    def __init__(self, site: Path, env: dict[str, str], utf8: bool | None = None) -> None:
        self.env = env
        mode = [] if utf8 is None else ["-X", f"utf8={int(utf8)}"]
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-S", *mode, str(launcher(site)), hook_server.COMMAND],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        wait_for("the server's socket", lambda: socket_of(env).exists() or self.process.poll() is not None)
        assert self.process.poll() is None, "the server ended at once"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(10)
        stop_servers(Path(self.env["DEJA_HOME"]))


@pytest.fixture
def serving(site_packages: Path, indexed_sample: Sample) -> Iterator[Served]:
    """A server for the indexed sample's environment (the server switched on), stopped at teardown."""
    env = {**indexed_sample.env, **SWITCH}
    Path(env["DEJA_HOME"]).mkdir(parents=True, exist_ok=True)
    server = Served(site_packages, env)
    yield server
    server.stop()


def payloads(sample: Sample, conversation: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """label -> (command, payload) of every hook, as cursor-agent sends them, in conversation ``conversation``."""
    project = str(sample.history.projects["api"])
    base = {
        "conversation_id": conversation,
        "cursor_version": "2026.10.01",
        "workspace_roots": [project],
        "transcript_path": f"/x/{conversation}/{conversation}.jsonl",
    }
    tool = {**base, "tool_use_id": "t1", "cwd": ""}
    failed = json.dumps({"output": MODULE_ERROR, "exitCode": 1})
    return {
        "session start": ("hook-context", {**base, "hook_event_name": "sessionStart"}),
        "prompt that recalls": (
            "hook-prompt",
            {**base, "hook_event_name": "beforeSubmitPrompt", "prompt": f"tests fail: {MODULE_ERROR}"},
        ),
        "Shell": (
            "hook-tool",
            {**tool, "hook_event_name": "preToolUse", "tool_name": "Shell", "tool_input": {"command": "pytest -q"}},
        ),
        "Task": (
            "hook-tool",
            {
                **tool,
                "hook_event_name": "preToolUse",
                "tool_name": "Task",
                "tool_input": {"description": "look into it", "prompt": "why does pytest not import api.cache"},
            },
        ),
        "tool after": (
            "hook-tool-after",
            {
                **tool,
                "hook_event_name": "postToolUse",
                "tool_name": "Shell",
                "tool_input": {"command": "pytest -q"},
                "tool_output": failed,
            },
        ),
        "session end": ("hook-session-end", {**base, "hook_event_name": "sessionEnd", "reason": "completed"}),
    }


class Call:
    """A hook call the server's child answered, and what ``/proc`` showed of that child while it ran (not its
    environment: ``/proc``'s is the one the process started with, the server's)."""

    def __init__(self, done: subprocess.CompletedProcess[bytes], child: int, cwd: str) -> None:
        self.done, self.child, self.cwd = done, child, cwd


def served_call(
    server: Served, site: Path, command: str, payload: Any, env: dict[str, str] | None = None, cwd: Path | None = None
) -> Call:
    """``launch``, and that the server's child answered it: the launcher is started with its stdin open, a child of
    the server's waits on it (its folder is read then), and the event follows."""
    process = subprocess.Popen(
        [sys.executable, "-I", "-S", str(launcher(site)), command],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env or server.env,
        cwd=cwd,
    )
    try:
        wait_for("a child of the server that runs", lambda: _running_child(server.process.pid), 10)
        child, folder = _running_child(server.process.pid) or (0, "")
    finally:
        out, err = process.communicate(json.dumps(payload).encode(), timeout=60)
    return Call(subprocess.CompletedProcess(process.args, process.returncode, out, err), child, folder)


def _running_child(pid: int) -> tuple[int, str] | None:
    """The newest child of ``pid`` that still runs, and its folder; None while there is none (a child of an earlier
    call, killed with its harness, may still be listed as it ends: its ``/proc`` folder is gone a moment later)."""
    for child in reversed(answering(pid)):
        try:
            return child, os.readlink(f"/proc/{child}/cwd")
        except FileNotFoundError:
            continue
    return None


# --- the same answer -----------------------------------------------------------------------------


def test_every_hook_answers_through_the_server_byte_for_byte_as_in_its_own_process(
    serving: Served, site_packages: Path, indexed_sample: Sample
) -> None:
    alone = {**serving.env, hook_client.SWITCH: "0"}
    for label, (command, payload) in payloads(indexed_sample, "in-process").items():
        _, served_payload = payloads(indexed_sample, "served")[label]
        own = launch(site_packages, command, payload, alone)
        served = served_call(serving, site_packages, command, served_payload).done
        assert (served.returncode, served.stdout, served.stderr) == (own.returncode, own.stdout, own.stderr), label
        assert own.returncode == 0 and own.stderr == b"", (label, own.stderr)
    again = payloads(indexed_sample, "again")["prompt that recalls"]
    recalled = json.loads(served_call(serving, site_packages, *again).done.stdout)
    assert "Past turns from other sessions" in recalled["additional_context"], "the served prompt recalled"
    log = (indexed_sample.home / "hooks.log").read_text()
    assert "hook-prompt beforeSubmitPrompt served: gave" in log and "hook-tool preToolUse served: gave" in log


def test_each_call_is_answered_in_its_own_folder_environment_and_time_zone(
    serving: Served, site_packages: Path, tmp_path: Path
) -> None:
    """Two homes, two folders, two zones through one server: the child runs in the call's folder, with its
    environment (its home's config file turns recall off in one), and logs in its zone."""
    quiet_home = tmp_path / "quiet-home"
    (quiet_home / ".config" / "deja").mkdir(parents=True)
    (quiet_home / ".config" / "deja" / "config.toml").write_text('recall = "off"\n')
    calls = {
        "utc": ({**serving.env, "TZ": "UTC"}, tmp_path / "one"),
        "kolkata": ({**serving.env, "HOME": str(quiet_home), "TZ": "Asia/Kolkata"}, tmp_path / "two"),
    }
    for name, (env, folder) in calls.items():
        folder.mkdir()
        payload = {
            "hook_event_name": "beforeSubmitPrompt",
            "prompt": f"tests fail: {MODULE_ERROR}",
            "conversation_id": name,
        }
        call = served_call(serving, site_packages, "hook-prompt", payload, env, folder)
        assert call.done.returncode == 0 and call.cwd == str(folder)
    log = (Path(serving.env["DEJA_HOME"]) / "hooks.log").read_text().splitlines()
    utc, kolkata = ([line for line in log if f" {name}: " in line][0] for name in calls)
    assert "+0000 " in utc and ": gave " in utc
    assert "+0530 " in kolkata and "recall" in kolkata and ": gave " not in kolkata


# --- stepping aside ---------------------------------------------------------------------------------


def test_a_reinstall_makes_the_server_step_aside_and_the_hook_answers_in_its_own_process(
    serving: Served, site_packages: Path, indexed_sample: Sample
) -> None:
    command, payload = payloads(indexed_sample, "before")["prompt that recalls"]
    before = served_call(serving, site_packages, command, payload).done
    hook = launcher(site_packages)
    replaced = hook.with_name("hook.py.new")
    shutil.copy2(hook, replaced)
    replaced.replace(hook)  # (pip's way: another file in the launcher's place)
    _, payload = payloads(indexed_sample, "after")["prompt that recalls"]
    after = launch(site_packages, command, payload, serving.env)
    assert (after.returncode, after.stdout, after.stderr) == (before.returncode, before.stdout, before.stderr)
    serving.process.wait(10)  # (it stepped aside: no test kills it)
    assert not socket_of(serving.env).exists()


def test_a_launcher_touched_on_disk_ends_the_idle_server_within_seconds(serving: Served, site_packages: Path) -> None:
    hook = launcher(site_packages)
    os.utime(hook, ns=(hook.stat().st_atime_ns, hook.stat().st_mtime_ns + 1_000_000_000))
    serving.process.wait(10)
    assert not socket_of(serving.env).exists()


def test_a_killed_servers_socket_is_run_past_and_replaced(
    serving: Served, site_packages: Path, indexed_sample: Sample
) -> None:
    serving.process.kill()
    serving.process.wait(10)
    assert socket_of(serving.env).exists(), "a killed server leaves its socket"
    lock = Path(serving.env["DEJA_HOME"]) / hook_client.LOCK_NAME
    os.utime(lock, (time.time() - 3600, time.time() - 3600))  # (it had run for an hour)
    command, payload = payloads(indexed_sample, "past-a-dead-one")["prompt that recalls"]
    done = launch(site_packages, command, payload, serving.env)
    assert done.returncode == 0 and "Past turns" in json.loads(done.stdout)["additional_context"]
    wait_for("a new server", lambda: lock.read_text().strip() not in ("", str(serving.process.pid)))
    new = int(lock.read_text())
    try:
        wait_for("its socket", lambda: accepting(socket_of(serving.env)))  # (not the killed one's, left behind)
        _, payload = payloads(indexed_sample, "to-the-new-one")["prompt that recalls"]
        process = started_hook(site_packages, command, serving.env)
        wait_for("a child of the new server", lambda: answering(new), 10)
        out, _ = process.communicate(json.dumps(payload).encode(), timeout=60)
        assert out == done.stdout
    finally:
        stop_servers(Path(serving.env["DEJA_HOME"]))


def test_a_second_server_leaves_the_first_one_serving(serving: Served, site_packages: Path) -> None:
    second = subprocess.run(
        [sys.executable, "-I", "-S", str(launcher(site_packages)), hook_server.COMMAND],
        env=serving.env,
        capture_output=True,
        timeout=30,
    )
    assert (second.returncode, second.stdout, second.stderr) == (0, b"", b"")
    assert serving.process.poll() is None and socket_of(serving.env).exists()


def test_the_server_ends_after_its_idle_time(site_packages: Path, fake_home: Path, tmp_path: Path) -> None:
    env = {**os.environ, **SWITCH, "DEJA_HOME": str(tmp_path / "deja")}
    (tmp_path / "deja").mkdir()
    code = f"import sys; sys.path.append({str(site_packages)!r}); from deja.interfaces import hook_server as s; "
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code + "s.IDLE_SECONDS = 1.5; s.serve()"], env=env, timeout=30
    )
    assert done.returncode == 0 and 1.5 <= time.monotonic() - started < 20
    assert not socket_of(env).exists()


# --- never in the way ---------------------------------------------------------------------------------


def test_a_child_that_hangs_is_killed_and_the_hook_exits_0_within_its_budget(
    serving: Served, site_packages: Path, indexed_sample: Sample
) -> None:
    """Nothing the server holds keeps the hook's stdout open: the reader sees its end when the hook exits."""
    command, payload = payloads(indexed_sample, "hangs")["prompt that recalls"]
    started = time.monotonic()
    process = started_hook(site_packages, command, serving.env)
    wait_for("a child of the server", lambda: answering(serving.process.pid), 10)
    child = answering(serving.process.pid)[0]
    os.kill(child, signal.SIGSTOP)
    out, err = process.communicate(json.dumps(payload).encode(), timeout=60)
    assert (process.returncode, out, err) == (0, b"", b"")
    assert time.monotonic() - started < hook_client.DEFAULT_BUDGET + 1
    wait_for("the child's end", lambda: not running(child), 10)
    assert "took longer than the hook's 4 s" in (indexed_sample.home / "hooks.log").read_text()
    assert serving.process.poll() is None, "the server still serves"


def test_a_child_that_dies_gives_exit_0_and_nothing(
    serving: Served, site_packages: Path, indexed_sample: Sample
) -> None:
    command, payload = payloads(indexed_sample, "dies")["prompt that recalls"]
    process = started_hook(site_packages, command, serving.env)
    wait_for("a child of the server", lambda: answering(serving.process.pid), 10)
    os.kill(answering(serving.process.pid)[0], signal.SIGKILL)
    out, err = process.communicate(json.dumps(payload).encode(), timeout=60)
    assert (process.returncode, out, err) == (0, b"", b"")
    assert "the hook server's child ended without an answer" in (indexed_sample.home / "hooks.log").read_text()


def test_the_budget_a_hook_waits_is_under_every_timeout_the_installers_give_it() -> None:
    for hook in (*cursor.HOOKS, *claude.HOOKS):
        waited = hook_client.BUDGET.get(hook.subcommand, hook_client.DEFAULT_BUDGET)
        assert waited <= hook.timeout - 1, hook
    assert set(hook_client.BUDGET) <= set(HANDLERS)


# --- who may ask ----------------------------------------------------------------------------------------


def test_the_socket_is_its_users_alone(serving: Served) -> None:
    assert socket_of(serving.env).stat().st_mode & 0o777 == 0o600
    assert socket_of(serving.env).parent.stat().st_mode & 0o777 == 0o700


def test_a_peer_of_another_user_is_refused() -> None:
    def ucred(pid: int, uid: int, gid: int) -> bytes:
        return b"".join(n.to_bytes(4, sys.byteorder) for n in (pid, uid, gid))

    assert hook_client.same_user(ucred(77, os.getuid(), 0), os.getuid())
    assert not hook_client.same_user(ucred(77, os.getuid() + 1, os.getuid()), os.getuid())
    assert not hook_client.same_user(b"", os.getuid())


def test_no_server_is_asked_or_started_where_it_is_off(site_packages: Path, indexed_sample: Sample) -> None:
    env = {**indexed_sample.env, hook_client.SWITCH: "off"}
    command, payload = payloads(indexed_sample, "off")["prompt that recalls"]
    assert launch(site_packages, command, payload, env).returncode == 0
    assert not (indexed_sample.home / hook_client.LOCK_NAME).exists()


def test_a_config_file_that_turns_it_off_ends_a_running_server_after_answering(
    serving: Served, site_packages: Path, indexed_sample: Sample, fake_home: Path
) -> None:
    config = Path(serving.env["HOME"]) / ".config" / "deja" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("hook_server = false\n")
    env = {key: value for key, value in serving.env.items() if key != hook_client.SWITCH}
    command, payload = payloads(indexed_sample, "turned-off")["prompt that recalls"]
    done = served_call(serving, site_packages, command, payload, env).done
    assert done.returncode == 0 and "Past turns" in json.loads(done.stdout)["additional_context"]
    serving.process.wait(10)
    assert not socket_of(serving.env).exists()


def test_doctor_says_whether_a_hook_server_runs(site_packages: Path, indexed_sample: Sample) -> None:
    env = {**indexed_sample.env, **SWITCH}
    Path(env["DEJA_HOME"]).mkdir(parents=True, exist_ok=True)
    assert "hook server: not running: the next hook answers in its own process" in run_deja("doctor", env=env).stdout
    server = Served(site_packages, env)
    try:
        assert f"hook server: runs (pid {server.process.pid})" in run_deja("doctor", env=env).stdout
    finally:
        server.stop()
    off = run_deja("doctor", env={**env, hook_client.SWITCH: "0"}).stdout
    assert "hook server: off (the hook_server setting): each hook runs in a process of its own" in off


def test_a_hook_killed_by_its_harness_takes_its_child_with_it(
    serving: Served, site_packages: Path, indexed_sample: Sample
) -> None:
    """Cursor kills a hook past its timeout (and the hook's process group as cursor-agent exits): the child, in the
    server's session, holds Cursor's pipes, so the server kills it when its caller's connection closes."""
    process = subprocess.Popen(
        [sys.executable, "-I", "-S", str(launcher(site_packages)), "hook-prompt"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=serving.env,
    )
    wait_for("a child of the server", lambda: answering(serving.process.pid), 10)
    child = answering(serving.process.pid)[0]
    os.kill(child, signal.SIGSTOP)  # (as a child stuck in its work)
    process.kill()
    process.communicate(timeout=30)
    wait_for("the child's end", lambda: not running(child), 10)
    command, payload = payloads(indexed_sample, "after-a-kill")["prompt that recalls"]
    assert served_call(serving, site_packages, command, payload).done.returncode == 0, "the server still serves"


def test_a_server_that_takes_no_call_leaves_it_to_the_hook_which_answers_it_once(
    serving: Served, site_packages: Path, indexed_sample: Sample
) -> None:
    """A stuck server is asked for nothing it could hold: the hook answers in its own process within a second more,
    and the server, going on, answers nothing of it (the hook's output ends with the hook)."""
    alone = {**serving.env, hook_client.SWITCH: "0"}
    command, payload = payloads(indexed_sample, "never-taken")["prompt that recalls"]
    own = launch(site_packages, command, payloads(indexed_sample, "own")["prompt that recalls"][1], alone)
    os.kill(serving.process.pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        done = launch(site_packages, command, payload, serving.env)
        assert (done.returncode, done.stdout, done.stderr) == (own.returncode, own.stdout, own.stderr)
        assert time.monotonic() - started < hook_client.DEFAULT_BUDGET
    finally:
        os.kill(serving.process.pid, signal.SIGCONT)
    _, later = payloads(indexed_sample, "taken-later")["prompt that recalls"]
    assert served_call(serving, site_packages, command, later).done.stdout == own.stdout
    assert (indexed_sample.home / "hooks.log").read_text().count("never-taken") == 1


# --------------------------------------------------------------------------- review55d: locale, another user, the lock

LOCALE_PROMPT = {"hook_event_name": "beforeSubmitPrompt", "prompt": "tests fail: No module named 'api.cache'"}


def _without_locale(env: dict[str, str]) -> dict[str, str]:
    """The environment Cursor gives its hooks where no locale is set (a GUI app on macOS, a remote over SSH)."""
    return {k: v for k, v in env.items() if k not in ("LANG", "LC_ALL", "LC_CTYPE", "LANGUAGE")}


def test_a_server_a_hook_started_without_a_locale_serves_the_next_hook(site_packages: Path, tmp_path: Path) -> None:
    """The first hook without a locale has Python coerce its LC_CTYPE to C.UTF-8 (and turn UTF-8 mode on): a server
    started with that environment was not in UTF-8 mode and declined every later hook (review55d F1)."""
    home = tmp_path / "deja"
    home.mkdir(mode=0o700)
    env = _without_locale({"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DEJA_HOME": str(home), **SWITCH})
    first = started_hook(site_packages, "hook-prompt", env)
    first.communicate(json.dumps({**LOCALE_PROMPT, "conversation_id": "first"}).encode(), timeout=60)
    try:
        wait_for("a server", lambda: (home / hook_client.SOCKET_NAME).exists(), 20)
        server = int((home / hook_client.LOCK_NAME).read_text())
        second = started_hook(site_packages, "hook-prompt", env)  # (stdin left open: a served call's child waits on it)
        try:
            wait_for("a child of the server answering the second hook", lambda: answering(server), 5)
        finally:
            second.communicate(json.dumps({**LOCALE_PROMPT, "conversation_id": "second"}).encode(), timeout=60)
        assert second.returncode == 0
    finally:
        stop_servers(home)


@pytest.mark.skipif(os.geteuid() != 0, reason="making a socket another user owns takes root")
def test_a_socket_another_user_owns_is_handed_nothing(site_packages: Path, tmp_path: Path) -> None:
    """A deja home another user can write to (one they made first in /tmp) may hold their socket: the hook hands it
    neither Cursor's streams nor its environment, and answers in its own process (review55d F2)."""
    import socket
    import threading

    home = tmp_path / "shared"
    home.mkdir()
    os.chmod(home, 0o777)
    path = home / hook_client.SOCKET_NAME
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    os.setresuid(-1, 1001, -1)  # (a listener's credentials are those it listened with: another user's)
    try:
        listener.listen(1)
    finally:
        os.setresuid(-1, 0, -1)
    listener.settimeout(20)
    got: list[bytes] = []

    def impostor() -> None:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        try:  # (the hook refuses it: it hangs up first)
            conn.sendall(hook_client.READY)
            data, ancillary, _, _ = conn.recvmsg(1 << 20, socket.CMSG_SPACE(12))
        except OSError:
            return
        finally:
            conn.close()
        for _, _, fds in ancillary:
            for i in range(0, len(fds) - 3, 4):
                os.close(int.from_bytes(fds[i : i + 4], sys.byteorder))
        got.append(data)

    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DEJA_HOME": str(home), "MY_API_KEY": "sk-live-123"}
    thread = threading.Thread(target=impostor)
    thread.start()
    try:
        hook = started_hook(site_packages, "hook-prompt", {**env, **SWITCH})
        hook.communicate(json.dumps({**LOCALE_PROMPT, "conversation_id": "x"}).encode(), timeout=60)
    finally:
        listener.close()
        thread.join(30)
    assert hook.returncode == 0
    assert not any(b"sk-live-123" in data for data in got)


def test_a_link_planted_at_the_lock_is_not_followed(site_packages: Path, tmp_path: Path) -> None:
    """The server writes its pid into its lock: through a link put in its place, into the file it names (review55d
    F3). It starts no server there; the file stays as it was."""
    home = tmp_path / "deja"
    home.mkdir(mode=0o700)
    precious = tmp_path / "precious.txt"
    precious.write_text("precious content\n")
    (home / hook_client.LOCK_NAME).symlink_to(precious)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DEJA_HOME": str(home), "LANG": "C.UTF-8", **SWITCH}
    server = subprocess.Popen(
        [sys.executable, "-I", "-S", str(launcher(site_packages)), hook_server.COMMAND],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        server.wait(20)
    finally:
        server.kill()
        server.wait()
    assert precious.read_text() == "precious content\n"
    assert not (home / hook_client.SOCKET_NAME).exists()


def test_hooks_log_says_why_the_server_did_not_answer(site_packages: Path, tmp_path: Path) -> None:
    home = tmp_path / "deja"
    home.mkdir(mode=0o700)
    env = _without_locale({"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DEJA_HOME": str(home), **SWITCH})
    server = Served(site_packages, {**env, "LC_CTYPE": "C.UTF-8"}, utf8=False)  # (another locale's: it declines)
    try:
        done = started_hook(site_packages, "hook-prompt", env)
        done.communicate(json.dumps({**LOCALE_PROMPT, "conversation_id": "c-why"}).encode(), timeout=60)
        (line,) = [line for line in (home / "hooks.log").read_text().splitlines() if " c-why: " in line]
        assert "| not served: the hook server declined |" in line, line
    finally:
        server.stop()


# --- deja search --------------------------------------------------------------------------------------------------

#: ``deja search`` as its console script starts it, deja imported from the site-packages given first; with
#: ``fastpath`` kept out of this process, so that only a server's child can answer it.
CONSOLE = "import sys; sys.path.append(sys.argv.pop(1)); {block}from deja.interfaces.entry import main; main()"
ONLY_SERVED = "sys.modules['deja.interfaces.fastpath'] = None; "
#: A Ctrl-C raises in the process, as in a shell's foreground job: a test run started in the background (a CI's
#: ``cmd &``) has SIGINT ignored, and Python keeps ignoring a signal ignored when it starts.
CTRL_C_ON = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "


def searched(
    site: Path, env: dict[str, str], *args: str, only_served: bool = True, first: str = ""
) -> subprocess.CompletedProcess[str]:
    """``deja search ARGS`` as its console script runs it (``CONSOLE``), ``first`` run before it in its process."""
    code = first + CONSOLE.format(block=ONLY_SERVED if only_served else "")
    return subprocess.run(
        [sys.executable, "-I", "-S", "-c", code, str(site), "search", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def _append_turn(sample: Sample) -> None:
    from deja.core.sample import API_CHAT
    from deja.core.writers.cursor_agent import assistant_turn, transcript_path, user_turn

    transcript = transcript_path(sample.history.cli_root, str(sample.history.projects["api"]), API_CHAT)
    with Path(transcript).open("a", encoding="utf-8") as f:
        f.write(json.dumps(user_turn("why does the zeppelin queue stall?")) + "\n")
        f.write(json.dumps(assistant_turn("A missing ack in the zeppelin consumer.")) + "\n")


def test_a_search_is_answered_by_the_server_as_in_its_own_process(
    serving: Served, site_packages: Path, indexed_sample: Sample
) -> None:
    """Nothing changed, right after a turn (the child refreshes the index first), a search that finds nothing, and
    a usage error: the same bytes and exit code as ``deja search`` in its own process."""
    alone = {**serving.env, hook_client.SWITCH: "0"}
    cases = [["pytest", "--json"], ["qqqzzznothing"], ["pytest", "--limit", "0"], ["zeppelin", "--json"]]
    for args in cases:
        if args[0] == "zeppelin":
            _append_turn(indexed_sample)
        served = searched(site_packages, serving.env, *args)
        own = run_deja("search", *args, env=alone)
        assert (served.returncode, served.stdout, served.stderr) == (own.returncode, own.stdout, own.stderr), args
    assert '"session_id"' in served.stdout and "zeppelin" in served.stdout, "the turn was found"
    assert searched(site_packages, alone, "pytest").returncode == 1, "its own process cannot search: served above"


def test_a_search_with_no_server_runs_in_its_own_process_and_starts_none(
    site_packages: Path, indexed_sample: Sample
) -> None:
    env = {**indexed_sample.env, **SWITCH}
    done = searched(site_packages, env, "pytest", only_served=False)
    assert done.returncode == 0 and "pytest" in done.stdout.lower(), done.stderr
    time.sleep(1)
    assert not socket_of(env).exists() and not (indexed_sample.home / hook_client.LOCK_NAME).exists()


def test_a_ctrl_c_to_a_served_search_is_passed_on_to_its_child(site_packages: Path, tmp_path: Path) -> None:
    """The terminal's Ctrl-C reaches the search's own process (the child runs in the server's session): it passes it
    on, and ends as the child does, with no traceback. A server of the test's own stands in, so that the child is
    a process the test knows to be at work when the Ctrl-C comes."""
    import socket
    import threading

    home = tmp_path / "deja"
    home.mkdir(mode=0o700)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(home / hook_client.SOCKET_NAME))
    listener.listen(1)
    listener.settimeout(30)
    # (130 only when interrupted, as a search ends; it says when it is in its ``try``: a Ctrl-C while Python starts
    # up ends it with 1, flake61)
    at_work = "print('at work', flush=True)\n    time.sleep(60)"
    interrupted = CTRL_C_ON + f"import sys, time\ntry:\n    {at_work}\nexcept KeyboardInterrupt:\n    sys.exit(130)"
    child = subprocess.Popen([sys.executable, "-c", interrupted], stdout=subprocess.PIPE, text=True)
    handed_on = threading.Event()

    def server() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.sendall(hook_client.READY)
            _, ancillary, _, _ = conn.recvmsg(1 << 20, socket.CMSG_SPACE(12))
            for _, _, fds in ancillary:
                for i in range(0, len(fds) - 3, 4):
                    os.close(int.from_bytes(fds[i : i + 4], sys.byteorder))
            conn.sendall(hook_client.PID + child.pid.to_bytes(4, "little"))
            handed_on.set()
            conn.sendall(hook_client.EXIT + bytes([child.wait(60)]))

    thread = threading.Thread(target=server)
    thread.start()
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "DEJA_HOME": str(home), **SWITCH}
    search = subprocess.Popen(
        [
            sys.executable,
            "-I",
            "-S",
            "-c",
            CTRL_C_ON + CONSOLE.format(block=ONLY_SERVED),
            str(site_packages),
            "search",
            "x",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        wait_for("the call handed on", handed_on.is_set, 30)
        assert child.stdout is not None and child.stdout.readline() == "at work\n"
        wait_for("the pid read", lambda: catches(search.pid, signal.SIGTSTP), 30)  # (it then passes a Ctrl-C on)
        search.send_signal(signal.SIGINT)
        out, err = search.communicate(timeout=30)
    finally:
        child.kill()
        listener.close()
        thread.join(30)
    assert (search.returncode, out, err) == (130, b"", b"")
    assert child.returncode == 130, "the child was interrupted"


def test_a_server_that_cannot_load_what_a_search_needs_declines_searches_and_serves_hooks(
    site_packages: Path, indexed_sample: Sample, tmp_path: Path
) -> None:
    """A search's modules not all found where pip's ``deja`` script finds them (one missing here, as a dependency
    of a search installed elsewhere would be): the search runs in its own process, the hooks are still served."""
    site = tmp_path / "site-packages"
    shutil.copytree(site_packages, site, symlinks=True)
    (site / "deja" / "core" / "readers" / "chat_cwds.py").unlink()
    for compiled in (site / "deja" / "core" / "readers" / "__pycache__").glob("chat_cwds.*"):
        compiled.unlink()
    env = {**indexed_sample.env, **SWITCH}
    server = Served(site, env)
    try:
        assert searched(site, env, "pytest").returncode == 1, "declined: its own process cannot search here"
        own = searched(site, env, "pytest", only_served=False)
        assert own.returncode == 0 and "pytest" in own.stdout.lower(), own.stderr
        command, payload = payloads(indexed_sample, "served-still")["prompt that recalls"]
        assert "Past turns" in json.loads(served_call(server, site, command, payload).done.stdout)["additional_context"]
    finally:
        server.stop()


def test_deja_uninstall_ends_the_server_of_the_hooks_it_took_out(
    serving: Served, site_packages: Path, indexed_sample: Sample
) -> None:
    """Not 10 minutes later, when it would have been idle long enough (review55d F7); a reinstall's first hook
    starts a new one at once."""
    assert run_deja("install", "cursor", env=serving.env).returncode == 0
    assert serving.process.poll() is None
    done = run_deja("uninstall", "cursor", env=serving.env)
    assert done.returncode == 0, done.stderr
    serving.process.wait(hook_server.CHECK_SECONDS + 5)
    assert not socket_of(serving.env).exists()
    command, payload = payloads(indexed_sample, "reinstalled")["prompt that recalls"]  # (at once: trial56 F2)
    assert launch(site_packages, command, payload, serving.env).returncode == 0
    try:
        wait_for("a new server", lambda: accepting(socket_of(serving.env)), 20)
    finally:
        stop_servers(Path(serving.env["DEJA_HOME"]))


def test_a_home_moved_by_the_config_file_ends_a_running_server_after_answering(
    site_packages: Path, indexed_sample: Sample, tmp_path: Path
) -> None:
    """The hooks look for the server where the environment names deja's home, where none is started once the config
    file moves it: one started before ``deja config set home`` went on serving, while doctor said none ran (trial56
    F1)."""
    env = {key: value for key, value in indexed_sample.env.items() if key != "DEJA_HOME"}
    env.update({**SWITCH, "XDG_CACHE_HOME": str(tmp_path / "cache")})
    (tmp_path / "cache" / "deja").mkdir(parents=True)
    shutil.copytree(indexed_sample.home / "index", tmp_path / "cache" / "deja" / "index")
    server = Served(site_packages, {**env, "DEJA_HOME": str(tmp_path / "cache" / "deja")})
    try:
        moved = tmp_path / "moved"
        assert run_deja("config", "set", "home", str(moved), env=env).returncode == 0
        command, payload = payloads(indexed_sample, "home-moved")["prompt that recalls"]
        done = served_call(server, site_packages, command, payload, env).done
        assert done.returncode == 0
        server.process.wait(10)
        assert "home-moved" in (moved / "hooks.log").read_text(), "answered with the moved home"
    finally:
        server.stop()


def test_doctor_on_windows_says_no_server_runs_there(monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows has no Unix sockets: doctor's line must not reach for them (it imported ``AF_UNIX`` there)."""
    monkeypatch.setenv(hook_client.SWITCH, "1")
    monkeypatch.setattr(sys, "platform", "win32")
    assert hook_server.state() == "none on Windows (no Unix sockets, no fork): each hook runs in a process of its own"


def _state(pid: int) -> str:
    """A process's state letter (``T``: stopped; ``Z``: ended, not reaped)."""
    return Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][:1]


class HeldTerminal:
    """A terminal whose output is stopped (XOFF), so that a served search's child waits in its first write to it
    until ``release``: a child the test knows to be at work."""

    def __init__(self) -> None:
        import pty
        import termios

        self.master, self.slave = pty.openpty()
        attributes = termios.tcgetattr(self.slave)
        attributes[0] |= termios.IXON
        termios.tcsetattr(self.slave, termios.TCSANOW, attributes)
        os.write(self.master, b"\x13")  # (XOFF)

    def search(self, site: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
        code = CTRL_C_ON + CONSOLE.format(block=ONLY_SERVED)
        process = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", code, str(site), "search", "pytest"],
            stdout=self.slave,
            stderr=subprocess.PIPE,
            env=env,
            process_group=0,  # (a job of its own, as a shell starts it: a Ctrl-Z stops no process of an orphaned group)
        )
        os.close(self.slave)
        return process

    def release(self) -> None:
        os.write(self.master, b"\x11")  # (XON)

    def close(self) -> None:
        self.release()
        os.close(self.master)


def test_a_ctrl_c_reaches_a_real_servers_child_at_work(serving: Served, site_packages: Path) -> None:
    """The server ignores SIGINT; its child takes Python's handler back, so the Ctrl-C the search passes on ends it
    as in its own process (review56b F4: no test ran that line)."""
    terminal = HeldTerminal()
    search = terminal.search(site_packages, serving.env)
    try:
        wait_for("a child at work", lambda: answering(serving.process.pid), 30)
        child = answering(serving.process.pid)[0]
        wait_for("the pid read", lambda: catches(search.pid, signal.SIGTSTP) and catches(child, signal.SIGINT), 30)
        search.send_signal(signal.SIGINT)
        time.sleep(0.5)
        terminal.release()
        _, err = search.communicate(timeout=20)
        assert (search.returncode, err) == (130, b"deja: interrupted\n")
    finally:
        search.kill()
        terminal.close()


def test_a_ctrl_z_stops_a_served_searchs_child_and_fg_lets_it_go_on(serving: Served, site_packages: Path) -> None:
    """The child runs in the server's session, out of the terminal's reach: it went on writing the results over the
    shell's prompt (review56b F1)."""
    terminal = HeldTerminal()
    search = terminal.search(site_packages, serving.env)
    try:
        wait_for("a child at work", lambda: answering(serving.process.pid), 30)
        child = answering(serving.process.pid)[0]
        wait_for("the pid read", lambda: catches(search.pid, signal.SIGTSTP), 30)
        search.send_signal(signal.SIGTSTP)  # (the terminal's Ctrl-Z)
        wait_for("both stopped", lambda: _state(search.pid) == "T" and _state(child) == "T", 10)
        search.send_signal(signal.SIGCONT)  # (the shell's fg)
        wait_for("both going on", lambda: _state(search.pid) != "T" and _state(child) != "T", 10)
        terminal.release()
        _, err = search.communicate(timeout=20)
        assert (search.returncode, err) == (0, b"")
    finally:
        search.kill()
        terminal.close()


def test_a_server_killed_during_a_search_takes_its_child_with_it(serving: Served, site_packages: Path) -> None:
    """The search says it was not answered, and no child of the dead server writes the results after it (review56b
    F2)."""
    terminal = HeldTerminal()
    search = terminal.search(site_packages, serving.env)
    try:
        wait_for("a child at work", lambda: answering(serving.process.pid), 30)
        child = answering(serving.process.pid)[0]
        serving.process.kill()
        _, err = search.communicate(timeout=20)
        assert search.returncode == 1, err
        assert err.startswith(b"deja: the hook server went away before its child answered (the child was killed)")
        wait_for("the child's end", lambda: not running(child), 10)
    finally:
        search.kill()
        terminal.close()


def test_a_search_by_another_name_of_the_same_python_is_served(
    serving: Served, site_packages: Path, indexed_sample: Sample, tmp_path: Path
) -> None:
    """``python`` where the hooks run ``python3``, or a link: the same interpreter, so the same code (review56b F3:
    the server took it for a reinstall and stepped aside)."""
    python = tmp_path / "python-by-another-name"
    python.symlink_to(sys.executable)
    code = CONSOLE.format(block=ONLY_SERVED)
    done = subprocess.run(
        [str(python), "-I", "-S", "-c", code, str(site_packages), "search", "pytest"],
        capture_output=True,
        text=True,
        env=serving.env,
        timeout=60,
    )
    assert done.returncode == 0 and "pytest" in done.stdout.lower(), done.stderr
    time.sleep(hook_server.CHECK_SECONDS + 0.5)
    assert serving.process.poll() is None and socket_of(serving.env).exists()


@pytest.mark.parametrize(
    "confined",
    [
        "import ctypes; ctypes.CDLL(None).prctl(38, 1, 0, 0, 0); ",  # (PR_SET_NO_NEW_PRIVS: what sandboxes set)
        "import os; os.nice(5); ",
    ],
    ids=["no new privileges", "a lower priority"],
)
def test_a_caller_more_confined_than_the_server_is_declined(
    serving: Served, site_packages: Path, indexed_sample: Sample, confined: str
) -> None:
    """Its child would run free of the sandbox or the priority the caller runs under (and so would a walk it
    starts, with the caller's environment): the search runs in its own process (review56b F5)."""
    status = Path("/proc/self/status").read_text()
    if "prctl" in confined and "NoNewPrivs:\t1" in status:
        pytest.skip("the tests run without new privileges already: the caller cannot be more confined that way")
    if "nice" in confined and os.nice(0) > 14:
        pytest.skip("the tests run at a niceness too high to raise by 5")
    assert searched(site_packages, serving.env, "pytest").returncode == 0, "served"
    assert searched(site_packages, serving.env, "pytest", first=confined).returncode == 1, "declined"
    own = searched(site_packages, serving.env, "pytest", only_served=False, first=confined)
    assert own.returncode == 0 and "pytest" in own.stdout.lower(), own.stderr


def test_doctor_says_a_server_of_another_locale_leaves_this_shells_searches_unserved(
    site_packages: Path, indexed_sample: Sample
) -> None:
    """A Cursor that gives its hooks no locale starts a server in UTF-8 mode, which declines every search from a
    shell with a UTF-8 locale: doctor said "runs" alone (trial57 F4)."""
    env = {**_without_locale({**indexed_sample.env, **SWITCH}), "LC_ALL": "C.UTF-8"}
    Path(env["DEJA_HOME"]).mkdir(parents=True, exist_ok=True)
    server = Served(site_packages, env, utf8=True)
    try:
        said = run_deja("doctor", env=env).stdout
        assert (
            f"hook server: runs (pid {server.process.pid}): its children answer the hooks; this shell's searches run "
            "in their own process (the server runs in Python's UTF-8 mode, this shell does not: a Cursor started "
            "without a locale starts it in that mode)"
        ) in said.replace("\n    ", " "), said
        alike = run_deja("doctor", env={**env, "PYTHONUTF8": "1"}).stdout  # (a shell in UTF-8 mode is served)
        assert f"hook server: runs (pid {server.process.pid}): its children answer the hooks\n" in alike, alike
    finally:
        server.stop()


# --------------------------------------------------------------------------- the spare, forked ahead of the next call


def test_the_next_call_is_answered_by_the_spare_the_server_forked_ahead_of_it(
    serving: Served, site_packages: Path, indexed_sample: Sample
) -> None:
    alone = {**serving.env, hook_client.SWITCH: "0"}
    command, payload = payloads(indexed_sample, "to-the-spare")["prompt that recalls"]
    wait_for("a spare", lambda: spares(serving.process.pid), 10)
    (spare,) = spares(serving.process.pid)
    wait_for("the spare's rehearsal done", lambda: idle(spare), 30)
    call = served_call(serving, site_packages, command, payload)
    assert call.child == spare, "the call went to a child forked for it"
    own = launch(
        site_packages, command, payloads(indexed_sample, "in-its-own-process")["prompt that recalls"][1], alone
    )
    assert (call.done.returncode, call.done.stdout, call.done.stderr) == (own.returncode, own.stdout, own.stderr)
    wait_for("the next spare", lambda: [each for each in spares(serving.process.pid) if each != spare], 10)


def test_a_spare_rehearsing_writes_nothing_into_deja_s_home(site_packages: Path, indexed_sample: Sample) -> None:
    """Its rehearsal reads the index as a prompt hook does, and no more: no log line, no conversation state."""
    home = Path(indexed_sample.env["DEJA_HOME"])
    before = {path: path.stat().st_mtime_ns for path in home.rglob("*") if path.is_file()}
    server = Served(site_packages, {**indexed_sample.env, **SWITCH})
    try:
        wait_for("a spare", lambda: spares(server.process.pid), 10)
        (spare,) = spares(server.process.pid)
        wait_for("its rehearsal done", lambda: idle(spare), 30)
        after = {path: path.stat().st_mtime_ns for path in home.rglob("*") if path.is_file()}
    finally:
        server.stop()
    server_files = {home / hook_client.LOCK_NAME}
    assert {path: at for path, at in after.items() if path not in server_files} == before


def test_a_spare_killed_is_not_replaced_before_a_call_and_the_call_gets_a_child_forked_for_it(
    serving: Served, site_packages: Path, indexed_sample: Sample
) -> None:
    """One that ends without a call could end so again and again: the next spare comes once a call has ended."""
    wait_for("a spare", lambda: spares(serving.process.pid), 10)
    (spare,) = spares(serving.process.pid)
    os.kill(spare, signal.SIGKILL)
    wait_for("the spare's end", lambda: not running(spare), 10)
    time.sleep(1.5)  # (a server's loop looks again within a second: ``CHECK_SECONDS``)
    assert spares(serving.process.pid) == [], "a spare forked again before any call"
    command, payload = payloads(indexed_sample, "after-the-spare")["prompt that recalls"]
    call = served_call(serving, site_packages, command, payload)
    assert call.child != spare and call.done.returncode == 0
    assert "Past turns" in json.loads(call.done.stdout)["additional_context"]
    wait_for("a spare after the call", lambda: spares(serving.process.pid), 10)


def test_a_spare_stuck_in_its_rehearsal_leaves_calls_to_children_forked_for_them_and_ends_with_the_server(
    site_packages: Path, indexed_sample: Sample
) -> None:
    """Its rehearsal reads the index (the spare of a server whose environment stops a process reading the manifest
    stops there), a call finds no spare ready and is answered all the same, and the server stepping aside kills a
    spare that would never see its socket close (a hung disk)."""
    stopping = {"DEJA_FAULT": "reader-read-manifest", "DEJA_FAULT_SIGNAL": "STOP"}
    server = Served(site_packages, {**indexed_sample.env, **SWITCH, **stopping})
    try:
        wait_for("a spare", lambda: spares(server.process.pid), 10)
        (spare,) = spares(server.process.pid)
        wait_for("the spare stopped reading the index", lambda: _state(spare) == "T", 10)
        command, payload = payloads(indexed_sample, "past-a-stuck-spare")["prompt that recalls"]
        call = served_call(server, site_packages, command, payload, {**indexed_sample.env, **SWITCH})
        assert call.child != spare and call.done.returncode == 0
        assert "Past turns" in json.loads(call.done.stdout)["additional_context"]
        socket_of(server.env).unlink()  # (what ``hook_server.stop`` does)
        wait_for("the stuck spare's end", lambda: not running(spare), 10)
        server.process.wait(10)
    finally:
        server.stop()


def test_the_spare_ends_with_the_server_that_forked_it(serving: Served, site_packages: Path) -> None:
    """A server that steps aside (``deja uninstall``), or is killed, leaves no spare waiting for a call forever."""
    wait_for("a spare", lambda: spares(serving.process.pid), 10)
    (spare,) = spares(serving.process.pid)
    socket_of(serving.env).unlink()  # (what ``hook_server.stop`` does)
    wait_for("the spare's end", lambda: not running(spare), 10)
    serving.process.wait(10)
    second = Served(site_packages, serving.env)
    try:
        wait_for("a spare of the second server", lambda: spares(second.process.pid), 10)
        (spare,) = spares(second.process.pid)
        second.process.kill()
        wait_for("its spare's end", lambda: not running(spare), 10)
    finally:
        second.stop()
