"""Hook latency and memory: each ``deja hook-*`` as a whole process, against ``python -c pass``.

    python bench/bench_hooks.py [--sizes 1000,100000] [--runs 30] [--history 100000=/path/to/hist-100000]

deja runs as a user installs it: a regular (not editable) ``pip install`` of
this checkout into a virtual environment of its own, ``bench/out/user-venv``
(made once, its deja reinstalled on every run), and each hook is the very
command that environment's ``deja install cursor-auto`` writes into Cursor's
``hooks.json`` (installed into a home of the bench's own, ``bench/out/install-home``,
and read back from there). The floor is that same environment's ``python -c pass``. An
editable install would not do: its import finder adds about 20 ms to every
start, the floor's included, and hides the ratio.

Histories come from ``bench/generate.py`` (generated once under ``bench/out/``,
git-ignored, and shared with ``bench_index.py``), or from ``--history`` (read
only); each is indexed once into ``bench/out/hooks-home-<size>``. The payloads are real Cursor payloads about
things that are in the history (a project, a question, a failing command, an
edited file, a chat), plus a prompt that matches nothing. Every spawn, the
floor's included, is timed the same way in the same run, interleaved, so
machine noise hits both alike.

Every hook reads deja's config file on every call, so the bench runs with one
in place (``bench/out/config/deja/config.toml``, the same settings the
environment gives). Payloads come in a conversation that already had its
``sessionStart``, as most events do; the ``(first event)`` row is a prompt
opening a conversation deja has not seen, which also carries the
session-start block.

With the resident hook server on (the default: ``interfaces/hook_server.py``), the warm-up round's first hook
starts one, and every timed hook is a launcher handing its call to a child of that server: a row's CPU time is then
the launcher's own (the child's is the server's, which the bench does not wait for), and its memory the
launcher's. The bench stops the server when it is done (``stop_hook_server``); ``DEJA_HOOK_SERVER=0`` runs every
hook in its own process.

Targets: every hook's median at most 2x the floor's, at 1k and at 100k
sessions, and under the Go implementation's 48 ms at 1k; peak memory flat as
the history grows.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import msgspec

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import figures  # noqa: E402
from bench_index import OUT, history_for  # noqa: E402

from deja.core.failures import SESSIONS_COUNTED, past_failures, scan_window  # noqa: E402
from deja.core.index import Index, IndexUnreadable, index_dir  # noqa: E402
from deja.core.indexer import refresh  # noqa: E402
from deja.core.keys import EDIT_TOOLS, SHELL_TOOLS  # noqa: E402
from deja.core.redaction import as_indexed, withheld  # noqa: E402
from deja.core.sample import SampleHistory  # noqa: E402
from deja.hooks.call import STARTED, HookCall  # noqa: E402
from deja.hooks.prompt import recall_for  # noqa: E402
from deja.hooks.run import OPENERS  # noqa: E402

FLOOR = "python -c pass"
REPO = HERE.parent
USER_VENV = OUT / "user-venv"
TIME = "/usr/bin/time"
MEMORY_RUNS = 3
#: Runs ``-m deja.interfaces.entry hook-…`` in-process and prints, on stderr, the RssAnon and RssFile (Linux) it holds
#: as its handler returns (the index still mapped); for anything else, as it exits.
RESIDENT_PROBE = """
import atexit, runpy, sys
from importlib import import_module
def report():
    status = dict(line.split(":", 1) for line in open("/proc/self/status"))
    print(status["RssAnon"].split()[0], status["RssFile"].split()[0], file=sys.stderr)
if sys.argv[1:2] == ["-m"]:
    from deja.hooks.run import HANDLERS
    module, function, _ = HANDLERS[sys.argv[3]]
    handlers = import_module(f"deja.hooks.{module}")
    inner = getattr(handlers, function)
    def measured(call):
        try:
            return inner(call)
        finally:
            report()
    setattr(handlers, function, measured)
    sys.argv = [sys.argv[2], *sys.argv[3:]]
    runpy.run_module(sys.argv[0], run_name="__main__")
else:
    atexit.register(report)
"""
CURSOR_VERSION = "2.4.21"


class Target(msgspec.Struct):
    """Things a history holds, for payloads that find something."""

    project: str
    question: str
    command: str
    error: str
    path: str
    chat_id: str
    transcript: str


class Spawn(msgspec.Struct):
    seconds: float
    #: User plus system CPU time: steadier than wall time when other work shares the machine.
    cpu_seconds: float
    answered: bool


def user_install(venv: Path = USER_VENV) -> Path:
    """This checkout installed as a user installs it (``pip install``, not editable) in ``venv``; its bin folder.

    The environment is made once; deja itself is reinstalled every run, so the figures are of the code as it
    stands, with any dependency it gained. pip takes the dependencies from its configured indexes.
    """
    bin_dir = venv / "bin"
    if not (bin_dir / "deja").exists():
        print(f"installing deja (not editable) into {venv} …", flush=True)
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    pip = [bin_dir / "python", "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, str(REPO)], check=True)  # and any dependency added since
    subprocess.run([*pip, "--no-deps", "--force-reinstall", str(REPO)], check=True)
    return bin_dir


def install_revision(revision: str) -> Path:
    """``revision`` of this repository (``git archive`` of it) installed as a user installs it, not editable, into
    ``bench/out/user-venv-<commit>``; its bin folder. The one way an A/B bench gets the other side: made once per
    commit (a branch name is resolved first, so one that moved on is installed afresh)."""
    commit = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--verify", f"{revision}^{{commit}}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    venv = OUT / f"user-venv-{commit[:12]}"
    if (venv / "bin" / "deja").exists():
        return venv / "bin"
    print(f"installing {revision} ({commit[:12]}, not editable) into {venv} …", flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        archive, source = Path(scratch) / "source.tar", Path(scratch) / "source"
        subprocess.run(["git", "-C", str(REPO), "archive", "-o", str(archive), commit], check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(source, filter="data")
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        subprocess.run([venv / "bin" / "python", "-m", "pip", "install", "--quiet", str(source)], check=True)
    return venv / "bin"


def install_for(other: str) -> Path:
    """The bin folder of the install an A/B bench compares with: ``other`` is a virtual environment (its folder or
    its ``bin``) deja is already installed in, else a git revision, installed by ``install_revision``."""
    folder = Path(other)
    for bin_dir in (folder / "bin", folder):
        if (bin_dir / "deja").exists():
            return bin_dir
    return install_revision(other)


#: The Cursor event each hook command answers in ``hooks.json``.
EVENTS = {
    "hook-context": "sessionStart",
    "hook-prompt": "beforeSubmitPrompt",
    "hook-tool": "preToolUse",
    "hook-tool-after": "postToolUse",
    "hook-session-end": "sessionEnd",
}


def installed_commands(bin_dir: Path) -> dict[str, list[str]]:
    """hook command -> the argv Cursor runs for it: what ``deja install cursor-auto`` writes into ``hooks.json``,
    installed into a home of the bench's own from that environment's ``deja``, as a user runs it."""
    home = OUT / "install-home"
    home.mkdir(parents=True, exist_ok=True)  # (deja names a home folder that is not there rather than make it)
    env = {
        **os.environ,
        "HOME": str(home),
        "DEJA_HOME": str(home / ".deja"),
        "PATH": os.pathsep.join([str(bin_dir), os.environ.get("PATH", os.defpath)]),
    }
    for name in ("CURSOR_CONFIG_DIR", "CLAUDE_CONFIG_DIR"):
        env.pop(name, None)
    subprocess.run([bin_dir / "deja", "install", "cursor-auto"], env=env, check=True, capture_output=True)
    hooks = json.loads((home / ".cursor" / "hooks.json").read_text(encoding="utf-8"))["hooks"]
    return {command: _program(hooks[event][0]["command"]) for command, event in EVENTS.items()}


def _program(command: str) -> list[str]:
    """The argv of a hook's command, without the shell's `` || true`` a launcher's ends in (``FAIL_OPEN`` in
    ``installers/entries.py``; not imported: the deja measured against may predate it), which only the shell runs."""
    words = shlex.split(command)
    return words[:-2] if words[-2:] == ["||", "true"] else words


def history_at(size: int, given: dict[int, Path]) -> SampleHistory:
    """The history of ``size`` sessions: the folder ``--history`` names (never written to), else a generated one."""
    root = given.get(size)
    if root is None:
        return history_for(size)
    return SampleHistory(ide_root=root / "cursor" / "User", cli_root=root / "cursor-agent", projects={})


def stop_hook_server(home: Path) -> None:
    """Have the hook server of ``home`` step aside (its socket removed: it ends within a second), so that the bench
    leaves no process behind."""
    (home / "hook-server.sock").unlink(missing_ok=True)


def index_home(size: int, given: dict[int, Path] | None = None) -> Path:
    """The history of ``size`` sessions indexed once, for the hooks to read: the index ``bench_index`` built of the
    generated history (``bench/out/home-N``) when there is one, so a run of every bench builds 100k once."""
    history = history_at(size, given or {})
    shared = OUT / f"home-{size}"
    built = size not in (given or {}) and (index_dir(shared) / "manifest.msgpack").exists()
    home = shared if built else OUT / f"hooks-home-{size}"
    os.environ.update(history.environment(home))
    try:  # (an index the rules now in force did not redact is one the hooks stay silent on: the rows timed nothing)
        stale = withheld(Index.open(home).manifest.redaction)
    except IndexUnreadable:  # none yet, or one of another format
        stale = "no index of this format"
    if stale:
        print(f"indexing {size} sessions into {home} ({stale}) …", flush=True)
        started = time.perf_counter()
        refresh(home)
        print(f"  {time.perf_counter() - started:.0f} s", flush=True)
    return home


def find_target(index: Index) -> Target:
    """A cursor-agent chat with a failed Shell call and an edit, whose first question the prompt hook answers at this
    size and whose failure came up in another session, so that each hook row measures a hook that answers (a
    recalling row that recalled nothing measured a prompt that matches nothing: at 100k the first such chat's
    question did not pass the gate; and the failure hook's row measured "no other session hit this error" there):
    the payloads ask about it."""
    for segment, _, meta in index.sessions():
        if meta.source != "cursor-cli" or not meta.origin.endswith(".jsonl") or not meta.project_dir:
            continue
        calls = [c for m in segment.messages(meta) for c in m.tool_calls]
        failed = next((c for c in calls if c.name in SHELL_TOOLS and c.exit_code and c.result), None)
        edit = next((c for c in calls if c.name in EDIT_TOOLS and isinstance(c.args.get("path"), str)), None)
        if failed is None or edit is None or not _failed_before(index, failed.result, meta.id):
            continue
        if not recall_for(index, meta.asked, "safe", set(), set(), here=meta.project_dir).lines:
            continue
        return Target(
            project=meta.project_dir,
            question=meta.asked,
            command=failed.args["command"],
            error=failed.result,
            path=edit.args["path"],
            chat_id=meta.id,
            transcript=meta.origin,
        )
    raise SystemExit("no cursor-agent chat with a failed command and an edit whose question recalls in this history")


def _failed_before(index: Index, error: str, chat_id: str) -> bool:
    """Whether another session failed with ``error`` as the failure hook looks it up."""
    window = as_indexed(scan_window(error))
    return any(rows for _, rows in past_failures(index, window, SESSIONS_COUNTED, {chat_id}))


def payloads(target: Target) -> dict[str, tuple[str, dict[str, Any]]]:
    """label -> (command, payload); ``conversation_id`` is set per run so dedupe never hides an answer."""
    base = {
        "cursor_version": CURSOR_VERSION,
        "workspace_roots": [target.project],
        "model": "claude-4.5-sonnet",
        "user_email": None,
    }
    tool = {**base, "cwd": "", "tool_use_id": "toolu_01"}
    return {
        "hook-context": ("hook-context", {**base, "hook_event_name": "sessionStart", "is_background_agent": False}),
        "hook-prompt": ("hook-prompt", {**base, "hook_event_name": "beforeSubmitPrompt", "prompt": target.question}),
        "hook-prompt (first event)": (
            "hook-prompt",
            {**base, "hook_event_name": "beforeSubmitPrompt", "prompt": target.question},
        ),
        "hook-prompt (no match)": (
            "hook-prompt",
            {**base, "hook_event_name": "beforeSubmitPrompt", "prompt": "write a haiku about autumn leaves in Lisbon"},
        ),
        "hook-tool Shell": (
            "hook-tool",
            {**tool, "hook_event_name": "preToolUse", "tool_name": "Shell", "tool_input": {"command": target.command}},
        ),
        "hook-tool Write": (
            "hook-tool",
            {**tool, "hook_event_name": "preToolUse", "tool_name": "Write", "tool_input": {"path": target.path}},
        ),
        "hook-tool Task": (
            "hook-tool",
            {
                **tool,
                "hook_event_name": "preToolUse",
                "tool_name": "Task",
                "tool_input": {"description": "look into it", "prompt": target.question},
            },
        ),
        "hook-tool-after": (
            "hook-tool-after",
            {
                **tool,
                "hook_event_name": "postToolUse",
                "tool_name": "Shell",
                "tool_input": {"command": target.command},
                "tool_output": json.dumps({"output": target.error, "exitCode": 1}),
            },
        ),
        "hook-session-end": (
            "hook-session-end",
            {
                **base,
                "hook_event_name": "sessionEnd",
                "transcript_path": target.transcript,
                "reason": "completed",
                "conversation_id": target.chat_id,
            },
        ),
    }


def in_conversation(label: str, command: str, payload: dict[str, Any], conversation: str) -> bytes:
    """The payload in a conversation of its own (that had its session start, unless the row is a first event), but
    for the chat a session end ingests: as every hook bench sends it, so that dedupe never hides an answer."""
    if "hook-session-end" not in label:
        # cursor-agent names a main conversation's transcript in its tool events (a subagent's: none)
        transcript = f"/bench/agent-transcripts/{conversation}/{conversation}.jsonl"
        payload = {**payload, "conversation_id": conversation, "transcript_path": transcript}
        if command in OPENERS and "first event" not in label:
            HookCall(payload, "").remember([STARTED])  # as if its sessionStart had come
    return json.dumps(payload).encode()


def spawn(argv: list[str], stdin: bytes, env: dict[str, str], check: bool = False) -> Spawn:
    """Run one process to its end: wall time, its own CPU time, and whether it printed anything (``check``: it
    must succeed)."""
    before = children_cpu()
    started = time.perf_counter()
    done = subprocess.run(argv, input=stdin, capture_output=True, env=env, check=check)
    seconds = time.perf_counter() - started
    return Spawn(seconds=seconds, cpu_seconds=children_cpu() - before, answered=bool(done.stdout.strip()))


def process_ms(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall ms, CPU ms) of one whole process with no input, which must succeed: the A/B CLI benches' one timing.
    A ``deja search`` runs in its own process unless ``env`` says otherwise (``DEJA_HOOK_SERVER``): handed to a hook
    server, its work is the server's child's CPU, not its own (``bench_search_served.py`` measures that)."""
    done = spawn(argv, b"", {"DEJA_HOOK_SERVER": "0", **env}, check=True)
    return 1000 * done.seconds, 1000 * done.cpu_seconds


def children_cpu() -> float:
    """CPU seconds of every child this bench has waited for (spawns run one at a time, so a delta is one spawn's)."""
    try:
        import resource
    except ImportError:  # Windows
        return float("nan")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def peak_mb(argv: list[str], stdin: bytes, env: dict[str, str]) -> float:
    """The process's peak RSS, from GNU time (a child's rusage seen from here would count this forked bench too)."""
    done = subprocess.run([TIME, "-f", "%M", *argv], input=stdin, capture_output=True, env=env)
    return int(done.stderr.decode().strip().splitlines()[-1]) / 1024


def resident(python: Path, args: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, float]:
    """(anonymous, file-backed) resident MB once the hook has answered: mapped index pages are the second.

    ``args`` are what follows ``python``: ``-m deja.interfaces.entry hook-…`` for a hook, ``-c pass`` for the floor.
    """
    done = subprocess.run([python, "-c", RESIDENT_PROBE, *args], input=stdin, capture_output=True, env=env)
    anon, file = done.stderr.decode().split()[-2:]
    return int(anon) / 1024, int(file) / 1024


def imported(python: Path, args: list[str], stdin: bytes, env: dict[str, str]) -> dict[str, int]:
    """Module -> the microseconds its own import took (its submodules' apart), from ``python -X importtime``."""
    done = subprocess.run([python, "-X", "importtime", *args], input=stdin, capture_output=True, env=env)
    found = {}
    for line in done.stderr.decode(errors="replace").splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            own, _, name = line.removeprefix("import time:").split("|")
            found[name.strip()] = int(own)
    return found


def module_group(name: str) -> str:
    """deja's modules by name, the standard library's by package (``re._parser`` is ``re``)."""
    return name if name.startswith("deja.") else name.split(".")[0]


def import_table(
    python: Path, cases: dict[str, tuple[list[str], Callable[[], bytes]]], env: dict[str, str], runs: int = 9
) -> str:
    """What the hooks import beyond ``python -c pass``, as the README's table: module, ms (the least of ``runs``
    runs, submodules included), and the hooks that import it. ``cases``: label -> (argv after python, its stdin)."""
    floor = set(imported(python, ["-c", "pass"], b"", env))
    best: dict[str, int] = {}
    users: dict[str, set[str]] = {}
    for label, (args, stdin) in cases.items():
        for _ in range(runs):
            per_group: dict[str, int] = {}
            for name, micros in imported(python, args, stdin(), env).items():
                if name not in floor and not name.startswith("_"):
                    per_group[module_group(name)] = per_group.get(module_group(name), 0) + micros
            for group, micros in per_group.items():
                best[group] = min(best.get(group, micros), micros)
                users.setdefault(group, set()).add(label.split()[0])
    rows = ["| module | ms | imported by |", "|---|---:|---|"]
    for group in sorted(best, key=lambda g: (-best[g], g)):
        hooks = "every hook" if len(users[group]) == len({*(u for us in users.values() for u in us)}) else ""
        rows.append(f"| `{group}` | {best[group] / 1000:.1f} | {hooks or ', '.join(sorted(users[group]))} |")
    return "\n".join(rows)


class Row(msgspec.Struct):
    median_ms: float
    #: Median CPU time (user + system) of the process.
    cpu_ms: float
    p95_ms: float
    peak_mb: float
    anon_mb: float
    file_mb: float
    answered: bool


def with_config_file(home: Path) -> dict[str, str]:
    """The environment, plus a config file holding the same settings, which every hook then reads."""
    folder = OUT / "config"
    (folder / "deja").mkdir(parents=True, exist_ok=True)
    (folder / "deja" / "config.toml").write_text(f'home = "{home}"\nrecall = "safe"\ntrace = false\n', encoding="utf-8")
    env = {**os.environ, "DEJA_HOME": str(home), "XDG_CONFIG_HOME": str(folder)}
    env.pop("DEJA_RECALL", None)
    return env


def bench_size(size: int, runs: int, bin_dir: Path, given: dict[int, Path], imports: bool = False) -> dict[str, Row]:
    home = index_home(size, given)
    target = find_target(Index.open(home))
    env = with_config_file(home)
    python = bin_dir / "python"
    cases: dict[str, tuple[list[str], dict[str, Any]]] = {FLOOR: ([str(python), "-c", "pass"], {})}
    installed = installed_commands(bin_dir)
    for label, (command, payload) in payloads(target).items():
        cases[label] = (installed[command], payload)
    conversations = iter(range(1 << 30))
    token = os.urandom(4).hex()

    def stdin(label: str) -> bytes:
        argv, payload = cases[label]
        return in_conversation(label, argv[-1], payload, f"bench-{token}-{next(conversations)}") if payload else b""

    timed: dict[str, list[Spawn]] = {label: [] for label in cases}
    for run in range(runs + 1):  # the first round warms the page cache and is not counted
        for label, (argv, _) in cases.items():
            result = spawn(argv, stdin(label), env)
            if run:
                timed[label].append(result)
    stop_hook_server(home)
    if imports:
        # What follows ``python``: the launcher and its flags, or a console script (an older ``hooks.json`` shape).
        hooks = {
            label: (argv[1:] if argv[0] == str(python) else argv, partial(stdin, label))
            for label, (argv, _) in cases.items()
            if label != FLOOR
        }
        print(f"\nWhat the hooks import beyond `python -c pass` at {size} sessions (python -X importtime):\n")
        print(import_table(python, hooks, env))
    table = {}
    for label, (argv, _) in cases.items():
        seconds = [s.seconds for s in timed[label]]
        peak = (
            max(peak_mb(argv, stdin(label), env) for _ in range(MEMORY_RUNS)) if Path(TIME).exists() else float("nan")
        )
        probe = ["-m", "deja.interfaces.entry", argv[-1]] if argv[-1].startswith("hook-") else argv[1:]
        anon, file = (
            resident(python, probe, stdin(label), env) if Path("/proc/self/status").exists() else (float("nan"),) * 2
        )
        table[label] = Row(
            1000 * statistics.median(seconds),
            1000 * statistics.median(s.cpu_seconds for s in timed[label]),
            1000 * figures.percentile(seconds, 0.95),
            peak,
            anon,
            file,
            all(s.answered for s in timed[label]),
        )
    return table


def _figures(rows: dict[str, Row]) -> dict[str, object]:
    """One size's figures for ``run_all.py``: every row, and each hook's median over the floor's, the slowest's too."""
    floor = rows[FLOOR].median_ms
    x_pass = {label: row.median_ms / floor for label, row in rows.items() if label != FLOOR}
    return {
        "pass_ms": floor,
        "hook_worst_x_pass": max(x_pass.values()),
        "hook_prompt_x_pass": x_pass.get("hook-prompt", float("nan")),
        "x_pass": x_pass,
        "rows": {label: msgspec.structs.asdict(row) for label, row in rows.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,100000")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument(
        "--history", action="append", default=[], metavar="SIZE=DIR", help="a generated history to read, not write"
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    given = {int(size): Path(folder) for size, folder in (item.split("=", 1) for item in args.history)}
    bin_dir = user_install()
    table = {size: bench_size(size, args.runs, bin_dir, given, imports=size == sizes[0]) for size in sizes}
    labels = list(table[sizes[0]])
    for size in sizes:
        floor, floor_cpu = table[size][FLOOR].median_ms, table[size][FLOOR].cpu_ms
        print(f"\n{size} sessions, {args.runs} runs each (targets: x floor at most 2; under 48 ms at 1k)")
        print(
            f"{'':26}{'median ms':>10}{'p95 ms':>9}{'x floor':>9}{'cpu ms':>9}{'cpu x':>7}{'peak MB':>9}{'anon MB':>9}"
            f"{'mapped':>9}  answered"
        )
        for label in labels:
            r = table[size][label]
            print(
                f"{label:26}{r.median_ms:10.1f}{r.p95_ms:9.1f}{r.median_ms / floor:9.2f}{r.cpu_ms:9.1f}"
                f"{r.cpu_ms / floor_cpu:7.2f}{r.peak_mb:9.1f}{r.anon_mb:9.1f}{r.file_mb:9.1f}  {'yes' if r.answered else 'no'}"
            )
    figures.write("bench_hooks", {size: _figures(rows) for size, rows in table.items()})
    if len(sizes) > 1:
        small, large = table[sizes[0]], table[sizes[-1]]
        print(f"\n{sizes[-1]} vs {sizes[0]} sessions{'':5}{'median':>8}{'peak':>8}{'anon':>8}")
        for label in labels:
            a, b = small[label], large[label]
            print(f"{label:30}{b.median_ms / a.median_ms:8.2f}{b.peak_mb / a.peak_mb:8.2f}{b.anon_mb / a.anon_mb:8.2f}")


if __name__ == "__main__":
    main()
