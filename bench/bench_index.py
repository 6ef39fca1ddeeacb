"""Index benchmarks: full build, incremental refresh and search latency at several history sizes.

    python bench/bench_index.py [--sizes 1000,10000,100000] [--keep-index]
    python bench/bench_index.py --sizes 100000 --search-only

Histories are generated once under ``bench/out/`` (git-ignored) by
``bench/generate.py`` and reused. Figures are ratios and latencies measured in
this one run; nothing here is a timed assertion. ``--keep-index`` reuses an
index a previous run built under ``bench/out/home-N`` instead of building it
again (the build figures then print as 0). ``--search-only`` times only
in-process search on the index already built under ``bench/out/home-N`` (and
its size), reading the history and the index and writing neither.

Freshness (README, "Freshness") is measured end to end as a user meets it:
``deja search`` and ``deja index`` as whole processes of deja installed as a user
installs it (not editable: ``bench_hooks.user_install``, whose ``bench/out/user-venv``
it shares), as ratios to that environment's ``python -c pass`` measured in the
same run, interleaved, when nothing changed and right after one turn is appended
to the most recently written chat.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import time
from functools import cache
from pathlib import Path

import msgspec
import orjson

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
sys.path.insert(0, str(HERE))

import figures  # noqa: E402
from generate import SOURCE_NOTE, companions, generate, query_for, source_bytes  # noqa: E402

from deja.core.index import Index, index_dir  # noqa: E402
from deja.core.indexer import freshness, glance, refresh  # noqa: E402
from deja.core.sample import SampleHistory  # noqa: E402
from deja.core.search import search  # noqa: E402
from deja.core.writers.cursor_agent import assistant_turn, user_turn  # noqa: E402


def history_for(size: int) -> SampleHistory:
    root = OUT / f"hist-{size}"
    marker = root / ".complete"
    history = SampleHistory(ide_root=root / "cursor" / "User", cli_root=root / "cursor-agent", projects={})
    if not marker.exists():
        shutil.rmtree(root, ignore_errors=True)
        print(f"generating {size} sessions under {root} …", flush=True)
        history = generate(root, size, progress=size >= 10000)
        marker.write_text("ok")
    return history


def _grow_one_chat(history: SampleHistory) -> tuple[Path, str]:
    """Append one turn to a transcript that has a chat store beside it."""
    chats = sorted((history.cli_root / "chats").glob("*/*"))
    chat_id = chats[len(chats) // 2].name
    transcript = next((history.cli_root / "projects").glob(f"*/agent-transcripts/{chat_id}/{chat_id}.jsonl"))
    _append_turn(transcript)
    return transcript, chat_id


#: The transcripts this process made files of its own (``_append_turn``): only those are ever written.
_OWN: set[Path] = set()


def _append_turn(transcript: Path) -> None:
    """One more user and assistant turn at the end of ``transcript``, made a file of this process's own first.

    Whatever the history is (a hard-linked copy, a copy of symbolic links, the shared history itself), the file
    found at the path is copied and the copy renamed over the path before the first append: a byte is never
    written through to a file another history holds. (Only the ``nlink > 1`` case was covered before: a transcript
    reached through a symbolic link was appended to where it pointed.)
    """
    if transcript not in _OWN:
        own = transcript.with_name(transcript.name + ".own")
        shutil.copy2(transcript, own)  # (follows a symbolic link: the copy is of the file's bytes)
        os.replace(own, transcript)
        _OWN.add(transcript)
    with transcript.open("ab") as f:
        f.write(orjson.dumps(user_turn("one more question about the flaky retry in the uploader")) + b"\n")
        f.write(orjson.dumps(assistant_turn("The retry now backs off exponentially.")) + b"\n")


def _newest_transcript(home: Path) -> Path:
    """The transcript of the most recently written chat the freshness record checks one by one."""
    record = freshness.load(index_dir(home))
    assert record is not None, "no freshness record: build the index first"
    newest = max((state for state in record.hot.values() if state.transcript), key=lambda s: s.sig.mtime_ns)
    return Path(newest.transcript)


def _median(values: list[float]) -> float:
    return figures.percentile(values, 0.5)


@cache
def user_bin() -> Path:
    """The bin folder of deja installed as a user installs it (not editable): an editable install's import finder
    adds about 20 ms to every start, ``python -c pass`` included, and hides the ratio."""
    from bench_hooks import user_install  # bench_hooks imports this module

    return user_install()


def freshness_figures(home: Path, texts: list[str], runs: int = 7) -> dict:
    """Whole-process ``deja search`` and ``deja index`` against ``python -c pass``, paired in this run.

    Nothing changed: ``bench_cli_search.unchanged_search``, the one measure of it (interleaved rounds, the CPU
    ratio). Right after one appended turn: the same command, timed the same way (``process_ms``), each round
    beside a ``python -c pass``.
    """
    from bench_cli_search import search_argv, unchanged_search  # (bench_hooks, which they import, imports this module)
    from bench_hooks import process_ms

    env = {**os.environ}
    bin_dir = user_bin()
    deja, python = [str(bin_dir / "deja")], str(bin_dir / "python")
    passes, grown, indexed, in_process, checks = [], [], [], [], []
    transcript = _newest_transcript(home)
    refresh(home)  # a full walk now, and none falls due (and runs, inline or in the background) while measured:
    quiet = unchanged_search(home, [bin_dir], max(runs, 15))[str(bin_dir.parent)]
    for i in range(runs):
        _walked_just_now(index_dir(home))  # on a loaded machine, or at 100k, the runs below take over a minute
        passes.append(process_ms([python, "-c", "pass"], env))
        _append_turn(transcript)
        grown.append(process_ms(search_argv(bin_dir, texts[i]), env))
        _append_turn(transcript)
        indexed.append(process_ms([*deja, "index", "--json"], env))
        _append_turn(transcript)
        started, started_cpu = time.perf_counter(), time.process_time()
        refresh(home, lock_timeout=60, verify=True)  # what `deja index` runs, in-process
        in_process.append((1000 * (time.perf_counter() - started), 1000 * (time.process_time() - started_cpu)))
        started = time.perf_counter()
        glance.check(index_dir(home))
        checks.append(1000 * (time.perf_counter() - started))
    _append_turn(transcript)
    directory = index_dir(home)
    record = freshness.load(directory)
    assert record is not None
    due = msgspec.structs.replace(record, walked_at=record.walked_at - freshness.WALK_SECONDS)
    freshness.save(directory, due)
    walking = process_ms([*deja, "index", "--json"], env)[0]
    pass_cpu = _median([cpu for _, cpu in passes])
    return {
        "pass_ms": _median([wall for wall, _ in passes]),
        "cli_search_p50_ms": quiet["wall_ms"],
        "cli_search_cpu_ms": quiet["cpu_ms"],
        "cli_search_x_pass": quiet["cpu_x_pass"],
        "cli_search_after_turn_ms": _median([wall for wall, _ in grown]),
        "cli_search_after_turn_x_pass": _median([cpu for _, cpu in grown]) / pass_cpu,
        "index_after_turn_ms": _median([wall for wall, _ in indexed]),
        "index_after_turn_cpu_ms": _median([cpu for _, cpu in indexed]),
        "index_after_turn_x_pass": _median([cpu for _, cpu in indexed]) / pass_cpu,
        "index_after_turn_in_process_ms": _median([wall for wall, _ in in_process]),
        "index_after_turn_in_process_cpu_ms": _median([cpu for _, cpu in in_process]),
        "freshness_check_ms": _median(checks),
        "cli_index_walk_due_ms": walking,
    }


def _walked_just_now(directory: Path) -> None:
    """Date the last full walk now: the figures after a turn are of the refresh a read makes within a minute of
    one (a walk that falls due is measured on its own, ``cli_index_walk_due_ms``)."""
    record = freshness.load(directory)
    assert record is not None
    freshness.save(directory, msgspec.structs.replace(record, walked_at=time.time()))


def bench_size(size: int, queries: int = 300, keep_index: bool = False) -> dict:
    history = history_for(size)
    home = OUT / f"home-{size}"
    os.environ.update(history.environment(home))
    src = source_bytes(history)
    already = companions(history)

    if keep_index and (index_dir(home) / "manifest.msgpack").exists():
        refreshed = refresh(home)
        build = {"sessions": refreshed.sessions, "messages": refreshed.messages}
        build |= {"wall_s": 0.0, "cpu_s": 0.0, "peak_rss_mb": 0.0}  # nothing was built
    else:
        shutil.rmtree(home, ignore_errors=True)
        build = _build_in_child(home)
    index_bytes = Index.open(home).size_bytes()

    started = time.perf_counter()
    refresh(home)
    nothing_changed = time.perf_counter() - started

    _, chat_id = _grow_one_chat(history)
    started = time.perf_counter()
    grown = refresh(home, only_chat_ids={chat_id})
    targeted = time.perf_counter() - started
    assert grown.updated == 1, grown

    _grow_one_chat(history)
    started = time.perf_counter()
    refresh(home)
    stat_pass = time.perf_counter() - started

    rng = random.Random(7)
    texts = [query_for(rng) for _ in range(queries)]
    latency = search_figures(home, texts)
    fresh = freshness_figures(home, texts)

    return {
        "sessions": build["sessions"],
        "messages": build["messages"],
        "source_mb": src / 1e6,
        "build_s": build["wall_s"],
        "build_cpu_s": build["cpu_s"],
        "build_peak_rss_mb": build["peak_rss_mb"],
        "mb_per_s": src / 1e6 / build["wall_s"] if build["wall_s"] else 0.0,
        "mb_per_cpu_s": src / 1e6 / build["cpu_s"] if build["cpu_s"] else 0.0,
        "build_load": build.get("load", 0.0),
        "index_share": index_bytes / src,
        "refresh_unchanged_ms": 1000 * nothing_changed,
        "refresh_one_turn_targeted_ms": 1000 * targeted,
        "refresh_one_turn_stat_pass_ms": 1000 * stat_pass,
        **latency,
        **fresh,
        "companions_created": len(companions(history) - already),
    }


def search_figures(home: Path, texts: list[str]) -> dict[str, float]:
    """In-process ``search`` of each of ``texts`` on the index under ``home``: wall and CPU p50/p95 (ms).

    CPU time is this thread's: on a loaded machine the wall time is mostly waiting for a core.
    """
    index = Index.open(home)
    walls, cpus = [], []
    for text in texts:
        started, started_cpu = time.perf_counter(), time.thread_time()
        search(index, text, limit=10)
        walls.append(time.perf_counter() - started)
        cpus.append(time.thread_time() - started_cpu)
    return {
        "search_p50_ms": 1000 * figures.percentile(walls, 0.5),
        "search_p95_ms": 1000 * figures.percentile(walls, 0.95),
        "search_cpu_p50_ms": 1000 * figures.percentile(cpus, 0.5),
        "search_cpu_p95_ms": 1000 * figures.percentile(cpus, 0.95),
    }


def search_only(size: int, queries: int = 300) -> dict[str, float]:
    """``search_figures`` on the index a previous run built of the history of ``size`` sessions, and its size."""
    home = OUT / f"home-{size}"
    os.environ.update(history_for(size).environment(home))
    assert (index_dir(home) / "manifest.msgpack").exists(), (
        f"build it first: python bench/bench_index.py --sizes {size}"
    )
    rng = random.Random(7)
    texts = [query_for(rng) for _ in range(queries)]
    return {"index_mb": Index.open(home).size_bytes() / 1e6, **search_figures(home, texts)}


#: A full build in its own process, so its peak memory is its own: wall time is taken outside, CPU and peak inside
#: (``RUSAGE_CHILDREN`` too, for any worker processes the build starts).
BUILD_CHILD = """
import resource, sys
import orjson
from pathlib import Path
from deja.core.indexer import refresh
built = refresh(Path(sys.argv[1]), full=True)
me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(orjson.dumps({
    "sessions": built.sessions,
    "messages": built.messages,
    "cpu_s": me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime,
    "cpu_parent_s": me.ru_utime + me.ru_stime,
    "cpu_parts_s": children.ru_utime + children.ru_stime,
    "peak_rss_mb": max(me.ru_maxrss, children.ru_maxrss) / 1024,
    "peak_rss_parent_mb": me.ru_maxrss / 1024,
    "peak_rss_parts_mb": children.ru_maxrss / 1024,
}).decode())
"""


def _build_in_child(home: Path) -> dict:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", BUILD_CHILD, str(home)], capture_output=True, check=True)
    # The 1-minute load average at the end: a wall figure on a shared machine means little without it.
    return {**orjson.loads(done.stdout), "wall_s": time.perf_counter() - started, "load": os.getloadavg()[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--keep-index", action="store_true", help="reuse the index a previous run built")
    parser.add_argument("--search-only", action="store_true", help="time only search, on the index built before")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.search_only:
        for size in sizes:
            print(f"{size} sessions: " + ", ".join(f"{k} {v:.2f}" for k, v in search_only(size).items()))
        return
    results = {size: bench_size(size, keep_index=args.keep_index) for size in sizes}
    rows = list(next(iter(results.values())).keys())
    print(SOURCE_NOTE)
    print(
        "whole-process figures (cli_*, index_after_turn_ms and _cpu_ms, pass_ms): deja installed not editable in "
        f"{user_bin()}; CPU is the process's own user and system time, which a loaded machine disturbs less"
    )
    print(f"{'':34}" + "".join(f"{size:>14}" for size in sizes))
    for row in rows:
        print(f"{row:34}" + "".join(f"{results[size][row]:14.2f}" for size in sizes))
    if len(sizes) > 1:
        small, large = results[sizes[0]], results[sizes[-1]]
        print(
            f"search p50 ratio {sizes[-1]}/{sizes[0]}: {large['search_p50_ms'] / small['search_p50_ms']:.2f} (target < 1.3)"
        )
    figures.write("bench_index", results)


if __name__ == "__main__":
    main()
