"""Read throughput of the three Cursor readers, and peak memory as the history grows.

    python bench/bench_read.py [--sizes 10000,100000]

Each size is read in a fresh process through ``deja.core.history.read_history``
(every session of every store, merged as deja merges them) so that its peak
resident memory can be compared across sizes: a streaming reader's peak does
not grow with the history. The 100k history is about 2 GB of source.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def read_once() -> dict:
    """Run in the child: read everything, report counts, seconds and peak memory."""
    import resource
    from collections import Counter

    from deja.core.history import read_history

    problems: Counter[str] = Counter()
    started = time.perf_counter()
    sessions = messages = tool_calls = 0
    for session in read_history(problems):
        sessions += 1
        messages += len(session.messages)
        tool_calls += sum(len(m.tool_calls) for m in session.messages)
    return {
        "sessions": sessions,
        "messages": messages,
        "tool_calls": tool_calls,
        "seconds": time.perf_counter() - started,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "problems": sum(problems.values()),
    }


def bench_size(size: int) -> dict:
    from bench_index import history_for
    from generate import source_bytes

    history = history_for(size)
    env = {**os.environ, **history.environment(HERE / "out" / "unused-home")}
    out = subprocess.run([sys.executable, __file__, "--child"], env=env, capture_output=True, check=True)
    result = orjson.loads(out.stdout)
    result["source_mb"] = source_bytes(history) / 1e6
    result["mb_per_s"] = result["source_mb"] / result["seconds"]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        sys.stdout.write(orjson.dumps(read_once()).decode())
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    results = {size: bench_size(size) for size in sizes}
    import figures

    figures.write("bench_read", results)
    from generate import SOURCE_NOTE

    print(SOURCE_NOTE)
    print(f"{'':14}" + "".join(f"{size:>12}" for size in sizes))
    for row in ("source_mb", "sessions", "messages", "tool_calls", "seconds", "mb_per_s", "peak_rss_mb", "problems"):
        print(f"{row:14}" + "".join(f"{results[size][row]:12.1f}" for size in sizes))
    if len(sizes) > 1:
        print(
            f"peak memory ratio {sizes[-1]}/{sizes[0]}: {results[sizes[-1]]['peak_rss_mb'] / results[sizes[0]]['peak_rss_mb']:.2f}"
        )


if __name__ == "__main__":
    main()
