"""How fast deja's MCP server answers: in-server tool latency and start-up time.

For each size it builds a synthetic index (sessions of 20 messages in the
words of ``generate.py``, written straight through ``SegmentWriter`` in
segments the size the indexer makes), then measures:

- ``search``: the tool function called in-process (index freshness check,
  search, 4 KiB fitting, text and JSON forms), p50/p95 over many queries; and
  the same call through the SDK's ``call_tool`` (argument validation, worker
  thread), still without the stdio transport;
- ``recent`` and ``show``: the tool functions, p50;
- start-up: ``deja mcp`` spawned until its ``initialize`` answer arrives.

    python bench/bench_mcp.py [--sessions 1000,100000] [--workdir DIR]
    python bench/bench_mcp.py --history 100000

``--workdir`` keeps the built indexes there and reuses them on the next run.

``--history N`` instead points the server at the generated history of N
sessions and the index ``bench/bench_index.py`` built of it (``bench/out/``),
so that the freshness check before each call sees a real Cursor folder, and
times one ``search`` arriving after various pauses: right after the previous
call, after the check's one-second window, right after a turn was appended
to the newest chat, and once a full walk is due (which runs in a detached
process, never inside the call).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime, timedelta
from itertools import repeat
from pathlib import Path

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent))

# One synthetic vocabulary for every benchmark: generate.py's topics, conversations and queries.
from generate import (
    query_for,  # noqa: E402
    random_conversation,  # noqa: E402
    random_topic,  # noqa: E402
    random_word,  # noqa: E402
)

from deja.core.bookkeeping import State  # noqa: E402
from deja.core.index import FORMAT_VERSION, Manifest, SegmentRef, SegmentWriter, SessionMeta, index_dir, write_manifest  # noqa: E402
from deja.core.model import Message, ToolCall  # noqa: E402

MESSAGES_PER_SESSION = 20
SESSIONS_PER_SEGMENT = 20_000  # ~420k docs: about what the indexer puts in one segment
SEARCH_QUERIES = 300
STARTUPS = 5
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
        Manifest(version=FORMAT_VERSION, generation=1, built_at=time.time(), segments=refs, state="state-1.msgpack"),
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


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def measure_tools(home: Path, sessions: int) -> dict[str, float]:
    from deja.interfaces.mcp_server import Tools, build_server

    tools = Tools(home)
    asked = queries(SEARCH_QUERIES, sessions)
    it = iter(asked * 2)
    search_ms = timed(lambda: tools.search(**next(it)), SEARCH_QUERIES)  # type: ignore[arg-type]

    server = build_server(home)

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
    started = time.perf_counter()
    tools.live._refresh()
    refresh_ms = (time.perf_counter() - started) * 1000
    return {
        "search p50": statistics.median(search_ms),
        "search p95": percentile(search_ms, 0.95),
        "via SDK p50": statistics.median(sdk_ms),
        "via SDK p95": percentile(sdk_ms, 0.95),
        "show p50": statistics.median(show_ms),
        "recent p50": statistics.median(recent_ms),
        "refresh no-op": refresh_ms,
    }


def measure_startup(env: dict[str, str]) -> float:
    """Median milliseconds from spawning ``deja mcp`` to its ``initialize`` answer."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "deja.interfaces.entry", "mcp"], env=env)

    async def once() -> float:
        started = time.perf_counter()
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return (time.perf_counter() - started) * 1000

    return statistics.median(asyncio.run(once()) for _ in range(STARTUPS))


def measure_arrivals(size: int) -> dict[str, float]:
    """One ``search`` tool call (ms) after each kind of pause, against a real history and its index."""
    from bench_index import OUT, _append_turn, _newest_transcript, history_for

    from deja.core.indexer import freshness, refresh
    from deja.interfaces.mcp_server import REFRESH_SECONDS, Tools

    home = OUT / f"home-{size}"
    os.environ.update(history_for(size).environment(home))
    assert (index_dir(home) / "manifest.msgpack").exists(), (
        f"build it first: python bench/bench_index.py --sizes {size}"
    )
    refresh(home)  # a full walk now, so that none is due until asked for below
    tools = Tools(home)
    asked = iter(queries(20, size))

    def call() -> float:
        started = time.perf_counter()
        tools.search(**next(asked))  # type: ignore[arg-type]
        return (time.perf_counter() - started) * 1000

    figures = {"first call (opens the index)": call(), "right after a call": call()}
    time.sleep(REFRESH_SECONDS + 0.1)
    figures["after the check window"] = call()
    _append_turn(_newest_transcript(home))
    time.sleep(REFRESH_SECONDS + 0.1)
    figures["after a turn was appended"] = call()
    directory = index_dir(home)
    record = freshness.load(directory)
    assert record is not None
    due = msgspec.structs.replace(record, walked_at=record.walked_at - freshness.WALK_SECONDS)
    (directory / freshness.RECORD).write_bytes(msgspec.msgpack.encode(due))
    time.sleep(REFRESH_SECONDS + 0.1)
    figures["when a full walk is due"] = call()
    time.sleep(REFRESH_SECONDS + 0.1)  # the detached walk has started by now
    figures["while that walk runs"] = call()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", default="1000,100000", help="comma-separated index sizes (default 1000,100000)")
    parser.add_argument("--workdir", type=Path, help="keep the built indexes here and reuse them")
    parser.add_argument("--history", type=int, help="time searches against this generated history (see above)")
    args = parser.parse_args()
    if args.history:
        for name, ms in measure_arrivals(args.history).items():
            print(f"{args.history} sessions, MCP search {name:>30}: {ms:8.1f} ms")
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
            figures = measure_tools(home, size)
            figures["start-up p50"] = measure_startup({**cursor_env, "DEJA_HOME": str(home)})
            rows.append((size, build_s, size_mb, figures))
            print(f"{size} sessions measured", file=sys.stderr)
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)

    names = list(rows[0][3])
    print(f"{'sessions':>9} {'messages':>9} {'build s':>8} {'index MB':>9} " + " ".join(f"{n:>13}" for n in names))
    for size, build_s, size_mb, figures in rows:
        built = f"{build_s:8.1f}" if build_s else f"{'reused':>8}"
        print(
            f"{size:>9} {size * MESSAGES_PER_SESSION:>9} {built} {size_mb:>9.0f} "
            + " ".join(f"{figures[n]:>10.2f} ms" for n in names)
        )


if __name__ == "__main__":
    main()
