"""What crash safety and damage checks cost: opening, refreshing and verifying the index.

    python bench/bench_durability.py [--sizes 1000,10000]

Every refresh checks segment sizes when it opens the index; ``deja index`` and
doctor also read every byte against its checksum (``refresh(verify=True)``).
Histories are generated once under ``bench/out/`` and reused (see bench_index.py).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import figures  # noqa: E402
from bench_index import OUT, history_for  # noqa: E402

from deja.core.index import Index, index_dir  # noqa: E402
from deja.core.indexer import refresh  # noqa: E402


def best_ms(action: Callable[[], object], runs: int = 7) -> tuple[float, float]:
    """Median and worst of ``runs`` timings, in milliseconds."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(1000 * (time.perf_counter() - started))
    return figures.percentile(times, 0.5), max(times)


def bench_size(size: int) -> dict[str, float]:
    """The figures at ``size``, on the index ``bench_index`` built (``bench/out/home-N``) when there is one: a second
    build of the same history would only repeat its build figure (at 100k, ~400 s of CPU); else on one built here."""
    history = history_for(size)
    home, build = OUT / f"home-{size}", 0.0
    if not (index_dir(home) / "manifest.msgpack").exists():
        home = OUT / f"durability-home-{size}"
        shutil.rmtree(home, ignore_errors=True)
    os.environ.update(history.environment(home))
    if home.name.startswith("durability-"):
        started = time.perf_counter()
        refresh(home, full=True)
        build = time.perf_counter() - started
    index = Index.open(home)
    open_p50, open_max = best_ms(lambda: Index.open(home))
    verify_p50, _ = best_ms(index.verify, runs=3)
    unchanged_p50, _ = best_ms(lambda: refresh(home), runs=3)
    verified_p50, _ = best_ms(lambda: refresh(home, verify=True), runs=3)
    return {
        "index_mb": index.size_bytes() / 1e6,
        "full_build_s": build,
        "open_p50_ms": open_p50,
        "open_max_ms": open_max,
        "checksums_all_segments_ms": verify_p50,
        "refresh_unchanged_ms": unchanged_p50,
        "refresh_verified_ms": verified_p50,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    sizes = [int(s) for s in parser.parse_args().sizes.split(",")]
    results = {size: bench_size(size) for size in sizes}
    print(f"{'':30}" + "".join(f"{size:>12}" for size in sizes))
    for row in next(iter(results.values())):
        print(f"{row:30}" + "".join(f"{results[size][row]:12.2f}" for size in sizes))


if __name__ == "__main__":
    main()
