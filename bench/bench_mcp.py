"""How fast deja's MCP server answers: in-server tool latency and start-up time.

For each size it builds a synthetic index (sessions of 20 messages in the
words of ``generate.py``, written straight through ``SegmentWriter`` in
segments the size the indexer makes), then measures:

- ``search``: the tool function called in-process (index freshness check,
  search, 4 KiB fitting, text and JSON forms), p50/p95 over many queries; and
  the same call through the SDK's ``call_tool`` (argument validation, worker
  thread), still without the stdio transport;
- ``recent`` and ``show``: the tool functions, p50;
- start-up: ``deja mcp`` spawned until its first ``tools/list`` answer, paired
  with a process that only imports the SDK modules the server uses and with
  ``python -c pass``; deja's own share is the start-up less the SDK's import,
  and ``python -X importtime``, each part in turn in one thread, lists deja's own
  modules loaded before it and those its warm-up thread loads beside it.

Figures go to ``bench/out/bench_mcp.json`` for ``run_all.py``'s table.

    python bench/bench_mcp.py [--sessions 1000,100000] [--workdir DIR]
    python bench/bench_mcp.py --history 100000

``--workdir`` keeps the built indexes there and reuses them on the next run.

``--history N`` instead points the server at the generated history of N
sessions (``bench/out/hist-N``) and an index of it (``bench/out/home-N``), so
that the freshness work sees a real Cursor folder. It spawns fresh ``deja mcp``
servers and times their first ``search``, sent at several pauses after the
tools/list answer and without any tools/list (right after initialize),
``FIRST_CALL_ROUNDS`` times each, with each spawn's time to its last
handshake answer; then calls to servers in use, through stdio, after pauses
of 0 to 3 s, in a burst of 300 and when a full walk is due and while it runs
(``--only served``: nothing is written into the history; a call with a project or
since filter is counted again under its filters, ``any call with project``); then,
in one process, calls back to back, after the check's one-second window,
after a turn was appended to the newest chat, and once a full walk is due and
while it runs (detached, never inside a call; ``--only later``, which needs a
history of its own). Every sample is printed with min, median and max, and
the machine's load. ``--only startup`` instead times the start-up to the
first tools/list answer there (paired, as for the synthetic indexes).

Every server spawned (and the SDK's import and ``python -c pass`` paired with
it) runs this checkout installed as a user installs it, not editable
(``bench_index.user_bin``, in ``bench/out/user-venv``).

``--baseline REV`` (with ``--history``) spawns another revision's (or venv's)
server in turn with this checkout's, both installed as a user installs them
(``bench_hooks.install_for``, ``bench_hooks.user_install``).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from contextlib import suppress
from datetime import UTC, datetime, timedelta
from itertools import repeat
from pathlib import Path

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent))

# One synthetic vocabulary for every benchmark: generate.py's topics, conversations and queries.
import figures  # noqa: E402
from bench_hooks import children_cpu, install_for  # noqa: E402
from generate import (
    query_for,  # noqa: E402
    random_conversation,  # noqa: E402
    random_topic,  # noqa: E402
    random_word,  # noqa: E402
)

from deja.core.bookkeeping import State  # noqa: E402
from deja.core.index import FORMAT_VERSION, Manifest, SegmentRef, SegmentWriter, SessionMeta, index_dir, write_manifest  # noqa: E402
from deja.core.model import Message, ToolCall  # noqa: E402
from deja.core.redaction import mode as redaction_mode  # noqa: E402
from deja.core.sample import SampleHistory  # noqa: E402

MESSAGES_PER_SESSION = 20
SESSIONS_PER_SEGMENT = 20_000  # ~420k docs: about what the indexer puts in one segment
SEARCH_QUERIES = 300
STARTUPS = 9
NOW = datetime.now(UTC)

# --------------------------------------------------------------------------- synthetic history


def project_dirs(sessions: int) -> list[str]:
    """As many projects as ``generate.py`` makes for a history of this size."""
    rng = random.Random(1)
    return [f"/work/{random_word(rng, 2)}-{i}" for i in range(max(3, sessions // 200))]


def synthetic_session(number: int, rng: random.Random, projects: list[str]) -> tuple[SessionMeta, list[Message]]:
    """Session ``number`` (0 is the newest, each older by about 7 minutes), in ``generate.py``'s words."""
    subject = random_topic(rng)
    start = NOW - timedelta(minutes=7 * number + MESSAGES_PER_SESSION)
    messages = [
        Message(
            role=role,
            text=text,
            timestamp=start + timedelta(seconds=30 * i),
            tool_calls=[
                ToolCall(name=name, args=args, result=result, exit_code=code) for name, args, result, code in calls
            ],
        )
        for i, (role, text, calls) in enumerate(random_conversation(rng, subject, MESSAGES_PER_SESSION))
    ]
    project_dir = rng.choice(projects)
    meta = SessionMeta(
        id=f"{number:08d}-{rng.getrandbits(32):08x}-4000-8000-{rng.getrandbits(48):012x}",
        source="cursor-ide" if number % 10 < 4 else "cursor-cli",
        project=Path(project_dir).name,
        project_dir=project_dir,
        title=" ".join(subject.words[:2]).title(),
        started=messages[0].timestamp,
        updated=messages[-1].timestamp,
    )
    return meta, messages


def build_segment(directory: Path, first: int, count: int, projects: list[str]) -> SegmentRef:
    rng = random.Random(first)
    writer = SegmentWriter(directory)
    for number in range(first, first + count):
        writer.add(*synthetic_session(number, rng, projects))
    return writer.finish()


def build_index(home: Path, sessions: int) -> None:
    """A synthetic index of ``sessions`` sessions with the bookkeeping a refresh expects (it then changes nothing)."""
    directory = index_dir(home)
    directory.mkdir(parents=True)
    starts = range(0, sessions, SESSIONS_PER_SEGMENT)
    counts = [min(SESSIONS_PER_SEGMENT, sessions - start) for start in starts]
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        refs = list(pool.map(build_segment, repeat(directory), starts, counts, repeat(project_dirs(sessions))))
    (directory / "state-1.msgpack").write_bytes(msgspec.msgpack.encode(State()))
    write_manifest(
        directory,
        Manifest(
            version=FORMAT_VERSION,
            generation=1,
            built_at=time.time(),
            segments=refs,
            state="state-1.msgpack",
            redaction=redaction_mode(),  # another mode would make the first refresh drop every segment
        ),
    )


# --------------------------------------------------------------------------- measuring


def queries(count: int, sessions: int) -> list[dict[str, object]]:
    """``generate.query_for`` queries; a fifth of them for one project, a tenth for the last 30 days."""
    rng = random.Random(7)
    projects = [Path(p).name for p in project_dirs(sessions)]
    out: list[dict[str, object]] = []
    for _ in range(count):
        arguments: dict[str, object] = {"query": query_for(rng)}
        if rng.random() < 0.2:
            arguments["project"] = rng.choice(projects)
        if rng.random() < 0.1:
            arguments["since"] = "30d"
        out.append(arguments)
    return out


def timed(call: Callable[[], object], runs: int) -> list[float]:
    """Milliseconds per call, one warm-up call first."""
    call()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def measure_tools(home: Path, sessions: int) -> dict[str, float]:
    from deja.interfaces.mcp_server import Tools, build_server

    tools = Tools(home)
    asked = queries(SEARCH_QUERIES, sessions)
    it = iter(asked * 2)
    search_ms = timed(lambda: tools.search(**next(it)), SEARCH_QUERIES)  # type: ignore[arg-type]

    server = build_server(Tools(home))

    async def via_sdk() -> list[float]:
        samples = []
        for arguments in asked:
            started = time.perf_counter()
            result = await server.call_tool("search", arguments)
            samples.append((time.perf_counter() - started) * 1000)
            assert not result.is_error
        return samples

    sdk_ms = asyncio.run(via_sdk())
    ids = [
        hit["session_id"] for a in asked[:50] for hit in (tools.search(**a).structured_content or {}).get("hits", [])
    ]  # type: ignore[arg-type]
    ids_iter = iter(ids * 2)
    show_ms = timed(lambda: tools.show(next(ids_iter)), min(50, len(ids) - 1))
    recent_ms = timed(lambda: tools.recent(), 50)
    from deja.interfaces.mcp_refresh import check

    started = time.perf_counter()
    check(str(home))  # what the server's refresher process does when asked, here with nothing changed
    refresh_ms = (time.perf_counter() - started) * 1000
    return {
        "search p50": statistics.median(search_ms),
        "search p95": figures.percentile(search_ms, 0.95),
        "via SDK p50": statistics.median(sdk_ms),
        "via SDK p95": figures.percentile(sdk_ms, 0.95),
        "show p50": statistics.median(show_ms),
        "recent p50": statistics.median(recent_ms),
        "refresh no-op": refresh_ms,
    }


#: The SDK modules deja's server imports (mcp_server.py, mcp_stdio.py), and rich, which the SDK's ``MCPServer``
#: constructor imports for its log handler: their import alone is the SDK's share of start-up.
SDK_IMPORT = (
    "import anyio, mcp.server.mcpserver, mcp.server.mcpserver.exceptions, mcp.server.stdio, mcp.shared.message,"
    " mcp_types, pydantic, rich.console, rich.logging"
)
#: What a client sends before it can call a tool: initialize, initialized, tools/list (answered with id 2).
HANDSHAKE = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},'
    b'"clientInfo":{"name":"bench","version":"1"}}}\n'
    b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
    b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'
)


def _until_answer(argv: list[str], env: dict[str, str], feed: bytes, answer: bytes) -> tuple[float, float]:
    """Wall and CPU milliseconds from spawning ``argv`` to the first line holding ``answer``; the process is then killed.

    Every process timed here is killed at its answer, so none is charged for its interpreter's shutdown.
    """
    cpu = children_cpu()
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write(feed)
    child.stdin.flush()
    while (line := child.stdout.readline()) and answer not in line.replace(b" ", b""):
        pass
    wall = (time.perf_counter() - started) * 1000
    child.kill()
    child.wait()
    assert answer in line.replace(b" ", b""), f"{argv[-1]} stopped before answering: {line!r}"
    return wall, (children_cpu() - cpu) * 1000


def _until_tools(env: dict[str, str], python: str) -> tuple[float, float]:
    """``deja mcp`` (of ``python``'s environment) from its spawn to its ``tools/list`` answer."""
    return _until_answer([python, "-m", "deja.interfaces.entry", "mcp"], env, HANDSHAKE, b'"id":2')


def _until_ready(code: str, env: dict[str, str], python: str) -> tuple[float, float]:
    """``python -c CODE`` from its spawn to the line it prints once ``code`` has run."""
    ready = f"{code}\nprint('ready', flush=True)\nimport sys; sys.stdin.read()"
    return _until_answer([python, "-c", ready], env, b"", b"ready")


def user_python() -> str:
    """The interpreter of deja installed as a user installs it (not editable, ``bench_index.user_bin``, made once a
    run): every server spawned here is that deja, as issue 15 asks; the editable install of the bench's own
    interpreter pays its import finder on every module and is not what a user runs."""
    from bench_index import user_bin

    return str(user_bin() / "python")


def measure_startup(env: dict[str, str], pythons: dict[str, str] | None = None) -> dict[str, float]:
    """``deja mcp`` to its first ``tools/list`` answer, paired with the SDK's import alone and ``python -c pass``.

    The three are spawned in turn, ``STARTUPS`` times, so machine noise hits them alike; deja's own share is the
    start-up less the SDK's import (both include the interpreter's start). Medians, wall and CPU. ``pythons`` names
    the interpreter of each deja whose server is spawned (the first one's also imports the SDK and runs ``pass``);
    each one's figures are keyed with its name in front.
    """
    pythons = pythons or {"": user_python()}
    first = next(iter(pythons.values()))
    runs: dict[str, list[tuple[float, float]]] = {}
    for _ in range(STARTUPS + 1):  # the first round warms the page cache and is not counted
        for name, python in pythons.items():
            runs.setdefault(f"{name}server", []).append(_until_tools(env, python))
        runs.setdefault("sdk", []).append(_until_ready(SDK_IMPORT, env, first))
        runs.setdefault("pass", []).append(_until_ready("pass", env, first))
    medians = {}
    for name, samples in runs.items():
        counted = samples[1:]
        medians[f"{name}_ms"] = statistics.median(wall for wall, _ in counted)
        medians[f"{name}_cpu_ms"] = statistics.median(cpu for _, cpu in counted)
    found = {
        "sdk_import_ms": medians["sdk_ms"],
        "sdk_import_cpu_ms": medians["sdk_cpu_ms"],
        "pass_ms": medians["pass_ms"],
    }
    for name in pythons:
        found |= {
            f"{name}startup_ms": medians[f"{name}server_ms"],
            f"{name}deja_startup_ms": medians[f"{name}server_ms"] - medians["sdk_ms"],
            f"{name}startup_cpu_ms": medians[f"{name}server_cpu_ms"],
            f"{name}deja_startup_cpu_ms": medians[f"{name}server_cpu_ms"] - medians["sdk_cpu_ms"],
        }
    return found


#: In one process: the SDK's import, then deja's server module, then the server built (tools registered), in ms.
STARTUP_PARTS = f"""
import time
started = time.perf_counter()
{SDK_IMPORT}
sdk = time.perf_counter()
from deja.interfaces.mcp_server import build_server
deja = time.perf_counter()
build_server()
built = time.perf_counter()
print((sdk - started) * 1000, (deja - sdk) * 1000, (built - deja) * 1000)
"""


def startup_parts(env: dict[str, str]) -> dict[str, float]:
    """Where start-up goes, timed inside one process (medians): the SDK's import, deja's imports, building the server.

    Less noisy than the difference of two whole processes on a busy machine; building the server is the SDK
    making its schemas for deja's five tools.
    """
    samples = []
    for _ in range(STARTUPS):
        done = subprocess.run([user_python(), "-c", STARTUP_PARTS], env=env, capture_output=True, check=True)
        samples.append([float(part) for part in done.stdout.split()])
    sdk, deja, built = (statistics.median(column) for column in zip(*samples, strict=True))
    return {"in_process_sdk_import_ms": sdk, "deja_import_ms": deja, "build_server_ms": built}


#: What ``deja mcp`` imports before its tools/list answer, then what its warm-up thread loads beside the handshake
#: (the engine: index, search, views), each part in turn in this one thread: ``python -X importtime`` keeps one
#: running sum for every thread, so a server importing in two threads at once shows self times that mix and go
#: negative (big49 F2: +568 ms, then -1,466 ms). The marker line on stderr splits the two parts.
IMPORTS_IN_ONE_THREAD = f"""
import sys
import deja.interfaces.entry
from deja.interfaces.mcp_refresh import Refresher
{SDK_IMPORT}
from deja.interfaces.mcp_server import Tools, build_server
tools = Tools()
build_server(tools)
sys.stderr.write("{{marker}}\\n")
sys.stderr.flush()
tools.live._warm_search()
"""
ENGINE_MARKER = "deja-bench: the warm-up's engine"


#: Processes ``deja_imports`` runs: each module's least self time of them (``-X importtime`` times the wall).
IMPORT_ROUNDS = 5


def deja_imports(env: dict[str, str]) -> dict[str, list[tuple[str, float]]]:
    """``python -X importtime`` of what ``deja mcp`` imports, one part after the other in one thread
    (``IMPORTS_IN_ONE_THREAD``): deja's own modules, slowest first, each at its least self time (ms) of
    ``IMPORT_ROUNDS`` processes, for the part before the tools/list answer (``server``) and for the engine its
    warm-up loads beside the handshake (``engine``)."""
    code = IMPORTS_IN_ONE_THREAD.format(marker=ENGINE_MARKER)
    parts: dict[str, dict[str, float]] = {"server": {}, "engine": {}}
    for _ in range(IMPORT_ROUNDS):
        done = subprocess.run([user_python(), "-X", "importtime", "-c", code], env=env, capture_output=True, check=True)
        part = "server"
        for line in done.stderr.decode().splitlines():
            if line == ENGINE_MARKER:
                part = "engine"
                continue
            fields = line.split("|")
            if len(fields) == 3 and fields[2].strip().startswith(("deja", "__editable__")):
                module, ms = fields[2].strip(), int(fields[0].split(":")[1]) / 1000
                parts[part][module] = min(ms, parts[part].get(module, ms))
    return {name: sorted(found.items(), key=lambda item: -item[1]) for name, found in parts.items()}


#: The first search of a fresh server, sent this many seconds after its tools/list answer (None: no tools/list asked,
#: the search sent right after the answer to initialize).
FIRST_CALL_PAUSES = (0.0, 0.05, 0.1, 0.2, 0.3, 1.0, None)
#: Fresh servers started per pause, the pauses taking turns so that the machine's load hits them alike.
FIRST_CALL_ROUNDS = 5


def cpu_clock(pid: int) -> int | None:
    """The clock of process ``pid``'s CPU time (all its threads, ended ones too), or None where libc has none."""
    import ctypes

    clock = ctypes.c_int()
    with suppress(AttributeError, OSError):
        if ctypes.CDLL(None).clock_getcpuclockid(pid, ctypes.byref(clock)) == 0:
            return clock.value
    return None


def cpu_ms(clock: int | None) -> float:
    return time.clock_gettime(clock) * 1000 if clock is not None else math.nan


class Served:
    """``deja mcp`` (of ``python``'s environment) over pipes as a client drives it: spawned and initialised (with the
    tool list, or with ``tools_list`` false only initialize and initialized), then asked to search."""

    def __init__(self, python: str, env: dict[str, str], tools_list: bool = True) -> None:
        handshake = HANDSHAKE if tools_list else HANDSHAKE.rsplit(b"{", 1)[0]
        spawned = time.perf_counter()
        self.process = subprocess.Popen(
            [python, "-m", "deja.interfaces.entry", "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
        )
        self.next_id = 3
        try:
            self._send(handshake)
            self._answer(2 if tools_list else 1)
        except BaseException:
            self.close()
            raise
        #: ms from the spawn to the last handshake answer.
        self.handshake_ms = (time.perf_counter() - spawned) * 1000
        self._clock = cpu_clock(self.process.pid)

    def _send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def _answer(self, request_id: int) -> bytes:
        assert self.process.stdout is not None
        wanted = b'"id":%d' % request_id
        while (line := self.process.stdout.readline()) and wanted not in line.replace(b" ", b""):
            pass
        assert wanted in line.replace(b" ", b""), f"the server stopped before answering: {line!r}"
        return line

    def search(self, arguments: dict[str, object]) -> tuple[float, float]:
        """One ``search`` call: ms to its answer, and the CPU ms the server used meanwhile (all its threads), which
        the machine's load does not stretch."""
        request_id, self.next_id = self.next_id, self.next_id + 1
        call = {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "tools/call",
            "params": {"name": "search", "arguments": arguments},
        }
        cpu, started = cpu_ms(self._clock), time.perf_counter()
        self._send(msgspec.json.encode(call) + b"\n")
        line = self._answer(request_id)
        elapsed, used = (time.perf_counter() - started) * 1000, cpu_ms(self._clock) - cpu
        assert b'"isError":false' in line.replace(b" ", b"") or b'"isError"' not in line, line[:300]
        assert b'"hits"' in line, line[:300]  # an answer from the index, not "still indexing"
        return elapsed, used

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


def first_search_ms(python: str, env: dict[str, str], pause: float | None, query: str) -> tuple[float, float, float]:
    """A fresh server's first ``search``, sent ``pause`` s after the tools/list answer (or right after the initialize
    answer): ms from the spawn to the last handshake answer, ms to the search's answer, and the server's CPU ms
    meanwhile (its warm-up's too, where it overlaps)."""
    server = Served(python, env, tools_list=pause is not None)
    try:
        time.sleep(pause or 0.0)
        return server.handshake_ms, *server.search({"query": query})
    finally:
        server.close()


def pause_name(pause: float | None) -> str:
    return f"first call {pause:.2f} s after tools/list" if pause is not None else "first call, no tools/list"


def measure_first_calls(size: int, home: Path, env: dict[str, str], pythons: dict[str, str]) -> dict[str, list[float]]:
    """The first ``search`` of a fresh ``deja mcp`` against a real history, ``FIRST_CALL_ROUNDS`` times after each
    pause in ``FIRST_CALL_PAUSES``, with the time from each spawn to its last handshake answer.

    A full walk is made first and its start recorded again before each spawn, so that no walk runs beside these
    calls (``measure_arrivals`` times a call that finds one due). ``pythons`` names the interpreter of each deja
    whose server is timed (this checkout's, and with ``--baseline`` another install's), spawned in turn.
    """
    from deja.core.indexer import glance, refresh

    refresh(home)
    texts = iter(str(q["query"]) for q in queries(FIRST_CALL_ROUNDS * len(FIRST_CALL_PAUSES), size))
    samples: dict[str, list[float]] = {}
    for _ in range(FIRST_CALL_ROUNDS):
        for pause in FIRST_CALL_PAUSES:
            query = next(texts)
            for which, python in pythons.items():
                (index_dir(home) / glance.WALK_STAMP).touch()
                handshake_ms, search_ms, used = first_search_ms(python, env, pause, query)
                samples.setdefault(f"{which}{pause_name(pause)}", []).append(search_ms)
                samples.setdefault(f"  {which}{pause_name(pause)}, server CPU", []).append(used)
                handshake = "spawn to tools/list answer" if pause is not None else "spawn to initialize answer"
                samples.setdefault(f"{which}{handshake}", []).append(handshake_ms)
    return samples


#: Calls to servers that have answered others, through stdio, and the pause in seconds before each: back to back,
#: within the one-second check window, just past it (the call that asks the refresher for a check), after a quiet
#: spell; ``SERVED_ROUNDS`` rounds, the kinds taking turns.
SERVED_PAUSES = {
    "right after a call": 0.0,
    "0.3 s after a call": 0.3,
    "1.1 s after a call": 1.1,
    "3 s after a call": 3.0,
}
SERVED_ROUNDS = 6
#: Then this many calls back to back to each server: a full collection of the garbage collector's, which once
#: scanned the SDK's and the engine's objects (about 70 ms of CPU at 100k sessions), lands on one in a few hundred.
SERVED_BURST = 300
#: Then this many times a full walk is made due: the call that finds it due (the refresher starts it, detached) and
#: three calls half a second apart while it runs.
SERVED_WALKS = 3


def make_walk_due(home: Path) -> None:
    """The index's last full walk made as old as ``WALK_SECONDS``, and none under way: the next check starts one."""
    from deja.core.indexer import freshness, glance

    directory = index_dir(home)
    record = freshness.load(directory)
    assert record is not None
    freshness.save(directory, msgspec.structs.replace(record, walked_at=record.walked_at - freshness.WALK_SECONDS))
    (directory / glance.WALK_STAMP).unlink(missing_ok=True)


def measure_served(size: int, home: Path, env: dict[str, str], pythons: dict[str, str]) -> dict[str, list[float]]:
    """``search`` calls to long-running servers through stdio, as an agent makes them, after each pause in
    ``SERVED_PAUSES``, then ``SERVED_BURST`` back to back, then when a full walk is due and while it runs
    (``SERVED_WALKS`` times): what a call pays, besides its search, for the SDK's transport, the garbage collector,
    the refresher's checks, a walk in another process and the machine. One server per deja in ``pythons``, taking turns (each one's pause is at
    least the given one), with ``queries``' filters (a project for a fifth, the last 30 days for a tenth); nothing
    is written into the history, so it may be a read-only one."""
    from deja.core.indexer import glance, refresh

    refresh(home)
    (index_dir(home) / glance.WALK_STAMP).touch()  # no walk starts beside these calls until one is made due
    servers = {which: Served(python, env) for which, python in pythons.items()}
    asked = iter(
        queries((SERVED_ROUNDS * len(SERVED_PAUSES) + 1 + SERVED_BURST + 4 * SERVED_WALKS) * len(servers), size)
    )
    samples: dict[str, list[float]] = {}
    try:
        time.sleep(2.0)  # every warm-up and refresher start is over: what follows is a server in use
        for server in servers.values():
            server.search(next(asked))
        for _ in range(SERVED_ROUNDS):
            for name, pause in SERVED_PAUSES.items():
                for which, server in servers.items():
                    time.sleep(pause)
                    _served_call(server, next(asked), which, name, samples)
        for _ in range(SERVED_BURST):
            for which, server in servers.items():
                _served_call(server, next(asked), which, f"in a burst of {SERVED_BURST}", samples)
        for _ in range(SERVED_WALKS):
            make_walk_due(home)
            for name, pause in (("when a full walk is due", 1.1), *(("while that walk runs", 0.5),) * 3):
                for which, server in servers.items():
                    time.sleep(pause)
                    _served_call(server, next(asked), which, name, samples)
            refresh(home)  # the walk done (or made here), so that the next round finds one due afresh
    finally:
        for server in servers.values():
            server.close()
    return samples


def _served_call(
    server: Served, arguments: dict[str, object], which: str, name: str, samples: dict[str, list[float]]
) -> None:
    """One call's wall time under ``which`` and ``name``, and the server's CPU time meanwhile; both again under the
    name of its filters (``filtered``) when it has any: a filtered search reads more postings, and checks them."""
    wall, cpu = server.search(arguments)
    kind = filtered(arguments)
    for label in (f"{which}{name}", *([f"{which}{kind}"] if kind else [])):
        samples.setdefault(label, []).append(wall)
        samples.setdefault(f"  {label}, server CPU", []).append(cpu)


def filtered(arguments: dict[str, object]) -> str:
    """What a ``search`` call filters on, as a sample's name (``any call with project``, ``… with since``,
    ``… with project and since``); empty for a plain one."""
    given = [name for name in ("project", "since") if arguments.get(name)]
    return f"any call with {' and '.join(given)}" if given else ""


#: How many calls of each kind ``measure_arrivals`` times.
ARRIVAL_ROUNDS = {"back to back": 30, "after the check window": 8, "after a turn was appended": 4, "walk due": 3}


def measure_arrivals(size: int, home: Path) -> dict[str, list[float]]:
    """``search`` tool calls (ms) after each kind of pause, in one process, against a real history and its index:
    back to back, after the check window, after a turn was appended (and the call after it, which reads the turn),
    once a full walk is due (the walk starts detached) and while that walk runs; each also as the calling thread's
    CPU time, which the machine's load does not stretch."""
    from bench_index import _append_turn, _newest_transcript

    from deja.core.indexer import refresh
    from deja.interfaces.mcp_server import REFRESH_SECONDS, Tools

    assert (index_dir(home) / "manifest.msgpack").exists(), (
        f"build it first: python bench/bench_index.py --sizes {size}"
    )
    refresh(home)  # a full walk now, so that none is due until asked for below
    tools = Tools(home)
    asked = iter(queries(200, size))
    samples: dict[str, list[float]] = {}

    def call(name: str, after: float = 0.0) -> None:
        time.sleep(after)
        started, cpu = time.perf_counter(), time.thread_time()
        tools.search(**next(asked))  # type: ignore[arg-type]
        samples.setdefault(name, []).append((time.perf_counter() - started) * 1000)
        samples.setdefault(f"  {name}, CPU", []).append((time.thread_time() - cpu) * 1000)

    call("first call in-process, no warm-up")
    for _ in range(ARRIVAL_ROUNDS["back to back"]):
        call("right after a call")
    for _ in range(ARRIVAL_ROUNDS["after the check window"]):
        call("after the check window", REFRESH_SECONDS + 0.1)
    for _ in range(ARRIVAL_ROUNDS["after a turn was appended"]):
        _append_turn(_newest_transcript(home))
        call("after a turn was appended", REFRESH_SECONDS + 0.1)
        call("the call after that", 0.5)  # the refresh that call started has read the turn by now
    for _ in range(ARRIVAL_ROUNDS["walk due"]):
        make_walk_due(home)
        call("when a full walk is due", REFRESH_SECONDS + 0.1)
        for _ in range(3):  # the detached walk has started by now
            call("while that walk runs", 0.5)
        refresh(home)  # the walk done (or made here), so that the next round finds one due afresh
    return samples


def print_distribution(size: int, samples: dict[str, list[float]]) -> None:
    if not samples:
        return
    print(
        f"{size} sessions, MCP search (ms): {'n':>3} {'min':>7} {'median':>7} {'max':>7}  every sample (of many, the slowest)"
    )
    for name, values in samples.items():
        shown = values if len(values) <= 40 else sorted(values)[-8:]  # of many, the slowest
        every = ("" if shown is values else "slowest: ") + " ".join(f"{v:.0f}" for v in shown)
        print(
            f"  {name:<40} {len(values):>3} {min(values):7.1f} {statistics.median(values):7.1f} {max(values):7.1f}  {every}"
        )


def measure_history(size: int, only: str | None, home: Path | None, source: Path | None, baseline: str | None) -> None:
    """``--history``: the first calls of fresh servers, then calls in one process, printed with the machine's load.

    ``home`` and ``source`` point at another index and the history it was built from (``source`` holding
    ``cursor/User`` and ``cursor-agent``, as ``generate.py`` lays it out); the later calls append turns to it.
    With ``baseline`` (a git revision or a virtual environment, ``bench_hooks.install_for``), the first calls are
    of this checkout and of the baseline each installed as a user installs them (not editable), in turn.
    """
    from bench_index import OUT, history_for

    home = home or OUT / f"home-{size}"
    history = (
        history_for(size) if source is None else SampleHistory(source / "cursor" / "User", source / "cursor-agent", {})
    )
    os.environ.update(history.environment(home))
    load_before = os.getloadavg()
    pythons = {"": user_python()} if only != "later" else {}
    if baseline is not None and only != "later":
        pythons["baseline: "] = str(install_for(baseline) / "python")
    if only == "startup":
        for name, value in measure_startup(dict(os.environ), pythons).items():
            print(f"start-up to the first tools/list answer, medians of {STARTUPS} paired runs: {name} {value:.0f}")
        print(f"load average (1, 5, 15 min) after: {os.getloadavg()}")
        return
    first = measure_first_calls(size, home, dict(os.environ), pythons) if only in (None, "first") else {}
    print_distribution(size, first)
    served = measure_served(size, home, dict(os.environ), pythons) if only in (None, "served") else {}
    print_distribution(size, served)
    arrivals = measure_arrivals(size, home) if only in (None, "later") else {}
    print_distribution(size, arrivals)
    load_after = os.getloadavg()
    print(f"load average (1, 5, 15 min) before {load_before}, after {load_after}")
    samples = {**first, **served, **arrivals}
    figures.write(
        "bench_mcp_history",
        {
            size: {
                **{f"{name.strip()} median ms": statistics.median(v) for name, v in samples.items()},
                **{f"{name.strip()} max ms": max(v) for name, v in samples.items()},
                "slowest_ms": max((max(v) for name, v in samples.items() if is_arrival(name)), default=0.0),
                "slowest_cpu_ms": max(
                    (max(v) for name, v in samples.items() if is_arrival(name, cpu=True)), default=0.0
                ),
                "load": load_after[0],
            }
        },
    )


def is_arrival(name: str, cpu: bool = False) -> bool:
    """Whether samples ``name`` are this checkout's search calls as a server gets them (wall time, or with ``cpu`` its
    CPU time): not the baseline's, not a spawn's handshake, not the in-process call made without the warm-up a
    server always makes first."""
    name = name.strip()
    mine = not name.startswith(("baseline", "spawn")) and "no warm-up" not in name
    return mine and name.endswith("CPU") == cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", default="1000,100000", help="comma-separated index sizes (default 1000,100000)")
    parser.add_argument("--workdir", type=Path, help="keep the built indexes here and reuse them")
    parser.add_argument("--history", type=int, help="time searches against this generated history (see above)")
    parser.add_argument("--home", type=Path, help="with --history: this index instead of bench/out/home-N")
    parser.add_argument("--source", type=Path, help="with --history: the history --home was built from")
    parser.add_argument(
        "--only",
        choices=["first", "served", "later", "startup"],
        help="with --history: only the first calls, the calls to servers in use through stdio, the later calls "
        "in-process, or the start-up to tools/list (paired)",
    )
    parser.add_argument(
        "--baseline",
        help="with --history: a git revision or a venv of another deja, whose server takes turns (both not editable)",
    )
    args = parser.parse_args()
    if args.history:
        measure_history(args.history, args.only, args.home, args.source, args.baseline)
        return
    sizes = [int(s) for s in args.sessions.split(",")]
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="deja-bench-mcp-"))
    empty = workdir / "no-cursor"
    empty.mkdir(parents=True, exist_ok=True)
    # Point deja at an empty Cursor so the refresh inside each call sees only the synthetic index.
    cursor_env = {"DEJA_CURSOR_ROOT": str(empty), "DEJA_CURSOR_CLI_ROOT": str(empty), "HOME": str(empty)}
    os.environ.update(cursor_env)

    rows = []
    try:
        for size in sizes:
            home = workdir / f"sessions-{size}"
            build_s = 0.0
            if not (index_dir(home) / "manifest.msgpack").exists():
                shutil.rmtree(home, ignore_errors=True)
                started = time.perf_counter()
                build_index(home, size)
                build_s = time.perf_counter() - started
            size_mb = sum(p.stat().st_size for p in index_dir(home).rglob("*") if p.is_file()) / 1e6
            tools = measure_tools(home, size)
            env = {**os.environ, "DEJA_HOME": str(home)}
            startup = {**measure_startup(env), **startup_parts(env)}
            rows.append((size, build_s, size_mb, tools, startup))
            print(f"{size} sessions measured", file=sys.stderr)
        imports = deja_imports({**os.environ, "DEJA_HOME": str(workdir / f"sessions-{sizes[-1]}")})
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)

    names = list(rows[0][3])
    print(f"{'sessions':>9} {'messages':>9} {'build s':>8} {'index MB':>9} " + " ".join(f"{n:>13}" for n in names))
    for size, build_s, size_mb, tools, _ in rows:
        built = f"{build_s:8.1f}" if build_s else f"{'reused':>8}"
        print(
            f"{size:>9} {size * MESSAGES_PER_SESSION:>9} {built} {size_mb:>9.0f} "
            + " ".join(f"{tools[n]:>10.2f} ms" for n in names)
        )
    print_startup(rows, imports)
    figures.write(
        "bench_mcp",
        {
            size: {"search_p50_ms": tools["search p50"], "via_sdk_p50_ms": tools["via SDK p50"], **startup}
            for size, _, _, tools, startup in rows
        },
    )


def print_startup(
    rows: list[tuple[int, float, float, dict[str, float], dict[str, float]]], imports: dict[str, list]
) -> None:
    """Start-up to the first tools/list answer, the SDK's import and deja's own share, and deja's slowest imports."""
    print(f"\nstart-up to the first tools/list answer, medians of {STARTUPS} paired runs (ms; CPU in brackets)")
    print(f"{'sessions':>9} {'start-up':>16} {'SDK import':>11} {'deja own':>16} {'python -c pass':>15}")
    for size, _, _, _, up in rows:
        print(
            f"{size:>9} {up['startup_ms']:>7.0f} ({up['startup_cpu_ms']:>5.0f}) {up['sdk_import_ms']:>11.0f}"
            f" {up['deja_startup_ms']:>7.0f} ({up['deja_startup_cpu_ms']:>5.0f}) {up['pass_ms']:>15.0f}"
            f"   deja own target <= 100 ms"
        )
    print(
        "inside one process (medians, ms): SDK import, deja's imports, server built (the SDK's schemas for deja's tools)"
    )
    for size, _, _, _, up in rows:
        print(
            f"{size:>9} {up['in_process_sdk_import_ms']:>10.0f} {up['deja_import_ms']:>10.1f} {up['build_server_ms']:>10.1f}"
        )
    said = {
        "server": "deja's own imports before the answer",
        "engine": "deja's engine, which the warm-up thread loads beside the handshake",
    }
    for part, found in imports.items():
        total = sum(ms for _, ms in found)
        print(f"{said[part]} (python -X importtime in one thread, least self times of {IMPORT_ROUNDS}): {total:.1f} ms")
        for module, ms in found[:8]:
            print(f"  {ms:7.1f} ms  {module}")


if __name__ == "__main__":
    main()
